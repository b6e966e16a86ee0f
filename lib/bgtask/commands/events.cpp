#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/cursor_file.hpp>
#include <bgtask/cli/event_format.hpp>
#include <bgtask/cli/event_reading.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/exec/event_follow.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/store/record_events.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/split.hpp>

#include <csignal>
#include <iostream>

namespace bgtask {

namespace {

// Where reading begins: the cursor file's cursor, else --since, else the
// oldest event kept.
EventLogReader starting_reader(const TaskDir& dir, const po::variables_map& vm,
                               const std::optional<std::string>& cursor_file)
{
  std::optional<std::string> since = optional_value<std::string>(vm, "since");
  std::string source = "--since";
  if (cursor_file) {
    if (auto stored = read_cursor_file(*cursor_file)) {
      since = std::move(stored);
      source = "the cursor file " + *cursor_file;
    }
  }
  return reader_since(dir, since, source);
}

EventSelection selection_from(const TaskDir& dir, const CommandArgs& args)
{
  const auto& vm = args.options;
  EventSelection selection;
  selection.ids = resolve_task_ids(dir, args.operands);
  selection.name = optional_value<std::string>(vm, "name");
  selection.queue = optional_value<std::string>(vm, "queue");
  if (const auto types = optional_value<std::string>(vm, "type")) {
    for (auto& type : split_list(*types)) {
      if (!is_stream_event_type(type)) {
        throw_usage("--type: unknown event type '" + type.substr(0, 40) + "'");
      }
      selection.types.push_back(std::move(type));
    }
  }
  return selection;
}

} // namespace

po::options_description events_options()
{
  po::options_description options;
  options.add_options()("since", po::value<std::string>()->value_name("CURSOR|now|-N"),
                        "begin after CURSOR, at the end (now), or N events before it\n"
                        "Without it (and without a cursor file that holds a cursor), reading "
                        "begins at the oldest event kept.")(
    "cursor-file", po::value<std::string>()->value_name("FILE"),
    "begin where FILE says the last run stopped; keep where this one stops in it\n"
    "The cursor in FILE wins over --since, so `--since now --cursor-file F` begins at the end "
    "once, then goes on where it stopped. FILE is replaced atomically (temp, fsync, rename) "
    "after each batch of lines printed.")(
    "follow,f", "go on printing events as they come\n"
                "Woken by inotify on the log and by the exit of a selected task's supervisor "
                "(its task is then reconciled: `lost` comes as an event); a safety poll every "
                "5 s. Ctrl-C, SIGTERM and SIGHUP end it with exit 5.")(
    "until-idle", "with --follow: end once no selected task is queued or running\n"
                  "The last line is `queue.drained`, not kept in the log; the final events "
                  "of the selected tasks come before it.")(
    "name", po::value<std::string>()->value_name("N"), "only tasks named N")(
    "queue", po::value<std::string>()->value_name("Q"), "only tasks of queue Q")(
    "type", po::value<std::string>()->value_name("T[,T...]"),
    "only events of these types")("timeout", po::value<std::string>()->value_name("DUR"),
                                  "stop following after DUR\nExit 0, or 4 with --until-idle.")(
    "format", po::value<std::string>()->value_name("jsonl|text|cloudevents"),
    "how each event is printed (default jsonl)\n"
    "`text` is one line per event; `cloudevents` maps each event onto CloudEvents 1.0 "
    "(`id`, `source`, `type`, `subject`, `time`, `data`).");
  return options;
}

int run_events(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  FollowOptions follow;
  follow.follow = vm.count("follow") != 0;
  follow.until_idle = vm.count("until-idle") != 0;
  follow.limit = optional_duration(vm, "timeout");
  if (follow.until_idle && !follow.follow) {
    throw_usage("--until-idle goes with --follow");
  }
  const EventFormat format =
    parse_event_format(optional_value<std::string>(vm, "format").value_or("jsonl"));
  const auto cursor_file = optional_value<std::string>(vm, "cursor-file");
  if (!follow.follow && !open_existing_task_dir(global)) {
    return 0; // a directory that does not exist has no events; it is not created
  }
  const TaskDir dir = open_task_dir(global);
  const EventSelection selection = selection_from(dir, args);
  EventLogReader reader = starting_reader(dir, vm, cursor_file);
  try {
    append_missing_final_events(dir, load_records(dir));
  } catch (const Error& e) {
    std::cerr << "bgtask: warning: " << e.what() << '\n';
  }
  catch_interrupts({SIGINT, SIGTERM, SIGHUP});
  const auto print = [&](const LoggedEvent& logged) {
    std::cout << format_event(logged, format, dir.path()) << '\n';
  };
  const auto keep = [&](const EventCursor& cursor) {
    std::cout.flush();
    if (cursor_file) {
      write_cursor_file(*cursor_file, encode_event_cursor(cursor));
    }
  };
  EventGap gap;
  const FollowEnd end = follow_events(dir, reader, selection, follow, {print, keep}, gap);
  switch (end) {
  case FollowEnd::gap:
    print(gap_event(gap));
    keep(gap.resume);
    std::cerr << "bgtask: events from " << encode_event_cursor(gap.missed_from)
              << " on are no longer kept; list the tasks again, then go on\n";
    return static_cast<int>(ExitCode::stream_gap);
  case FollowEnd::idle:
    if (selection.types.empty() || std::find(selection.types.begin(), selection.types.end(),
                                             "queue.drained") != selection.types.end()) {
      print(drained_event(reader.position(), selection));
    }
    std::cout.flush();
    return 0;
  case FollowEnd::gave_up:
    std::cout.flush();
    return follow.until_idle ? static_cast<int>(ExitCode::wait_gave_up) : 0;
  case FollowEnd::interrupted:
    std::cout.flush();
    return static_cast<int>(ExitCode::interrupted);
  case FollowEnd::reader_gone:
    return static_cast<int>(ExitCode::reader_gone);
  case FollowEnd::done:
    break;
  }
  std::cout.flush();
  return 0;
}

} // namespace bgtask
