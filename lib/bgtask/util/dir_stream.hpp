#pragma once

#include <dirent.h>
#include <utility>

namespace bgtask {

// Owns one directory stream (a DIR*); the destructor closes it.
class DirStream
{
public:
  DirStream() = default;
  DirStream(const DirStream&) = delete;
  DirStream& operator=(const DirStream&) = delete;
  DirStream(DirStream&& other) noexcept
    : m_stream(std::exchange(other.m_stream, nullptr))
  {
  }
  DirStream& operator=(DirStream&& other) noexcept;
  ~DirStream();

  // The directory `dir_fd` refers to, read through a descriptor of its own
  // (dir_fd stays open and unmoved); an invalid stream with errno set on failure.
  static DirStream open_at(int dir_fd);

  // The directory at `path`; an invalid stream with errno set on failure.
  static DirStream open(const char* path);

  explicit operator bool() const { return m_stream != nullptr; }

  // The next entry, or nullptr at the end (readdir(3)).
  const dirent* next() { return ::readdir(m_stream); }

private:
  explicit DirStream(DIR* stream)
    : m_stream(stream)
  {
  }

  DIR* m_stream = nullptr;
};

} // namespace bgtask
