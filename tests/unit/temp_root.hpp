#pragma once

// A scratch directory for one unit test.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

// Creates /tmp/bgtask-LABEL.XXXXXX; removes it and all it holds when it
// goes, unless the current test has failed: then it is kept for a look and
// its path printed.
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
    if (::testing::Test::HasFailure()) {
      std::cerr << "kept the scratch directory of the failed test: " << m_path.string() << '\n';
      return;
    }
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
