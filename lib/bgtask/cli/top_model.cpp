#include <bgtask/cli/record_view.hpp>
#include <bgtask/cli/top_model.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>

namespace bgtask {

namespace {

std::optional<double> percent_of(const TaskRecord& record)
{
  if (!record.progress) {
    return std::nullopt;
  }
  const Progress& p = *record.progress;
  if (p.percent) {
    return std::clamp(*p.percent, 0.0, 100.0);
  }
  if (p.current && p.total && *p.total > 0) {
    return std::clamp(100.0 * static_cast<double>(*p.current) / static_cast<double>(*p.total), 0.0,
                      100.0);
  }
  return std::nullopt;
}

} // namespace

bool is_failure_state(TaskState state)
{
  return state == TaskState::failed || state == TaskState::timed_out || state == TaskState::lost;
}

TopTask top_task(const TaskRecord& record)
{
  TopTask task;
  task.id = escape_table_cell(record.id);
  task.name = escape_table_cell(record.name ? *record.name : command_text(record));
  task.state = record.state;
  task.paused = record.pause.paused;
  task.queue = record.queue ? escape_table_cell(*record.queue) : std::string();
  task.percent = percent_of(record);
  task.info = is_final(record.state) ? escape_table_cell(outcome_text(record)) : list_info(record);
  if (record.state == TaskState::failed && record.reason) {
    task.info += ", " + escape_table_cell(*record.reason);
  }
  task.started = record.started_at ? format_local_time(*record.started_at) : "-";
  if (const auto space = task.started.rfind(' '); space != std::string::npos) {
    task.started.erase(0, space + 1); // the time of day only
  }
  task.created_at = record.created_at;
  task.finished_at = record.finished_at;
  return task;
}

StateFilter next_state_filter(StateFilter filter)
{
  switch (filter) {
  case StateFilter::all:
    return StateFilter::running;
  case StateFilter::running:
    return StateFilter::queued;
  case StateFilter::queued:
    return StateFilter::ended;
  case StateFilter::ended:
    return StateFilter::failed;
  case StateFilter::failed:
    return StateFilter::all;
  }
  return StateFilter::all;
}

std::string_view state_filter_name(StateFilter filter)
{
  switch (filter) {
  case StateFilter::all:
    return "all";
  case StateFilter::running:
    return "running";
  case StateFilter::queued:
    return "queued";
  case StateFilter::ended:
    return "ended";
  case StateFilter::failed:
    return "failed";
  }
  return "all";
}

std::optional<StateFilter> parse_state_filter(std::string_view name)
{
  for (auto filter = StateFilter::all;;) {
    if (state_filter_name(filter) == name) {
      return filter;
    }
    filter = next_state_filter(filter);
    if (filter == StateFilter::all) {
      return std::nullopt;
    }
  }
}

bool TopFilter::matches(const TopTask& task) const
{
  if (!name.empty() && task.name.find(name) == std::string::npos &&
      task.id.find(name) == std::string::npos) {
    return false;
  }
  switch (state) {
  case StateFilter::all:
    return true;
  case StateFilter::running:
    return task.state == TaskState::running;
  case StateFilter::queued:
    return task.state == TaskState::queued;
  case StateFilter::ended:
    return is_final(task.state);
  case StateFilter::failed:
    return is_failure_state(task.state);
  }
  return true;
}

void TopModel::update(const TaskRecord& record)
{
  m_tasks[record.id] = top_task(record);
  if (!is_final(record.state)) {
    return;
  }
  std::vector<const TopTask*> ended;
  for (const auto& [id, task] : m_tasks) {
    if (is_final(task.state)) {
      ended.push_back(&task);
    }
  }
  if (ended.size() <= k_top_ended_tasks) {
    return;
  }
  const auto oldest = std::min_element(ended.begin(), ended.end(), [](auto* a, auto* b) {
    return a->finished_at.value_or(a->created_at) < b->finished_at.value_or(b->created_at);
  });
  m_tasks.erase((*oldest)->id);
}

void TopModel::remove(const std::string& id)
{
  m_tasks.erase(id);
}

void TopModel::set_slots(const std::string& queue, std::size_t slots)
{
  m_slots[queue] = slots;
}

bool TopModel::knows_queue(const std::string& queue) const
{
  return m_slots.contains(queue);
}

void TopModel::add_event(TopEvent event)
{
  m_events.push_back(std::move(event));
  while (m_events.size() > k_top_events) {
    m_events.pop_front();
  }
}

std::vector<const TopTask*> TopModel::rows(const TopFilter& filter) const
{
  std::vector<const TopTask*> rows;
  for (const auto& [id, task] : m_tasks) {
    if (filter.matches(task)) {
      rows.push_back(&task);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const TopTask* a, const TopTask* b) {
    const bool a_open = !is_final(a->state);
    const bool b_open = !is_final(b->state);
    if (a_open != b_open) {
      return a_open;
    }
    if (a_open) {
      if ((a->state == TaskState::running) != (b->state == TaskState::running)) {
        return a->state == TaskState::running;
      }
      return a->created_at < b->created_at;
    }
    return a->finished_at.value_or(a->created_at) > b->finished_at.value_or(b->created_at);
  });
  return rows;
}

std::vector<QueueUse> TopModel::queues() const
{
  std::map<std::string, QueueUse> uses;
  for (const auto& [queue, slots] : m_slots) {
    uses[queue] = QueueUse{queue, 0, 0, slots};
  }
  for (const auto& [id, task] : m_tasks) {
    if (task.queue.empty() || is_final(task.state)) {
      continue;
    }
    QueueUse& use = uses[task.queue];
    use.name = task.queue;
    ++(task.state == TaskState::running ? use.running : use.queued);
  }
  std::vector<QueueUse> out;
  out.reserve(uses.size());
  for (auto& [name, use] : uses) {
    out.push_back(std::move(use));
  }
  return out;
}

std::size_t TopModel::count(TaskState state) const
{
  return static_cast<std::size_t>(
    std::count_if(m_tasks.begin(), m_tasks.end(),
                  [&](const auto& entry) { return entry.second.state == state; }));
}

} // namespace bgtask
