#pragma once

#include <bgtask/util/unique_fd.hpp>

namespace bgtask {

class TaskDir;

enum class CreateFolder { no, yes };

// `.cache` in a task directory: derived files that spare a command work
// (list's index, the newest task ID), never the truth. A folder of its own,
// so that writing them leaves the task directory's times alone.

// The cache folder of `dir` (created 0700 if `create` says so), or an
// invalid descriptor where it is missing, not a directory or not the
// directory owner's alone.
UniqueFd open_cache_folder(const TaskDir& dir, CreateFolder create);

// A folder `name` of `dir` that only the directory's owner may use, as
// open_cache_folder opens `.cache`; with CreateFolder::yes a folder it
// made is made durable (the task directory fsynced) before it returns.
UniqueFd open_private_folder(const TaskDir& dir, const char* name, CreateFolder create);

} // namespace bgtask
