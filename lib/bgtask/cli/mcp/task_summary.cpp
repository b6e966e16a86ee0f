#include <bgtask/cli/mcp/task_summary.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/core/exit_status.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/util/timestamp.hpp>
#include <bgtask/util/utf8.hpp>

#include <chrono>
#include <cstdio>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

constexpr std::size_t k_command_bytes = 200;

json::object progress_fields(const Progress& progress)
{
  json::object o;
  if (progress.percent) {
    o["percent"] = static_cast<std::int64_t>(*progress.percent);
  }
  if (progress.current) {
    o["current"] = *progress.current;
  }
  if (progress.total) {
    o["total"] = *progress.total;
  }
  if (progress.message) {
    o["message"] = to_valid_utf8(*progress.message);
  }
  return o;
}

} // namespace

std::optional<std::int64_t> task_duration_ms(const TaskRecord& record)
{
  if (record.duration_s) {
    return static_cast<std::int64_t>(*record.duration_s * 1000.0);
  }
  if (!record.started_at) {
    return std::nullopt;
  }
  const auto end = record.finished_at.value_or(now());
  return std::chrono::duration_cast<std::chrono::milliseconds>(end - *record.started_at).count();
}

json::object task_summary(const TaskRecord& r)
{
  json::object o{{"id", r.id}, {"state", to_string(r.state)}};
  const auto put = [&](const char* key, const auto& value) {
    if (value) {
      o[key] = *value;
    }
  };
  if (r.name) {
    o["name"] = to_valid_utf8(*r.name);
  }
  put("exit_code", r.exit_code);
  put("signal", r.signal);
  put("wait_status", wait_status_of(r));
  if (r.error) {
    o["error"] = to_valid_utf8(*r.error);
  }
  std::string command = command_text(r);
  if (command.size() > k_command_bytes) {
    command.resize(k_command_bytes);
    command += "...";
  }
  o["command"] = to_valid_utf8(command);
  o["cwd"] = to_valid_utf8(r.cwd);
  if (r.started_at) {
    o["started_at"] = format_timestamp(*r.started_at);
  }
  if (r.finished_at) {
    o["finished_at"] = format_timestamp(*r.finished_at);
  }
  put("duration_ms", task_duration_ms(r));
  if (r.progress) {
    o["progress"] = progress_fields(*r.progress);
  }
  o["output_bytes"] = r.output.bytes;
  put("queue", r.queue);
  if (r.waiting_for) {
    o["waiting_for"] = *r.waiting_for == WaitingFor::after ? "after" : "slot";
  }
  return o;
}

std::string task_line(const TaskRecord& r)
{
  std::string line = "task " + r.id;
  if (r.name) {
    line += " (" + to_valid_utf8(*r.name) + ")";
  }
  line += " " + std::string(to_string(r.state));
  if (r.exit_code && is_final(r.state)) {
    line += ": exit " + std::to_string(*r.exit_code);
  } else if (r.signal && is_final(r.state)) {
    line += ": signal " + std::to_string(*r.signal);
  }
  if (const auto ms = task_duration_ms(r)) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, " after %.1f s", static_cast<double>(*ms) / 1000.0);
    line += seconds;
  }
  return line;
}

} // namespace bgtask::mcp
