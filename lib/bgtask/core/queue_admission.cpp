#include <bgtask/core/queue_admission.hpp>

namespace bgtask {

bool must_wait_for_turn(const TaskRecord& record)
{
  return record.queue.has_value() || !record.after.empty();
}

bool is_parked(const TaskRecord& record)
{
  return record.state == TaskState::queued && record.waiting_for.has_value() && !record.owner &&
         record.executor == k_local_executor;
}

WaitingFor first_wait(const TaskRecord& record)
{
  return record.after.empty() ? WaitingFor::slot : WaitingFor::after;
}

std::string waiting_text(const TaskRecord& record)
{
  if (record.waiting_for == WaitingFor::after) {
    return "waiting for " + std::to_string(record.after.size()) +
           (record.after.size() == 1 ? " task" : " tasks");
  }
  return "waiting for a slot in queue " + record.queue.value_or("");
}

DependencyState dependency_state(const TaskRecord& dependency)
{
  if (!is_final(dependency.state)) {
    return DependencyState::waiting;
  }
  return dependency.state == TaskState::succeeded ? DependencyState::succeeded
                                                  : DependencyState::failed;
}

} // namespace bgtask
