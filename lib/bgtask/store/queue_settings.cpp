#include <bgtask/store/atomic_file.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/owned_file.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/json_fields.hpp>
#include <bgtask/util/json_text.hpp>
#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::string_view k_prefix = "queue-";
constexpr std::string_view k_settings_suffix = ".json";
constexpr int k_settings_schema = 1;
constexpr std::size_t k_max_settings_bytes = 4096;

QueueSettings corrupt(std::string reason)
{
  return Failure{std::move(reason)};
}

} // namespace

std::string queue_settings_file_name(std::string_view queue)
{
  return std::string(k_prefix) + std::string(queue) + std::string(k_settings_suffix);
}

std::string queue_slot_file_name(std::string_view queue, std::size_t slot)
{
  return std::string(k_prefix) + std::string(queue) + ".slot-" + std::to_string(slot) + ".lock";
}

std::string queue_lock_file_name(std::string_view queue)
{
  return std::string(k_prefix) + std::string(queue) + ".lock";
}

std::string read_slot_occupant(int slot_fd)
{
  char buffer[128];
  const ssize_t got = ::pread(slot_fd, buffer, sizeof buffer, 0);
  return got > 0 ? std::string(buffer, static_cast<std::size_t>(got)) : std::string();
}

void write_slot_occupant(int slot_fd, std::string_view id)
{
  if (::ftruncate(slot_fd, 0) == 0) {
    static_cast<void>(pwrite_all(slot_fd, id, 0));
  }
}

QueueSettings load_queue_settings(const TaskDir& dir, std::string_view queue)
{
  using Status = OwnedFile::Status;
  const OwnedFile file =
    read_owned_file(dir, queue_settings_file_name(queue), k_max_settings_bytes);
  switch (file.status) {
  case Status::ok:
    break;
  case Status::missing:
    return QueueSettings(std::nullopt);
  case Status::cannot_open:
  case Status::cannot_read:
    return corrupt(std::strerror(file.error));
  case Status::not_regular:
  case Status::other_owner:
    return corrupt("not a regular file of this user");
  case Status::too_large:
    return corrupt("larger than 4 KiB");
  }
  boost::json::error_code ec;
  const auto value = boost::json::parse(file.text, ec);
  const auto* object = !ec ? value.if_object() : nullptr;
  if (object == nullptr) {
    return corrupt("not a JSON object");
  }
  const auto field = [&](std::string_view key, auto read) {
    const auto* v = json_field(*object, key);
    return v != nullptr ? read(*v, key) : decltype(read(*v, key))(Failure{"missing"});
  };
  const auto schema = field("schema", json_as_integer);
  const auto named = field("queue", json_as_string);
  const auto slots = field("slots", json_as_integer);
  if (!schema || *schema != k_settings_schema) {
    return corrupt("unsupported schema");
  }
  if (!named || *named != queue) {
    return corrupt("names another queue");
  }
  if (!slots || *slots < 0 || *slots > static_cast<std::int64_t>(k_max_queue_slots)) {
    return corrupt("slots must be a whole number from 0 to 1000");
  }
  return std::optional(static_cast<std::size_t>(*slots));
}

std::size_t slots_of(const QueueSettings& settings)
{
  return settings ? settings->value_or(k_default_queue_slots) : k_default_queue_slots;
}

SlotNaming load_slot_naming(const TaskDir& dir, std::string_view queue)
{
  SlotNaming naming;
  const OwnedFile file =
    read_owned_file(dir, queue_settings_file_name(queue), k_max_settings_bytes);
  boost::json::error_code ec;
  const auto value =
    file.status == OwnedFile::Status::ok ? boost::json::parse(file.text, ec) : boost::json::value();
  const auto* object = !ec ? value.if_object() : nullptr;
  if (object == nullptr) {
    return naming;
  }
  if (const auto* names = json_field(*object, "slot_names"); names && names->is_array()) {
    for (const auto& name : names->get_array()) {
      if (!name.is_string()) {
        return SlotNaming{};
      }
      naming.names.emplace_back(name.get_string());
    }
  }
  if (const auto* env = json_field(*object, "slot_env"); env && env->is_string()) {
    naming.env = std::string(env->get_string());
  }
  return naming;
}

std::string slot_name(const SlotNaming& naming, std::size_t slot)
{
  return slot < naming.names.size() ? naming.names[slot] : std::to_string(slot);
}

void save_queue_settings(const TaskDir& dir, std::string_view queue, std::size_t slots,
                         const std::optional<SlotNaming>& naming)
{
  boost::json::object o;
  o["schema"] = k_settings_schema;
  o["queue"] = std::string(queue);
  o["slots"] = slots;
  const auto guard = DirLock::acquire(dir, k_start_lock_file);
  SlotNaming kept = naming ? *naming : load_slot_naming(dir, queue);
  if (kept.names.size() == slots && !kept.names.empty()) {
    boost::json::array names;
    for (const auto& name : kept.names) {
      names.emplace_back(name);
    }
    o["slot_names"] = std::move(names);
  }
  if (kept.env) {
    o["slot_env"] = *kept.env;
  }
  replace_file_atomically(dir, queue_settings_file_name(queue), json_text(o) + "\n");
}

std::vector<std::string> scan_queue_names(const TaskDir& dir)
{
  DirStream stream = dir.entries();
  std::vector<std::string> names;
  while (const dirent* entry = stream.next()) {
    const std::string_view file(entry->d_name);
    if (file.starts_with(k_prefix) && file.ends_with(k_settings_suffix)) {
      const auto queue =
        file.substr(k_prefix.size(), file.size() - k_prefix.size() - k_settings_suffix.size());
      if (is_queue_name(queue)) {
        names.emplace_back(queue);
      }
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace bgtask
