#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/line_pattern.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace bgtask {

class TaskDir;

// What `wait --until-output/--until-port/--idle` (and the MCP `wait` tool)
// waits for in one running task. until_output and until_port exclude each
// other; idle may go with either.
struct WaitCondition
{
  std::optional<LinePattern> until_output; // a line of output in which it occurs
  std::optional<std::uint16_t> until_port; // a process of the task listening on this TCP port
  std::optional<Milliseconds> idle;        // no output for this long while the task runs
};

// Compiles `pattern` (RE2 syntax) for WaitCondition::until_output;
// throws Error(usage) naming `option` if it is not a valid expression.
LinePattern compile_output_pattern(const std::string& pattern, const std::string& option);

enum class ConditionEnd {
  met,         // the line is in the output, or the port is listened on
  idle,        // the task printed nothing for `idle` while it ran
  task_ended,  // the task is final and the condition was not met
  gave_up,     // the limit passed first
  interrupted, // a caught interrupt arrived first
};

struct ConditionResult
{
  ConditionEnd end = ConditionEnd::gave_up;
  TaskRecord record;         // the task's record when the wait ended
  std::string line;          // until_output: the matching line (escape sequences removed)
  std::uint64_t offset = 0;  // until_output: where the line after the match starts;
                             // else the output's length when the wait ended
  Milliseconds quiet_for{0}; // how long the task had printed nothing when the wait ended
};

// How a server steers a wait: it ends as interrupted once `stop_fd` is
// readable, `report` is called about every `report_every` while it lasts,
// and it forks nothing (its watch is not handed to a holder process).
struct WaitHooks
{
  int stop_fd = -1;
  Milliseconds report_every{0};
  std::function<void(const ConditionResult&)> report; // may be empty
};

// Waits until `condition` holds for task `id`, the task ends, `limit`
// passes or (Interrupts::end_wait) an interrupt arrives. Output is read
// once, from the start, as it grows: lines split across writes are joined
// before matching, a line longer than the pattern's window (256 KiB for
// most) is matched in windows overlapping by half (LineMatcher: a match of
// up to half a window is found anywhere, the line's tail is matched last),
// and a final line without a newline counts once the task is final. Reading
// and matching stop every 50 ms to heed `limit` and interrupts.
// Wakes on inotify (output and records) and the supervisor's pidfd; a port
// is checked on every wake-up and at least every second (100 ms at first).
// Idleness counts from the output file's modification time.
ConditionResult wait_for_condition(const TaskDir& dir, const std::string& id,
                                   const WaitCondition& condition,
                                   std::optional<Milliseconds> limit, Interrupts interrupts,
                                   const WaitHooks* hooks = nullptr);

} // namespace bgtask
