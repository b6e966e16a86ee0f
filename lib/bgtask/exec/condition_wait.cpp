#include <bgtask/exec/condition_wait.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/proc/listening_sockets.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/proc/session_members.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/agent_text.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <chrono>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t k_max_line = 64 * 1024;
constexpr std::size_t k_read_chunk = 256 * 1024;
constexpr Milliseconds k_port_poll_first{100};
constexpr Milliseconds k_port_poll_max{1000};

struct Match
{
  std::string line;
  std::uint64_t end = 0; // the offset after the line's newline
};

// Splits output into lines as it comes and tests each against a pattern.
class LineMatcher
{
public:
  explicit LineMatcher(const std::regex& pattern)
    : m_pattern(pattern)
  {
  }

  // Feeds the bytes of `chunk`; the first line that matches, if any.
  std::optional<Match> feed(const OutputChunk& chunk)
  {
    if (chunk.skipped > 0) {
      m_line.clear(); // a line cut by the gap is not a line
    }
    std::size_t begin = 0;
    while (begin < chunk.data.size()) {
      const auto newline = chunk.data.find('\n', begin);
      const std::size_t end = newline == std::string::npos ? chunk.data.size() : newline;
      append(std::string_view(chunk.data).substr(begin, end - begin));
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

  // The final line, once no newline will come.
  std::optional<Match> finish(std::uint64_t end)
  {
    return m_line.empty() ? std::nullopt : finish_line(end);
  }

private:
  void append(std::string_view part)
  {
    const std::size_t room = k_max_line - std::min(k_max_line, m_line.size());
    m_line.append(part.substr(0, std::min(room, part.size())));
  }

  std::optional<Match> finish_line(std::uint64_t end)
  {
    std::string text = to_agent_text(m_line, Controls::strip).text;
    m_line.clear();
    if (std::regex_search(text, m_pattern)) {
      return Match{std::move(text), end};
    }
    return std::nullopt;
  }

  const std::regex& m_pattern;
  std::string m_line;
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

std::regex compile_output_pattern(const std::string& pattern, const std::string& option)
{
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw_usage(option + ": not a valid regular expression: " + e.what());
  }
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
    if (m_matcher && scan(final, result)) {
      return ConditionEnd::met;
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
  // Feeds the new output to the matcher; true (and the line in `result`) on a match.
  bool scan(bool final, ConditionResult& result)
  {
    for (;;) {
      const OutputChunk chunk = read_output_chunk(m_fd.get(), m_offset, k_read_chunk);
      m_offset = chunk.offset + chunk.data.size();
      auto match = m_matcher->feed(chunk);
      if (!match && chunk.data.empty() && final) {
        match = m_matcher->finish(m_offset);
      }
      if (match) {
        result.line = std::move(match->line);
        result.offset = match->end;
        return true;
      }
      if (chunk.data.empty()) {
        return false;
      }
    }
  }

  const WaitCondition& m_condition;
  UniqueFd m_fd;
  std::optional<LineMatcher> m_matcher;
  std::uint64_t m_offset = 0;
  Milliseconds m_port_poll = k_port_poll_first;
};

// True once `fd` is readable (-1: never).
bool readable(int fd)
{
  pollfd p{fd, POLLIN, 0};
  return fd >= 0 && ::poll(&p, 1, 0) > 0;
}

// The watcher of one wait: a server's (hooks) hands its watch to no holder process.
WatcherOptions watcher_options(const WaitHooks* hooks)
{
  WatcherOptions options;
  options.output = WatchOutput::yes;
  if (hooks != nullptr) {
    options.hold = HoldWatch::no;
  }
  return options;
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
  TaskWatcher watcher(dir, watcher_options(hooks));
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
