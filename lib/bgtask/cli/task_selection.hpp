#pragma once

#include <bgtask/cli/command_line.hpp>

#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// How `wait` and `output --follow` pick their tasks: IDs given as
// arguments, plus every task with a name (--name) or of a queue (--queue).

// Adds --name N and --queue Q to `options`.
void add_selection_options(po::options_description& options);

// The IDs selected: `prefixes` resolved, then every task of the directory
// whose record has the --name or --queue given, oldest first, each once.
// Throws Error(usage) if nothing is selected (an empty queue included).
std::vector<std::string> select_tasks(const TaskDir& dir, const po::variables_map& vm,
                                      const std::vector<std::string>& prefixes);

} // namespace bgtask
