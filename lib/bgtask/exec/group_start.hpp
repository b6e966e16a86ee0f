#pragma once

#include <bgtask/exec/start_task.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// One task of a group start (`start --each-line`, a local `--array`): the
// text that replaces `{}` in each word of the command (never in a `-c`
// string: no item reaches a shell that way; nullopt: no word is changed) and
// the variables it gets (BGTASK_ITEM=..., BGTASK_ARRAY_INDEX=...).
struct GroupItem
{
  std::optional<std::string> text;
  std::vector<std::string> env;
};

// How many tasks one sync makes durable together.
inline constexpr std::size_t k_group_sync_size = 1024;

// Called with the IDs of each group once they are durable, in input order.
using DurableIds = std::function<void(const std::vector<std::string>&)>;

// Starts a task per item, in order, sharing the plan's options (--name: the
// tasks share the name). Each record's `group` is `group`, or else the ID
// of the first task this call starts. Tasks that wait (--queue, --after) of the local
// executor are made durable k_group_sync_size at a time (their files, then
// one sync: create_records) and then handed off; any other task is started
// on its own, as `start` does. `first_index` is the number of input items
// skipped before `items` (--resume). Throws Error(failure) once a task
// cannot be started, saying how many were and with which `--resume N` to
// go on; Error(usage) for --dedupe or --max-running, which a group cannot
// honour task by task.
void start_group(const TaskDir& dir, StartPlan plan, const std::vector<GroupItem>& items,
                 std::size_t first_index, std::optional<std::string> group,
                 const DurableIds& on_durable);

} // namespace bgtask
