#include <bgtask/core/queue_admission.hpp>

#include <algorithm>

namespace bgtask {

bool waits_ahead(const TaskRecord& other, std::string_view id)
{
  return other.state == TaskState::queued && other.id < id &&
         other.waiting_for != WaitingFor::after;
}

bool may_take_slot(std::string_view id, const std::vector<const TaskRecord*>& others,
                   std::size_t slots)
{
  std::size_t running = 0;
  for (const TaskRecord* other : others) {
    if (waits_ahead(*other, id)) {
      return false;
    }
    if (other->state == TaskState::running) {
      ++running;
    }
  }
  return running < slots;
}

} // namespace bgtask
