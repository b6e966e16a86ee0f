#pragma once

#include <bgtask/core/launch_request.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace bgtask {

// The job name of a task's job: `bgtask-ID`, or for a task with a --name,
// that name made fit for Slurm (slurm_name_part) and `-bgtask-ID`
// (`train-bgtask-0h2kq1m8x3fa`), so that squeue shows both. bgtask
// recognises its jobs by their name in the controller's and accounting's
// answers: the record keeps it (slurm.job_name).
std::string slurm_job_name(std::string_view task_id, const std::optional<std::string>& name);

// The job name of a job array (`start --array`) whose first element is task
// `first_id`: `bgtask-array-FIRSTID`, after the --name as above.
std::string slurm_array_job_name(std::string_view first_id, const std::optional<std::string>& name);

// `name` as a part of a job name: its bytes other than ASCII letters,
// digits and `._+-` become `_` (no spaces, commas, `|` or newlines, which
// Slurm's clients would split on), cut to k_max_name_part bytes.
inline constexpr std::size_t k_max_name_part = 64;
std::string slurm_name_part(std::string_view name);

// The name of the job a record names: slurm.job_name, else `bgtask-ID` (as
// earlier versions named every job).
std::string recorded_job_name(const TaskRecord& record);

// The batch script a task's job runs: exports BGTASK_ID and BGTASK_DIR, sets
// the caller's umask, changes to the task's directory (exit 127 if it cannot)
// and execs the command, so the command's exit status or signal becomes the
// job's `ExitCode`. Values from --env are not in it: they reach the job
// through sbatch's environment. Throws Error(usage) for a command name that
// starts with `-` (a shell's `exec` would take it for an option).
std::string slurm_batch_script(const LaunchRequest& request, std::string_view dir_path,
                               mode_t umask);

// What one submission is, beyond the request.
struct SbatchJob
{
  std::string job_name;                // empty: slurm_job_name of the request's record
  std::optional<std::string> array;    // --array=SPEC, for `start --array`
  std::vector<std::string> after_jobs; // job ids of the unfinished --after tasks (afterok)
};

// One element of a job array: its index, its task and that task's output file.
struct SlurmArrayElement
{
  std::uint32_t index = 0;
  std::string task_id;
  std::string output_path; // absolute
};

// The batch script of a job array (`start --array`): picks the element's
// task by $SLURM_ARRAY_TASK_ID (an index without one exits 127), exports
// its BGTASK_ID and BGTASK_ARRAY_INDEX, appends everything it prints to
// that task's output file (sbatch's own --output is /dev/null, since an
// output pattern cannot name task IDs), then goes on as
// slurm_batch_script does. Throws as slurm_batch_script does.
std::string slurm_array_script(const LaunchRequest& request,
                               const std::vector<SlurmArrayElement>& elements,
                               std::string_view dir_path, mode_t umask);

// sbatch's arguments for a task whose output goes to `output_path` (absolute):
// --export=ALL, --chdir, --time, --partition, --mem for --memory-max (in
// whole MiB, rounded up), what bgtask depends on (--array,
// --dependency=afterok:JOBS and --kill-on-invalid-dep=yes for --after,
// --job-name, --parsable, --output, --error, --open-mode=append), then the
// --slurm-arg values verbatim, last, so that they override bgtask's
// defaults and a value-taking option given without its value cannot take
// one of bgtask's options as it (an --export=LIST or `--export LIST`
// becomes one --export=LIST with the names of --env added, so that their
// values still reach the job). check_slurm_args refuses those that would
// override what bgtask depends on. The script is read from stdin.
std::vector<std::string> sbatch_arguments(const LaunchRequest& request,
                                          std::string_view output_path, const SbatchJob& job = {});

// sbatch's --mem value for --memory-max `bytes`: whole MiB, rounded up (`512M`).
std::string slurm_memory(std::uint64_t bytes);

// True if sbatch would read `arg` as option --`long_name` (or its short
// form): the full name, any prefix of it (sbatch accepts every unambiguous
// one and refuses ambiguous ones), or the letter in a word of short options
// (`-Ho`).
bool names_option(std::string_view arg, std::string_view long_name, char short_name);

// What else the task asks for, for check_slurm_args.
struct SlurmArgContext
{
  bool has_after = false;      // --after: bgtask sets --dependency
  bool has_env = false;        // --env: its values must reach the job
  bool has_memory_max = false; // --memory-max: bgtask sets --mem
};

// Throws Error(usage) for a --slurm-arg that would take the job out of
// bgtask's hands: --output, --error, --open-mode, --job-name, --parsable,
// --array, --wait, --wrap, --clusters (and their short forms and
// prefixes); --dependency and --kill-on-invalid-dep with --after;
// --mem, --mem-per-cpu and --mem-per-gpu with --memory-max; and with
// --env, --export=NONE (also `--export NONE`, two words), which would keep
// its values from the job, and --export written as a prefix (`--exp=`),
// to which bgtask adds no names.
void check_slurm_args(const std::vector<std::string>& args, const SlurmArgContext& context);

// `path` as an sbatch file name pattern: `%` doubled, since sbatch expands
// `%j` and friends (a path holding `\` is taken literally by sbatch as is).
std::string slurm_file_pattern(std::string_view path);

// A whole number of minutes covering `timeout` (Slurm's granularity), at least 1.
std::string slurm_time_limit(Milliseconds timeout);

// Parses `sbatch --parsable` output: `42` or `42;cluster`.
std::optional<SlurmJobRef> parse_sbatch_output(std::string_view text);

} // namespace bgtask
