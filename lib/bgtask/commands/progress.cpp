#include <bgtask/cli/command_line.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>

#include <cmath>
#include <cstdlib>

namespace bgtask {

namespace {

constexpr std::size_t k_max_message_bytes = 1024;

double parse_percent(const std::string& text)
{
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0 || value > 100) {
    throw_usage("invalid --percent '" + text.substr(0, 40) + "': expected a number from 0 to 100");
  }
  return value;
}

// `update` laid over `last`: each field given replaces the last one.
Progress merge_progress(const std::optional<Progress>& last, const Progress& update)
{
  if (!last) {
    return update;
  }
  Progress merged = *last;
  merged.percent = update.percent ? update.percent : last->percent;
  merged.current = update.current ? update.current : last->current;
  merged.total = update.total ? update.total : last->total;
  merged.message = update.message ? update.message : last->message;
  return merged;
}

void refuse_current_above_total(const Progress& progress)
{
  if (progress.current && progress.total && *progress.current > *progress.total) {
    throw_usage("--current " + std::to_string(*progress.current) + " is more than --total " +
                std::to_string(*progress.total));
  }
}

} // namespace

po::options_description progress_options()
{
  po::options_description options;
  options.add_options()("percent", po::value<std::string>(), "percentage done, 0 to 100")(
    "current", po::value<std::string>(), "units done so far")("total", po::value<std::string>(),
                                                              "units in all")(
    "message", po::value<std::string>(), "what the task is doing now (at most 1024 bytes)");
  return options;
}

int run_progress(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  Progress progress;
  if (auto text = optional_value<std::string>(vm, "percent")) {
    progress.percent = parse_percent(*text);
  }
  if (auto text = optional_value<std::string>(vm, "current")) {
    progress.current = static_cast<std::int64_t>(value_or_usage(parse_count(*text, "--current")));
  }
  if (auto text = optional_value<std::string>(vm, "total")) {
    progress.total = static_cast<std::int64_t>(value_or_usage(parse_count(*text, "--total")));
  }
  progress.message = optional_value<std::string>(vm, "message");
  if (progress.message && progress.message->size() > k_max_message_bytes) {
    throw_usage("--message is longer than 1024 bytes");
  }
  if (!progress.percent && !progress.current && !progress.total && !progress.message) {
    throw_usage("bgtask progress: give --percent, --current/--total or --message");
  }
  refuse_current_above_total(progress);
  auto prefix = optional_value<std::string>(vm, "id");
  if (!prefix) {
    const char* own = std::getenv("BGTASK_ID");
    if (own == nullptr || *own == '\0') {
      throw_usage("bgtask progress: give a task ID (BGTASK_ID is not set)");
    }
    prefix = own;
  }
  // A malformed ID is refused before the directory is touched (or created).
  check_task_id_prefix(*prefix);
  const TaskDir dir = open_task_dir(global);
  const std::string id = resolve_task_id(dir, *prefix);
  auto lock = TaskLock::open_existing(dir, id);
  if (!lock) {
    throw Error(ExitCode::failure, "task " + id + " has no lock file");
  }
  std::optional<TaskState> ended;
  const auto update = update_record(dir, *lock, id, [&](TaskRecord& current) {
    if (is_final(current.state)) {
      ended = current.state;
      return Change::keep;
    }
    Progress merged = merge_progress(current.progress, progress);
    refuse_current_above_total(merged);
    merged.updated_at = now();
    current.progress = merged;
    add_event(current, "progress", progress.message);
    return Change::save;
  });
  if (update.status == UpdateStatus::gone) {
    throw Error(ExitCode::failure, "task " + id + " was removed");
  }
  if (update.status == UpdateStatus::corrupt) {
    throw Error(ExitCode::failure, "cannot read the record of task " + id + ": " + update.reason);
  }
  if (ended) {
    throw Error(ExitCode::failure,
                "task " + id + " is not running (" + std::string(to_string(*ended)) + ")");
  }
  return 0;
}

} // namespace bgtask
