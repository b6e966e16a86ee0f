#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/slurm/slurm_outcome.hpp>

#include <string>
#include <string_view>
#include <sys/types.h>

namespace bgtask {

class TaskDir;

// What a task's `ID.outcome.json` tells, once checked.
enum class OutcomeFileVerdict {
  absent,   // no file yet: the job runs, or died without writing one
  refused,  // a file that breaks the rules below: ignored, the controller decides
  ended,    // the command exited with a status, untouched by signals: final
  signalled // the command was killed, or the job was signalled: the controller says why
};

struct OutcomeFileReading
{
  OutcomeFileVerdict verdict = OutcomeFileVerdict::absent;
  std::string problem;  // refused: why
  SlurmOutcome outcome; // ended: the task's outcome
};

// The most bytes an outcome file may hold.
constexpr std::size_t k_max_outcome_file_size = 4096;

// How far the times a job's node writes may be ahead of this host's clock.
constexpr std::chrono::seconds k_outcome_clock_skew{300};

// Reads and checks `ID.outcome.json` of the unfinished Slurm task `record`
// (one open and fstat when there is none). The file is believed only if it
// is a regular file, not a link (opened with O_NOFOLLOW, a single name),
// owned by the task directory's owner, writable by nobody else, at most
// k_max_outcome_file_size bytes, and its content passes
// judge_outcome_text.
OutcomeFileReading read_outcome_file(const TaskDir& dir, const TaskRecord& record);

// Checks an outcome file's metadata: `uid`, `mode`, `links`, `size`,
// against the directory's owner `dir_owner`; the problem, if any.
std::optional<std::string> outcome_file_problem(uid_t uid, mode_t mode, nlink_t links, off_t size,
                                                uid_t dir_owner);

// Checks an outcome file's content against `record` at `now`: one JSON
// object, schema 1, naming the record's task, job id and job name, an exit
// code (0-255) or a signal (1-64) but not both, start and end times in
// order, the end no earlier than the task's creation and no later than
// `now` plus k_outcome_clock_skew, and the signals the job received. A
// file whose `restart_count` (Slurm's SLURM_RESTART_COUNT of the run that
// wrote it; 0 if absent) is below the `requeued` events of the record is an
// earlier run's: `absent`, as if there were none. An
// exit status with no signal received is `ended` (succeeded for 0, else
// failed); anything else `signalled`, since only Slurm knows whether a time
// limit, a cancel or the OOM killer did it.
OutcomeFileReading judge_outcome_text(std::string_view text, const TaskRecord& record,
                                      TimePoint now);

} // namespace bgtask
