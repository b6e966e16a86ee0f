#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/event_format.hpp>
#include <bgtask/cli/top_layout.hpp>
#include <bgtask/cli/top_screen.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/commands/table.hpp>
#include <bgtask/exec/event_follow.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_cancel.hpp>
#include <bgtask/exec/task_pause.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/proc/window_resize.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/timestamp.hpp>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <poll.h>
#include <unistd.h>
#include <utility>

namespace bgtask {

namespace {

// How many of the latest events `top` shows when it begins.
constexpr std::uint64_t k_replayed_events = 30;
// How many lines of output `o` shows before it follows.
constexpr const char* k_output_tail = "20";

// The event pane's line: local time of day, then the event as `events
// --format text` prints it without its timestamp.
TopEvent event_line(const LoggedEvent& logged, const TaskDir& dir)
{
  std::string text = format_event(logged, EventFormat::text, dir.path());
  text.erase(0, text.find(' ') + 1);
  std::string time = format_local_time(logged.event.time);
  time.erase(0, time.rfind(' ') + 1);
  const auto* state = logged.event.data.if_contains("state");
  const bool failed_exit = logged.event.type == "task.exited" && state != nullptr &&
                           state->is_string() && parse_task_state(state->as_string()).has_value() &&
                           is_failure_state(*parse_task_state(state->as_string()));
  return {time + ' ' + text, failed_exit || logged.event.type == "task.lost"};
}

// The live view: the model, what the person chose, and the screen.
class Top
{
public:
  Top(const TaskDir& dir, const GlobalOptions& global, TopScreen& screen, TopFilter filter)
    : m_dir(dir),
      m_global(global),
      m_screen(screen)
  {
    m_view.dir = escape_table_cell(dir.path());
    m_view.filter = std::move(filter);
  }

  // Every unfinished task, as it is now.
  void load()
  {
    for (const TaskRecord& record : load_unfinished_records(m_dir)) {
      note(record);
    }
  }

  // What one event changed: the task's record as it is now.
  void apply(const LoggedEvent& logged)
  {
    const StreamEvent& event = logged.event;
    m_model.add_event(event_line(logged, m_dir));
    if (event.task.empty()) {
      return;
    }
    if (event.type == "task.cleaned") {
      m_model.remove(event.task);
      return;
    }
    if (const LoadedRecord loaded = load_record(m_dir, event.task);
        loaded.status == LoadStatus::ok) {
      note(loaded.record, true);
    }
  }

  void redraw()
  {
    m_screen.paint(layout_top(m_model, m_view, m_screen.width(), m_screen.height()));
  }

  // Reads the keys typed; true once `q` asks to end.
  bool on_keys()
  {
    while (const auto key = m_screen.next_key()) {
      if (!m_view.confirming.empty()) {
        on_confirm_key(*key);
      } else if (m_view.prompting) {
        on_prompt_key(*key);
      } else {
        on_key(*key);
      }
      if (m_quit || interrupt_signal() != 0) {
        return true;
      }
    }
    redraw();
    return false;
  }

  bool quit() const { return m_quit; }

private:
  // Takes the task's record, and its queue's slot count when it is not
  // known yet or `refresh` asks (an event of the queue: `bgtask queue Q
  // --slots N` writes no event of its own).
  void note(const TaskRecord& record, bool refresh = false)
  {
    m_model.update(record);
    if (!record.queue) {
      return;
    }
    const std::string queue = escape_table_cell(*record.queue);
    if (refresh || !m_model.knows_queue(queue)) {
      m_model.set_slots(queue, slots_of(load_queue_settings(m_dir, *record.queue)));
    }
  }

  // `y` cancels the task `c` asked about; any other key keeps it.
  void on_confirm_key(const TopKey& key)
  {
    const std::string id = std::exchange(m_view.confirming, {});
    if (key.kind == TopKey::Kind::character && key.ch == 'y') {
      act(id, 'c');
    } else {
      m_view.message = id + " not cancelled";
    }
  }

  void on_prompt_key(const TopKey& key)
  {
    using Kind = TopKey::Kind;
    if (key.kind == Kind::character) {
      m_view.filter.name += key.ch;
    } else if (key.kind == Kind::backspace && !m_view.filter.name.empty()) {
      m_view.filter.name.pop_back();
    } else if (key.kind == Kind::escape) {
      m_view.filter.name.clear();
      m_view.prompting = false;
    } else if (key.kind == Kind::enter) {
      m_view.prompting = false;
    }
  }

  void on_key(const TopKey& key)
  {
    using Kind = TopKey::Kind;
    const int page = static_cast<int>(std::max<std::size_t>(m_screen.height() / 2, 1));
    switch (key.kind) {
    case Kind::up:
      return move_selection(m_model, m_view, -1);
    case Kind::down:
      return move_selection(m_model, m_view, 1);
    case Kind::page_up:
      return move_selection(m_model, m_view, -page);
    case Kind::page_down:
      return move_selection(m_model, m_view, page);
    case Kind::home:
      return move_selection(m_model, m_view, -1000000);
    case Kind::end:
      return move_selection(m_model, m_view, 1000000);
    case Kind::enter:
      return follow_output();
    case Kind::escape:
    case Kind::backspace:
      return;
    case Kind::character:
      return on_character(key.ch);
    }
  }

  void on_character(char ch)
  {
    switch (ch) {
    case 'q':
      m_quit = true;
      return;
    case 'j':
      return move_selection(m_model, m_view, 1);
    case 'k':
      return move_selection(m_model, m_view, -1);
    case 'o':
      return follow_output();
    case 'c':
      return ask_cancel();
    case 'p':
    case 'r':
      if (const TopTask* task = selected_task(m_model, m_view)) {
        return act(task->id, ch);
      }
      m_view.message = "no task selected";
      return;
    case '/':
      m_view.prompting = true;
      return;
    case 's':
      m_view.filter.state = next_state_filter(m_view.filter.state);
      m_view.message = "showing " + std::string(state_filter_name(m_view.filter.state));
      return;
    default:
      m_view.message = "unknown key '" + std::string(1, ch) + "'";
      return;
    }
  }

  // A cancel cannot be taken back: the footer asks first.
  void ask_cancel()
  {
    const TopTask* task = selected_task(m_model, m_view);
    if (task == nullptr) {
      m_view.message = "no task selected";
    } else if (is_final(task->state)) {
      m_view.message = task->id + " has ended already";
    } else {
      m_view.confirming = task->id;
      m_view.message.clear();
    }
  }

  // Cancels (`c`), pauses (`p`) or resumes (`r`) task `id`; the result is
  // a message (the rows follow from the events).
  void act(const std::string& id, char ch)
  {
    const char* doing = ch == 'c' ? "cancelling " : ch == 'p' ? "pausing " : "resuming ";
    m_view.message = doing + id + "...";
    redraw();
    try {
      if (ch == 'c') {
        const CancelResult result = cancel_tasks(m_dir, {id}, std::nullopt);
        m_view.message = id + ": " +
                         (result.unanswered.empty() ? outcome_text(result.records.front())
                                                    : result.unanswered.front());
      } else {
        change_pause(m_dir, {id}, ch == 'p' ? PauseAction::pause : PauseAction::resume);
        m_view.message = id + (ch == 'p' ? ": paused" : ": resumed");
      }
    } catch (const Error& e) {
      m_view.message = e.what();
    }
  }

  // Leaves the screen to follow the selected task's output as `bgtask
  // output --follow --tail 20 ID` does, until it ends or Ctrl-C.
  void follow_output()
  {
    const TopTask* task = selected_task(m_model, m_view);
    if (task == nullptr) {
      m_view.message = "no task selected";
      return;
    }
    const std::string id = task->id;
    m_screen.suspend();
    std::cout << "bgtask top: the output of " << id << " (Ctrl-C returns to top)\n" << std::flush;
    int code = 0;
    try {
      const Command* output = find_command(all_commands(), "output");
      const auto args = parse_command_args(*output, {"--follow", "--tail", k_output_tail, id});
      code = run_output(m_global, *args);
    } catch (const Error& e) {
      std::cerr << "bgtask: error: " << e.what() << '\n';
    }
    std::cout.flush();
    if (interrupt_signal() == SIGINT) {
      forget_interrupts(); // Ctrl-C ended the follower, not top
    } else if (interrupt_signal() == 0) {
      std::cout << "\nbgtask top: " << id << " ended (exit " << code
                << "); press Enter to return to top" << std::flush;
      wait_for_enter();
    }
    m_screen.resume();
    m_view.message = "back from the output of " + id;
  }

  // Waits for a line on stdin (the terminal is in its usual mode), or an interrupt.
  static void wait_for_enter()
  {
    std::array<pollfd, 2> fds{{{STDIN_FILENO, POLLIN, 0}, {interrupt_fd(), POLLIN, 0}}};
    while (::poll(fds.data(), fds.size(), -1) < 0 && errno == EINTR) {
    }
    if (fds[0].revents != 0) {
      char buffer[256];
      [[maybe_unused]] const auto n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    }
    if (interrupt_signal() == SIGINT) {
      forget_interrupts();
    }
  }

  const TaskDir& m_dir;
  const GlobalOptions& m_global;
  TopScreen& m_screen;
  TopModel m_model;
  TopViewState m_view;
  bool m_quit = false;
};

// Refuses what `top` cannot draw on, before anything is changed.
void check_terminal()
{
  const char* term = std::getenv("TERM");
  if (::isatty(STDIN_FILENO) == 0 || !stdout_is_terminal()) {
    throw_usage("top needs a terminal on stdin and stdout; for lines, use "
                "`bgtask events --follow --format text`");
  }
  if (term == nullptr || *term == '\0' || std::strcmp(term, "dumb") == 0) {
    throw_usage("top cannot draw on TERM=" + std::string(term == nullptr ? "" : term) +
                " (no cursor addressing); use `bgtask events --follow --format text` or "
                "`bgtask list`");
  }
}

// The filter `top` begins with: --name and --state.
TopFilter first_filter(const po::variables_map& vm)
{
  TopFilter filter;
  filter.name = escape_table_cell(optional_value<std::string>(vm, "name").value_or(""));
  if (const auto state = optional_value<std::string>(vm, "state")) {
    const auto parsed = parse_state_filter(*state);
    if (!parsed) {
      throw_usage("--state: expected all, running, queued, ended or failed, not '" +
                  state->substr(0, 40) + "'");
    }
    filter.state = *parsed;
  }
  return filter;
}

} // namespace

po::options_description top_options()
{
  po::options_description options;
  options.add_options()("name", po::value<std::string>()->value_name("TEXT"),
                        "show only the tasks whose name or ID contains TEXT\n"
                        "The `/` key changes this filter; Esc there clears it.")(
    "state", po::value<std::string>()->value_name("all|running|queued|ended|failed"),
    "show only the tasks in this state (default all)\n"
    "`ended` is every final state; `failed` is failed, timed_out and lost. The `s` key cycles "
    "through them.");
  return options;
}

int run_top(const GlobalOptions& global, const CommandArgs& args)
{
  const TopFilter filter = first_filter(args.options);
  check_terminal();
  const TaskDir dir = open_task_dir(global);
  // Before curses, so that it keeps its hands off these signals.
  catch_interrupts({SIGINT, SIGTERM, SIGHUP});
  const int resize_fd = catch_window_resize();
  EventLogReader reader = EventLogReader::last(dir, k_replayed_events);
  TopScreen screen(stdout_color());
  Top top(dir, global, screen, filter);
  top.load();
  top.redraw();
  FollowOptions options;
  options.follow = true;
  options.wakes = {{STDIN_FILENO, [&] { return top.on_keys(); }}, {resize_fd, [&] {
                                                                     drain_window_resize();
                                                                     screen.resize();
                                                                     top.redraw();
                                                                     return false;
                                                                   }}};
  const FollowSink sink{[&](const LoggedEvent& logged) { top.apply(logged); },
                        [&](const EventCursor&) { top.redraw(); }};
  for (;;) {
    EventGap gap;
    const FollowEnd end = follow_events(dir, reader, EventSelection{}, options, sink, gap);
    if (end == FollowEnd::gap) {
      top.load(); // events were missed: the records say what is true now
      top.redraw();
      continue;
    }
    if (top.quit()) {
      return 0;
    }
    return static_cast<int>(end == FollowEnd::reader_gone ? ExitCode::reader_gone
                                                          : ExitCode::interrupted);
  }
}

} // namespace bgtask
