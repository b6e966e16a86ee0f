// Outcome files (`ID.outcome.json`) are written by the job's wrapper
// (slurm_job_wrapper.cpp) into the shared task directory when the command
// ends: one JSON object on one line,
//   {"schema":1,"task":ID,"job_id":"1234"|"1234_7","job_name":NAME,
//    "restart_count":N,"exit_code":N|null,"signal":N|null,
//    "signals_received":["SIGTERM",...],"started_at":TIME,
//    "finished_at":TIME,"node":NAME|null}
// (restart_count: Slurm's SLURM_RESTART_COUNT of the run; absent in older
// files, read as 0)
// through a temp file and rename. Anyone who can write the task directory
// could plant one, so the file only counts when the rules of
// read_outcome_file and judge_outcome_text hold; otherwise the controller
// settles the task as if there were none.

#include <bgtask/exec/slurm/slurm_outcome_file.hpp>
#include <bgtask/exec/slurm/slurm_submission.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/json_fields.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

OutcomeFileReading refused(std::string problem)
{
  OutcomeFileReading reading;
  reading.verdict = OutcomeFileVerdict::refused;
  reading.problem = std::move(problem);
  return reading;
}

Result<std::string> required_string(const boost::json::object& o, std::string_view key)
{
  const auto* v = json_field(o, key);
  if (v == nullptr) {
    return Failure{std::string(key) + ": missing"};
  }
  return json_as_string(*v, key);
}

Result<TimePoint> required_time(const boost::json::object& o, std::string_view key)
{
  auto text = required_string(o, key);
  if (!text) {
    return Failure{text.error()};
  }
  const auto time = parse_timestamp(*text);
  if (!time) {
    return Failure{std::string(key) + ": not a time"};
  }
  return *time;
}

// An optional integer field within [low, high].
Result<std::optional<int>> bounded(const boost::json::object& o, std::string_view key, int low,
                                   int high)
{
  auto value = json_optional<std::int64_t>(o, key, json_as_integer);
  if (!value) {
    return Failure{value.error()};
  }
  if (*value && (**value < low || **value > high)) {
    return Failure{std::string(key) + ": out of range"};
  }
  return value->has_value() ? std::optional<int>(static_cast<int>(**value)) : std::nullopt;
}

// How often Slurm put the task's job back in the queue, as far as the
// record saw (its `requeued` events).
int requeues_seen(const TaskRecord& record)
{
  return static_cast<int>(std::count_if(record.events.begin(), record.events.end(),
                                        [](const TaskEvent& e) { return e.kind == "requeued"; }));
}

} // namespace

std::optional<std::string> outcome_file_problem(uid_t uid, mode_t mode, nlink_t links, off_t size,
                                                uid_t dir_owner)
{
  if (!S_ISREG(mode)) {
    return "not a regular file";
  }
  if (uid != dir_owner) {
    return "owned by uid " + std::to_string(uid) + ", not by the task directory's owner (uid " +
           std::to_string(dir_owner) + ")";
  }
  if ((mode & (S_IWGRP | S_IWOTH)) != 0) {
    return "writable by others";
  }
  if (links != 1) {
    return "has " + std::to_string(links) + " names (hard links)";
  }
  if (size <= 0 || static_cast<std::size_t>(size) > k_max_outcome_file_size) {
    return "size " + std::to_string(size) + " bytes (1 to " +
           std::to_string(k_max_outcome_file_size) + " allowed)";
  }
  return std::nullopt;
}

OutcomeFileReading judge_outcome_text(std::string_view text, const TaskRecord& record,
                                      TimePoint now)
{
  boost::json::error_code ec;
  const auto jv = boost::json::parse(text, ec);
  if (ec || !jv.is_object()) {
    return refused("not a complete JSON object");
  }
  const auto& o = jv.as_object();
  const auto* schema = json_field(o, "schema");
  if (schema == nullptr || !schema->is_int64() || schema->as_int64() != 1) {
    return refused("unknown schema");
  }
  const auto task = required_string(o, "task");
  const auto job_id = required_string(o, "job_id");
  const auto job_name = required_string(o, "job_name");
  const auto started = required_time(o, "started_at");
  const auto finished = required_time(o, "finished_at");
  const auto exit_code = bounded(o, "exit_code", 0, 255);
  const auto signal = bounded(o, "signal", 1, 64);
  const auto* received = json_field(o, "signals_received");
  for (const auto* failed : {static_cast<const Result<std::string>*>(&task), &job_id, &job_name}) {
    if (!*failed) {
      return refused(failed->error());
    }
  }
  if (!started || !finished) {
    return refused(!started ? started.error() : finished.error());
  }
  if (!exit_code || !signal) {
    return refused(!exit_code ? exit_code.error() : signal.error());
  }
  if (received == nullptr || !received->is_array()) {
    return refused("signals_received: missing");
  }
  if (*task != record.id) {
    return refused("names another task");
  }
  if (!record.slurm || *job_id != record.slurm->job_id) {
    return refused("names job " + *job_id + ", not the task's job");
  }
  if (*job_name != recorded_job_name(record)) {
    return refused("names another job name");
  }
  const auto restarts = bounded(o, "restart_count", 0, 999999999);
  if (!restarts) {
    return refused(restarts.error());
  }
  if (restarts->value_or(0) < requeues_seen(record)) {
    return {}; // a run before the job's last requeue wrote it: as if there were none
  }
  if (exit_code->has_value() == signal->has_value()) {
    return refused("must hold an exit code or a signal");
  }
  const auto created_second = std::chrono::floor<std::chrono::seconds>(record.created_at);
  if (*finished < *started || *finished < created_second ||
      *finished > now + k_outcome_clock_skew) {
    return refused("times out of order with the task's");
  }
  OutcomeFileReading reading;
  if (*signal || !received->as_array().empty()) {
    reading.verdict = OutcomeFileVerdict::signalled;
    return reading;
  }
  reading.verdict = OutcomeFileVerdict::ended;
  auto& outcome = reading.outcome;
  outcome.exit_code = **exit_code;
  outcome.state = outcome.exit_code == 0 ? TaskState::succeeded : TaskState::failed;
  if (outcome.state == TaskState::failed) {
    outcome.reason = "exited with status " + std::to_string(**exit_code);
  }
  outcome.started_at = *started;
  outcome.finished_at = *finished;
  if (const auto* node = json_field(o, "node"); node != nullptr && node->is_string()) {
    outcome.node = std::string(node->as_string());
  }
  return reading;
}

OutcomeFileReading read_outcome_file(const TaskDir& dir, const TaskRecord& record)
{
  const auto name = outcome_file_name(record.id);
  UniqueFd fd(::openat(dir.fd(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) {
      return {};
    }
    return refused(errno == ELOOP ? "a symbolic link" : std::strerror(errno));
  }
  struct stat st
  {
  };
  if (::fstat(fd.get(), &st) != 0) {
    return refused(std::strerror(errno));
  }
  if (const auto problem =
        outcome_file_problem(st.st_uid, st.st_mode, st.st_nlink, st.st_size, dir.owner())) {
    return refused(*problem);
  }
  std::string text(k_max_outcome_file_size + 1, '\0');
  std::size_t length = 0;
  while (length < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + length, text.size() - length);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return refused(std::strerror(errno));
    }
    if (n == 0) {
      break;
    }
    length += static_cast<std::size_t>(n);
  }
  if (length > k_max_outcome_file_size) {
    return refused("grew past " + std::to_string(k_max_outcome_file_size) + " bytes");
  }
  text.resize(length);
  return judge_outcome_text(text, record, now());
}

} // namespace bgtask
