// A main for the fuzz targets without libFuzzer (gcc builds): calls the
// target's LLVMFuzzerInitialize if it has one, runs the target once on
// every file of each directory named, in name order, and fails when there
// was none. A crashing input ends the process, as it would under libFuzzer.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Defined only by the targets that set something up first (weak: null otherwise).
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

// The regular files of `dir`, sorted by name.
std::vector<std::filesystem::path> inputs_in(const std::filesystem::path& dir)
{
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void replay(const std::filesystem::path& file)
{
  std::ifstream in(file, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in.good() && !in.eof()) {
    throw std::runtime_error("cannot read " + file.string());
  }
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

} // namespace

int main(int argc, char** argv)
{
  if (LLVMFuzzerInitialize != nullptr) {
    LLVMFuzzerInitialize(&argc, &argv);
  }
  std::size_t replayed = 0;
  try {
    for (int i = 1; i < argc; ++i) {
      for (const auto& file : inputs_in(argv[i])) {
        replay(file);
        ++replayed;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "replay: " << e.what() << '\n';
    return 1;
  }
  std::cout << "replayed " << replayed << " inputs\n";
  return replayed == 0 ? 1 : 0;
}
