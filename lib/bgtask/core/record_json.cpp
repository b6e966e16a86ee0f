// On-disk format of `ID.status.json` (schema 1).
//
// One compact JSON object. Writers always emit every key; absent values are
// null. Readers check `schema` first, require the keys that identify a task
// (id, command, state, created_at), accept null or a missing key for the
// rest, ignore unknown keys (so a newer minor writer stays readable) and
// reject wrong types. Every string is valid UTF-8 (see utf8.hpp).

#include <bgtask/core/exit_status.hpp>
#include <bgtask/core/queue_name.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/util/json_fields.hpp>
#include <bgtask/util/json_text.hpp>
#include <bgtask/util/utf8.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace json = boost::json;

namespace bgtask {

namespace {

json::value optional_string(const std::optional<std::string>& s)
{
  return s ? json::value(to_valid_utf8(*s)) : json::value(nullptr);
}

json::value optional_time(const std::optional<TimePoint>& t)
{
  return t ? json::value(format_timestamp(*t)) : json::value(nullptr);
}

template <typename T> json::value optional_number(const std::optional<T>& n)
{
  return n ? json::value(*n) : json::value(nullptr);
}

json::value owner_to_json(const std::optional<OwnerIdentity>& owner)
{
  if (!owner) {
    return nullptr;
  }
  json::value v;
  auto& o = v.emplace_object();
  o["pid"] = owner->pid;
  o["instance"] = to_valid_utf8(owner->instance);
  o["start_time"] = owner->start_time;
  o["boot_id"] = to_valid_utf8(owner->boot_id);
  o["host"] = to_valid_utf8(owner->host);
  if (owner->pid_ns != 0) {
    o["pid_ns"] = owner->pid_ns;
  }
  return v;
}

json::value child_to_json(const std::optional<ChildIdentity>& child)
{
  if (!child) {
    return nullptr;
  }
  json::value v;
  auto& o = v.emplace_object();
  o["pid"] = child->pid;
  o["pgid"] = child->pgid;
  o["start_time"] = child->start_time;
  return v;
}

json::value slurm_to_json(const std::optional<SlurmJobRef>& slurm)
{
  if (!slurm) {
    return nullptr;
  }
  json::value v;
  auto& o = v.emplace_object();
  o["job_id"] = to_valid_utf8(slurm->job_id);
  o["cluster"] = optional_string(slurm->cluster);
  o["job_name"] = optional_string(slurm->job_name);
  o["array_index"] = slurm->array_index ? json::value(*slurm->array_index) : json::value(nullptr);
  o["pending_reason"] = optional_string(slurm->pending_reason);
  o["missing_since"] = optional_time(slurm->missing_since);
  return v;
}

json::value progress_to_json(const std::optional<Progress>& progress)
{
  if (!progress) {
    return nullptr;
  }
  json::value v;
  auto& o = v.emplace_object();
  o["percent"] = optional_number(progress->percent);
  o["current"] = optional_number(progress->current);
  o["total"] = optional_number(progress->total);
  o["message"] = optional_string(progress->message);
  o["updated_at"] = format_timestamp(progress->updated_at);
  return v;
}

json::value events_to_json(const std::vector<TaskEvent>& events)
{
  json::value v;
  auto& a = v.emplace_array();
  a.reserve(events.size());
  for (const auto& e : events) {
    json::object o;
    o["kind"] = to_valid_utf8(e.kind);
    o["at"] = format_timestamp(e.at);
    o["message"] = optional_string(e.message);
    a.emplace_back(std::move(o));
  }
  return v;
}

std::string_view retention_name(OutputRetention retention)
{
  switch (retention) {
  case OutputRetention::head_and_tail:
    return "head_and_tail";
  case OutputRetention::head_only:
    return "head_only";
  case OutputRetention::head_via_pipe:
    break;
  }
  return "head_via_pipe";
}

std::string_view waiting_for_name(WaitingFor waiting_for)
{
  return waiting_for == WaitingFor::after ? "after" : "slot";
}

json::value strings_to_json(const std::vector<std::string>& strings)
{
  json::value v;
  auto& a = v.emplace_array();
  for (const auto& s : strings) {
    a.emplace_back(to_valid_utf8(s));
  }
  return v;
}

// --- Lifecycle fields (options, attempts, pause, cgroup) ---

json::value numbers_to_json(const std::vector<int>& numbers)
{
  json::value v;
  auto& a = v.emplace_array();
  for (const int n : numbers) {
    a.emplace_back(n);
  }
  return v;
}

json::value retry_to_json(const std::optional<RetryPolicy>& retry)
{
  if (!retry) {
    return nullptr;
  }
  json::value v;
  auto& o = v.emplace_object();
  o["max_retries"] = retry->max_retries;
  o["delay_s"] = retry->delay_s;
  o["on_exit_codes"] = numbers_to_json(retry->on_exit_codes);
  o["on_timeout"] = retry->on_timeout;
  return v;
}

json::value options_to_json(const LaunchOptions& options)
{
  json::value v;
  auto& o = v.emplace_object();
  o["max_output"] = optional_number(options.max_output);
  o["partition"] = optional_string(options.partition);
  o["slurm_time"] = optional_string(options.slurm_time);
  o["slurm_args"] = strings_to_json(options.slurm_args);
  o["retry"] = retry_to_json(options.retry);
  json::object limits;
  limits["memory_max"] = optional_number(options.limits.memory_max);
  limits["pids_max"] = optional_number(options.limits.pids_max);
  limits["cpu_max"] = optional_number(options.limits.cpu_max);
  o["limits"] = std::move(limits);
  o["stderr_apart"] = options.stderr_apart;
  o["pty"] = options.pty;
  return v;
}

json::value attempts_to_json(const std::vector<Attempt>& attempts)
{
  json::value v;
  auto& a = v.emplace_array();
  for (const auto& attempt : attempts) {
    json::object o;
    o["number"] = attempt.number;
    o["started_at"] = format_timestamp(attempt.started_at);
    o["finished_at"] = optional_time(attempt.finished_at);
    o["exit_code"] = optional_number(attempt.exit_code);
    o["signal"] = optional_number(attempt.signal);
    o["outcome"] = optional_string(attempt.outcome);
    a.emplace_back(std::move(o));
  }
  return v;
}

json::value pause_to_json(const PauseInfo& pause)
{
  json::value v;
  auto& o = v.emplace_object();
  o["requested"] = pause.requested;
  o["paused"] = pause.paused;
  o["since"] = optional_time(pause.since);
  o["paused_s"] = pause.paused_s;
  return v;
}

void lifecycle_to_json(const TaskRecord& r, json::object& o)
{
  o["options"] = options_to_json(r.options);
  o["attempts"] = attempts_to_json(r.attempts);
  o["retry_at"] = optional_time(r.retry_at);
  o["rerun_of"] = optional_string(r.rerun_of);
  o["pause"] = pause_to_json(r.pause);
  o["paused"] = r.pause.paused;
  o["cgroup"] = optional_string(r.cgroup);
  o["memory_peak"] = optional_number(r.memory_peak);
  o["reason"] = optional_string(r.reason);
}

// --- Decoding helpers: each throws std::invalid_argument naming the key. ---

[[noreturn]] void bad(std::string_view key, std::string_view what)
{
  throw std::invalid_argument(std::string(key) + ": " + std::string(what));
}

// The value of a field reader (util/json_fields.hpp), or its failure thrown.
template <typename T> T field(Result<T> read)
{
  if (!read) {
    throw std::invalid_argument(read.error());
  }
  return std::move(read).value();
}

const json::value* find(const json::object& o, std::string_view key)
{
  return json_field(o, key);
}

const json::value& require(const json::object& o, std::string_view key)
{
  const auto* p = find(o, key);
  if (p == nullptr) {
    bad(key, "missing");
  }
  return *p;
}

std::string get_string(const json::value& v, std::string_view key)
{
  return field(json_as_string(v, key));
}

std::optional<std::string> opt_string(const json::object& o, std::string_view key)
{
  return field(json_optional(o, key, json_as_string));
}

std::int64_t get_int(const json::value& v, std::string_view key)
{
  return field(json_as_integer(v, key));
}

int get_int32(const json::value& v, std::string_view key)
{
  const auto n = get_int(v, key);
  if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max()) {
    bad(key, "out of range");
  }
  return static_cast<int>(n);
}

std::uint64_t get_uint(const json::value& v, std::string_view key)
{
  const auto n = get_int(v, key);
  if (n < 0) {
    bad(key, "must not be negative");
  }
  return static_cast<std::uint64_t>(n);
}

double get_double(const json::value& v, std::string_view key)
{
  return field(json_as_number(v, key));
}

std::optional<double> opt_double(const json::object& o, std::string_view key)
{
  return field(json_optional(o, key, json_as_number));
}

bool get_bool(const json::object& o, std::string_view key)
{
  return field(json_optional(o, key, json_as_bool)).value_or(false);
}

TimePoint get_time(const json::value& v, std::string_view key)
{
  const auto t = parse_timestamp(get_string(v, key));
  if (!t) {
    bad(key, "expected an RFC 3339 UTC timestamp");
  }
  return *t;
}

std::optional<TimePoint> opt_time(const json::object& o, std::string_view key)
{
  const auto* p = find(o, key);
  return p ? std::optional(get_time(*p, key)) : std::nullopt;
}

const json::object& get_object(const json::value& v, std::string_view key)
{
  if (!v.is_object()) {
    bad(key, "expected an object");
  }
  return v.get_object();
}

std::vector<std::string> get_strings(const json::value& v, std::string_view key)
{
  return field(json_as_strings(v, key));
}

// A process ID: 1 or more (a forged 0 or -1 would name a process group or
// every process to kill(2)).
int get_pid(const json::value& v, std::string_view key)
{
  const int pid = get_int32(v, key);
  if (pid < 1) {
    bad(key, "not a process ID");
  }
  return pid;
}

OwnerIdentity decode_owner(const json::object& o)
{
  OwnerIdentity owner;
  owner.pid = get_pid(require(o, "pid"), "owner.pid");
  owner.instance = get_string(require(o, "instance"), "owner.instance");
  owner.start_time = get_uint(require(o, "start_time"), "owner.start_time");
  owner.boot_id = get_string(require(o, "boot_id"), "owner.boot_id");
  owner.host = get_string(require(o, "host"), "owner.host");
  if (const auto* ns = find(o, "pid_ns")) {
    owner.pid_ns = get_uint(*ns, "owner.pid_ns");
  }
  return owner;
}

ChildIdentity decode_child(const json::object& o)
{
  ChildIdentity child;
  child.pid = get_pid(require(o, "pid"), "child.pid");
  child.pgid = get_pid(require(o, "pgid"), "child.pgid");
  child.start_time = get_uint(require(o, "start_time"), "child.start_time");
  return child;
}

SlurmJobRef decode_slurm(const json::object& o)
{
  SlurmJobRef slurm;
  slurm.job_id = get_string(require(o, "job_id"), "slurm.job_id");
  slurm.cluster = opt_string(o, "cluster");
  slurm.job_name = opt_string(o, "job_name");
  if (const auto* v = find(o, "array_index")) {
    const auto index = get_uint(*v, "slurm.array_index");
    if (index > std::numeric_limits<std::uint32_t>::max()) {
      bad("slurm.array_index", "out of range");
    }
    slurm.array_index = static_cast<std::uint32_t>(index);
  }
  slurm.pending_reason = opt_string(o, "pending_reason");
  slurm.missing_since = opt_time(o, "missing_since");
  return slurm;
}

Progress decode_progress(const json::object& o)
{
  Progress p;
  p.percent = opt_double(o, "percent");
  if (const auto* v = find(o, "current")) {
    p.current = get_int(*v, "progress.current");
  }
  if (const auto* v = find(o, "total")) {
    p.total = get_int(*v, "progress.total");
  }
  p.message = opt_string(o, "message");
  p.updated_at = get_time(require(o, "updated_at"), "progress.updated_at");
  return p;
}

std::vector<TaskEvent> decode_events(const json::value& v)
{
  if (!v.is_array()) {
    bad("events", "expected an array");
  }
  std::vector<TaskEvent> events;
  for (const auto& item : v.get_array()) {
    const auto& o = get_object(item, "events[]");
    events.push_back(TaskEvent{get_string(require(o, "kind"), "events[].kind"),
                               get_time(require(o, "at"), "events[].at"),
                               opt_string(o, "message")});
  }
  return events;
}

// --- Decoding the lifecycle fields (all optional: older records lack them) ---

std::optional<std::uint64_t> opt_uint(const json::object& o, std::string_view key)
{
  const auto* p = find(o, key);
  return p ? std::optional(get_uint(*p, key)) : std::nullopt;
}

RetryPolicy decode_retry(const json::object& o)
{
  RetryPolicy retry;
  retry.max_retries = get_int32(require(o, "max_retries"), "retry.max_retries");
  if (retry.max_retries < 0) {
    bad("retry.max_retries", "must not be negative");
  }
  retry.delay_s = opt_double(o, "delay_s").value_or(0);
  if (const auto* v = find(o, "on_exit_codes")) {
    if (!v->is_array()) {
      bad("retry.on_exit_codes", "expected an array of integers");
    }
    for (const auto& code : v->get_array()) {
      retry.on_exit_codes.push_back(get_int32(code, "retry.on_exit_codes"));
    }
  }
  retry.on_timeout = get_bool(o, "on_timeout");
  return retry;
}

LaunchOptions decode_options(const json::object& o)
{
  LaunchOptions options;
  options.max_output = opt_uint(o, "max_output");
  options.partition = opt_string(o, "partition");
  options.slurm_time = opt_string(o, "slurm_time");
  if (const auto* v = find(o, "slurm_args")) {
    options.slurm_args = get_strings(*v, "options.slurm_args");
  }
  if (const auto* v = find(o, "retry")) {
    options.retry = decode_retry(get_object(*v, "options.retry"));
  }
  if (const auto* v = find(o, "limits")) {
    const auto& limits = get_object(*v, "options.limits");
    options.limits.memory_max = opt_uint(limits, "memory_max");
    options.limits.pids_max = opt_uint(limits, "pids_max");
    options.limits.cpu_max = opt_double(limits, "cpu_max");
  }
  options.stderr_apart = find(o, "stderr_apart") != nullptr && get_bool(o, "stderr_apart");
  options.pty = find(o, "pty") != nullptr && get_bool(o, "pty");
  return options;
}

std::vector<Attempt> decode_attempts(const json::value& v)
{
  if (!v.is_array()) {
    bad("attempts", "expected an array");
  }
  std::vector<Attempt> attempts;
  for (const auto& item : v.get_array()) {
    const auto& o = get_object(item, "attempts[]");
    Attempt attempt;
    attempt.number = get_int32(require(o, "number"), "attempts[].number");
    attempt.started_at = get_time(require(o, "started_at"), "attempts[].started_at");
    attempt.finished_at = opt_time(o, "finished_at");
    if (const auto* code = find(o, "exit_code")) {
      attempt.exit_code = get_int32(*code, "attempts[].exit_code");
    }
    if (const auto* sig = find(o, "signal")) {
      attempt.signal = get_int32(*sig, "attempts[].signal");
    }
    attempt.outcome = opt_string(o, "outcome");
    attempts.push_back(std::move(attempt));
  }
  return attempts;
}

void decode_lifecycle(const json::object& o, TaskRecord& r)
{
  if (const auto* v = find(o, "options")) {
    r.options = decode_options(get_object(*v, "options"));
  }
  if (const auto* v = find(o, "attempts")) {
    r.attempts = decode_attempts(*v);
  }
  r.retry_at = opt_time(o, "retry_at");
  r.rerun_of = opt_string(o, "rerun_of");
  if (r.rerun_of && !is_task_id(*r.rerun_of)) {
    bad("rerun_of", "not a task ID");
  }
  if (const auto* v = find(o, "pause")) {
    const auto& p = get_object(*v, "pause");
    r.pause.requested = get_bool(p, "requested");
    r.pause.paused = get_bool(p, "paused");
    r.pause.since = opt_time(p, "since");
    r.pause.paused_s = opt_double(p, "paused_s").value_or(0);
  }
  get_bool(o, "paused"); // a copy of pause.paused for readers; checked, not used
  r.cgroup = opt_string(o, "cgroup");
  r.memory_peak = opt_uint(o, "memory_peak");
  r.reason = opt_string(o, "reason");
}

// The task's identity and command: schema to env_names.
void decode_identity(const json::object& o, TaskRecord& r)
{
  r.schema = get_int32(require(o, "schema"), "schema");
  if (r.schema != k_record_schema) {
    bad("schema", "unsupported version " + std::to_string(r.schema));
  }
  if (const auto* v = find(o, "generation")) {
    r.generation = get_uint(*v, "generation");
  }
  r.id = get_string(require(o, "id"), "id");
  if (!is_task_id(r.id)) {
    bad("id", "not a task ID");
  }
  r.name = opt_string(o, "name");
  r.command = get_strings(require(o, "command"), "command");
  r.shell = get_bool(o, "shell");
  r.cwd = opt_string(o, "cwd").value_or("");
  if (const auto* v = find(o, "env_names")) {
    r.env_names = get_strings(*v, "env_names");
  }
}

// The state and how the task ended, its times and its executor's identities.
void decode_state(const json::object& o, TaskRecord& r)
{
  const auto state = parse_task_state(get_string(require(o, "state"), "state"));
  if (!state) {
    bad("state", "unknown state");
  }
  r.state = *state;
  if (const auto* v = find(o, "exit_code")) {
    r.exit_code = get_int32(*v, "exit_code");
  }
  if (const auto* v = find(o, "signal")) {
    r.signal = get_int32(*v, "signal");
  }
  if (const auto* v = find(o, "wait_status")) {
    get_int32(*v, "wait_status"); // derived from the state when written; checked, not kept
  }
  r.error = opt_string(o, "error");
  r.created_at = get_time(require(o, "created_at"), "created_at");
  r.started_at = opt_time(o, "started_at");
  if (const auto* v = find(o, "started_clock")) {
    const auto& c = get_object(*v, "started_clock");
    r.started_clock = MonotonicMark{get_string(require(c, "clock"), "started_clock.clock"),
                                    get_int(require(c, "ms"), "started_clock.ms")};
  }
  r.finished_at = opt_time(o, "finished_at");
  r.duration_s = opt_double(o, "duration_s");
  r.timeout_s = opt_double(o, "timeout_s");
  r.grace_s = opt_double(o, "grace_s").value_or(to_seconds(k_default_grace));
  r.executor = opt_string(o, "executor").value_or(std::string(k_local_executor));
  if (const auto* v = find(o, "owner")) {
    r.owner = decode_owner(get_object(*v, "owner"));
  }
  if (const auto* v = find(o, "child")) {
    r.child = decode_child(get_object(*v, "child"));
  }
  if (const auto* v = find(o, "slurm")) {
    r.slurm = decode_slurm(get_object(*v, "slurm"));
  }
  r.unsupervised = get_bool(o, "unsupervised");
}

OutputInfo decode_output(const json::object& out)
{
  OutputInfo output;
  output.path = opt_string(out, "path").value_or("");
  if (const auto* b = find(out, "bytes")) {
    output.bytes = get_uint(*b, "output.bytes");
  }
  output.truncated = get_bool(out, "truncated");
  if (const auto* d = find(out, "dropped_bytes")) {
    output.dropped_bytes = get_uint(*d, "output.dropped_bytes");
  }
  if (const auto* d = find(out, "dropped_at"); d && !d->is_null()) {
    output.dropped_at = get_uint(*d, "output.dropped_at");
  }
  if (const auto name = opt_string(out, "retention")) {
    for (const auto retention : {OutputRetention::head_and_tail, OutputRetention::head_only,
                                 OutputRetention::head_via_pipe}) {
      if (*name == retention_name(retention)) {
        output.retention = retention;
      }
    }
    if (!output.retention) {
      bad("output.retention",
          "expected \"head_and_tail\", \"head_only\", \"head_via_pipe\" or null");
    }
  }
  return output;
}

// The cancel request, progress, events and output.
void decode_activity(const json::object& o, TaskRecord& r)
{
  if (const auto* v = find(o, "cancel_request")) {
    const auto& c = get_object(*v, "cancel_request");
    r.cancel_request = CancelRequest{get_time(require(c, "at"), "cancel_request.at"),
                                     get_double(require(c, "grace_s"), "cancel_request.grace_s")};
  }
  if (const auto* v = find(o, "progress")) {
    r.progress = decode_progress(get_object(*v, "progress"));
  }
  if (const auto* v = find(o, "events")) {
    r.events = decode_events(*v);
  }
  if (const auto* v = find(o, "output")) {
    r.output = decode_output(get_object(*v, "output"));
  }
}

// --queue, --after, what a queued task waits for, --on-exit, --dedupe.
void decode_scheduling(const json::object& o, TaskRecord& r)
{
  r.queue = opt_string(o, "queue");
  if (r.queue && !is_queue_name(*r.queue)) {
    bad("queue", "not a queue name");
  }
  r.slot = opt_string(o, "slot");
  r.group = opt_string(o, "group");
  if (r.group && !is_task_id(*r.group)) {
    bad("group", "not a task ID");
  }
  if (const auto* v = find(o, "after")) {
    r.after = get_strings(*v, "after");
    if (!std::all_of(r.after.begin(), r.after.end(),
                     [](const std::string& id) { return is_task_id(id); })) {
      bad("after", "not a list of task IDs");
    }
  }
  if (const auto* v = find(o, "waiting_for")) {
    const auto name = get_string(*v, "waiting_for");
    if (name == waiting_for_name(WaitingFor::after)) {
      r.waiting_for = WaitingFor::after;
    } else if (name == waiting_for_name(WaitingFor::slot)) {
      r.waiting_for = WaitingFor::slot;
    } else {
      bad("waiting_for", "expected \"after\" or \"slot\"");
    }
  }
  r.on_exit = opt_string(o, "on_exit");
  r.fingerprint = opt_string(o, "fingerprint");
}

// The fields are checked in the order they are written, so the first bad one
// is the one reported.
TaskRecord decode_object(const json::object& o)
{
  TaskRecord r;
  decode_identity(o, r);
  decode_state(o, r);
  decode_activity(o, r);
  decode_scheduling(o, r);
  decode_lifecycle(o, r);
  return r;
}

} // namespace

// How many keys a record has (record_to_json and lifecycle_to_json).
constexpr std::size_t k_record_keys = 46;

json::value record_to_json(const TaskRecord& r)
{
  json::value v;
  auto& o = v.emplace_object();
  o.reserve(k_record_keys); // one table, not one rehash per doubling
  o["schema"] = r.schema;
  o["generation"] = r.generation;
  o["id"] = to_valid_utf8(r.id);
  o["name"] = optional_string(r.name);
  o["command"] = strings_to_json(r.command);
  o["shell"] = r.shell;
  o["cwd"] = to_valid_utf8(r.cwd);
  o["env_names"] = strings_to_json(r.env_names);
  o["executor"] = to_valid_utf8(r.executor);
  o["state"] = to_string(r.state);
  o["exit_code"] = optional_number(r.exit_code);
  o["signal"] = optional_number(r.signal);
  o["wait_status"] = optional_number(wait_status_of(r));
  o["error"] = optional_string(r.error);
  o["created_at"] = format_timestamp(r.created_at);
  o["started_at"] = optional_time(r.started_at);
  if (r.started_clock) {
    json::object c;
    c["clock"] = to_valid_utf8(r.started_clock->clock);
    c["ms"] = r.started_clock->ms;
    o["started_clock"] = std::move(c);
  } else {
    o["started_clock"] = nullptr; // every key is written, absent values as null
  }
  o["finished_at"] = optional_time(r.finished_at);
  o["duration_s"] = optional_number(r.duration_s);
  o["timeout_s"] = optional_number(r.timeout_s);
  o["grace_s"] = r.grace_s;
  o["owner"] = owner_to_json(r.owner);
  o["child"] = child_to_json(r.child);
  o["slurm"] = slurm_to_json(r.slurm);
  o["unsupervised"] = r.unsupervised;
  if (r.cancel_request) {
    json::object c;
    c["at"] = format_timestamp(r.cancel_request->at);
    c["grace_s"] = r.cancel_request->grace_s;
    o["cancel_request"] = std::move(c);
  } else {
    o["cancel_request"] = nullptr;
  }
  o["progress"] = progress_to_json(r.progress);
  o["events"] = events_to_json(r.events);
  json::object out;
  out["path"] = to_valid_utf8(r.output.path);
  out["bytes"] = r.output.bytes;
  out["truncated"] = r.output.truncated;
  out["dropped_bytes"] = r.output.dropped_bytes;
  if (r.output.dropped_at) {
    out["dropped_at"] = *r.output.dropped_at;
  } else {
    out["dropped_at"] = nullptr;
  }
  out["retention"] =
    r.output.retention ? json::value(retention_name(*r.output.retention)) : json::value(nullptr);
  o["output"] = std::move(out);
  o["queue"] = optional_string(r.queue);
  o["slot"] = optional_string(r.slot);
  o["group"] = optional_string(r.group);
  o["after"] = strings_to_json(r.after);
  o["waiting_for"] =
    r.waiting_for ? json::value(waiting_for_name(*r.waiting_for)) : json::value(nullptr);
  o["on_exit"] = optional_string(r.on_exit);
  o["fingerprint"] = optional_string(r.fingerprint);
  lifecycle_to_json(r, o);
  o["unreadable"] = nullptr; // a record that was read; see corrupt_record_to_json
  return v;
}

json::object task_outcome_to_json(const TaskRecord& record)
{
  json::object o;
  o["id"] = record.id;
  o["state"] = to_string(record.state);
  if (record.exit_code) {
    o["exit_code"] = *record.exit_code;
  } else {
    o["exit_code"] = nullptr;
  }
  return o;
}

json::value records_to_json(const std::vector<TaskRecord>& records)
{
  json::value v;
  auto& a = v.emplace_array();
  a.reserve(records.size());
  for (const auto& record : records) {
    a.push_back(record_to_json(record));
  }
  return v;
}

json::value corrupt_record_to_json(std::string_view id, std::string_view reason)
{
  // Every key a record has, so readers see one shape; what is not known is null.
  json::value v = record_to_json(TaskRecord{});
  auto& o = v.as_object();
  for (auto& entry : o) {
    entry.value() = nullptr;
  }
  o["schema"] = k_record_schema;
  o["id"] = to_valid_utf8(id);
  o["state"] = "corrupt";
  o["error"] = to_valid_utf8(reason);
  o["unreadable"] = to_valid_utf8(reason);
  return v;
}

std::string encode_record(const TaskRecord& record)
{
  auto text = json_text(record_to_json(record));
  text.push_back('\n');
  return text;
}

Result<TaskRecord> decode_record(std::string_view text)
{
  if (text.size() > k_max_record_bytes) {
    return Failure{"record larger than 1 MiB"};
  }
  // The parsed tree lives in a stack buffer (the heap only for big records):
  // list decodes thousands of records.
  unsigned char buffer[16384];
  json::monotonic_resource resource(buffer, sizeof buffer);
  json::error_code ec;
  const auto value = json::parse(text, ec, &resource);
  if (ec) {
    return Failure{text.empty() ? "empty file" : "invalid JSON: " + ec.message()};
  }
  if (!value.is_object()) {
    return Failure{"not a JSON object"};
  }
  try {
    return decode_object(value.get_object());
  } catch (const std::exception& e) {
    return Failure{std::string("bad field ") + e.what()};
  }
}

} // namespace bgtask
