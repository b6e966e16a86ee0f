#include <bgtask/core/queue_name.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/start_plan.hpp>
#include <bgtask/proc/environment.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/util/byte_size.hpp>
#include <bgtask/util/decimal_count.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/paths.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <cstdlib>

namespace bgtask {

namespace {

constexpr std::size_t k_max_name_bytes = 256;
constexpr std::size_t k_max_command_bytes = 256 * 1024;
constexpr std::size_t k_max_on_exit_bytes = 64 * 1024;

// The value of environment variable `name`, if set and not empty.
std::optional<std::string> env_default(const char* name)
{
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::optional<std::string>(value) : std::nullopt;
}

// The command to run: `-c STRING` wrapped in /bin/sh, or the words after `--`.
std::vector<std::string> command_of(const StartOptions& options)
{
  if (options.shell && !options.command.empty()) {
    throw_usage("give either -c 'SHELL STRING' or -- CMD [ARG...], not both");
  }
  if (!options.shell && options.command.empty()) {
    throw_usage(
      "nothing to run: give -- CMD [ARG...] or -c 'SHELL STRING' (see bgtask start --help)");
  }
  auto command =
    options.shell ? std::vector<std::string>{"/bin/sh", "-c", *options.shell} : options.command;
  std::size_t bytes = 0;
  for (const auto& word : command) {
    bytes += word.size();
  }
  if (bytes > k_max_command_bytes || command.front().empty()) {
    throw_usage(command.front().empty() ? "the command name is empty"
                                        : "the command is too long to record (over 256 KiB)");
  }
  return command;
}

LaunchRequest request_of(const StartOptions& options)
{
  LaunchRequest request;
  auto& record = request.record;
  record.shell = options.shell.has_value();
  record.command = command_of(options);
  request.argv = record.command;
  if (options.name && options.name->size() > k_max_name_bytes) {
    throw_usage("--name is longer than 256 bytes");
  }
  record.name = options.name;
  // Normalised, so `--cwd ..` and its absolute form are one directory (--dedupe).
  record.cwd = options.cwd ? normalized_absolute(*options.cwd) : current_directory();
  request.env_additions = options.env;
  record.env_names = env_entry_names(options.env);
  request.timeout = options.timeout;
  if (request.timeout) {
    if (request.timeout->count() == 0) {
      throw_usage("--timeout must be greater than zero");
    }
    record.timeout_s = to_seconds(*request.timeout);
  }
  request.grace = options.grace.value_or(request.grace);
  record.grace_s = to_seconds(request.grace);
  if (options.max_output) {
    request.max_output = *options.max_output;
  } else if (const auto env = env_default("BGTASK_MAX_OUTPUT")) {
    const auto bound = parse_output_bound(*env);
    if (!bound) {
      throw_usage("BGTASK_MAX_OUTPUT: " + bound.error());
    }
    request.max_output = *bound;
  } else {
    request.max_output = k_default_max_output;
  }
  record.rerun_of = options.rerun_of;
  record.on_exit = options.on_exit;
  if (record.on_exit && (record.on_exit->empty() || record.on_exit->size() > k_max_on_exit_bytes)) {
    throw_usage("--on-exit must be a shell string of 1 byte to 64 KiB");
  }
  record.options =
    LaunchOptions{request.max_output, options.slurm.partition, options.slurm.time_limit,
                  options.slurm.args, options.retry,           options.limits};
  record.options.pty = options.pty;
  return request;
}

// --max-running, else $BGTASK_MAX_RUNNING; nullopt if neither is set.
std::optional<std::size_t> running_limit(const std::optional<std::size_t>& option)
{
  const auto env = env_default("BGTASK_MAX_RUNNING");
  if (!option && !env) {
    return std::nullopt;
  }
  const std::string source = option ? "--max-running" : "BGTASK_MAX_RUNNING";
  const std::size_t limit = option ? *option : value_or_usage(parse_count(*env, source));
  if (limit == 0) {
    throw_usage(source + " must be at least 1");
  }
  return limit;
}

// Takes --queue, --slots and --after into the plan.
void add_scheduling(const StartOptions& options, StartPlan& plan)
{
  if (options.queue) {
    check_queue_name(*options.queue);
    plan.request.record.queue = options.queue;
  }
  if (options.slots) {
    if (!options.queue) {
      throw_usage("--slots needs --queue");
    }
    if (*options.slots > k_max_queue_slots) {
      throw_usage("--slots must be at most " + std::to_string(k_max_queue_slots));
    }
    plan.slots = options.slots;
  }
  for (const auto& list : options.after) {
    const auto ids = split_list(list);
    if (ids.empty()) {
      throw_usage("--after needs at least one task ID");
    }
    for (const auto& id : ids) {
      check_task_id_prefix(id);
    }
    plan.after.insert(plan.after.end(), ids.begin(), ids.end());
  }
}

// --executor, else $BGTASK_EXECUTOR, else local.
std::string executor_name(const StartOptions& options)
{
  std::string name = options.executor.value_or(
    env_default("BGTASK_EXECUTOR").value_or(std::string(k_local_executor)));
  if (!is_executor_name(name)) {
    throw_usage(std::string(options.executor ? "--executor" : "BGTASK_EXECUTOR") +
                ": unknown executor '" + escape_for_terminal(name, KeepNewlines::no) +
                "' (expected " + std::string(k_local_executor) + " or " +
                std::string(k_slurm_executor) + ")");
  }
  return name;
}

} // namespace

Result<std::optional<std::uint64_t>> parse_output_bound(std::string_view text)
{
  if (text == "none") {
    return std::optional<std::uint64_t>();
  }
  auto size = parse_byte_size(text);
  if (!size) {
    return Failure{size.error()};
  }
  return std::optional<std::uint64_t>(*size);
}

std::vector<std::string> env_entry_names(const std::vector<std::string>& entries)
{
  std::vector<std::string> names;
  for (const auto& entry : entries) {
    const auto equals = entry.find('=');
    const auto name = entry.substr(0, equals);
    if (equals == std::string::npos || !is_env_name(name)) {
      throw_usage("invalid --env '" + escape_for_terminal(name, KeepNewlines::no) +
                  (equals == std::string::npos ? "" : "=...") + "': expected NAME=VALUE or NAME");
    }
    names.push_back(name);
  }
  return names;
}

StartPlan plan_start(const StartOptions& options)
{
  StartPlan plan;
  plan.request = request_of(options);
  add_scheduling(options, plan);
  plan.dedupe = options.dedupe;
  plan.max_running = running_limit(options.max_running);
  plan.array = options.slurm.array;
  if (plan.array && plan.dedupe) {
    throw_usage("--dedupe and --array exclude each other");
  }
  plan.request.record.executor = executor_name(options);
  executor_for(plan.request.record.executor).check(options);
  return plan;
}

StartOptions options_to_rerun(const TaskRecord& original, std::vector<std::string> env)
{
  StartOptions options;
  if (original.shell && original.command.size() == 3) {
    options.shell = original.command.back();
  } else {
    options.command = original.command;
  }
  options.name = original.name;
  options.cwd = original.cwd;
  options.env = std::move(env);
  if (original.timeout_s) {
    options.timeout = from_seconds(*original.timeout_s);
  }
  options.grace = from_seconds(original.grace_s);
  options.max_output = original.options.max_output;
  options.pty = original.options.pty;
  options.executor = original.executor;
  options.queue = original.queue;
  options.after = original.after;
  options.retry = original.options.retry;
  options.limits = original.options.limits;
  options.on_exit = original.on_exit;
  options.rerun_of = original.id;
  options.slurm = SlurmStartOptions{original.options.partition, original.options.slurm_time,
                                    original.options.slurm_args, std::nullopt};
  if (original.slurm && original.slurm->array_index) {
    options.slurm.array = SlurmArraySpec{{*original.slurm->array_index}, std::nullopt};
  }
  return options;
}

} // namespace bgtask
