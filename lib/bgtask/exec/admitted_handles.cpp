#include <bgtask/core/task_id.hpp>
#include <bgtask/exec/admitted_handles.hpp>
#include <bgtask/util/decimal_count.hpp>

namespace bgtask {

std::vector<std::string> supervise_words(const AdmittedHandles& handles)
{
  std::vector<std::string> words{handles.id, std::to_string(handles.lock_fd)};
  if (handles.slot_fd) {
    words.push_back(std::to_string(*handles.slot_fd));
    words.push_back(std::to_string(handles.slot_index));
  }
  return words;
}

Result<AdmittedHandles> parse_supervise_words(const std::vector<std::string>& words)
{
  if ((words.size() != 2 && words.size() != 4) || !is_task_id(words[0])) {
    return Failure{"expected ID LOCK_FD [SLOT_FD SLOT_INDEX]"};
  }
  AdmittedHandles handles;
  handles.id = words[0];
  const auto lock_fd = parse_decimal<int>(words[1]);
  if (!lock_fd || *lock_fd < 3) {
    return Failure{"not a descriptor: " + words[1]};
  }
  handles.lock_fd = *lock_fd;
  if (words.size() == 4) {
    const auto slot_fd = parse_decimal<int>(words[2]);
    const auto index = parse_decimal<std::size_t>(words[3]);
    if (!slot_fd || *slot_fd < 3 || *slot_fd == *lock_fd || !index) {
      return Failure{"not a slot descriptor and index: " + words[2] + " " + words[3]};
    }
    handles.slot_fd = *slot_fd;
    handles.slot_index = *index;
  }
  return handles;
}

} // namespace bgtask
