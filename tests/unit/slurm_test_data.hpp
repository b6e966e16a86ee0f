#pragma once

// Reads the captured Slurm outputs in tests/data/slurm/ (scripts/slurm-capture).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace slurm_test_data {

inline std::string read(const std::string& name)
{
  const auto path = std::filesystem::path(BGTASK_TEST_DATA_DIR) / "slurm" / name;
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("missing test data " + path.string());
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace slurm_test_data
