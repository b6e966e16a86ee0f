#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// What one source (controller or accounting) said about one Slurm job, as
// text, before any interpretation.
struct SlurmJobInfo
{
  std::string job_id;
  std::string name;       // JobName / Name
  std::string state;      // first word of JobState/State: RUNNING, CANCELLED, ...
  std::string reason;     // Reason (accounting keeps the one of its last update, e.g. `Dependency`)
  std::string exit_code;  // `code:signal`, e.g. `3:0`, `0:9`
  std::string start_time; // as printed: `2026-11-29T19:08:53`, `Unknown`, ...
  std::string end_time;
  std::string node_list;   // NodeList (all the job's nodes); empty or `(null)` when it never ran
  std::string time_limit;  // TimeLimit / Timelimit (`00:01:00`, `UNLIMITED`)
  std::string submit_time; // as printed, like start_time
  // From a row naming several array elements at once (`41_[3-5]`), which a
  // row of the element's own says more precisely.
  bool from_range = false;
};

// The columns bgtask asks `squeue -O` for, each ended by `|` (`:|`: no
// width limit, `|` after the value); the name, which may hold `|`, last.
// JobArrayID is the job id, or `ARRAYJOB_INDEX` for an element of an array
// (with `squeue -r`, pending elements too, one line each).
inline constexpr std::string_view k_squeue_fields =
  "JobArrayID:|,State:|,Reason:|,exit_code:|,StartTime:|,EndTime:|,NodeList:|,TimeLimit:|,"
  "SubmitTime:|,Name:|";

// Parses `squeue -h -t all -O <k_squeue_fields>` output. squeue's exit_code
// is the raw wait status (768 for exit 3, 9 for SIGKILL); it is turned into
// `code:signal` as sacct prints it.
std::vector<SlurmJobInfo> parse_squeue_jobs(std::string_view text);

// The columns bgtask asks `sacct` for, in this order (`-o` argument).
inline constexpr std::string_view k_sacct_fields =
  "JobID,State,ExitCode,Start,End,NodeList,Submit,Reason,Timelimit,JobName";

// The name accounting shows for a job whose record it has not completed
// yet (for a few seconds after it ends, longer after a database outage).
inline constexpr std::string_view k_slurm_placeholder_name = "allocation";

// Parses `sacct -X -n -P -o <k_sacct_fields>` output (also with `-c`): one
// `|`-separated line per job; the job name, last, may itself contain `|`.
// Step lines (`12.batch`) are skipped; a line for several array elements
// (`41_[3-5]`, those cancelled before they ran) becomes one job per element,
// marked from_range.
std::vector<SlurmJobInfo> parse_sacct_jobs(std::string_view text);

// Parses one line of a jobcomp/filetxt log (`JobId=2 UserId=... Name=...
// JobState=FAILED ... ExitCode=3:0`); nullopt for anything else.
std::optional<SlurmJobInfo> parse_jobcomp_line(std::string_view line);

// Splits a `Key=Value Key=Value` line (as the jobcomp log writes them)
// into pairs, in order, keeping the first of repeated keys.
std::vector<std::pair<std::string, std::string>> split_key_values(std::string_view line);

// Parses `scontrol show config` output (`Key = Value` lines) into pairs.
std::vector<std::pair<std::string, std::string>> parse_slurm_config(std::string_view text);

} // namespace bgtask
