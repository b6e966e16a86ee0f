#include <bgtask/exec/slurm/slurm_job_wrapper.hpp>
#include <bgtask/exec/slurm/slurm_submission.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/shell_quote.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <array>
#include <cctype>
#include <cstdio>
#include <optional>

namespace bgtask {

namespace {

struct ReservedOption
{
  std::string_view long_name;
  char short_name; // 0 if none
};

constexpr std::array<ReservedOption, 9> k_reserved{{
  {"output", 'o'},
  {"error", 'e'},
  {"open-mode", 0},
  {"job-name", 'J'},
  {"parsable", 0},
  {"array", 'a'},
  {"wait", 'W'},
  {"wrap", 0},
  {"clusters", 'M'}, // also --cluster, one of its prefixes
}};

// sbatch's short options that take no argument, so that another may follow
// them in the same word (`-Ho x`).
constexpr std::string_view k_short_flags = "hHOQsvV";

// The long option name of `arg` (`--name` or `--name=value`), empty if it
// is not a long option.
std::string_view long_name_of(std::string_view arg)
{
  if (!arg.starts_with("--")) {
    return {};
  }
  return arg.substr(2, arg.find('=') - 2);
}

// The upper-cased first item of an --export value: `NONE`, `ALL`, a name.
std::string first_export_item(std::string_view value)
{
  std::string item(value.substr(0, value.find(',')));
  for (char& c : item) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return item;
}

// True if `arg` is sbatch's --export option (`--export=VALUE` or `--export`
// with the value in the next word) or a prefix of it that names no option
// but --export and --export-file (`--exp`: sbatch 22.05 finds it
// ambiguous, a version without --export-file would not).
bool names_export(std::string_view arg)
{
  const auto name = long_name_of(arg);
  return name.size() >= 3 && std::string_view("export").starts_with(name);
}

// The value of the --export option `args[at]`: after its `=`, else the next
// word (nullopt if there is none: sbatch refuses that).
std::optional<std::string_view> export_value(const std::vector<std::string>& args, std::size_t at)
{
  const std::string_view arg = args[at];
  if (const auto equals = arg.find('='); equals != std::string_view::npos) {
    return arg.substr(equals + 1);
  }
  if (at + 1 < args.size()) {
    return std::string_view(args[at + 1]);
  }
  return std::nullopt;
}

// `--export=VALUE` with the names of --env added, so that sbatch passes
// their values (from its own environment) to the job; VALUE as it is when
// it exports everything already.
std::string export_with_names(std::string_view value, const std::vector<std::string>& env_names)
{
  std::string out = "--export=" + std::string(value);
  if (first_export_item(value) == "ALL") {
    return out;
  }
  for (const auto& name : env_names) {
    out += ',' + name;
  }
  return out;
}

// The --slurm-arg values as sbatch gets them: verbatim, but a full
// `--export=VALUE` or `--export VALUE` becomes one `--export=VALUE,NAMES`
// (export_with_names).
std::vector<std::string> user_arguments(const std::vector<std::string>& args,
                                        const std::vector<std::string>& env_names)
{
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto value = long_name_of(args[i]) == "export" ? export_value(args, i) : std::nullopt;
    if (!value) {
      out.push_back(args[i]);
      continue;
    }
    if (args[i].find('=') == std::string::npos) {
      ++i; // the value's own word
    }
    out.push_back(export_with_names(*value, env_names));
  }
  return out;
}

// Throws Error(usage) if --export `args[at]` would keep --env values from
// the job: NONE (or NIL) takes no variables, and a prefix (`--exp=HOME`)
// gets no names added.
void check_export_with_env(const std::vector<std::string>& args, std::size_t at)
{
  const auto arg = escape_for_terminal(args[at], KeepNewlines::no);
  const auto value = export_value(args, at);
  if (long_name_of(args[at]) != "export") {
    throw_usage("--slurm-arg '" + arg + "': with --env, write sbatch's --export in full, so that " +
                "bgtask can add the --env names to it");
  }
  const auto first = value ? first_export_item(*value) : std::string();
  if (first == "NONE" || first == "NIL") {
    throw_usage("--env cannot reach a job submitted with --slurm-arg '" + arg +
                (args[at].find('=') == std::string::npos
                   ? " " + escape_for_terminal(*value, KeepNewlines::no)
                   : std::string()) +
                "' (sbatch takes no variables with it): list the variables the job needs, "
                "e.g. --slurm-arg=--export=HOME; --env adds its own names");
  }
}

std::string join_colon(const std::vector<std::string>& parts)
{
  std::string text;
  for (const auto& part : parts) {
    text += (text.empty() ? "" : ":") + part;
  }
  return text;
}

// The end of every batch script: the caller's umask, the task's working
// directory, and the command, under the wrapper that writes its outcome
// file (slurm_job_wrapper.hpp).
std::string script_tail(const LaunchRequest& request, mode_t umask)
{
  if (request.argv.empty() || request.argv.front().starts_with('-')) {
    throw_usage("a command name starting with '-' cannot be run by the slurm executor");
  }
  char umask_text[8];
  std::snprintf(umask_text, sizeof(umask_text), "%04o", static_cast<unsigned int>(umask & 07777));
  std::string script = "umask " + std::string(umask_text) + "\n";
  script += "cd " + shell_quote(request.record.cwd) + " || exit 127\n";
  return script + slurm_run_command_lines(request.argv);
}

} // namespace

std::string slurm_name_part(std::string_view name)
{
  std::string part;
  for (const char c : name.substr(0, k_max_name_part)) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' ||
                      c == '+' || c == '-';
    part += safe && static_cast<unsigned char>(c) < 0x80 ? c : '_';
  }
  return part;
}

std::string slurm_job_name(std::string_view task_id, const std::optional<std::string>& name)
{
  const std::string own = "bgtask-" + std::string(task_id);
  return name && !name->empty() ? slurm_name_part(*name) + "-" + own : own;
}

std::string slurm_array_job_name(std::string_view first_id, const std::optional<std::string>& name)
{
  return slurm_job_name("array-" + std::string(first_id), name);
}

std::string recorded_job_name(const TaskRecord& record)
{
  if (record.slurm && record.slurm->job_name) {
    return *record.slurm->job_name;
  }
  return "bgtask-" + record.id;
}

std::string slurm_memory(std::uint64_t bytes)
{
  constexpr std::uint64_t mib = 1024 * 1024;
  return std::to_string(bytes / mib + (bytes % mib != 0 ? 1 : 0)) + "M";
}

std::string slurm_batch_script(const LaunchRequest& request, std::string_view dir_path,
                               mode_t umask)
{
  const auto& record = request.record;
  std::string tail = script_tail(request, umask);
  std::string script = "#!/bin/sh\n";
  script += "# bgtask task " + record.id + "\n";
  script += "BGTASK_ID=" + shell_quote(record.id) + "; export BGTASK_ID\n";
  script += "BGTASK_DIR=" + shell_quote(dir_path) + "; export BGTASK_DIR\n";
  return script + tail;
}

std::string slurm_array_script(const LaunchRequest& request,
                               const std::vector<SlurmArrayElement>& elements,
                               std::string_view dir_path, mode_t umask)
{
  std::string tail = script_tail(request, umask);
  std::string script = "#!/bin/sh\n";
  script += "# bgtask job array of " + std::to_string(elements.size()) + " tasks\n";
  script += "case \"$SLURM_ARRAY_TASK_ID\" in\n";
  for (const auto& element : elements) {
    script += std::to_string(element.index) + ") BGTASK_ID=" + shell_quote(element.task_id) +
              " out=" + shell_quote(element.output_path) + " ;;\n";
  }
  script += "*) echo \"bgtask: array index $SLURM_ARRAY_TASK_ID has no task\" >&2; exit 127 ;;\n";
  script += "esac\n";
  script += "exec >>\"$out\" 2>&1 || exit 127\n";
  script += "unset out\n";
  script += "BGTASK_ARRAY_INDEX=$SLURM_ARRAY_TASK_ID; export BGTASK_ID BGTASK_ARRAY_INDEX\n";
  script += "BGTASK_DIR=" + shell_quote(dir_path) + "; export BGTASK_DIR\n";
  return script + tail;
}

std::vector<std::string> sbatch_arguments(const LaunchRequest& request,
                                          std::string_view output_path, const SbatchJob& job)
{
  const auto& record = request.record;
  const std::string output = slurm_file_pattern(output_path);
  std::vector<std::string> args{"sbatch", "--export=ALL", "--chdir=" + record.cwd};
  const auto& options = record.options;
  if (options.slurm_time) {
    args.push_back("--time=" + *options.slurm_time);
  } else if (request.timeout) {
    args.push_back("--time=" + slurm_time_limit(*request.timeout));
  }
  if (options.partition) {
    args.push_back("--partition=" + *options.partition);
  }
  if (const auto memory = options.limits.memory_max) {
    args.push_back("--mem=" + slurm_memory(*memory));
  }
  if (!job.after_jobs.empty()) {
    args.push_back("--dependency=afterok:" + join_colon(job.after_jobs));
    args.push_back("--kill-on-invalid-dep=yes");
  }
  if (job.array) {
    args.push_back("--array=" + *job.array);
  }
  args.push_back("--job-name=" +
                 (job.job_name.empty() ? slurm_job_name(record.id, record.name) : job.job_name));
  args.push_back("--parsable");
  args.push_back("--output=" + output);
  args.push_back("--error=" + output);
  args.push_back("--open-mode=append");
  // Last: an option left without its value (`--slurm-arg=--comment`) makes
  // sbatch refuse the job instead of taking one of bgtask's options as it.
  for (auto& arg : user_arguments(options.slurm_args, record.env_names)) {
    args.push_back(std::move(arg));
  }
  return args;
}

bool names_option(std::string_view arg, std::string_view long_name, char short_name)
{
  if (arg.starts_with("--")) {
    const auto name = long_name_of(arg);
    return !name.empty() && long_name.starts_with(name);
  }
  if (arg.size() < 2 || arg[0] != '-' || short_name == 0) {
    return false;
  }
  for (const char c : arg.substr(1)) {
    if (c == short_name) {
      return true;
    }
    if (k_short_flags.find(c) == std::string_view::npos) {
      return false; // an option taking a value: the rest of the word is that value
    }
  }
  return false;
}

void check_slurm_args(const std::vector<std::string>& args, const SlurmArgContext& context)
{
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    for (const auto& option : k_reserved) {
      if (names_option(arg, option.long_name, option.short_name)) {
        throw_usage("--slurm-arg '" + escape_for_terminal(arg, KeepNewlines::no) +
                    "': bgtask sets --" + std::string(option.long_name) + " itself");
      }
    }
    if (context.has_after &&
        (names_option(arg, "dependency", 'd') || names_option(arg, "kill-on-invalid-dep", 0))) {
      throw_usage("--slurm-arg '" + escape_for_terminal(arg, KeepNewlines::no) +
                  "': with --after, bgtask sets --dependency and --kill-on-invalid-dep itself");
    }
    if (context.has_memory_max &&
        (names_option(arg, "mem", 0) || names_option(arg, "mem-per-cpu", 0) ||
         names_option(arg, "mem-per-gpu", 0))) {
      throw_usage("--slurm-arg '" + escape_for_terminal(arg, KeepNewlines::no) +
                  "': with --memory-max, bgtask sets --mem itself");
    }
    if (context.has_env && names_export(arg)) {
      check_export_with_env(args, i);
    }
  }
}

std::string slurm_file_pattern(std::string_view path)
{
  if (path.find('\\') != std::string_view::npos) {
    return std::string(path);
  }
  std::string pattern;
  for (const char c : path) {
    pattern += c;
    if (c == '%') {
      pattern += '%';
    }
  }
  return pattern;
}

std::string slurm_time_limit(Milliseconds timeout)
{
  const auto minutes = (timeout.count() + 59999) / 60000;
  return std::to_string(minutes < 1 ? 1 : minutes);
}

std::optional<SlurmJobRef> parse_sbatch_output(std::string_view text)
{
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  if (const auto newline = text.rfind('\n'); newline != std::string_view::npos) {
    text.remove_prefix(newline + 1); // warnings may precede the id
  }
  SlurmJobRef job;
  const auto semicolon = text.find(';');
  job.job_id = std::string(text.substr(0, semicolon));
  if (semicolon != std::string_view::npos && semicolon + 1 < text.size()) {
    job.cluster = std::string(text.substr(semicolon + 1));
  }
  if (job.job_id.empty()) {
    return std::nullopt;
  }
  for (const char c : job.job_id) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) {
      return std::nullopt;
    }
  }
  return job;
}

} // namespace bgtask
