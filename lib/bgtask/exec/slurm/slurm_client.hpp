#pragma once

#include <bgtask/exec/slurm/slurm_job.hpp>
#include <bgtask/proc/client_process.hpp>
#include <bgtask/util/result.hpp>
#include <bgtask/util/timestamp.hpp>

#include <optional>
#include <string>
#include <vector>

namespace bgtask {

// The Slurm client programs bgtask calls, each with a deadline
// (client_process.hpp), and what their answers mean. Nothing here writes
// records.

// The deadline of every query: $BGTASK_SLURM_TIMEOUT (a duration, e.g.
// `3s`) or 10 s. Throws Error(usage) for a malformed value.
Milliseconds slurm_client_timeout();

// How long a job may be unknown to both the controller and accounting
// before its task is marked lost: $BGTASK_SLURM_LOST_AFTER (a duration) or
// 2 minutes, for accounting that is briefly incomplete (slurmdbd or its
// database just back). Throws Error(usage) for a malformed value.
Milliseconds slurm_lost_grace();

// The parts of `scontrol show config` bgtask uses.
struct SlurmConfig
{
  std::string cluster;            // ClusterName
  std::string accounting_storage; // AccountingStorageType, e.g. accounting_storage/slurmdbd
  std::string jobcomp_type;       // JobCompType, e.g. jobcomp/filetxt
  std::string jobcomp_location;   // JobCompLoc
};

// The queries below answer with a Result: the answer, or why there is none
// (the client's own message, or that it did not answer in time).

// `scontrol show config`.
Result<SlurmConfig> query_slurm_config();

// `squeue -h -r -t all -j ID,ID,... -O <k_squeue_fields>`: one call for any
// number of jobs, answering only about them (finished ones included while
// the controller holds them). Elements of a job array (`41_3`) are asked
// for by their array job (`41`), once for all of them. A job the
// controller no longer knows is simply absent from the answer.
Result<std::vector<SlurmJobInfo>> query_controller(const std::vector<std::string>& job_ids);

// Where finished jobs were found after the controller forgot them.
struct AccountingRecords
{
  std::vector<SlurmJobInfo> jobs; // those of `job_ids` that were found
  std::string source;             // `accounting`, `the jobcomp log`, or empty: none configured
};

// Looks `job_ids` (submitted after `since`; array elements by their array
// job, as query_controller does) up in accounting, in one call:
// `sacct --duplicates` where slurmdbd stores accounting (every job that had
// an id, not only the newest, in case the controller reused it); else `sacct -c` where
// jobcomp/filetxt is configured, falling back to reading its log (JobCompLoc)
// directly, which is what non-root users have to do. No value on a failure
// that says nothing about the jobs (no answer in time, unexpected errors).
Result<AccountingRecords> query_accounting(const SlurmConfig& config,
                                           const std::vector<std::string>& job_ids,
                                           TimePoint since);

// `scancel --name=NAME ID`: the name makes sure a job ID reused by another
// job is never cancelled; an array element (`41_3`), which scancel would
// misread with a name, by its id alone. An unknown or finished job is not
// an error.
// Returns the problem if the request could not be delivered.
std::optional<std::string> cancel_slurm_job(const std::string& job_id, const std::string& job_name);

} // namespace bgtask
