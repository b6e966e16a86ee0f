#include <bgtask/record_view.hpp>

#include <bgtask/console.hpp>
#include <bgtask/duration.hpp>
#include <bgtask/process_info.hpp>
#include <bgtask/utf8.hpp>

#include <cmath>
#include <cstdio>

namespace bgtask {

namespace {

bool needs_quoting(const std::string& word)
{
  if (word.empty()) {
    return true;
  }
  for (const char c : word) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                       std::string_view("-_./:=@%+,").find(c) != std::string_view::npos;
    if (!plain) {
      return true;
    }
  }
  return false;
}

std::string quoted(const std::string& word)
{
  if (!needs_quoting(word)) {
    return word;
  }
  std::string out = "'";
  for (const char c : word) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

Milliseconds elapsed(const TaskRecord& record)
{
  if (record.duration_s) {
    return Milliseconds(static_cast<std::int64_t>(std::llround(*record.duration_s * 1000)));
  }
  if (record.started_at && !is_final(record.state)) {
    return now() - *record.started_at;
  }
  return Milliseconds(-1);
}

std::string exit_text(const TaskRecord& record)
{
  if (record.exit_code) {
    return std::to_string(*record.exit_code);
  }
  if (record.signal) {
    return "sig" + std::to_string(*record.signal);
  }
  return "-";
}

void add_line(std::string& out, std::string_view key, const std::string& value)
{
  std::string padded(key);
  padded.resize(10, ' ');
  out += padded + for_stdout(value) + '\n';
}

std::string format_seconds(double seconds)
{
  return format_duration(Milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000))));
}

std::string progress_text(const Progress& p)
{
  std::string text;
  if (p.percent) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.1f%%", *p.percent);
    text = buffer;
  }
  if (p.current && p.total) {
    text += (text.empty() ? "" : " ") + std::to_string(*p.current) + "/" + std::to_string(*p.total);
  } else if (p.current) {
    text += (text.empty() ? "" : " ") + std::to_string(*p.current);
  }
  if (p.message) {
    text += (text.empty() ? "" : " ") + *p.message;
  }
  return text + " (" + format_timestamp(p.updated_at) + ")";
}

} // namespace

std::string command_text(const TaskRecord& record)
{
  if (record.shell && !record.command.empty()) {
    return record.command.back();
  }
  std::string text;
  for (const auto& word : record.command) {
    text += (text.empty() ? "" : " ") + quoted(word);
  }
  return text;
}

std::string state_text(const TaskRecord& record)
{
  std::string text(to_string(record.state));
  if (record.state == TaskState::failed) {
    text += " (" + (record.signal ? "signal " + std::to_string(*record.signal)
                                   : "exit " + exit_text(record)) + ")";
  }
  if (!is_final(record.state) && record.unsupervised) {
    text += " (unsupervised)";
  }
  if (!is_final(record.state) && record.owner && record.owner->host != to_valid_utf8(current_host_name())) {
    text += " (on " + record.owner->host + ")";
  }
  return text;
}

TableRow list_header()
{
  return {"ID", "STATE", "EXIT", "STARTED", "DURATION", "NAME"};
}

TableRow list_row(const TaskRecord& record)
{
  const auto duration = elapsed(record);
  std::string state(to_string(record.state));
  if (!is_final(record.state) && record.unsupervised) {
    state += "*";
  }
  return {record.id,
          state,
          exit_text(record),
          record.started_at ? format_local_time(*record.started_at) : "-",
          duration.count() >= 0 ? format_duration(duration) : "-",
          for_stdout(record.name ? *record.name : command_text(record))};
}

std::string status_text(const TaskRecord& r)
{
  std::string out;
  add_line(out, "ID", r.id);
  if (r.name) {
    add_line(out, "Name", *r.name);
  }
  add_line(out, "Command", command_text(r));
  add_line(out, "Cwd", r.cwd);
  add_line(out, "State", state_text(r));
  if (r.error) {
    add_line(out, "Reason", *r.error);
  }
  add_line(out, "Exit", exit_text(r));
  add_line(out, "Created", format_timestamp(r.created_at));
  add_line(out, "Started", r.started_at ? format_timestamp(*r.started_at) : "-");
  add_line(out, "Finished", r.finished_at ? format_timestamp(*r.finished_at) : "-");
  const auto duration = elapsed(r);
  add_line(out, "Duration", duration.count() >= 0 ? format_duration(duration) : "-");
  add_line(out, "Timeout", r.timeout_s ? format_seconds(*r.timeout_s) : "none");
  if (r.owner) {
    add_line(out, "Owner", "pid " + std::to_string(r.owner->pid) + " on " + r.owner->host);
  }
  if (r.child) {
    add_line(out, "Process", "pid " + std::to_string(r.child->pid) + ", group " +
                               std::to_string(r.child->pgid));
  }
  if (r.progress) {
    add_line(out, "Progress", progress_text(*r.progress));
  }
  add_line(out, "Output", r.output.path);
  return out;
}

} // namespace bgtask
