#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/exit_status.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "output", "ID [--follow] [--tail N] [--raw]",
  "Prints a task's output. With --follow, streams it until the task ends and exits as\n"
  "`wait` would; exits 141 as soon as a pipe's reader goes away (`| head -1`), and 5 on\n"
  "Ctrl-C. On a terminal, control characters are escaped unless --raw is given."};

constexpr Milliseconds k_remote_output_poll{1000};

} // namespace

int run_output(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("Options");
  options.add_options()("follow,f", "keep printing new output until the task ends")(
    "tail", po::value<std::string>(),
    "start with the last N lines only")("raw", "pass bytes through unchanged, even to a terminal");
  const auto parsed = parse_id_command_line(k_syntax, options, IdCount::one, args);
  if (!parsed) {
    return 0;
  }
  const auto& vm = parsed->vm;
  const auto& prefix = parsed->ids.front();
  const auto tail_text = optional_value<std::string>(vm, "tail");
  const bool follow = vm.count("follow") != 0;
  const Escape escape = vm.count("raw") == 0 && stdout_is_terminal() ? Escape::yes : Escape::no;
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  const std::string id = resolve_task_id(dir, prefix);
  TaskRecord record = load_current_record(dir, id);

  const UniqueFd fd = open_output_file(dir, id);
  if (!fd) {
    throw Error(ExitCode::failure, "task " + id + " has no output file");
  }
  OutputCopier copier(escape);
  std::uint64_t offset = 0;
  if (tail_text) {
    offset = find_tail_start(fd.get(), parse_count(*tail_text, "--tail"));
  }
  offset = copier.copy_from(fd.get(), offset);
  if (!follow) {
    copier.finish();
    return 0;
  }
  catch_interrupts({SIGINT, SIGTERM, SIGHUP});
  TaskWatcher watcher(dir, WatchOutput::yes);
  watcher.watch_reader(STDOUT_FILENO);
  watcher.watch_interrupts();
  while (!is_final(record.state)) {
    // A task on another host (Slurm) writes its output there: inotify does
    // not see it, so poll the shared file at least every second.
    auto limit = recheck_interval({record});
    if (limit) {
      limit = std::min(*limit, k_remote_output_poll);
    }
    watcher.wait_for_change({record}, limit);
    if (watcher.reader_gone()) {
      return static_cast<int>(ExitCode::reader_gone); // nobody reads what follows
    }
    if (interrupt_signal() != 0) {
      copier.finish();
      return static_cast<int>(ExitCode::interrupted);
    }
    record = load_current_record(dir, id);
    offset = copier.copy_from(fd.get(), offset);
  }
  copier.copy_from(fd.get(), offset);
  copier.finish();
  return exit_status_of(record);
}

} // namespace bgtask
