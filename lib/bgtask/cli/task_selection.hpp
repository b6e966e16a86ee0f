#pragma once

#include <bgtask/cli/command_line.hpp>
#include <bgtask/core/task_record.hpp>

#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// How `wait`, `status`, `cancel` and `output --follow` pick their tasks:
// IDs given as arguments, plus the newest task of a name (--name; every
// element of a Slurm array), every task of a name (--all-named) or of a
// queue (--queue).

// Adds --name N, --all-named N and --queue Q to `options`.
void add_selection_options(po::options_description& options);

// Whether --name, --all-named or --queue was given.
bool selects_by_record(const po::variables_map& vm);

// The IDs selected: `prefixes` resolved, then the tasks --name, --all-named
// and --queue select, oldest first, each once.
// Throws Error(usage) if nothing is selected (an empty queue included).
std::vector<std::string> select_tasks(const TaskDir& dir, const po::variables_map& vm,
                                      const std::vector<std::string>& prefixes);

// select_tasks, with the records read to select by --name, --all-named or
// --queue (those of the tasks selected, in the order of `ids`; none for IDs
// given as arguments).
struct TaskSelection
{
  std::vector<std::string> ids;
  std::vector<TaskRecord> read;
};
TaskSelection select_tasks_and_records(const TaskDir& dir, const po::variables_map& vm,
                                       const std::vector<std::string>& prefixes);

} // namespace bgtask
