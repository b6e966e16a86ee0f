#include <bgtask/cli/start_options.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/slurm/slurm_array.hpp>
#include <bgtask/exec/slurm/slurm_submission.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/util/byte_size.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/paths.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::size_t k_max_name_bytes = 256;
constexpr std::size_t k_max_command_bytes = 256 * 1024;
constexpr std::size_t k_max_env_file_bytes = 1024 * 1024;

bool is_env_name(std::string_view name)
{
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

// Checks `--env K=V` entries and returns their names; values never appear in messages.
std::vector<std::string> env_names(const std::vector<std::string>& entries)
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

// The K=V lines of an --env-file: blank lines and lines starting with `#`
// are skipped; the value is the rest of the line, verbatim. A file over
// k_max_env_file_bytes, or with a NUL byte, is refused (Error(usage)).
std::vector<std::string> read_env_file(const std::string& path)
{
  const std::string shown = "--env-file " + escape_for_terminal(path, KeepNewlines::no);
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::string text;
  const int error = fd ? read_all(fd.get(), text, k_max_env_file_bytes + 1) : errno;
  if (error != 0) {
    throw_usage("--env-file: cannot read " + escape_for_terminal(path, KeepNewlines::no) + ": " +
                std::strerror(error));
  }
  if (text.size() > k_max_env_file_bytes) {
    throw_usage(shown + ": larger than " + std::to_string(k_max_env_file_bytes >> 10) + " KiB");
  }
  std::vector<std::string> entries;
  int number = 0;
  for (const auto part : split(text, '\n', EmptyParts::keep)) {
    ++number;
    const std::string line(part);
    if (line.find('\0') != std::string::npos) {
      throw_usage(shown + ", line " + std::to_string(number) + ": a NUL byte");
    }
    if (line.empty() || line.front() == '#') {
      continue;
    }
    const auto name = line.substr(0, line.find('='));
    if (line.find('=') == std::string::npos || !is_env_name(name)) {
      throw_usage(shown + ", line " + std::to_string(number) + ": expected NAME=VALUE");
    }
    entries.push_back(line);
  }
  return entries;
}

// The output cap: --max-output, else $BGTASK_MAX_OUTPUT, else
// k_default_max_output; none if the value is `none`.
std::optional<std::uint64_t> output_limit(const std::optional<std::string>& option)
{
  const char* env = std::getenv("BGTASK_MAX_OUTPUT");
  if (!option && (env == nullptr || *env == '\0')) {
    return k_default_max_output;
  }
  const std::string text = option ? *option : env;
  if (text == "none") {
    return std::nullopt;
  }
  auto size = parse_byte_size(text);
  if (!size) {
    throw_usage(std::string(option ? "--max-output" : "BGTASK_MAX_OUTPUT") + ": " + size.error());
  }
  return *size;
}

LaunchRequest build_request(const po::variables_map& vm, std::vector<std::string> command)
{
  LaunchRequest request;
  auto& record = request.record;
  const auto shell = optional_value<std::string>(vm, "shell");
  if (shell && !command.empty()) {
    throw_usage("give either -c 'SHELL STRING' or -- CMD [ARG...], not both");
  }
  if (!shell && command.empty()) {
    throw_usage(
      "nothing to run: give -- CMD [ARG...] or -c 'SHELL STRING' (see bgtask start --help)");
  }
  if (shell) {
    record.shell = true;
    command = {"/bin/sh", "-c", *shell};
  }
  std::size_t bytes = 0;
  for (const auto& word : command) {
    bytes += word.size();
  }
  if (bytes > k_max_command_bytes || command.front().empty()) {
    throw_usage(command.front().empty() ? "the command name is empty"
                                        : "the command is too long to record (over 256 KiB)");
  }
  record.command = command;
  request.argv = std::move(command);
  if (auto name = optional_value<std::string>(vm, "name")) {
    if (name->size() > k_max_name_bytes) {
      throw_usage("--name is longer than 256 bytes");
    }
    record.name = std::move(*name);
  }
  const auto cwd = optional_value<std::string>(vm, "cwd");
  // Normalised, so `--cwd ..` and its absolute form are one directory (--dedupe).
  record.cwd = !cwd ? current_directory() : normalized_absolute(*cwd);
  request.env_additions = env_from_options(vm);
  record.env_names = env_names(request.env_additions);
  request.timeout = optional_duration(vm, "timeout");
  if (request.timeout) {
    if (request.timeout->count() == 0) {
      throw_usage("--timeout must be greater than zero");
    }
    record.timeout_s = to_seconds(*request.timeout);
  }
  request.grace = optional_duration(vm, "grace").value_or(request.grace);
  record.grace_s = to_seconds(request.grace);
  request.max_output = output_limit(optional_value<std::string>(vm, "max-output"));
  return request;
}

// Picks the executor (--executor, else $BGTASK_EXECUTOR, else local) and
// takes the Slurm options, refusing them for local tasks and refusing what
// only a local supervisor can do for Slurm tasks.
void choose_executor(const po::variables_map& vm, StartPlan& plan)
{
  LaunchRequest& request = plan.request;
  const char* env = std::getenv("BGTASK_EXECUTOR");
  const auto option = optional_value<std::string>(vm, "executor");
  const std::string name = option                           ? *option
                           : env != nullptr && *env != '\0' ? std::string(env)
                                                            : std::string(k_local_executor);
  if (!is_executor_name(name)) {
    throw_usage(std::string(option ? "--executor" : "BGTASK_EXECUTOR") + ": unknown executor '" +
                escape_for_terminal(name, KeepNewlines::no) + "' (expected " +
                std::string(k_local_executor) + " or " + std::string(k_slurm_executor) + ")");
  }
  request.record.executor = name;
  auto& slurm = request.slurm;
  slurm.partition = optional_value<std::string>(vm, "partition");
  slurm.time_limit = optional_value<std::string>(vm, "slurm-time");
  slurm.args =
    optional_value<std::vector<std::string>>(vm, "slurm-arg").value_or(std::vector<std::string>{});
  if (name != k_slurm_executor) {
    if (slurm.partition || slurm.time_limit || !slurm.args.empty()) {
      throw_usage("--partition, --slurm-time and --slurm-arg need --executor slurm");
    }
    if (plan.array) {
      throw_usage("--array needs --executor slurm (it submits one Slurm job array); to run a "
                  "command locally once per index, start a task for each");
    }
    return;
  }
  const auto& limits = request.record.options.limits;
  check_slurm_args(slurm.args, SlurmArgContext{!plan.after.empty(), !request.env_additions.empty(),
                                               limits.memory_max.has_value()});
  if (request.argv.front().starts_with('-')) {
    throw_usage("a command name starting with '-' cannot be run by the slurm executor");
  }
  if (vm.count("max-output") != 0 || request.record.queue || request.record.on_exit ||
      request.record.options.retry || limits.pids_max || limits.cpu_max) {
    throw_usage("--max-output, --queue, --on-exit, --retry, --pids-max and --cpu-max need the "
                "local executor (--memory-max becomes sbatch --mem)");
  }
  request.max_output.reset(); // $BGTASK_MAX_OUTPUT: a Slurm job's output is not capped
}

constexpr std::size_t k_max_on_exit_bytes = 64 * 1024;
constexpr std::size_t k_max_retries = 1000;

// --retry-on: exit codes (0-255, comma-separated) and/or `timed_out`.
void parse_retry_on(std::string_view text, RetryPolicy& policy)
{
  const auto items = split_list(text);
  if (items.empty()) {
    throw_usage("--retry-on needs exit codes or timed_out");
  }
  for (const auto& item : items) {
    if (item == "timed_out") {
      policy.on_timeout = true;
      continue;
    }
    const auto code = value_or_usage(parse_count(item, "--retry-on"));
    if (code == 0 || code > 255) {
      throw_usage("--retry-on: exit codes are 1 to 255, or timed_out");
    }
    policy.on_exit_codes.push_back(static_cast<int>(code));
  }
}

// --cpu-max: a decimal number of CPUs, above 0 and at most 1024.
double parse_cpus(const std::string& text)
{
  const bool decimal = !text.empty() && text.size() <= 12 &&
                       text.find_first_not_of("0123456789.") == std::string::npos &&
                       std::count(text.begin(), text.end(), '.') <= 1 && text.front() != '.' &&
                       text.back() != '.';
  const double cpus = decimal ? std::strtod(text.c_str(), nullptr) : 0;
  if (!decimal || cpus <= 0 || cpus > 1024) {
    throw_usage("invalid value '" + escape_for_terminal(text, KeepNewlines::no) +
                "' for --cpu-max: expected a number of CPUs above 0 (e.g. 0.5, 2)");
  }
  return cpus;
}

// Takes --memory-max, --pids-max and --cpu-max into the record's options.
void add_limits(const po::variables_map& vm, LaunchRequest& request)
{
  auto& limits = request.record.options.limits;
  if (auto text = optional_value<std::string>(vm, "memory-max")) {
    const auto size = parse_byte_size(*text);
    if (!size) {
      throw_usage("--memory-max: " + size.error());
    }
    limits.memory_max = *size;
    if (*limits.memory_max < 1024 * 1024) {
      throw_usage("--memory-max must be at least 1M");
    }
  }
  if (auto text = optional_value<std::string>(vm, "pids-max")) {
    limits.pids_max = value_or_usage(parse_count(*text, "--pids-max"));
    if (*limits.pids_max == 0) {
      throw_usage("--pids-max must be at least 1");
    }
  }
  if (auto text = optional_value<std::string>(vm, "cpu-max")) {
    limits.cpu_max = parse_cpus(*text);
  }
}

// Takes --retry, --retry-delay and --retry-on into the record's options.
void add_retry(const po::variables_map& vm, LaunchRequest& request)
{
  const auto count = optional_value<std::string>(vm, "retry");
  if (!count) {
    if (vm.count("retry-delay") != 0 || vm.count("retry-on") != 0) {
      throw_usage("--retry-delay and --retry-on need --retry N");
    }
    return;
  }
  RetryPolicy policy;
  const auto retries = value_or_usage(parse_count(*count, "--retry"));
  if (retries > k_max_retries) {
    throw_usage("--retry must be at most " + std::to_string(k_max_retries));
  }
  policy.max_retries = static_cast<int>(retries);
  if (auto delay = optional_value<std::string>(vm, "retry-delay")) {
    policy.delay_s = to_seconds(value_or_usage(parse_duration(*delay)));
  }
  if (auto on = optional_value<std::string>(vm, "retry-on")) {
    parse_retry_on(*on, policy);
  }
  request.record.options.retry = policy;
}

// --max-running, else $BGTASK_MAX_RUNNING; nullopt if neither is set.
std::optional<std::size_t> running_limit(const std::optional<std::string>& option)
{
  const char* env = std::getenv("BGTASK_MAX_RUNNING");
  if (!option && (env == nullptr || *env == '\0')) {
    return std::nullopt;
  }
  const std::string source = option ? "--max-running" : "BGTASK_MAX_RUNNING";
  const std::size_t limit =
    value_or_usage(parse_count(option ? *option : std::string(env), source));
  if (limit == 0) {
    throw_usage(source + " must be at least 1");
  }
  return limit;
}

// Takes --queue, --slots, --after and --on-exit into the plan.
void add_scheduling(const po::variables_map& vm, StartPlan& plan)
{
  auto& record = plan.request.record;
  if (auto queue = optional_value<std::string>(vm, "queue")) {
    check_queue_name(*queue);
    record.queue = std::move(*queue);
  }
  if (auto slots = optional_value<std::string>(vm, "slots")) {
    if (!record.queue) {
      throw_usage("--slots needs --queue");
    }
    plan.slots = value_or_usage(parse_count(*slots, "--slots"));
    if (*plan.slots > k_max_queue_slots) {
      throw_usage("--slots must be at most " + std::to_string(k_max_queue_slots));
    }
  }
  for (const auto& list :
       optional_value<std::vector<std::string>>(vm, "after").value_or(std::vector<std::string>{})) {
    const auto ids = split_list(list);
    if (ids.empty()) {
      throw_usage("--after needs at least one task ID");
    }
    for (const auto& id : ids) {
      check_task_id_prefix(id);
    }
    plan.after.insert(plan.after.end(), ids.begin(), ids.end());
  }
  if (auto hook = optional_value<std::string>(vm, "on-exit")) {
    if (hook->empty() || hook->size() > k_max_on_exit_bytes) {
      throw_usage("--on-exit must be a shell string of 1 byte to 64 KiB");
    }
    record.on_exit = std::move(*hook);
  }
}

} // namespace

void add_env_options(po::options_description& options)
{
  options.add_options()("env", po::value<std::vector<std::string>>()->composing(),
                        "set K=V in the command's environment, or NAME to pass on its current "
                        "value (repeatable; values are never stored)")(
    "env-file", po::value<std::string>()->value_name("FILE"),
    "set the K=V lines of FILE (blank and # lines skipped; --env wins)");
}

std::vector<std::string> env_from_options(const po::variables_map& vm)
{
  std::vector<std::string> given;
  if (auto file = optional_value<std::string>(vm, "env-file")) {
    given = read_env_file(*file);
  }
  for (auto& entry :
       optional_value<std::vector<std::string>>(vm, "env").value_or(std::vector<std::string>{})) {
    if (entry.find('=') == std::string::npos && is_env_name(entry)) {
      const char* value = std::getenv(entry.c_str());
      if (value == nullptr) {
        throw_usage("--env " + entry + ": " + entry + " is not set in this environment");
      }
      entry += "=" + std::string(value);
    }
    given.push_back(std::move(entry));
  }
  env_names(given); // refuses malformed entries
  // One entry per name: the last one given wins.
  std::vector<std::string> entries;
  for (auto it = given.rbegin(); it != given.rend(); ++it) {
    const auto name = it->substr(0, it->find('=') + 1);
    if (std::none_of(entries.begin(), entries.end(),
                     [&](const std::string& e) { return e.starts_with(name); })) {
      entries.insert(entries.begin(), *it);
    }
  }
  return entries;
}

void add_array_option(po::options_description& options)
{
  options.add_options()(
    "array", po::value<std::string>()->value_name("SPEC"),
    "slurm: one job array, a task per index (1-1000%50, 0-15:4, 1,3,7; BGTASK_ARRAY_INDEX)");
}

void add_start_options(po::options_description& options)
{
  options.add_options()("name", po::value<std::string>(),
                        "a name to show in list and to filter by")(
    "cwd", po::value<std::string>(), "directory to run the command in (default: the current one)");
  add_env_options(options);
  const std::string grace_help = "time between TERM and KILL when stopping (default " +
                                 std::to_string(k_default_grace.count() / 1000) + "s)";
  options.add_options()("timeout", po::value<std::string>(),
                        "stop the command after DUR (state timed_out)")(
    "grace", po::value<std::string>(), grace_help.c_str())(
    "max-output", po::value<std::string>()->value_name("SIZE"),
    "keep the first and the last SIZE/2 bytes of output (e.g. 10M; `none`; default\n"
    "$BGTASK_MAX_OUTPUT, else 64M)")(
    "executor", po::value<std::string>()->value_name("NAME"),
    "where to run: local (default, or $BGTASK_EXECUTOR) or slurm (a batch job)")(
    "partition", po::value<std::string>()->value_name("P"), "slurm: the partition to submit to")(
    "slurm-time", po::value<std::string>()->value_name("T"),
    "slurm: the job's time limit as sbatch --time takes it (default: --timeout, in whole minutes)")(
    "slurm-arg", po::value<std::vector<std::string>>()->composing()->value_name("ARG"),
    "slurm: an sbatch argument, passed verbatim (repeatable)")(
    "queue", po::value<std::string>()->value_name("Q"),
    "wait in queue Q for a free slot, first come, first served")(
    "slots", po::value<std::string>()->value_name("N"),
    "with --queue: set the queue's slot count to N (stored; default 1)")(
    "after", po::value<std::vector<std::string>>()->composing()->value_name("ID[,ID...]"),
    "start only once these tasks succeeded; fail without running if one did not")(
    "dedupe", "if an identical task is queued or running, print its ID instead of starting")(
    "max-running", po::value<std::string>()->value_name("N"),
    "refuse (exit 69) if N tasks of the directory already run (default $BGTASK_MAX_RUNNING)")(
    "retry", po::value<std::string>()->value_name("N"),
    "run a failed command again, up to N more times, in the same task (BGTASK_ATTEMPT)")(
    "retry-delay", po::value<std::string>()->value_name("DUR"),
    "with --retry: wait DUR before each new attempt (default 0s)")(
    "retry-on", po::value<std::string>()->value_name("CODES|timed_out"),
    "with --retry: retry only these exit codes and/or timed_out (default: any failure)")(
    "memory-max", po::value<std::string>()->value_name("SIZE"),
    "limit the task's whole tree to SIZE of memory (its own cgroup; ends `oom` past it)")(
    "pids-max", po::value<std::string>()->value_name("N"),
    "limit the task's whole tree to N processes and threads (its own cgroup)")(
    "cpu-max", po::value<std::string>()->value_name("CPUS"),
    "limit the task's whole tree to CPUS processors' worth of time, e.g. 0.5 (its own cgroup)")(
    "on-exit", po::value<std::string>()->value_name("STRING"),
    "run STRING with /bin/sh -c when the task ends (BGTASK_ID, BGTASK_STATE, BGTASK_EXIT_CODE)")(
    "shell,c", po::value<std::string>()->value_name("STRING"), "run STRING with /bin/sh -c");
}

StartPlan build_start_plan(const po::variables_map& vm, std::vector<std::string> command)
{
  StartPlan plan;
  plan.request = build_request(vm, std::move(command));
  add_scheduling(vm, plan);
  add_retry(vm, plan.request);
  add_limits(vm, plan.request);
  plan.dedupe = vm.count("dedupe") != 0;
  plan.max_running = running_limit(optional_value<std::string>(vm, "max-running"));
  if (auto array = optional_value<std::string>(vm, "array")) {
    plan.array = value_or_usage(parse_slurm_array(*array));
    if (plan.dedupe) {
      throw_usage("--dedupe and --array exclude each other");
    }
  }
  choose_executor(vm, plan);
  auto& options = plan.request.record.options;
  options.max_output = plan.request.max_output;
  options.partition = plan.request.slurm.partition;
  options.slurm_time = plan.request.slurm.time_limit;
  options.slurm_args = plan.request.slurm.args;
  return plan;
}

StartPlan plan_for_rerun(const TaskRecord& original, std::vector<std::string> env)
{
  StartPlan plan;
  auto& request = plan.request;
  auto& record = request.record;
  record.name = original.name;
  record.command = original.command;
  record.shell = original.shell;
  record.cwd = original.cwd;
  record.executor = original.executor;
  record.queue = original.queue;
  record.on_exit = original.on_exit;
  record.options = original.options;
  record.rerun_of = original.id;
  record.timeout_s = original.timeout_s;
  record.grace_s = original.grace_s;
  record.env_names = env_names(env);
  request.env_additions = std::move(env);
  request.argv = original.command;
  if (original.timeout_s) {
    request.timeout = from_seconds(*original.timeout_s);
  }
  request.grace = from_seconds(original.grace_s);
  request.max_output = original.options.max_output;
  request.slurm = SlurmRequest{
    original.options.partition, original.options.slurm_time, original.options.slurm_args, {}};
  plan.after = original.after;
  plan.max_running = running_limit(std::nullopt);
  if (original.slurm && original.slurm->array_index) {
    plan.array = SlurmArraySpec{{*original.slurm->array_index}, std::nullopt};
  }
  return plan;
}

} // namespace bgtask
