#include <bgtask/cli/start_options.hpp>
#include <bgtask/exec/start_plan.hpp>
#include <bgtask/proc/environment.hpp>
#include <bgtask/util/byte_size.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>

namespace bgtask {

namespace {

constexpr std::size_t k_max_env_file_bytes = 1024 * 1024;

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

// --memory-max, --pids-max and --cpu-max.
ResourceLimits limits_of(const po::variables_map& vm)
{
  ResourceLimits limits;
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
  return limits;
}

// --retry, --retry-delay and --retry-on.
std::optional<RetryPolicy> retry_of(const po::variables_map& vm)
{
  const auto count = optional_value<std::string>(vm, "retry");
  if (!count) {
    if (vm.count("retry-delay") != 0 || vm.count("retry-on") != 0) {
      throw_usage("--retry-delay and --retry-on need --retry N");
    }
    return std::nullopt;
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
  return policy;
}

// Adds the options that decide when a task runs: its queue, dependencies,
// deduplication and retries.
void add_scheduling_options(po::options_description& options)
{
  options.add_options()(
    "queue", po::value<std::string>()->value_name("Q"),
    "wait in queue Q for a free slot, first come, first served\n"
    "The task is `queued` meanwhile. Queue names are 1 to 64 characters of `A-Z`, `a-z`, "
    "`0-9`, `_` and `-`, not starting with `-`.")(
    "slots", po::value<std::string>()->value_name("N"),
    "with --queue: set the queue's slot count to N (stored; default 1)")(
    "after", po::value<std::vector<std::string>>()->composing()->value_name("ID[,ID...]"),
    "start only once these tasks succeeded; fail without running if one did not (repeatable)\n"
    "For a Slurm task every dependency must be a Slurm task of the same cluster (else exit "
    "2): the job is submitted with `--dependency=afterok:JOBS --kill-on-invalid-dep=yes`.")(
    "dedupe",
    "if an identical task is queued or running, print its ID instead of starting\n"
    "Nothing is printed on stderr then (cron mails what a job writes there). Identical means "
    "the same command (argv, or the shell string), working directory, `--env` entries (with "
    "their values) and timeout; names, queues and the other options do not count. Works where "
    "`renameat2(RENAME_NOREPLACE)` is refused (NFS, FUSE): the key is then put in place with "
    "`link(2)`. A key that can be neither read nor made fails the start (exit 1) with the "
    "system error.")("max-running", po::value<std::string>()->value_name("N"),
                     "refuse (exit 69) if N tasks of the directory already run (default "
                     "$BGTASK_MAX_RUNNING, else no limit)")(
    "retry", po::value<std::string>()->value_name("N"),
    "run a failed command again, up to N more times, in the same task (BGTASK_ATTEMPT)\n"
    "Same ID, output appended. The record keeps every attempt in `attempts` (number, start "
    "and finish time, exit code or signal, outcome); the command sees its attempt number in "
    "`BGTASK_ATTEMPT`. `--timeout` applies to each attempt; `cancel` ends the task and stops "
    "the retrying, also during the wait between attempts. The task's state is that of its "
    "last attempt. If the supervisor dies between attempts, the task becomes `lost` with the "
    "attempts so far and a reason saying so. Local executor only.")(
    "retry-delay", po::value<std::string>()->value_name("DUR"),
    "with --retry: wait DUR before each new attempt (default 0s)\n"
    "The record's `retry_at` says when the next one starts.")(
    "retry-on", po::value<std::string>()->value_name("CODES|timed_out"),
    "with --retry: retry only these exit codes and/or timed_out (default: any failure)\n"
    "CODES are comma-separated, 1 to 255. The default retries any non-zero exit or signal, "
    "but not a timeout.");
}

// Adds the limits of a task's tree (its own cgroup), its exit hook and -c.
void add_limit_options(po::options_description& options)
{
  options.add_options()(
    "memory-max", po::value<std::string>()->value_name("SIZE"),
    "limit the task's whole tree to SIZE of memory (its own cgroup; ends `oom` past it)\n"
    "At least 1M. The supervisor creates the cgroup before the command starts and removes it "
    "when the task ends (killing what the command left in it): cgroup v2 where its root "
    "offers the controllers, else the v1 hierarchies (`/sys/fs/cgroup/memory/bgtask/ID` and "
    "so on). A task the limit's OOM killer ends is `failed` with `reason` `oom` and, where the "
    "kernel reports it, `memory_peak`. Where no writable cgroup offers the controller, "
    "`start` exits 78 without starting anything. rlimits are no substitute: they bound each "
    "process, not the tree. With `--executor slurm` it becomes `sbatch --mem` in whole MiB, "
    "rounded up, which the cluster enforces (`--pids-max` and `--cpu-max` are refused "
    "there).")("pids-max", po::value<std::string>()->value_name("N"),
               "limit the task's whole tree to N processes and threads (its own cgroup)\n"
               "A fork past it fails with EAGAIN, and the record gets a `pids_limit` event.")(
    "cpu-max", po::value<std::string>()->value_name("CPUS"),
    "limit the task's whole tree to CPUS processors' worth of time, e.g. 0.5 (its own cgroup)")(
    "on-exit", po::value<std::string>()->value_name("STRING"),
    "run STRING with /bin/sh -c when the task ends (BGTASK_ID, BGTASK_STATE, BGTASK_EXIT_CODE)\n"
    "Without it, `BGTASK_ON_EXIT` (when set and not empty) is the hook.")(
    "shell,c", po::value<std::string>()->value_name("STRING"), "run STRING with /bin/sh -c");
}

} // namespace

void add_env_options(po::options_description& options)
{
  options.add_options()(
    "env", po::value<std::vector<std::string>>()->composing(),
    "set K=V in the command's environment, or NAME to pass on its current value (repeatable)\n"
    "A bare NAME that is not set is an error. Values are never stored: the record keeps the "
    "names. A `PATH` set this way is the one the command is looked up in. `start` hides each "
    "V in its own command line (and so in the supervisor's) as soon as it runs; a value that "
    "no other user may see even for that moment belongs in the environment (`--env NAME`) or "
    "in a file (`--env-file`).")(
    "env-file", po::value<std::string>()->value_name("FILE"),
    "set the K=V lines of FILE (blank and # lines skipped; --env wins)\n"
    "The value is the rest of the line, verbatim. A file larger than 1 MiB, or with a NUL "
    "byte, is refused (exit 2).");
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
  env_entry_names(given); // refuses malformed entries
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
    "a task per index (1-1000%50, 0-15:4, 1,3,7), with BGTASK_ARRAY_INDEX set to it\n"
    "Each task has its own record and output file, with `BGTASK_ARRAY_INDEX` set to its "
    "index (and `SLURM_ARRAY_TASK_ID` with `--executor slurm`). SPEC is sbatch's: `1-1000`, "
    "`0-15:4` (every 4th), `1,3,7`, with `%N` to run at most N at once (Slurm only; here "
    "`--queue Q --slots N` does that); at most 10000 elements; not with `--dedupe`. `start` "
    "prints the IDs one per line, in index order (a local array with `--name N`: N once, as "
    "`--each-line` does). The whole array is named by its `--name` (`list --name`, `wait "
    "--name`, `cancel --name`) or by those IDs; each element is a task of its own for "
    "`status`, `output`, `wait`, `cancel` and `rerun`. A Slurm element cancelled while "
    "pending is recorded `cancelled` from the request, as Slurm keeps no record of it; a "
    "local array is started as `--each-line` starts its lines.");
}

void add_start_options(po::options_description& options)
{
  options.add_options()(
    "name", po::value<std::string>(),
    "a name to show in list and to filter by (at most 256 bytes)\n"
    "A Slurm task's job is named `N-bgtask-ID` (else `bgtask-ID`), so that `squeue` shows "
    "both; in the job name, bytes of N other than ASCII letters, digits and `._+-` become `_` "
    "and N is cut to 64 bytes.")("cwd", po::value<std::string>(),
                                 "directory to run the command in (default: the current one)");
  add_env_options(options);
  const std::string grace_help = "time between TERM and KILL whenever the task is stopped "
                                 "(default " +
                                 std::to_string(k_default_grace.count() / 1000) + "s)";
  options.add_options()(
    "pty",
    "give the command a pseudo-terminal as stdout and stderr, so that it line-buffers\n"
    "Programs that buffer a file in blocks (Python, most servers) then print each line at "
    "once, and `isatty(1)` is true. The supervisor copies what the terminal gets into "
    "`ID.output`, bounded by --max-output as usual; nothing is added (no \\r before \\n). The "
    "terminal is 80x24 and nobody's controlling terminal; stdin stays /dev/null. Programs "
    "may colour their output on a terminal. If the supervisor is killed, the command runs on "
    "but what it prints is lost. Local executor only.")(
    "timeout", po::value<std::string>(),
    "stop the command after DUR (state timed_out)\n"
    "TERM goes to its process group and every descendant, KILL after the grace period.")(
    "grace", po::value<std::string>(), grace_help.c_str())(
    "max-output", po::value<std::string>()->value_name("SIZE"),
    "keep the first and the last SIZE/2 bytes of output (e.g. 10M; `none`; default "
    "$BGTASK_MAX_OUTPUT, else 64M)\n"
    "What lies between is deallocated (a hole punched in `ID.output`) while the command runs, "
    "so the command is never blocked or stopped for its output, and offsets in the file stay "
    "those of the output stream. The record tells how many bytes were dropped "
    "(`output.dropped_bytes`) and where (`output.dropped_at`). On a file system that cannot "
    "punch holes, only the first SIZE bytes are kept.")(
    "executor", po::value<std::string>()->value_name("NAME"),
    "where to run: local (default, or $BGTASK_EXECUTOR) or slurm (a batch job)\n"
    "A `slurm` task is submitted with `sbatch`; its record follows the job.")(
    "partition", po::value<std::string>()->value_name("P"), "slurm: the partition to submit to")(
    "slurm-time", po::value<std::string>()->value_name("T"),
    "slurm: the job's time limit as sbatch --time takes it (default: --timeout, in whole minutes)")(
    "slurm-arg", po::value<std::vector<std::string>>()->composing()->value_name("ARG"),
    "slurm: an sbatch argument, passed verbatim (repeatable)\n"
    "For example `--slurm-arg=--mem=8G`, `--slurm-arg=--cpus-per-task=4`, "
    "`--slurm-arg=--gres=gpu:1`. Options bgtask sets itself are refused with exit 2, and so is "
    "every prefix sbatch would take for them: `--output`, `--error`, `--open-mode`, "
    "`--job-name`, `--parsable`, `--array`, `--wait`, `--wrap`, `--clusters` (and with "
    "`--after` also `--dependency` and `--kill-on-invalid-dep`). An `--export=LIST` gets the "
    "`--env` names added, so their values reach the job; `--export=NONE` with `--env` is "
    "refused, and so are `--mem`, `--mem-per-cpu` and `--mem-per-gpu` with `--memory-max`.");
  add_scheduling_options(options);
  add_limit_options(options);
}

StartOptions parse_start_options(const po::variables_map& vm, std::vector<std::string> command)
{
  StartOptions options;
  options.command = std::move(command);
  options.shell = optional_value<std::string>(vm, "shell");
  options.name = optional_value<std::string>(vm, "name");
  options.cwd = optional_value<std::string>(vm, "cwd");
  options.env = env_from_options(vm);
  options.timeout = optional_duration(vm, "timeout");
  options.grace = optional_duration(vm, "grace");
  if (auto text = optional_value<std::string>(vm, "max-output")) {
    auto bound = parse_output_bound(*text);
    if (!bound) {
      throw_usage("--max-output: " + bound.error());
    }
    options.max_output = *bound;
  }
  options.executor = optional_value<std::string>(vm, "executor");
  options.queue = optional_value<std::string>(vm, "queue");
  if (auto slots = optional_value<std::string>(vm, "slots")) {
    options.slots = value_or_usage(parse_count(*slots, "--slots"));
  }
  using Words = std::vector<std::string>;
  options.after = optional_value<Words>(vm, "after").value_or(Words{});
  options.dedupe = vm.count("dedupe") != 0;
  options.pty = vm.count("pty") != 0;
  if (auto limit = optional_value<std::string>(vm, "max-running")) {
    options.max_running = value_or_usage(parse_count(*limit, "--max-running"));
  }
  options.retry = retry_of(vm);
  options.limits = limits_of(vm);
  options.on_exit = optional_value<std::string>(vm, "on-exit");
  if (const char* hook = std::getenv("BGTASK_ON_EXIT"); !options.on_exit && hook && *hook) {
    options.on_exit = hook; // the default hook of every task started here
  }
  auto& slurm = options.slurm;
  slurm.partition = optional_value<std::string>(vm, "partition");
  slurm.time_limit = optional_value<std::string>(vm, "slurm-time");
  slurm.args = optional_value<Words>(vm, "slurm-arg").value_or(Words{});
  if (auto array = optional_value<std::string>(vm, "array")) {
    slurm.array = value_or_usage(parse_slurm_array(*array));
  }
  return options;
}

} // namespace bgtask
