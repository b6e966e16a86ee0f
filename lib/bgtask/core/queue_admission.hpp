#pragma once

#include <bgtask/core/task_record.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace bgtask {

// The queue's admission rule, pure. Slots go out first come, first served:
// the queue's order is the order of creation, which task IDs sort by.

// True if `other`, an unfinished task of the same queue, holds up the task
// `id`: it is older and queued for a slot (not for its --after tasks).
bool waits_ahead(const TaskRecord& other, std::string_view id);

// True if the task `id` may try to take one of the queue's `slots` now:
// none of `others` (the queue's other unfinished tasks) waits ahead of it,
// and fewer than `slots` of them run. (Taking a free slot lock is still
// needed: it makes the taking race-free.)
bool may_take_slot(std::string_view id, const std::vector<const TaskRecord*>& others,
                   std::size_t slots);

} // namespace bgtask
