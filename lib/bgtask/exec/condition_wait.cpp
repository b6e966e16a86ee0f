#include <bgtask/core/output_cursor.hpp>
#include <bgtask/core/stream_event.hpp>
#include <bgtask/exec/condition_wait.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/proc/listening_sockets.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/proc/session_members.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_events.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/agent_text.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/utf8.hpp>

#include <algorithm>
#include <chrono>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

using Clock = std::chrono::steady_clock;

// How long one check may read and match output before the wait looks at its
// deadline and interrupts again.
constexpr Clock::duration k_scan_slice = std::chrono::milliseconds(50);
constexpr Milliseconds k_port_poll_first{100};
constexpr Milliseconds k_port_poll_max{1000};

struct Match
{
  std::string line;
  std::uint64_t end = 0; // the offset after the line's newline (or after the window)
};

// Splits output into lines as it comes and tests each against a pattern.
// A line is matched in windows of the pattern's window_bytes(), each after
// the first overlapping the one before by half: memory and the time of one
// search stay bounded, a match of up to half a window is found anywhere in
// a line of any length, and the line's tail (the last state of a `\r`
// progress bar) is matched last.
class LineMatcher
{
public:
  explicit LineMatcher(const LinePattern& pattern)
    : m_pattern(pattern),
      m_window(pattern.window_bytes())
  {
  }

  // Feeds the bytes of `chunk`; the first line that matches, if any.
  std::optional<Match> feed(const OutputChunk& chunk)
  {
    if (chunk.skipped > 0) {
      m_line.clear(); // a line cut by the gap is not a line
      m_line_start = true;
    }
    std::size_t begin = 0;
    while (begin < chunk.data.size()) {
      const auto newline = chunk.data.find('\n', begin);
      const std::size_t end = newline == std::string::npos ? chunk.data.size() : newline;
      if (auto match =
            append(std::string_view(chunk.data).substr(begin, end - begin), chunk.offset + end)) {
        return match;
      }
      if (newline == std::string::npos) {
        return std::nullopt;
      }
      if (auto match = finish_line(chunk.offset + newline + 1)) {
        return match;
      }
      begin = newline + 1;
    }
    return std::nullopt;
  }

  // How many bytes to feed at once: one window's search at most per feed,
  // so a time limit is looked at between searches.
  std::size_t feed_bytes() const { return m_window / 2; }

  // The final line, once no newline will come.
  std::optional<Match> finish(std::uint64_t end)
  {
    return m_line.empty() ? std::nullopt : finish_line(end);
  }

private:
  // Adds `part` (which ends at offset `end`) to the line, matching each
  // window that fills up and keeping the line's tail.
  std::optional<Match> append(std::string_view part, std::uint64_t end)
  {
    while (!part.empty()) {
      const std::size_t taken = std::min(part.size(), m_window - m_line.size());
      m_line.append(part.substr(0, taken));
      part.remove_prefix(taken);
      if (m_line.size() < m_window) {
        break;
      }
      std::string text = to_agent_text(m_line, Controls::strip).text;
      if (m_pattern.search(text, m_line_start, false)) {
        m_line.clear();
        m_line_start = true;
        return Match{std::move(text), end - part.size()};
      }
      drop_head();
    }
    return std::nullopt;
  }

  // Keeps the second half of a full window, from a UTF-8 character's start.
  void drop_head()
  {
    std::size_t cut = m_window / 2;
    while (cut < m_line.size() && (static_cast<unsigned char>(m_line[cut]) & 0xc0U) == 0x80U &&
           cut < m_window / 2 + 3) {
      ++cut;
    }
    m_line.erase(0, cut);
    m_line_start = false;
  }

  std::optional<Match> finish_line(std::uint64_t end)
  {
    std::string text = to_agent_text(m_line, Controls::strip).text;
    const bool at_start = m_line_start;
    m_line.clear();
    m_line_start = true;
    if (m_pattern.search(text, at_start, true)) {
      return Match{std::move(text), end};
    }
    return std::nullopt;
  }

  const LinePattern& m_pattern;
  std::size_t m_window;
  std::string m_line;
  bool m_line_start = true; // m_line begins its line (no head was dropped)
};

// The processes of a task: the members of its supervisor's session, its
// command and the supervisor's descendants (a subreaper, so daemons stay
// below it).
std::vector<int> task_pids(const TaskRecord& record)
{
  std::vector<int> pids;
  if (record.owner) {
    pids =
      session_members(SessionIdentity{record.owner->pid, record.owner->start_time, ::geteuid()});
  }
  if (record.child && record.child->pid > 1) {
    pids.push_back(record.child->pid);
  }
  if (record.owner && record.owner->pid > 1) {
    const auto below = find_descendants(record.owner->pid);
    pids.insert(pids.end(), below.begin(), below.end());
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

struct OutputState
{
  std::uint64_t size = 0;
  Clock::time_point changed; // when the output last grew (from its mtime)
};

OutputState output_state(int fd)
{
  struct stat st
  {
  };
  if (::fstat(fd, &st) != 0) {
    throw_system("cannot read the output file", errno);
  }
  const auto since_mtime =
    std::chrono::system_clock::now() -
    std::chrono::system_clock::time_point(std::chrono::seconds(st.st_mtim.tv_sec) +
                                          std::chrono::nanoseconds(st.st_mtim.tv_nsec));
  const auto age =
    std::max(std::chrono::duration_cast<Clock::duration>(since_mtime), Clock::duration::zero());
  return {static_cast<std::uint64_t>(st.st_size), Clock::now() - age};
}

} // namespace

LinePattern compile_output_pattern(const std::string& pattern, const std::string& option)
{
  auto compiled = LinePattern::compile(pattern);
  if (!compiled) {
    throw_usage(option + ": not a valid regular expression (RE2 syntax): " + compiled.error());
  }
  return std::move(compiled).value();
}

namespace {

// One wait_for_condition: the task's output read so far and what to check.
class ConditionWaiter
{
public:
  ConditionWaiter(const TaskDir& dir, const std::string& id, const WaitCondition& condition)
    : m_condition(condition),
      m_fd(open_output_file(dir, id))
  {
    if (!m_fd) {
      throw Error(ExitCode::failure, "task " + id + " has no output file");
    }
    if (condition.until_output) {
      m_matcher.emplace(*condition.until_output);
    }
  }

  // Reads the output that is new and tests the condition; how the wait
  // ends, if it ends now.
  std::optional<ConditionEnd> check(ConditionResult& result)
  {
    const bool final = is_final(result.record.state);
    if (m_matcher) {
      const ScanEnd scanned = scan(final, result);
      if (scanned == ScanEnd::met) {
        return ConditionEnd::met;
      }
      m_unread = scanned == ScanEnd::more;
      if (m_unread) {
        return std::nullopt;
      }
    }
    const OutputState output = output_state(m_fd.get());
    result.offset = m_matcher ? m_offset : output.size;
    result.quiet_for = std::chrono::duration_cast<Milliseconds>(Clock::now() - output.changed);
    if (m_condition.until_port && !final &&
        listens_on(task_pids(result.record), *m_condition.until_port)) {
      return ConditionEnd::met;
    }
    if (final) {
      return ConditionEnd::task_ended;
    }
    if (m_condition.idle && result.quiet_for >= *m_condition.idle) {
      return ConditionEnd::idle;
    }
    return std::nullopt;
  }

  // The longest the next sleep may last (besides the caller's deadline).
  std::optional<Milliseconds> next_check(const ConditionResult& result)
  {
    if (m_unread) {
      return Milliseconds{0};
    }
    std::optional<Milliseconds> left;
    const auto shorten = [&](Milliseconds bound) { left = std::min(left.value_or(bound), bound); };
    if (m_condition.idle) {
      shorten(*m_condition.idle - result.quiet_for + Milliseconds{1});
    }
    if (m_condition.until_port) {
      shorten(m_port_poll);
      m_port_poll = std::min(m_port_poll * 2, k_port_poll_max);
    }
    if (const auto recheck = recheck_interval({result.record})) {
      shorten(*recheck);
    }
    return left;
  }

private:
  enum class ScanEnd {
    met,      // a line matched (it is in `result`)
    read_all, // no match in the output written so far
    more,     // no match yet; output is left to read once the time slice is over
  };

  // Feeds the new output to the matcher for at most k_scan_slice.
  ScanEnd scan(bool final, ConditionResult& result)
  {
    const auto slice_end = Clock::now() + k_scan_slice;
    for (;;) {
      const OutputChunk chunk = read_output_chunk(m_fd.get(), m_offset, m_matcher->feed_bytes());
      m_offset = chunk.offset + chunk.data.size();
      auto match = m_matcher->feed(chunk);
      if (!match && chunk.data.empty() && final) {
        match = m_matcher->finish(m_offset);
      }
      if (match) {
        result.line = std::move(match->line);
        result.offset = match->end;
        return ScanEnd::met;
      }
      if (chunk.data.empty()) {
        return ScanEnd::read_all;
      }
      if (Clock::now() >= slice_end) {
        return ScanEnd::more;
      }
    }
  }

  const WaitCondition& m_condition;
  UniqueFd m_fd;
  std::optional<LineMatcher> m_matcher;
  std::uint64_t m_offset = 0;
  bool m_unread = false; // the last scan stopped before the end of the output
  Milliseconds m_port_poll = k_port_poll_first;
};

// The most of a matching line a task.ready event carries.
constexpr std::size_t k_ready_line_bytes = 400;

// What a task.ready event says of a met condition: which one, and what
// matched (the line and an output cursor after it, or the port).
boost::json::object ready_data(const WaitCondition& condition, const ConditionResult& result)
{
  boost::json::object data;
  if (condition.until_port) {
    data["until"] = "port";
    data["port"] = *condition.until_port;
  } else {
    data["until"] = "output";
    data["line"] = to_valid_utf8(result.line.substr(0, k_ready_line_bytes));
    data["output_cursor"] = encode_output_cursor(result.record.id, result.offset);
  }
  return data;
}

// True once `fd` is readable (-1: never).
bool readable(int fd)
{
  pollfd p{fd, POLLIN, 0};
  return fd >= 0 && ::poll(&p, 1, 0) > 0;
}

} // namespace

ConditionResult wait_for_condition(const TaskDir& dir, const std::string& id,
                                   const WaitCondition& condition,
                                   std::optional<Milliseconds> limit, Interrupts interrupts,
                                   const WaitHooks* hooks)
{
  const auto deadline = limit ? std::optional(Clock::now() + *limit) : std::nullopt;
  ConditionResult result;
  result.record = load_current_record(dir, id);
  ConditionWaiter waiter(dir, id, condition);
  TaskWatcher watcher(dir, WatchOutput::yes);
  if (interrupts == Interrupts::end_wait) {
    watcher.watch_interrupts();
  }
  const int stop_fd = hooks != nullptr ? hooks->stop_fd : -1;
  if (stop_fd >= 0) {
    watcher.watch_fd(stop_fd, [] { return true; });
  }
  const bool reports = hooks != nullptr && hooks->report && hooks->report_every.count() > 0;
  auto next_report = Clock::now() + (reports ? hooks->report_every : Milliseconds{0});
  for (;;) {
    if (const auto end = waiter.check(result)) {
      result.end = *end;
      if (result.end == ConditionEnd::met) {
        log_events(dir, {ready_event(result.record, ready_data(condition, result))});
      }
      return result;
    }
    if ((interrupts == Interrupts::end_wait && interrupt_signal() != 0) || readable(stop_fd)) {
      result.end = ConditionEnd::interrupted;
      return result;
    }
    if (reports && Clock::now() >= next_report) {
      hooks->report(result);
      next_report = Clock::now() + hooks->report_every;
    }
    auto left = waiter.next_check(result);
    if (reports) {
      const auto until_report = std::chrono::ceil<Milliseconds>(next_report - Clock::now());
      left = std::min(left.value_or(until_report), until_report);
    }
    if (deadline) {
      const auto until_deadline = std::chrono::ceil<Milliseconds>(*deadline - Clock::now());
      if (until_deadline.count() <= 0) {
        result.end = ConditionEnd::gave_up;
        return result;
      }
      left = std::min(left.value_or(until_deadline), until_deadline);
    }
    watcher.wait_for_change({result.record}, left);
    result.record = load_current_record(dir, id);
  }
}

} // namespace bgtask
