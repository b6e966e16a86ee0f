#include <bgtask/store/atomic_file.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/owned_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_fingerprint.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/sha256.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr const char* k_key_file = "fingerprint.key";
constexpr std::size_t k_key_bytes = 32;

// The key; nullopt if there is none or it is unusable, with `problem` set
// (naming the errno) unless there simply is none yet.
std::optional<std::string> read_key(const TaskDir& dir, std::string& problem)
{
  problem.clear();
  using Status = OwnedFile::Status;
  const std::string path = dir.file_path(k_key_file);
  OwnedFile file = read_owned_file(dir, k_key_file, k_key_bytes);
  switch (file.status) {
  case Status::ok:
    if (file.text.size() == k_key_bytes) {
      return std::move(file.text);
    }
    break;
  case Status::missing:
    return std::nullopt;
  case Status::cannot_open:
    problem = "cannot open " + path + ": " + std::strerror(file.error);
    return std::nullopt;
  case Status::cannot_read:
    problem = "cannot read " + path + ": " + std::strerror(file.error);
    return std::nullopt;
  case Status::not_regular:
  case Status::other_owner:
  case Status::too_large:
    break;
  }
  problem = path + " is not a 32-byte regular file of this user; remove it to make a new key";
  return std::nullopt;
}

// Makes the key, holding the start lock (so cleanup never removes the temp
// of a live writer); create_file_atomically never replaces a key another
// start made first. Throws Error(failure) naming the errno.
void make_key(const TaskDir& dir)
{
  const auto guard = DirLock::acquire(dir, k_start_lock_file);
  std::string problem;
  if (read_key(dir, problem) || !problem.empty()) {
    return; // another start was first, or the caller reports the problem
  }
  std::string key(k_key_bytes, '\0');
  if (::getrandom(key.data(), key.size(), 0) != static_cast<ssize_t>(key.size())) {
    throw_system("cannot make " + dir.file_path(k_key_file) + " (getrandom)", errno);
  }
  create_file_atomically(dir, k_key_file, key);
}

// Appends one field as its length and its bytes, so no two different
// field lists encode alike.
void add_field(std::string& message, std::string_view field)
{
  message += std::to_string(field.size());
  message += ':';
  message += field;
}

} // namespace

Result<std::string> task_fingerprint(const TaskDir& dir, const LaunchRequest& request)
{
  std::string problem;
  auto key = read_key(dir, problem);
  if (!key && problem.empty()) {
    try {
      make_key(dir);
    } catch (const Error& e) {
      return Failure{e.what()};
    }
    key = read_key(dir, problem);
  }
  if (!key) {
    return Failure{problem.empty() ? dir.file_path(k_key_file) + " vanished as it was made"
                                   : problem};
  }
  const auto& record = request.record;
  std::string message = "bgtask-fingerprint-1";
  add_field(message, record.shell ? "shell" : "argv");
  add_field(message, std::to_string(record.command.size()));
  for (const auto& word : record.command) {
    add_field(message, word);
  }
  add_field(message, record.cwd);
  add_field(message, std::to_string(request.env_additions.size()));
  for (const auto& entry : request.env_additions) {
    add_field(message, entry);
  }
  add_field(message, request.timeout ? std::to_string(request.timeout->count()) : "none");
  return to_hex(hmac_sha256(*key, message));
}

} // namespace bgtask
