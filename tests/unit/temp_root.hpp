#pragma once

// A scratch directory for one unit test.

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

// Creates /tmp/bgtask-LABEL.XXXXXX; removes it and all it holds when it goes.
class TempRoot
{
public:
  explicit TempRoot(const std::string& label)
  {
    std::string pattern = "/tmp/bgtask-" + label + ".XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed for " + pattern);
    }
    m_path = pattern;
  }
  ~TempRoot()
  {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

private:
  std::filesystem::path m_path;
};
