#pragma once

#include <bgtask/util/result.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

// What a hand-off passes to the supervisor it starts for a parked task it
// admitted: the task, and the inherited descriptors of its claims. The
// supervisor is a fresh `bgtask --dir DIR __supervise WORDS...` (exec), so
// its process image never depends on how long the line before it was.
struct AdmittedHandles
{
  std::string id;
  int lock_fd = -1;           // `ID.lock`, its ownership lock held
  std::optional<int> slot_fd; // the queue slot's lock file, locked
  std::size_t slot_index = 0; // which slot of the task's queue
};

// The words after `__supervise`: ID LOCK_FD [SLOT_FD SLOT_INDEX].
std::vector<std::string> supervise_words(const AdmittedHandles& handles);

// The reverse of supervise_words; a failure says what is malformed.
Result<AdmittedHandles> parse_supervise_words(const std::vector<std::string>& words);

} // namespace bgtask
