#pragma once

#include <sys/types.h>
#include <utility>

namespace bgtask {

// Owns one file descriptor. The destructor closes it (ignoring errors);
// call close() where a close error matters.
class UniqueFd
{
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd)
    : m_fd(fd)
  {
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
  {
  }
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  ~UniqueFd();

  int get() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  explicit operator bool() const { return valid(); }

  // Gives up ownership and returns the descriptor.
  int release() { return std::exchange(m_fd, -1); }

  // Closes the descriptor; returns 0 or the errno of close(2).
  int close();

private:
  int m_fd = -1;
};

// openat(2) that retries when interrupted: the new descriptor, or an invalid
// one with errno set.
UniqueFd open_at(int dir_fd, const char* name, int flags, mode_t mode = 0);

// pipe2(2) with O_CLOEXEC (plus `extra_flags`, e.g. O_NONBLOCK) into two
// owned ends; false with errno set (and both ends untouched) on failure.
bool make_pipe(UniqueFd& read_end, UniqueFd& write_end, int extra_flags = 0);

} // namespace bgtask
