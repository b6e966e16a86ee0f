#pragma once

#include <bgtask/core/launch_request.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace bgtask {

// The job name of a task's job (`bgtask-ID`). bgtask recognises its jobs by
// it in the controller's and accounting's answers, so it cannot be changed.
std::string slurm_job_name(std::string_view task_id);

// The batch script a task's job runs: exports BGTASK_ID and BGTASK_DIR, sets
// the caller's umask, changes to the task's directory (exit 127 if it cannot)
// and execs the command, so the command's exit status or signal becomes the
// job's `ExitCode`. Values from --env are not in it: they reach the job
// through sbatch's environment. Throws Error(usage) for a command name that
// starts with `-` (a shell's `exec` would take it for an option).
std::string slurm_batch_script(const LaunchRequest& request, std::string_view dir_path,
                               mode_t umask);

// sbatch's arguments for a task whose output goes to `output_path` (absolute):
// --export=ALL, --chdir, --time, --partition, then --slurm-arg values
// verbatim (an --export=LIST gets the names of --env added, so that their
// values still reach the job), then what bgtask depends on
// (--dependency=afterok:JOBS and --kill-on-invalid-dep=yes for --after,
// --job-name, --parsable, --output, --error, --open-mode=append). The
// script is read from stdin.
std::vector<std::string> sbatch_arguments(const LaunchRequest& request,
                                          std::string_view output_path);

// True if sbatch would read `arg` as option --`long_name` (or its short
// form): the full name, any prefix of it (sbatch accepts every unambiguous
// one and refuses ambiguous ones), or the letter in a word of short options
// (`-Ho`).
bool names_option(std::string_view arg, std::string_view long_name, char short_name);

// What else the task asks for, for check_slurm_args.
struct SlurmArgContext
{
  bool has_after = false; // --after: bgtask sets --dependency
  bool has_env = false;   // --env: its values must reach the job
};

// Throws Error(usage) for a --slurm-arg that would take the job out of
// bgtask's hands: --output, --error, --open-mode, --job-name, --parsable,
// --array, --wait, --wrap, --clusters (and their short forms and
// prefixes); --dependency and --kill-on-invalid-dep with --after; and
// --export=NONE with --env (its values could not reach the job).
void check_slurm_args(const std::vector<std::string>& args, const SlurmArgContext& context);

// `path` as an sbatch file name pattern: `%` doubled, since sbatch expands
// `%j` and friends (a path holding `\` is taken literally by sbatch as is).
std::string slurm_file_pattern(std::string_view path);

// A whole number of minutes covering `timeout` (Slurm's granularity), at least 1.
std::string slurm_time_limit(Milliseconds timeout);

// Parses `sbatch --parsable` output: `42` or `42;cluster`.
std::optional<SlurmJobRef> parse_sbatch_output(std::string_view text);

} // namespace bgtask
