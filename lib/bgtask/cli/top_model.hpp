#pragma once

#include <bgtask/core/task_record.hpp>

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// What `bgtask top` knows, without a terminal: the tasks, queues and latest
// events it shows, kept up to date from the event stream, and the filter a
// person chose. cli/top_layout makes lines of it; cli/top_screen paints them.

// What `top` shows of one task, taken from its record; text is escaped.
struct TopTask
{
  std::string id;
  std::string name; // the name, else the command shortened
  TaskState state = TaskState::running;
  bool paused = false;
  std::string queue;             // empty: none
  std::optional<double> percent; // the last progress, 0-100
  std::string info;              // list's INFO: progress, why it waits, why it failed
  std::string started;           // local time of day, or `-`
  TimePoint created_at;
  std::optional<TimePoint> finished_at;
};

// True for the states `top` highlights: failed, timed_out, lost.
bool is_failure_state(TaskState state);

// The row `top` shows for `record`.
TopTask top_task(const TaskRecord& record);

// Which states the state filter lets through (the `s` key cycles them).
enum class StateFilter { all, running, queued, ended, failed };

// The next filter in the cycle all, running, queued, ended, failed.
StateFilter next_state_filter(StateFilter filter);
std::string_view state_filter_name(StateFilter filter);
// The filter state_filter_name calls `name`; nullopt for another name.
std::optional<StateFilter> parse_state_filter(std::string_view name);

// What the person chose to see: tasks whose name or ID contains `name`,
// in the states `state` lets through.
struct TopFilter
{
  std::string name;
  StateFilter state = StateFilter::all;
  bool matches(const TopTask& task) const;
};

// A queue's slots in use (running tasks), tasks waiting and slots in all.
struct QueueUse
{
  std::string name;
  std::size_t running = 0;
  std::size_t queued = 0;
  std::size_t slots = 0;
};

// One line of the event pane: a failure (failed, timed out, lost) is
// highlighted.
struct TopEvent
{
  std::string text; // escaped
  bool failure = false;
};

// The most finished tasks and events `top` keeps; the oldest go first.
inline constexpr std::size_t k_top_ended_tasks = 50;
inline constexpr std::size_t k_top_events = 100;

// The tasks, queues and latest events, kept up to date from the stream.
class TopModel
{
public:
  // Adds or replaces the task of `record`.
  void update(const TaskRecord& record);
  // Forgets a task (cleaned up).
  void remove(const std::string& id);
  // Records how many slots `queue` has.
  void set_slots(const std::string& queue, std::size_t slots);
  // True if the slots of `queue` are known.
  bool knows_queue(const std::string& queue) const;
  // Appends a line to the event pane.
  void add_event(TopEvent event);

  // The tasks `filter` lets through: running and queued first, oldest
  // first, then the finished ones, the latest first.
  std::vector<const TopTask*> rows(const TopFilter& filter) const;
  // Every queue of a shown or unfinished task, by name.
  std::vector<QueueUse> queues() const;
  const std::deque<TopEvent>& events() const { return m_events; }
  // How many tasks are in `state` (paused ones count as running).
  std::size_t count(TaskState state) const;

private:
  std::map<std::string, TopTask> m_tasks;
  std::map<std::string, std::size_t> m_slots;
  std::deque<TopEvent> m_events;
};

} // namespace bgtask
