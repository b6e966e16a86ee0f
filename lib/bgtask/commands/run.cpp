#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/cli/start_options.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/exit_status.hpp>
#include <bgtask/exec/start_plan.hpp>
#include <bgtask/exec/task_cancel.hpp>
#include <bgtask/exec/task_pause.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/proc/terminal_stop.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/shell_quote.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

using Clock = std::chrono::steady_clock;

constexpr Milliseconds k_default_detach_after{30000};
constexpr Milliseconds k_progress_interval{1000};

// True if stdout and stderr are one terminal: only there can a status line
// on stderr be cleared before output is written, so it never mixes with
// output that goes to a pipe or a file.
bool status_line_fits()
{
  struct stat out
  {
  };
  struct stat err
  {
  };
  return ::isatty(STDOUT_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1 &&
         ::fstat(STDOUT_FILENO, &out) == 0 && ::fstat(STDERR_FILENO, &err) == 0 &&
         out.st_rdev == err.st_rdev;
}

// True if stdout is a pipe or a socket: the one kind of stdout whose reader
// can go away (`bgtask run ... | head -1`). A terminal that hangs up sends
// SIGHUP, which detaches.
bool stdout_is_pipe()
{
  struct stat out
  {
  };
  return ::fstat(STDOUT_FILENO, &out) == 0 && (S_ISFIFO(out.st_mode) || S_ISSOCK(out.st_mode));
}

// True if stdout and stderr are different files (`2>/dev/null`, `2>log`,
// stdout piped while stderr is the terminal): the caller keeps them apart,
// so the task's stderr goes to run's stderr, not into its output. One
// terminal, or `2>&1`, is one file. A pipe or socket on stderr is never
// handed over: a task that outlives a detached `run` would hold it open,
// and its reader (a program capturing both streams) would wait for the
// task's end instead of run's.
bool stderr_apart()
{
  struct stat out
  {
  };
  struct stat err
  {
  };
  return ::fstat(STDOUT_FILENO, &out) == 0 && ::fstat(STDERR_FILENO, &err) == 0 &&
         (S_ISREG(err.st_mode) || S_ISCHR(err.st_mode)) &&
         (out.st_dev != err.st_dev || out.st_ino != err.st_ino);
}

// Hands run's stderr to the task's command when the caller keeps stderr
// apart and the task starts at once under a local supervisor forked from
// `run` (a queued task is started later by another process).
void keep_stderr_apart(StartPlan& plan)
{
  auto& record = plan.request.record;
  if (stderr_apart() && record.executor == k_local_executor && !record.queue &&
      plan.after.empty()) {
    plan.request.caller_stderr = STDERR_FILENO;
    record.options.stderr_apart = true;
  }
}

std::size_t terminal_width()
{
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) {
    return size.ws_col;
  }
  return 80;
}

// The one-line status `run` keeps on stderr while it streams, when stderr
// is a terminal: cleared before output is written, drawn again after.
class ProgressLine
{
public:
  explicit ProgressLine(bool enabled)
    : m_enabled(enabled)
  {
  }

  void clear()
  {
    if (m_shown) {
      std::cerr << "\r\x1b[K" << std::flush;
      m_shown = false;
    }
  }

  void draw(const TaskRecord& record, Milliseconds elapsed)
  {
    if (!m_enabled) {
      return;
    }
    std::string text = "bgtask: " + record.id + " " + std::string(to_string(record.state)) + " " +
                       format_duration(elapsed);
    if (record.progress) {
      text += "  " + progress_summary(*record.progress);
    }
    text += "  (Ctrl-C cancels, Ctrl-\\ detaches)";
    text = escape_for_terminal(text, KeepNewlines::no);
    const std::size_t width = terminal_width() - 1;
    if (text.size() > width) {
      text.resize(width); // may cut an escape or a character: it is only a status line
    }
    std::cerr << "\r\x1b[K" << text << std::flush;
    m_shown = true;
  }

private:
  bool m_enabled;
  bool m_shown = false;
};

// True if the output written so far ends a line (or there is none), so a
// progress line may follow it without breaking it.
bool at_line_start(int fd, std::uint64_t offset)
{
  if (fd < 0 || offset == 0) {
    return true;
  }
  char last = '\n';
  return ::pread(fd, &last, 1, static_cast<off_t>(offset - 1)) != 1 || last == '\n';
}

// `--dir DIR ` as a shell would need it typed, or "" without --dir.
std::string dir_option(const GlobalOptions& global)
{
  if (!global.dir) {
    return "";
  }
  return "--dir " + escape_for_terminal(shell_quote(*global.dir) + " ", KeepNewlines::no);
}

// Copies a task's output to stdout until the task ends, `detach_after`
// passes, or an interrupt arrives; returns run's exit code.
class Follower
{
public:
  Follower(const GlobalOptions& global, const TaskDir& dir, std::string id, Escape escape)
    : m_global(global),
      m_dir(dir),
      m_id(std::move(id)),
      m_progress(status_line_fits()),
      m_copier(escape),
      m_watcher(dir, WatchOutput::yes)
  {
    m_watcher.watch_interrupts();
    m_watcher.watch_fd(terminal_stop_fd(), [] { return true; });
    if (stdout_is_pipe()) {
      m_watcher.watch_reader(STDOUT_FILENO);
    }
  }

  int follow(std::optional<Clock::time_point> deadline)
  {
    TaskRecord record = load_current_record(m_dir, m_id);
    for (;;) {
      copy_output(followed_output_end(record));
      if (is_final(record.state)) {
        m_copier.finish();
        return m_copier.reader_gone() ? static_cast<int>(ExitCode::reader_gone)
                                      : exit_status_of(record);
      }
      const auto now = Clock::now();
      if (interrupt_signal() == SIGINT) {
        return cancel("Ctrl-C", ExitCode::run_interrupted);
      }
      if (m_copier.reader_gone() || m_watcher.reader_gone()) {
        return cancel("the reader of stdout went away", ExitCode::reader_gone);
      }
      if ((deadline && now >= *deadline) || interrupt_signal() != 0) {
        return detach(record, now);
      }
      if (at_line_start(m_output.get(), m_offset)) {
        m_progress.draw(record, std::chrono::duration_cast<Milliseconds>(now - m_began));
      }
      std::optional<Milliseconds> limit;
      if (deadline) {
        limit = std::chrono::ceil<Milliseconds>(*deadline - now);
      }
      if (status_line_fits()) {
        limit = std::min(limit.value_or(k_progress_interval), k_progress_interval);
      }
      m_watcher.wait_for_change({record}, limit);
      if (take_terminal_stop()) {
        const auto stopped = stop_as_job_with_task();
        if (deadline) {
          *deadline += stopped; // the time stopped does not count
        }
      }
      record = load_current_record(m_dir, m_id);
    }
  }

private:
  // Copies what the task wrote since the last call, up to `end`.
  void copy_output(std::uint64_t end = UINT64_MAX)
  {
    if (!m_output) {
      m_output = open_output_file(m_dir, m_id);
    }
    m_progress.clear();
    if (m_output) {
      m_offset = m_copier.copy_from(m_output.get(), m_offset, end);
    }
  }

  // Ctrl-C, or the pipe's reader gone: stop the task as the terminal (or
  // SIGPIPE) would stop a foreground command; returns `code`.
  int cancel(std::string_view why, ExitCode code)
  {
    m_copier.finish();
    std::cout << std::flush;
    // The grace is announced: a task that traps TERM keeps the terminal that long.
    const TaskRecord record = load_current_record(m_dir, m_id);
    std::cerr << (at_line_start(m_output.get(), m_offset) ? "" : "\n") << "bgtask: " << why
              << ": cancelling task " << m_id << " (TERM now, KILL after "
              << format_duration(from_seconds(record.grace_s))
              << " if it still runs; Ctrl-C again to kill it now)\n";
    // A second Ctrl-C (any caught signal after the first) kills it now.
    const int interrupts = interrupt_count();
    const auto hurry = [&] {
      if (interrupt_count() <= interrupts) {
        return false;
      }
      std::cerr << "bgtask: killing task " << m_id << " now\n";
      return true;
    };
    const CancelResult result = cancel_tasks(m_dir, {m_id}, std::nullopt, hurry);
    copy_output();
    m_copier.finish();
    for (const auto& problem : result.unanswered) {
      std::cerr << "bgtask: " << escape_for_terminal(problem, KeepNewlines::no) << "\n";
    }
    std::cerr << "bgtask: task " << m_id << " "
              << escape_for_terminal(state_text(result.records.front()), KeepNewlines::no) << "\n";
    return static_cast<int>(code);
  }

  // Ctrl-Z: the task pauses and `run` stops as a job; once continued (`fg`,
  // `bg`) the task resumes. Returns how long `run` was stopped.
  Clock::duration stop_as_job_with_task()
  {
    copy_output();
    std::cout << std::flush;
    const bool paused = change_pause_of_task(PauseAction::pause);
    std::cerr << (at_line_start(m_output.get(), m_offset) ? "" : "\n") << "bgtask: task " << m_id
              << (paused ? " paused; `fg` resumes it\n" : " runs on\n");
    const auto stopped_at = Clock::now();
    stop_as_job();
    const auto stopped = Clock::now() - stopped_at;
    if (paused && change_pause_of_task(PauseAction::resume)) {
      std::cerr << "bgtask: task " << m_id << " resumed\n";
    }
    return stopped;
  }

  // Pauses or resumes the task; false (and why, on stderr) if it could not.
  bool change_pause_of_task(PauseAction action)
  {
    try {
      change_pause(m_dir, {m_id}, action);
      return true;
    } catch (const Error& e) {
      std::cerr << "bgtask: cannot " << (action == PauseAction::pause ? "pause" : "resume")
                << " task " << m_id << ": " << escape_for_terminal(e.what(), KeepNewlines::no)
                << "\n";
      return false;
    }
  }

  int detach(const TaskRecord& record, Clock::time_point now)
  {
    m_copier.finish();
    std::cout << std::flush;
    const std::string again = "bgtask " + dir_option(m_global);
    std::cerr << (at_line_start(m_output.get(), m_offset) ? "" : "\n") << "bgtask: task " << m_id
              << " is still " << to_string(record.state) << "; detached after "
              << format_duration(std::chrono::duration_cast<Milliseconds>(now - m_began))
              << " (it keeps running)\n"
              << "  follow: " << again << "output --follow " << m_id << "\n"
              << "  wait:   " << again << "wait " << m_id << "\n"
              << "  cancel: " << again << "cancel " << m_id << "\n";
    return static_cast<int>(ExitCode::detached);
  }

  const GlobalOptions& m_global;
  const TaskDir& m_dir;
  std::string m_id;
  Clock::time_point m_began = Clock::now();
  ProgressLine m_progress;
  OutputCopier m_copier;
  TaskWatcher m_watcher;
  UniqueFd m_output;
  std::uint64_t m_offset = 0;
};

// --detach-after, else $BGTASK_DETACH_AFTER: a duration, or `never`
// (nullopt). Without either, 30s at a terminal and never elsewhere (CI, a
// script), where nobody could come back to a detached task.
std::optional<Milliseconds> detach_after_of(const po::variables_map& vm)
{
  std::string text;
  if (vm.count("detach-after") != 0) {
    text = vm["detach-after"].as<std::string>();
  } else if (const char* env = std::getenv("BGTASK_DETACH_AFTER"); env != nullptr && *env != 0) {
    text = env;
  } else if (::isatty(STDIN_FILENO) == 1 && ::isatty(STDOUT_FILENO) == 1) {
    return k_default_detach_after;
  } else {
    return std::nullopt;
  }
  if (text == "never") {
    return std::nullopt;
  }
  return value_or_usage(parse_duration(text));
}

} // namespace

po::options_description run_options()
{
  po::options_description options;
  options.add_options()(
    "detach-after", po::value<std::string>()->value_name("DUR"),
    "stop streaming and exit 3 if the task still runs after DUR (default: 30s at a terminal, "
    "else never)\n"
    "A terminal means stdin and stdout both are one; `$BGTASK_DETACH_AFTER` sets another "
    "default. `never` follows the task until it ends.")(
    "escape", "show control characters of the output escaped, as `output` does on a terminal")(
    "raw", "pass output bytes through unchanged (the default)");
  add_start_options(options);
  return options;
}

int run_run(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  const auto detach_after = detach_after_of(vm);
  const Escape escape = vm.count("escape") != 0 ? Escape::yes : Escape::no;
  StartPlan plan = plan_start(parse_start_options(vm, args.command));
  keep_stderr_apart(plan);
  const TaskDir dir = open_task_dir(global);
  const auto began = Clock::now();
  // Caught before the task exists, so a Ctrl-C during the start is not lost.
  catch_interrupts({SIGINT, SIGQUIT, SIGTERM, SIGHUP});
  catch_terminal_stops(); // Ctrl-Z pauses the task (Follower)
  const StartResult started = start_task(dir, std::move(plan));
  const std::string& id = started.id;
  if (started.duplicate) {
    std::cerr << "bgtask: an identical task is already queued or running: " << id
              << " (--dedupe); following it\n";
  }
  require_durable_record(dir, started);
  require_launched(started);
  // A write to a pipe whose reader is gone fails with EPIPE instead of
  // killing `run` (the task would run on unseen): `run` then stops the task.
  // The supervisor was forked before, and every process bgtask starts resets
  // its signals.
  ::signal(SIGPIPE, SIG_IGN);
  Follower follower(global, dir, id, escape);
  return follower.follow(detach_after ? std::optional(began + *detach_after) : std::nullopt);
}

} // namespace bgtask
