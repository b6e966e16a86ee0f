#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/cli/start_options.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/exit_status.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <chrono>
#include <csignal>
#include <iostream>
#include <sys/ioctl.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "run", "[--detach-after DUR] [--raw] [start options] (-- CMD [ARG...] | -c 'SHELL STRING')",
  "Starts a task as `start` does, then streams its output to stdout. If the task ends within\n"
  "--detach-after (default 30s), exits with its status as `wait` would; otherwise stops\n"
  "streaming, tells on stderr how to follow it, and exits 3 while the task keeps running.\n"
  "Ctrl-C detaches the same way. On a terminal, stderr shows a progress line meanwhile."};

constexpr Milliseconds k_default_detach_after{30000};
constexpr Milliseconds k_progress_interval{1000};

volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int)
{
  g_interrupted = 1;
}

// Lets SIGINT, SIGTERM and SIGHUP end the following (not the task): they
// interrupt the watcher's poll instead of killing `run`.
void catch_interrupts()
{
  struct sigaction action
  {
  };
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    ::sigaction(sig, &action, nullptr);
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
  std::string quoted = "'";
  for (const char c : *global.dir) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return "--dir " + escape_for_terminal(quoted + "' ", KeepNewlines::no);
}

} // namespace

int run_run(const GlobalOptions& global, const std::vector<std::string>& args)
{
  auto [own, command] = split_at_separator(args);
  po::options_description options("Options");
  options.add_options()("detach-after", po::value<std::string>()->value_name("DUR"),
                        "stop streaming and exit 3 if the task still runs after DUR (default 30s)")(
    "raw", "pass output bytes through unchanged, even to a terminal");
  add_start_options(options);
  const auto vm = parse_command_line(k_syntax, options, {}, own);
  if (!vm) {
    return 0;
  }
  const Milliseconds detach_after = vm->count("detach-after") != 0
                                      ? parse_duration((*vm)["detach-after"].as<std::string>())
                                      : k_default_detach_after;
  const Escape escape = vm->count("raw") == 0 && stdout_is_terminal() ? Escape::yes : Escape::no;
  StartPlan plan = build_start_plan(*vm, std::move(command));
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  using Clock = std::chrono::steady_clock;
  const auto began = Clock::now();
  const StartResult started = start_task(dir, std::move(plan));
  const std::string& id = started.id;
  if (started.duplicate) {
    std::cerr << "bgtask: an identical task is already queued or running: " << id
              << " (--dedupe); following it\n";
  }
  if (started.launch.exit_code != 0) {
    throw Error(static_cast<ExitCode>(started.launch.exit_code),
                "task " + id + " failed to start: " + started.launch.error);
  }

  catch_interrupts();
  const auto deadline = began + detach_after;
  ProgressLine progress(::isatty(STDERR_FILENO) == 1);
  OutputCopier copier(escape);
  UniqueFd output;
  std::uint64_t offset = 0;
  TaskWatcher watcher(dir, WatchOutput::yes);
  TaskRecord record = load_current_record(dir, id);
  for (;;) {
    if (!output) {
      output = open_output_file(dir, id);
    }
    progress.clear();
    if (output) {
      offset = copier.copy_from(output.get(), offset);
    }
    if (is_final(record.state)) {
      copier.finish();
      return exit_status_of(record);
    }
    const auto now = Clock::now();
    if (now >= deadline || g_interrupted != 0) {
      copier.finish();
      std::cout << std::flush;
      const std::string again = "bgtask " + dir_option(global);
      std::cerr << (at_line_start(output.get(), offset) ? "" : "\n") << "bgtask: task " << id
                << " is still " << to_string(record.state) << "; detached after "
                << format_duration(std::chrono::duration_cast<Milliseconds>(now - began))
                << " (it keeps running)\n"
                << "  follow: " << again << "output --follow " << id << "\n"
                << "  wait:   " << again << "wait " << id << "\n"
                << "  cancel: " << again << "cancel " << id << "\n";
      return static_cast<int>(ExitCode::detached);
    }
    if (at_line_start(output.get(), offset)) {
      progress.draw(record, std::chrono::duration_cast<Milliseconds>(now - began));
    }
    auto limit = std::chrono::ceil<Milliseconds>(deadline - now);
    if (::isatty(STDERR_FILENO) == 1) {
      limit = std::min(limit, k_progress_interval);
    }
    watcher.wait_for_change({record}, limit);
    record = load_current_record(dir, id);
  }
}

} // namespace bgtask
