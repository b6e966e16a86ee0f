#include <bgtask/commands/commands.hpp>

#include <bgtask/byte_size.hpp>
#include <bgtask/command_line.hpp>
#include <bgtask/error.hpp>
#include <bgtask/executor.hpp>
#include <bgtask/slurm_submission.hpp>
#include <bgtask/task_dir.hpp>
#include <bgtask/task_files.hpp>
#include <bgtask/task_id.hpp>
#include <bgtask/terminal_escape.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "start",
  "[--name N] [--cwd DIR] [--env K=V]... [--timeout DUR] [--grace DUR] [--max-output SIZE] "
  "(-- CMD [ARG...] | -c 'SHELL STRING')",
  "Starts a command in the background and prints its task ID once the task is running.\n"
  "`-- CMD ARGS` runs argv directly; `-c STRING` runs it with /bin/sh -c."};

constexpr std::size_t k_max_name_bytes = 256;
constexpr std::size_t k_max_command_bytes = 256 * 1024;

std::string current_directory()
{
  std::string cwd(4096, '\0');
  if (::getcwd(cwd.data(), cwd.size()) == nullptr) {
    throw_system("cannot find the current directory", errno);
  }
  cwd.resize(cwd.find('\0'));
  return cwd;
}

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
                  (equals == std::string::npos ? "" : "=...") + "': expected NAME=VALUE");
    }
    names.push_back(name);
  }
  return names;
}

// The output cap: --max-output, else $BGTASK_MAX_OUTPUT; none if neither is
// set or the value is `none`.
std::optional<std::uint64_t> output_limit(const std::optional<std::string>& option)
{
  const char* env = std::getenv("BGTASK_MAX_OUTPUT");
  if (!option && (env == nullptr || *env == '\0')) {
    return std::nullopt;
  }
  const std::string text = option ? *option : env;
  if (text == "none") {
    return std::nullopt;
  }
  try {
    return parse_byte_size(text);
  } catch (const Error& e) {
    throw_usage(std::string(option ? "--max-output" : "BGTASK_MAX_OUTPUT") + ": " + e.what());
  }
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
    throw_usage("nothing to run: give -- CMD [ARG...] or -c 'SHELL STRING' (see bgtask start --help)");
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
  record.cwd = !cwd ? current_directory() : cwd->starts_with('/') ? *cwd : current_directory() + "/" + *cwd;
  if (auto env = optional_value<std::vector<std::string>>(vm, "env")) {
    record.env_names = env_names(*env);
    request.env_additions = std::move(*env);
  }
  if (auto timeout = optional_value<std::string>(vm, "timeout")) {
    request.timeout = parse_duration(*timeout);
    if (request.timeout->count() == 0) {
      throw_usage("--timeout must be greater than zero");
    }
    record.timeout_s = to_seconds(*request.timeout);
  }
  if (auto grace = optional_value<std::string>(vm, "grace")) {
    request.grace = parse_duration(*grace);
  }
  record.grace_s = to_seconds(request.grace);
  request.max_output = output_limit(optional_value<std::string>(vm, "max-output"));
  return request;
}

// Picks the executor (--executor, else $BGTASK_EXECUTOR, else local) and
// takes the Slurm options, refusing them for local tasks and refusing what
// only a local supervisor can do for Slurm tasks.
void choose_executor(const po::variables_map& vm, LaunchRequest& request)
{
  const char* env = std::getenv("BGTASK_EXECUTOR");
  const auto option = optional_value<std::string>(vm, "executor");
  const std::string name = option ? *option : env != nullptr && *env != '\0' ? env : "local";
  if (!is_executor_name(name)) {
    throw_usage(std::string(option ? "--executor" : "BGTASK_EXECUTOR") + ": unknown executor '" +
                escape_for_terminal(name, KeepNewlines::no) + "' (expected local or slurm)");
  }
  request.record.executor = name;
  auto& slurm = request.slurm;
  slurm.partition = optional_value<std::string>(vm, "partition");
  slurm.time_limit = optional_value<std::string>(vm, "slurm-time");
  slurm.args = optional_value<std::vector<std::string>>(vm, "slurm-arg").value_or(std::vector<std::string>{});
  if (name != "slurm") {
    if (slurm.partition || slurm.time_limit || !slurm.args.empty()) {
      throw_usage("--partition, --slurm-time and --slurm-arg need --executor slurm");
    }
    return;
  }
  check_slurm_args(slurm.args);
  if (request.argv.front().starts_with('-')) {
    throw_usage("a command name starting with '-' cannot be run by the slurm executor");
  }
  if (vm.count("max-output") != 0) {
    throw_usage("--max-output needs the local executor");
  }
  request.max_output.reset(); // $BGTASK_MAX_OUTPUT: a Slurm job's output is not capped
}

} // namespace

int run_start(const GlobalOptions& global, const std::vector<std::string>& args)
{
  const auto separator = std::find(args.begin(), args.end(), "--");
  const std::vector<std::string> own(args.begin(), separator);
  std::vector<std::string> command;
  if (separator != args.end()) {
    command.assign(separator + 1, args.end());
  }
  po::options_description options("Options");
  options.add_options()
    ("name", po::value<std::string>(), "a name to show in list and to filter by")
    ("cwd", po::value<std::string>(), "directory to run the command in (default: the current one)")
    ("env", po::value<std::vector<std::string>>()->composing(),
     "set K=V in the command's environment (repeatable; values are never stored)")
    ("timeout", po::value<std::string>(), "stop the command after DUR (state timed_out)")
    ("grace", po::value<std::string>(), "time between TERM and KILL when stopping (default 5s)")
    ("max-output", po::value<std::string>()->value_name("SIZE"),
     "keep at most SIZE bytes of output (e.g. 10M; `none`; default $BGTASK_MAX_OUTPUT)")
    ("executor", po::value<std::string>()->value_name("NAME"),
     "where to run: local (default, or $BGTASK_EXECUTOR) or slurm (a batch job)")
    ("partition", po::value<std::string>()->value_name("P"), "slurm: the partition to submit to")
    ("slurm-time", po::value<std::string>()->value_name("T"),
     "slurm: the job's time limit as sbatch --time takes it (default: --timeout, in whole minutes)")
    ("slurm-arg", po::value<std::vector<std::string>>()->composing()->value_name("ARG"),
     "slurm: an sbatch argument, passed verbatim (repeatable)")
    ("shell,c", po::value<std::string>()->value_name("STRING"), "run STRING with /bin/sh -c");
  const auto vm = parse_command_line(k_syntax, options, {}, own);
  if (!vm) {
    return 0;
  }
  LaunchRequest request = build_request(*vm, std::move(command));
  choose_executor(*vm, request);
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));

  std::optional<TaskLock> lock;
  for (int attempt = 0; attempt < 16 && !lock; ++attempt) {
    request.record.created_at = now();
    request.record.id = make_task_id(request.record.created_at);
    lock = TaskLock::create_owned(dir, request.record.id);
  }
  if (!lock) {
    throw Error(ExitCode::failure, "cannot allocate a task ID in " + dir.path());
  }
  const std::string id = request.record.id;
  request.record.output.path = dir.file_path(output_file_name(id));
  const LaunchResult result = executor_for(request.record.executor).launch(dir, std::move(*lock), std::move(request));
  std::cout << id << std::endl;
  if (result.exit_code != 0) {
    throw Error(static_cast<ExitCode>(result.exit_code), "task " + id + " failed to start: " + result.error);
  }
  return 0;
}

} // namespace bgtask
