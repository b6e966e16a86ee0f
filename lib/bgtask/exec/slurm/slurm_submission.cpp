#include <bgtask/exec/slurm/slurm_submission.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <array>
#include <cctype>
#include <cstdio>

namespace bgtask {

namespace {

std::string shell_quote(std::string_view word)
{
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

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
  {"clusters", 'M'},
}};

} // namespace

std::string slurm_job_name(std::string_view task_id)
{
  return "bgtask-" + std::string(task_id);
}

std::string slurm_batch_script(const LaunchRequest& request, std::string_view dir_path,
                               mode_t umask)
{
  const auto& record = request.record;
  if (request.argv.empty() || request.argv.front().starts_with('-')) {
    throw_usage("a command name starting with '-' cannot be run by the slurm executor");
  }
  char umask_text[8];
  std::snprintf(umask_text, sizeof(umask_text), "%04o", static_cast<unsigned int>(umask & 07777));
  std::string script = "#!/bin/sh\n";
  script += "# bgtask task " + record.id + "\n";
  script += "BGTASK_ID=" + shell_quote(record.id) + "; export BGTASK_ID\n";
  script += "BGTASK_DIR=" + shell_quote(dir_path) + "; export BGTASK_DIR\n";
  script += "umask " + std::string(umask_text) + "\n";
  script += "cd " + shell_quote(record.cwd) + " || exit 127\n";
  script += "exec";
  for (const auto& word : request.argv) {
    script += ' ' + shell_quote(word);
  }
  script += '\n';
  return script;
}

std::vector<std::string> sbatch_arguments(const LaunchRequest& request,
                                          std::string_view output_path)
{
  const auto& record = request.record;
  const std::string output = slurm_file_pattern(output_path);
  std::vector<std::string> args{"sbatch", "--export=ALL", "--chdir=" + record.cwd};
  if (request.slurm.time_limit) {
    args.push_back("--time=" + *request.slurm.time_limit);
  } else if (request.timeout) {
    args.push_back("--time=" + slurm_time_limit(*request.timeout));
  }
  if (request.slurm.partition) {
    args.push_back("--partition=" + *request.slurm.partition);
  }
  args.insert(args.end(), request.slurm.args.begin(), request.slurm.args.end());
  args.push_back("--job-name=" + slurm_job_name(record.id));
  args.push_back("--parsable");
  args.push_back("--output=" + output);
  args.push_back("--error=" + output);
  args.push_back("--open-mode=append");
  return args;
}

void check_slurm_args(const std::vector<std::string>& args)
{
  for (const auto& arg : args) {
    for (const auto& option : k_reserved) {
      bool reserved = false;
      if (arg.starts_with("--")) {
        const std::string_view name = std::string_view(arg).substr(2, arg.find('=') - 2);
        reserved = name.size() >= 3 && option.long_name.starts_with(name);
      } else if (arg.size() >= 2 && arg[0] == '-' && option.short_name != 0) {
        reserved = arg[1] == option.short_name;
      }
      if (reserved) {
        throw_usage("--slurm-arg '" + escape_for_terminal(arg, KeepNewlines::no) +
                    "': bgtask sets --" + std::string(option.long_name) + " itself");
      }
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
