#pragma once

#include <bgtask/core/queue_name.hpp>
#include <bgtask/util/result.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

class TaskDir;

// A queue is a name shared by tasks started with `--queue NAME`; at most
// `slots` of them run at once, in order of creation. Its files in the task
// directory:
// - `queue-NAME.json`: the settings (`{"schema":1,"queue":NAME,"slots":N}`),
//   replaced atomically; a queue without one has 1 slot;
// - `queue-NAME.slot-K.lock` (K < slots): held (flock) by the supervisor of
//   the task running in slot K, for the life of its command; it holds that
//   task's ID, so that a slot whose supervisor died stays taken while the
//   command still runs;
// - `queue-NAME.lock`: held (flock) while a parked task is admitted, so
//   that two hand-offs never fill one slot twice.

inline constexpr std::size_t k_default_queue_slots = 1;
inline constexpr std::size_t k_max_queue_slots = 1000;
std::string queue_settings_file_name(std::string_view queue);
std::string queue_slot_file_name(std::string_view queue, std::size_t slot);
std::string queue_lock_file_name(std::string_view queue);

// The ID of the task a slot file was last given to ("" if none), and the
// writing of it by the holder of the slot's lock (`slot_fd`). Not synced:
// after a power cut no task runs.
std::string read_slot_occupant(int slot_fd);
void write_slot_occupant(int slot_fd, std::string_view id);

// The stored slot count of a queue, nullopt when it has no settings file.
using QueueSettings = Result<std::optional<std::size_t>>;

// Reads a queue's settings file (regular, owned by this user, small,
// schema 1, naming this queue, slots within 0..k_max_queue_slots); a
// failure says why a file is unusable.
QueueSettings load_queue_settings(const TaskDir& dir, std::string_view queue);

// The slots that apply: the stored count, else (no file, or an unusable
// one) k_default_queue_slots.
std::size_t slots_of(const QueueSettings& settings);

// The names a queue gives its slots (`queue Q --slots gpu0,gpu1`) and the
// variable that carries a running task's slot name besides BGTASK_SLOT
// (`--slot-env`), from the settings file's `slot_names` and `slot_env`.
struct SlotNaming
{
  std::vector<std::string> names; // empty: slot K is named K
  std::optional<std::string> env;
};

// A queue's slot naming; empty where its settings file has none or is
// unusable.
SlotNaming load_slot_naming(const TaskDir& dir, std::string_view queue);

// The name of slot `slot`: its name in `naming`, else its number.
std::string slot_name(const SlotNaming& naming, std::size_t slot);

// Replaces the settings file atomically and durably, holding `start.lock`
// (dir_lock.hpp; the caller must not hold it). Without `naming`, the
// stored names are kept while there are `slots` of them, and the variable
// always. Throws Error(failure).
void save_queue_settings(const TaskDir& dir, std::string_view queue, std::size_t slots,
                         const std::optional<SlotNaming>& naming = std::nullopt);

// The queues that have a settings file, sorted.
std::vector<std::string> scan_queue_names(const TaskDir& dir);

} // namespace bgtask
