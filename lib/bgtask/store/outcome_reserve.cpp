#include <bgtask/core/record_json.hpp>
#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/fd_io.hpp>

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr off_t k_reserve_bytes = 64 * 1024;
constexpr off_t k_note_bytes = 16 * 1024;

} // namespace

int reserve_outcome_space(const TaskLock& lock)
{
  while (::fallocate(lock.fd(), 0, 0, k_reserve_bytes) != 0) {
    if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

void release_outcome_space(const TaskLock& lock)
{
  struct stat st
  {
  };
  if (::fstat(lock.fd(), &st) == 0 && st.st_size > k_note_bytes) {
    ::ftruncate(lock.fd(), k_note_bytes);
  }
}

void drop_outcome_reserve(const TaskLock& lock)
{
  ::ftruncate(lock.fd(), 0);
}

void write_outcome_note(const TaskLock& lock, const TaskRecord& final_record)
{
  const std::string note = encode_record(final_record);
  if (note.size() > static_cast<std::size_t>(k_note_bytes)) {
    return;
  }
  if (pwrite_all(lock.fd(), note, 0) == 0) {
    static_cast<void>(sync_fd(lock.fd(), SyncWhat::all));
  }
}

std::optional<TaskRecord> read_outcome_note(const TaskLock& lock, std::string_view id)
{
  std::string text(static_cast<std::size_t>(k_note_bytes), '\0');
  ssize_t n = 0;
  while ((n = ::pread(lock.fd(), text.data(), text.size(), 0)) < 0 && errno == EINTR) {
  }
  if (n <= 0) {
    return std::nullopt;
  }
  text.resize(static_cast<std::size_t>(n));
  // A note is one JSON line; what follows it is preallocated zeros.
  if (const auto end = text.find('\n'); end != std::string::npos) {
    text.resize(end + 1);
  }
  auto record = decode_record(text);
  if (!record || record->id != id || !is_final(record->state)) {
    return std::nullopt;
  }
  return std::move(record).value();
}

} // namespace bgtask
