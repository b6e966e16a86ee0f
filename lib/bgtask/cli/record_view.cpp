#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/shell_quote.hpp>
#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/utf8.hpp>

#include <cstdio>
#include <iostream>

namespace bgtask {

namespace {

// How much of an unnamed task's command `list` shows without --wide.
constexpr std::size_t k_short_command_chars = 48;

Milliseconds elapsed(const TaskRecord& record)
{
  if (record.duration_s) {
    return from_seconds(*record.duration_s);
  }
  if (record.started_at && !is_final(record.state)) {
    return run_time(record);
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
  out += padded + escape_table_cell(value) + '\n'; // one line per field, piped or not
}

std::string format_seconds(double seconds)
{
  return format_duration(from_seconds(seconds));
}

// `text` cut to k_short_command_chars code points, ending in `...` if cut.
std::string shortened(const std::string& text)
{
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((text[i] & 0xC0) != 0x80 && ++chars > k_short_command_chars) {
      return text.substr(0, i) + "...";
    }
  }
  return text;
}

// The SGR colour of a record that cannot be read, in `list`.
constexpr std::string_view k_corrupt_color = "31"; // red

// The SGR colour of a state in `list`.
std::string_view state_color(TaskState state)
{
  switch (state) {
  case TaskState::queued:
    return "2"; // dim
  case TaskState::running:
    return "36"; // cyan
  case TaskState::succeeded:
    return "32"; // green
  case TaskState::failed:
    return "31"; // red
  case TaskState::cancelled:
  case TaskState::timed_out:
    return "33"; // yellow
  case TaskState::lost:
    return "35"; // magenta
  }
  return "2";
}

std::string painted(const std::string& text, std::string_view sgr, Color color)
{
  if (color == Color::no) {
    return text;
  }
  return "\x1b[" + std::string(sgr) + "m" + text + "\x1b[0m";
}

} // namespace

std::string command_text(const TaskRecord& record)
{
  if (record.shell && !record.command.empty()) {
    return record.command.back();
  }
  std::string text;
  for (const auto& word : record.command) {
    text += (text.empty() ? "" : " ") + shell_word(word);
  }
  return text;
}

std::string state_text(const TaskRecord& record)
{
  std::string text = outcome_text(record);
  if (!is_final(record.state) && record.unsupervised) {
    text += " (unsupervised)";
  }
  if (!is_final(record.state) && record.pause.paused) {
    text += " (paused)";
  }
  if (!is_final(record.state) && record.retry_at) {
    text += " (retry " + std::to_string(record.attempts.size() + 1) + " at " +
            format_local_time(*record.retry_at) + ")";
  }
  if (!is_final(record.state) && record.owner &&
      !is_this_machine(record.owner->host, record.owner->boot_id)) {
    text += " (on " + record.owner->host + ")";
  }
  return text;
}

TableRow list_header(ListColumns columns)
{
  TableRow header{"ID", "STATE", "EXIT", "STARTED", "ELAPSED", "NAME"};
  if (columns == ListColumns::wide) {
    header.insert(header.end(), {"CWD", "COMMAND"});
  }
  return header;
}

TableRow list_row(const TaskRecord& record, ListColumns columns, Color color)
{
  const auto duration = elapsed(record);
  std::string state(to_string(record.state));
  if (!is_final(record.state) && record.unsupervised) {
    state += "*";
  }
  TableRow row{record.id, painted(state, state_color(record.state), color), exit_text(record),
               record.started_at ? format_list_time(*record.started_at, now()) : "-",
               duration.count() >= 0 ? format_duration(duration) : "-"};
  if (columns == ListColumns::wide) {
    row.insert(row.end(), {escape_table_cell(record.name ? *record.name : "-"),
                           escape_table_cell(record.cwd), escape_table_cell(command_text(record))});
  } else {
    row.push_back(escape_table_cell(record.name ? *record.name : shortened(command_text(record))));
  }
  return row;
}

std::string short_list_started(const TaskRecord& record)
{
  return record.started_at ? format_short_list_time(*record.started_at, now()) : "-";
}

std::string list_info(const TaskRecord& record)
{
  std::string info;
  switch (record.state) {
  case TaskState::queued: {
    // A queued task waits for its slot once its dependencies are met, or
    // when it has none.
    const bool waits_for_slot =
      record.queue && (record.waiting_for == WaitingFor::slot || record.after.empty());
    if (record.slurm && record.slurm->pending_reason) {
      info = "slurm: " + *record.slurm->pending_reason;
    } else if (waits_for_slot) {
      info = "slot in " + *record.queue;
    } else if (!record.after.empty()) {
      info = "after";
      for (std::size_t i = 0; i < record.after.size(); ++i) {
        info += (i == 0 ? " " : ",") + record.after[i];
      }
    }
    break;
  }
  case TaskState::running:
    if (record.pause.paused) {
      info = "paused";
    }
    if (record.progress) {
      const Progress& p = *record.progress;
      std::string progress;
      if (p.percent) {
        char buffer[16];
        std::snprintf(buffer, sizeof(buffer), "%.0f%%", *p.percent);
        progress = buffer;
      } else if (p.current) {
        progress = std::to_string(*p.current);
        if (p.total) {
          progress += "/" + std::to_string(*p.total);
        }
      }
      if (p.message) {
        progress += (progress.empty() ? "" : " ") + *p.message;
      }
      info += (info.empty() || progress.empty() ? "" : ", ") + progress;
    }
    break;
  case TaskState::failed:
    if (record.reason) {
      info = *record.reason;
    }
    break;
  default:
    break;
  }
  return info.empty() ? "-" : escape_table_cell(info);
}

TableRow corrupt_list_row(const std::string& id, const std::string& reason, ListColumns columns,
                          Color color)
{
  TableRow row{
    id, painted("corrupt", k_corrupt_color, color), "-", "-", "-", escape_table_cell(reason)};
  if (columns == ListColumns::wide) {
    row.insert(row.end(), {"-", "-"});
  }
  return row;
}

std::string progress_summary(const Progress& p)
{
  std::string text;
  if (p.percent) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.1f%%", *p.percent);
    text = buffer;
  }
  if (p.current) {
    text += (text.empty() ? "" : " ") + std::to_string(*p.current);
    if (p.total) {
      text += "/" + std::to_string(*p.total);
    }
  }
  if (p.message) {
    text += (text.empty() ? "" : " ") + *p.message;
  }
  return text;
}

// The status lines of retries, limits and reruns.
void add_lifecycle_lines(std::string& out, const TaskRecord& r)
{
  if (r.rerun_of) {
    add_line(out, "Rerun of", *r.rerun_of);
  }
  if (r.options.retry) {
    add_line(out, "Retry",
             "up to " + std::to_string(r.options.retry->max_retries) + " more times, " +
               format_seconds(r.options.retry->delay_s) + " apart");
  }
  for (const auto& a : r.attempts) {
    std::string text = a.outcome.value_or("?");
    if (a.exit_code) {
      text += " (exit " + std::to_string(*a.exit_code) + ")";
    } else if (a.signal) {
      text += " (signal " + std::to_string(*a.signal) + ")";
    }
    add_line(out, "Attempt",
             "#" + std::to_string(a.number) + " " + text + ", started " +
               format_timestamp(a.started_at));
  }
  const auto& limits = r.options.limits;
  if (limits.any()) {
    std::string text;
    if (limits.memory_max) {
      text += "memory " + std::to_string(*limits.memory_max) + " bytes";
    }
    if (limits.pids_max) {
      text += (text.empty() ? "" : ", ") + std::string("pids ") + std::to_string(*limits.pids_max);
    }
    if (limits.cpu_max) {
      char cpus[32];
      std::snprintf(cpus, sizeof(cpus), "%g", *limits.cpu_max);
      text += (text.empty() ? "" : ", ") + std::string("cpu ") + cpus;
    }
    add_line(out, "Limits", text);
  }
  if (r.memory_peak) {
    add_line(out, "Mem peak", std::to_string(*r.memory_peak) + " bytes");
  }
  if (r.pause.paused_s > 0 || r.pause.paused) {
    add_line(out, "Paused",
             r.pause.paused && r.pause.since ? "since " + format_timestamp(*r.pause.since)
                                             : format_seconds(r.pause.paused_s) + " in all");
  }
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
  add_line(out, "Created", format_local_time_with_offset(r.created_at));
  add_line(out, "Started", r.started_at ? format_local_time_with_offset(*r.started_at) : "-");
  add_line(out, "Finished", r.finished_at ? format_local_time_with_offset(*r.finished_at) : "-");
  const auto duration = elapsed(r);
  add_line(out, "Duration", duration.count() >= 0 ? format_duration(duration) : "-");
  add_line(out, "Timeout", r.timeout_s ? format_seconds(*r.timeout_s) : "none");
  if (r.queue) {
    add_line(out, "Queue",
             *r.queue + (r.waiting_for == WaitingFor::slot ? " (waiting for a slot)" : ""));
  }
  if (!r.after.empty()) {
    std::string ids;
    for (const auto& id : r.after) {
      ids += (ids.empty() ? "" : " ") + id;
    }
    add_line(out, "After", ids + (r.waiting_for == WaitingFor::after ? " (waiting for them)" : ""));
  }
  if (r.on_exit) {
    add_line(out, "On exit", *r.on_exit);
  }
  if (r.owner) {
    add_line(out, "Owner", "pid " + std::to_string(r.owner->pid) + " on " + r.owner->host);
  }
  if (r.child) {
    add_line(out, "Process",
             "pid " + std::to_string(r.child->pid) + ", group " + std::to_string(r.child->pgid));
  }
  if (r.slurm) {
    add_line(out, "Slurm",
             "job " + r.slurm->job_id +
               (r.slurm->cluster ? " on cluster " + *r.slurm->cluster : "") +
               (r.state == TaskState::queued && r.slurm->pending_reason
                  ? ", pending: " + *r.slurm->pending_reason
                  : ""));
  }
  if (r.progress) {
    add_line(out, "Progress",
             progress_summary(*r.progress) + " (" +
               format_local_time_with_offset(r.progress->updated_at) + ")");
  }
  add_line(out, "Output", r.output.path);
  if (r.output.truncated) {
    add_line(out, "Truncated", std::to_string(r.output.dropped_bytes) + " bytes of output dropped");
  }
  add_lifecycle_lines(out, r);
  return out;
}

bool warn_if_output_incomplete(int fd, const TaskRecord& record)
{
  return warn_if_output_missing(record, missing_output_bytes(fd, record));
}

bool warn_if_output_missing(const TaskRecord& record, std::uint64_t missing)
{
  if (missing == 0) {
    return true;
  }
  std::cerr << "bgtask: warning: " << missing_output_warning(record, missing) << '\n';
  return false;
}

} // namespace bgtask
