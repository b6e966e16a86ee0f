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

// --- Decoding helpers: each throws std::invalid_argument naming the key. ---

[[noreturn]] void bad(std::string_view key, std::string_view what)
{
  throw std::invalid_argument(std::string(key) + ": " + std::string(what));
}

const json::value* find(const json::object& o, std::string_view key)
{
  const auto* p = o.if_contains(key);
  return p != nullptr && !p->is_null() ? p : nullptr;
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
  if (!v.is_string()) {
    bad(key, "expected a string");
  }
  return std::string(v.get_string());
}

std::optional<std::string> opt_string(const json::object& o, std::string_view key)
{
  const auto* p = find(o, key);
  return p ? std::optional(get_string(*p, key)) : std::nullopt;
}

std::int64_t get_int(const json::value& v, std::string_view key)
{
  if (v.is_int64()) {
    return v.get_int64();
  }
  if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(v.get_uint64());
  }
  bad(key, "expected an integer");
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
  if (!v.is_number()) {
    bad(key, "expected a number");
  }
  const double d = v.to_number<double>();
  if (!std::isfinite(d)) {
    bad(key, "not finite");
  }
  return d;
}

std::optional<double> opt_double(const json::object& o, std::string_view key)
{
  const auto* p = find(o, key);
  return p ? std::optional(get_double(*p, key)) : std::nullopt;
}

bool get_bool(const json::object& o, std::string_view key)
{
  const auto* p = find(o, key);
  if (p == nullptr) {
    return false;
  }
  if (!p->is_bool()) {
    bad(key, "expected true or false");
  }
  return p->get_bool();
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
  if (!v.is_array()) {
    bad(key, "expected an array of strings");
  }
  std::vector<std::string> out;
  out.reserve(v.get_array().size());
  for (const auto& item : v.get_array()) {
    out.push_back(get_string(item, key));
  }
  return out;
}

OwnerIdentity decode_owner(const json::object& o)
{
  OwnerIdentity owner;
  owner.pid = get_int32(require(o, "pid"), "owner.pid");
  owner.instance = get_string(require(o, "instance"), "owner.instance");
  owner.start_time = get_uint(require(o, "start_time"), "owner.start_time");
  owner.boot_id = get_string(require(o, "boot_id"), "owner.boot_id");
  owner.host = get_string(require(o, "host"), "owner.host");
  return owner;
}

ChildIdentity decode_child(const json::object& o)
{
  ChildIdentity child;
  child.pid = get_int32(require(o, "pid"), "child.pid");
  child.pgid = get_int32(require(o, "pgid"), "child.pgid");
  child.start_time = get_uint(require(o, "start_time"), "child.start_time");
  return child;
}

SlurmJobRef decode_slurm(const json::object& o)
{
  SlurmJobRef slurm;
  slurm.job_id = get_string(require(o, "job_id"), "slurm.job_id");
  slurm.cluster = opt_string(o, "cluster");
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

TaskRecord decode_object(const json::object& o)
{
  TaskRecord r;
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
  r.error = opt_string(o, "error");
  r.created_at = get_time(require(o, "created_at"), "created_at");
  r.started_at = opt_time(o, "started_at");
  r.finished_at = opt_time(o, "finished_at");
  r.duration_s = opt_double(o, "duration_s");
  r.timeout_s = opt_double(o, "timeout_s");
  r.grace_s = opt_double(o, "grace_s").value_or(5);
  r.executor = opt_string(o, "executor").value_or("local");
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
    const auto& out = get_object(*v, "output");
    r.output.path = opt_string(out, "path").value_or("");
    if (const auto* b = find(out, "bytes")) {
      r.output.bytes = get_uint(*b, "output.bytes");
    }
    r.output.truncated = get_bool(out, "truncated");
    if (const auto* d = find(out, "dropped_bytes")) {
      r.output.dropped_bytes = get_uint(*d, "output.dropped_bytes");
    }
  }
  r.queue = opt_string(o, "queue");
  if (r.queue && !is_queue_name(*r.queue)) {
    bad("queue", "not a queue name");
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
  return r;
}

} // namespace

json::value record_to_json(const TaskRecord& r)
{
  json::value v;
  auto& o = v.emplace_object();
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
  o["output"] = std::move(out);
  o["queue"] = optional_string(r.queue);
  o["after"] = strings_to_json(r.after);
  o["waiting_for"] =
    r.waiting_for ? json::value(waiting_for_name(*r.waiting_for)) : json::value(nullptr);
  o["on_exit"] = optional_string(r.on_exit);
  o["fingerprint"] = optional_string(r.fingerprint);
  return v;
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
  json::value v;
  auto& o = v.emplace_object();
  o["id"] = id;
  o["state"] = "corrupt";
  o["error"] = reason;
  return v;
}

std::string encode_record(const TaskRecord& record)
{
  auto text = json::serialize(record_to_json(record));
  text.push_back('\n');
  return text;
}

std::optional<TaskRecord> decode_record(std::string_view text, std::string& error)
{
  if (text.size() > k_max_record_bytes) {
    error = "record larger than 1 MiB";
    return std::nullopt;
  }
  // The parsed tree lives in a stack buffer (the heap only for big records):
  // list decodes thousands of records.
  unsigned char buffer[16384];
  json::monotonic_resource resource(buffer, sizeof buffer);
  json::error_code ec;
  const auto value = json::parse(text, ec, &resource);
  if (ec) {
    error = text.empty() ? "empty file" : "invalid JSON: " + ec.message();
    return std::nullopt;
  }
  if (!value.is_object()) {
    error = "not a JSON object";
    return std::nullopt;
  }
  try {
    return decode_object(value.get_object());
  } catch (const std::exception& e) {
    error = std::string("bad field ") + e.what();
    return std::nullopt;
  }
}

} // namespace bgtask
