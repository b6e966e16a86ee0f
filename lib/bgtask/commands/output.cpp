#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/output_grep_json.hpp>
#include <bgtask/cli/output_slice_json.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/cli/task_selection.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/exit_status.hpp>
#include <bgtask/core/output_cursor.hpp>
#include <bgtask/exec/condition_wait.hpp>
#include <bgtask/exec/output_grep.hpp>
#include <bgtask/exec/output_slice.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr Milliseconds k_remote_output_poll{1000};

// How long a follower may sleep before reconciling `records` again.
std::optional<Milliseconds> follow_interval(const std::vector<TaskRecord>& records)
{
  // A task on another host (Slurm) writes its output there: inotify does
  // not see it, so poll the shared file at least every second.
  auto limit = recheck_interval(records);
  if (limit) {
    limit = std::min(*limit, k_remote_output_poll);
  }
  return limit;
}

// What a line of task `record` starts with: its name when no other
// followed task has that name, else its ID. Escaped as a table cell is, on a
// terminal or not: a name can neither forge a line nor reach the terminal.
std::string line_prefix(const TaskRecord& record, const std::vector<TaskRecord>& all)
{
  const auto same_name = std::count_if(
    all.begin(), all.end(), [&](const TaskRecord& r) { return r.name && r.name == record.name; });
  return escape_table_cell(record.name && same_name == 1 ? *record.name : record.id) + "| ";
}

// output --follow of several tasks: their lines interleaved as they come,
// until every task has ended; exits as `wait` would for all of them.
int follow_many(const TaskDir& dir, const std::vector<std::string>& ids,
                std::optional<std::size_t> tail, Escape escape)
{
  auto records = load_current_records(dir, ids);
  struct Followed
  {
    UniqueFd fd;
    std::uint64_t offset = 0;
    PrefixedLineCopier copier;
  };
  std::vector<Followed> followed;
  for (const auto& record : records) {
    UniqueFd fd = open_output_file(dir, record.id);
    if (!fd) {
      throw Error(ExitCode::failure, "task " + record.id + " has no output file");
    }
    const std::uint64_t offset = tail ? find_tail_start(fd.get(), *tail) : 0;
    followed.push_back(
      Followed{std::move(fd), offset, PrefixedLineCopier(line_prefix(record, records), escape)});
  }
  catch_interrupts({SIGINT, SIGTERM, SIGHUP});
  TaskWatcher watcher(dir, WatchOutput::yes);
  watcher.watch_reader(STDOUT_FILENO);
  watcher.watch_interrupts();
  for (;;) {
    for (std::size_t i = 0; i < followed.size(); ++i) {
      followed[i].offset = followed[i].copier.copy_from(followed[i].fd.get(), followed[i].offset,
                                                        followed_output_end(records[i]));
    }
    const bool all_final = std::all_of(records.begin(), records.end(),
                                       [](const TaskRecord& r) { return is_final(r.state); });
    if (all_final) {
      break;
    }
    std::vector<TaskRecord> unfinished;
    std::copy_if(records.begin(), records.end(), std::back_inserter(unfinished),
                 [](const TaskRecord& r) { return !is_final(r.state); });
    watcher.wait_for_change(unfinished, follow_interval(unfinished));
    if (watcher.reader_gone()) {
      return static_cast<int>(ExitCode::reader_gone); // nobody reads what follows
    }
    if (interrupt_signal() != 0) {
      return static_cast<int>(ExitCode::interrupted);
    }
    records = load_current_records(dir, ids);
  }
  for (std::size_t i = 0; i < followed.size(); ++i) {
    followed[i].offset = followed[i].copier.copy_from(followed[i].fd.get(), followed[i].offset);
    followed[i].copier.finish();
    warn_if_output_incomplete(followed[i].fd.get(), records[i]);
  }
  return combined_exit_status(records);
}

// The value of count option `name`, if given.
std::optional<std::size_t> count_option(const po::variables_map& vm, const char* name)
{
  const auto text = optional_value<std::string>(vm, name);
  return text ? std::optional(value_or_usage(parse_count(*text, std::string("--") + name)))
              : std::nullopt;
}

// --max-bytes, or `fallback`.
std::size_t max_bytes_option(const po::variables_map& vm, std::size_t fallback)
{
  const std::size_t max_bytes = count_option(vm, "max-bytes").value_or(fallback);
  if (max_bytes < 1 || max_bytes > k_max_slice_bytes) {
    throw_usage("--max-bytes must be between 1 and " + std::to_string(k_max_slice_bytes));
  }
  return max_bytes;
}

// --since, --tail, --max-bytes, --json: one slice of the output after a
// cursor, or of its last lines.
int print_slice(const TaskDir& dir, const std::string& id, const po::variables_map& vm)
{
  std::uint64_t from = 0;
  if (const auto since = optional_value<std::string>(vm, "since")) {
    from = parse_output_cursor(id, *since);
  }
  const std::size_t max_bytes = max_bytes_option(vm, k_default_slice_bytes);
  if (const auto tail = count_option(vm, "tail")) {
    from = output_tail_offset(dir, id, *tail, max_bytes);
  }
  const OutputSlice slice = read_output_slice(dir, id, from, max_bytes);
  const int status =
    warn_if_output_missing(slice.record, slice.missing) ? 0 : static_cast<int>(ExitCode::failure);
  const bool raw = vm.count("raw") != 0;
  if (vm.count("json") != 0) {
    print_json(output_slice_to_json(slice, raw ? Controls::keep : Controls::strip));
    return status;
  }
  OutputCopier copier(!raw && stdout_is_terminal() ? Escape::render : Escape::no);
  copier.write(slice.dropped, slice.data);
  copier.finish();
  std::fprintf(stderr, "bgtask: cursor %s%s\n", encode_output_cursor(id, slice.next).c_str(),
               slice.complete ? " (complete)" : "");
  return status;
}

// Prints one line of a search as grep -n does: NUMBER, then ':' for a
// match or '-' for context; after the retention gap the number is counted
// in the kept output and follows a '~'.
void print_grep_line(const GrepLine& line, char separator, Escape escape)
{
  std::string text = (line.after_gap ? "~" : "") + std::to_string(line.number) + separator;
  text += escape != Escape::no ? escape_for_terminal(line.text, KeepNewlines::no) : line.text;
  text += '\n';
  std::cout << text;
}

// --grep: the matching lines (with --context lines around them), or their JSON.
int print_grep(const TaskDir& dir, const std::string& id, const po::variables_map& vm,
               Escape escape)
{
  const LinePattern pattern = compile_output_pattern(vm["grep"].as<std::string>(), "--grep");
  GrepRequest request;
  request.pattern = &pattern;
  request.context = count_option(vm, "context").value_or(0);
  request.max_matches = count_option(vm, "max-matches").value_or(SIZE_MAX);
  if (vm.count("max-bytes") != 0) {
    request.max_bytes = max_bytes_option(vm, 0);
  }
  const GrepResult result = grep_output(dir, id, request);
  if (vm.count("json") != 0) {
    print_json(grep_result_to_json(result));
    return 0;
  }
  std::uint64_t printed_to = 0; // lines starting before this offset were printed
  bool gap_shown = false;
  for (const auto& match : result.matches) {
    if (request.context > 0 && printed_to > 0 &&
        (match.before.empty() ? match.line.offset : match.before.front().offset) > printed_to) {
      std::cout << "--\n";
    }
    const auto print = [&](const GrepLine& line, char separator) {
      if (printed_to > 0 && line.offset < printed_to) {
        return;
      }
      if (line.after_gap && !gap_shown && result.dropped_bytes > 0) {
        std::cout << dropped_output_marker(result.dropped_bytes);
        gap_shown = true;
      }
      print_grep_line(line, separator, escape);
      printed_to = line.offset + 1;
    };
    std::for_each(match.before.begin(), match.before.end(), [&](const auto& l) { print(l, '-'); });
    print(match.line, ':');
    std::for_each(match.after.begin(), match.after.end(), [&](const auto& l) { print(l, '-'); });
  }
  if (result.truncated) {
    std::fprintf(stderr, "bgtask: %llu matching lines, %zu shown\n",
                 static_cast<unsigned long long>(result.total_matches), result.matches.size());
  }
  return 0;
}

// output ID [--follow]: one task's output, then (with --follow) what it
// writes until it ends; exits as `wait` would for it.
int print_one(const TaskDir& dir, const std::string& id, const po::variables_map& vm, Escape escape)
{
  TaskRecord record = load_current_record(dir, id);
  const UniqueFd fd = open_output_file(dir, id);
  if (!fd) {
    throw Error(ExitCode::failure, "task " + id + " has no output file");
  }
  OutputCopier copier(escape);
  std::uint64_t offset = 0;
  if (const auto tail_text = optional_value<std::string>(vm, "tail")) {
    offset = find_tail_start(fd.get(), value_or_usage(parse_count(*tail_text, "--tail")));
  }
  offset = copier.copy_from(fd.get(), offset, followed_output_end(record));
  if (vm.count("follow") == 0) {
    copier.finish();
    return warn_if_output_incomplete(fd.get(), record) ? 0 : static_cast<int>(ExitCode::failure);
  }
  catch_interrupts({SIGINT, SIGTERM, SIGHUP});
  TaskWatcher watcher(dir, WatchOutput::yes);
  watcher.watch_reader(STDOUT_FILENO);
  watcher.watch_interrupts();
  while (!is_final(record.state)) {
    watcher.wait_for_change({record}, follow_interval({record}));
    if (watcher.reader_gone()) {
      return static_cast<int>(ExitCode::reader_gone); // nobody reads what follows
    }
    if (interrupt_signal() != 0) {
      copier.finish();
      return static_cast<int>(ExitCode::interrupted);
    }
    record = load_current_record(dir, id);
    offset = copier.copy_from(fd.get(), offset, followed_output_end(record));
  }
  copier.copy_from(fd.get(), offset);
  copier.finish();
  warn_if_output_incomplete(fd.get(), record);
  return exit_status_of(record);
}

// Refuses, before the task directory is touched, what `output` cannot
// read: several tasks or --queue without --follow, and no task at all.
void check_output_usage(const po::variables_map& vm, const std::vector<std::string>& operands)
{
  const bool by_name = vm.count("name") != 0;
  const bool slice = vm.count("since") != 0 || vm.count("json") != 0;
  const bool grep = vm.count("grep") != 0;
  if (slice && vm.count("follow") != 0) {
    throw_usage("--since and --json do not go with --follow");
  }
  if (vm.count("since") != 0 && vm.count("tail") != 0) {
    throw_usage("--since and --tail exclude each other");
  }
  if (grep && (vm.count("since") != 0 || vm.count("tail") != 0 || vm.count("follow") != 0)) {
    throw_usage("--grep searches the whole output: it goes without --since, --tail and --follow");
  }
  if (!grep && (vm.count("context") != 0 || vm.count("max-matches") != 0)) {
    throw_usage("--context and --max-matches need --grep");
  }
  if (!slice && !grep && vm.count("max-bytes") != 0) {
    throw_usage("--max-bytes needs --since, --json or --grep");
  }
  if (vm.count("follow") != 0) {
    return; // select_tasks refuses an empty selection
  }
  if (vm.count("queue") != 0 || vm.count("all-named") != 0 || operands.size() > 1 ||
      (by_name && !operands.empty())) {
    throw_usage("bgtask output: several tasks, --all-named and --queue need --follow");
  }
  if (operands.empty() && !by_name) {
    throw_usage("bgtask output: give a task ID, @ or --name N");
  }
}

// The tasks `output` reads: without --follow one, its ID or the newest task
// named --name; with --follow every task the IDs, --name and --queue select.
std::vector<std::string> output_tasks(const TaskDir& dir, const po::variables_map& vm,
                                      const std::vector<std::string>& operands)
{
  const bool selecting = selects_by_record(vm);
  if (operands.size() == 1 && !selecting) {
    return {resolve_task_id(dir, operands.front())};
  }
  if (vm.count("follow") == 0) {
    return {select_tasks(dir, vm, {}).back()}; // --name alone: the newest of that name
  }
  return select_tasks(dir, vm, operands);
}

} // namespace

po::options_description output_options()
{
  po::options_description options;
  options.add_options()("follow,f", "keep printing new output until the task ends\n"
                                    "Then exits as `wait` would.")(
    "tail", po::value<std::string>(),
    "start with the last N lines only (with --json: a slice of them)\n"
    "The slice is at most `--max-bytes` (it then starts that far before the end), with a "
    "cursor that reads on.")("raw",
                             "pass bytes through unchanged, even to a terminal\n"
                             "With `--json`: keep control characters in the text (JSON-escaped).")(
    "since", po::value<std::string>()->value_name("CURSOR"),
    "print only what was written after CURSOR\n"
    "CURSOR is one printed by an earlier `--since` or `--json`. Cursors are opaque, belong to "
    "one task and stay valid across restarts; a malformed cursor, or one of another task, "
    "exits 2. Without `--json`, the next cursor is printed on stderr as `bgtask: cursor C` "
    "(followed by `(complete)` once the task is finished and everything is read).")(
    "max-bytes", po::value<std::string>()->value_name("N"),
    "with --since/--json: at most N bytes (default 65536); with --grep: N bytes of lines\n"
    "At most 16777216. A read stops before a UTF-8 character, an escape sequence or a `\\r` "
    "that is not complete yet, unless the task has finished.")(
    "json", "print {text, cursor, complete, dropped_bytes, ...} as JSON\n"
            "One object: the task's `id`, `state` and `exit_code`, `text` (valid UTF-8: invalid "
            "bytes become U+FFFD, counted in `replaced_bytes`; escape sequences and control "
            "characters other than `\\n` and `\\t` are removed, a bare `\\r` keeps only what "
            "follows it on its line, counted in `removed_bytes`), `cursor` (to continue from), "
            "`offset`, `next_offset`, `bytes` (read), `dropped_bytes` (skipped by "
            "`--max-output` between the cursor and the text), `total_bytes` and `complete` (the "
            "task is finished and everything has been read). Without `--since`, reads from the "
            "start.")(
    "grep", po::value<std::string>()->value_name("REGEX"),
    "only the lines that match REGEX (RE2 syntax), numbered, over all the kept output\n"
    "Each line's first 4 KiB or more is searched, and a line is shown up to its first 512 "
    "bytes, numbered from 1 as `grep -n` prints them (`N:line`; context lines `N-line`, "
    "groups apart `--`). One pass covers the kept output, head and tail: after the bytes "
    "`--max-output` dropped (marked by its line), numbers count the kept lines only and "
    "follow a `~`. A search that matches nothing prints nothing and exits 0. With `--json`: "
    "`matches` (each with `line`, `cursor` (reads on from the start of the line), `text`, "
    "`before` and `after`, and `after_gap` where it applies), `total_matches`, `truncated`, "
    "`scanned_bytes`, `dropped_bytes` and the `cursor` where the search stopped.")(
    "context,C", po::value<std::string>()->value_name("N"),
    "with --grep: N lines around each match")("max-matches",
                                              po::value<std::string>()->value_name("N"),
                                              "with --grep: the first N matches (all are counted)")(
    "name", po::value<std::string>()->value_name("N"),
    "the newest task named N (for a Slurm --array, every element of it)")(
    "all-named", po::value<std::string>()->value_name("N"), "with --follow: every task named N")(
    "queue", po::value<std::string>()->value_name("Q"), "with --follow: every task of queue Q");
  return options;
}

int run_output(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  check_output_usage(vm, args.operands);
  // At a terminal, as `less -R`: colours and `\r` pass, other controls escaped.
  const Escape escape = vm.count("raw") == 0 && stdout_is_terminal() ? Escape::render : Escape::no;
  const TaskDir dir = open_task_dir_to_read(global);
  const std::vector<std::string> ids = output_tasks(dir, vm, args.operands);
  if (ids.size() > 1) {
    std::optional<std::size_t> tail;
    if (const auto tail_text = optional_value<std::string>(vm, "tail")) {
      tail = value_or_usage(parse_count(*tail_text, "--tail"));
    }
    return follow_many(dir, ids, tail, escape);
  }
  if (vm.count("grep") != 0) {
    return print_grep(dir, ids.front(), vm, escape);
  }
  if (vm.count("since") != 0 || vm.count("json") != 0) {
    return print_slice(dir, ids.front(), vm);
  }
  return print_one(dir, ids.front(), vm, escape);
}

} // namespace bgtask
