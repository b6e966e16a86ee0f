// The ID grammar, the task-file name classifier and the prefix resolver on
// arbitrary bytes, against a small task directory made once per run. An
// accepted ID or prefix must be in the grammar; a resolved ID must be a
// full ID that starts with the prefix; a classified file name must be
// exactly an ID plus a task-file suffix (or a temp name built on an ID).

#include <bgtask/core/task_id.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>

#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

// IDs planted as empty record files: two share a 6-character prefix.
constexpr std::string_view k_ids[] = {"0a1b2c3d4e5f", "0a1b2cxyzxyz", "7zzzzzzzzzzz",
                                      "abcdefghjkmn"};

std::string g_path;
std::optional<bgtask::TaskDir> g_dir;

void remove_directory()
{
  g_dir.reset();
  std::error_code ec;
  std::filesystem::remove_all(g_path, ec);
}

void check_file_name(std::string_view name)
{
  const auto file = bgtask::parse_task_file_name(name);
  if (!file) {
    return;
  }
  if (!bgtask::is_task_id(file->id)) {
    std::abort();
  }
  std::string rebuilt;
  switch (file->kind) {
  case bgtask::TaskFileKind::status:
    rebuilt = bgtask::status_file_name(file->id);
    break;
  case bgtask::TaskFileKind::output:
    rebuilt = bgtask::output_file_name(file->id);
    break;
  case bgtask::TaskFileKind::lock:
    rebuilt = bgtask::lock_file_name(file->id);
    break;
  case bgtask::TaskFileKind::outcome:
    rebuilt = bgtask::outcome_file_name(file->id);
    break;
  case bgtask::TaskFileKind::temp:
    if (!name.starts_with("." + file->id + ".") || !name.ends_with(".tmp") ||
        name.find('/') != std::string_view::npos) {
      std::abort();
    }
    return;
  }
  if (rebuilt != name) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  char pattern[] = "/tmp/bgtask-fuzz-task-id.XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    std::abort();
  }
  g_path = pattern;
  g_dir.emplace(bgtask::TaskDir::open(g_path));
  for (const auto id : k_ids) {
    const auto name = bgtask::status_file_name(id);
    const int fd = ::openat(g_dir->fd(), name.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::abort();
    }
    ::close(fd);
  }
  std::atexit(remove_directory);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (bgtask::is_task_id(text) && !bgtask::is_task_id_prefix(text)) {
    std::abort();
  }
  const bool valid_prefix = bgtask::is_task_id_prefix(text);
  if (valid_prefix &&
      (text.find_first_of("./\n") != std::string_view::npos || text.starts_with('-'))) {
    std::abort();
  }
  check_file_name(text);
  try {
    const std::string id = bgtask::resolve_task_id(*g_dir, text);
    if (!valid_prefix || !bgtask::is_task_id(id) || !id.starts_with(text)) {
      std::abort();
    }
  } catch (const bgtask::Error& e) {
    if (e.code() != bgtask::ExitCode::usage) {
      std::abort();
    }
  }
  return 0;
}
