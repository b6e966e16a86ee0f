#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace bgtask {

// The files a task owns in the task directory.
enum class TaskFileKind { status, output, lock, outcome, temp };

std::string status_file_name(std::string_view id);
std::string output_file_name(std::string_view id);
std::string lock_file_name(std::string_view id);
// `ID.outcome.json`: how a Slurm job's command ended, written by the job
// itself (slurm_outcome_file.hpp).
std::string outcome_file_name(std::string_view id);

// A hidden, never-valid-ID temp name next to `target` (`.TARGET.<16 hex>.tmp`).
std::string temp_file_name(std::string_view target);

struct TaskFileName
{
  std::string id;
  TaskFileKind kind;
};

// Classifies a directory entry; nullopt for anything that is not a task
// file (including `.nfs*` and names with a malformed ID).
std::optional<TaskFileName> parse_task_file_name(std::string_view name);

} // namespace bgtask
