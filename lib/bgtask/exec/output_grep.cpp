#include <bgtask/exec/output_grep.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <deque>

namespace bgtask {

namespace {

constexpr std::size_t k_read_bytes = 256 * 1024;

// The search over lines as they are completed: matches, context, bounds.
class LineSearch
{
public:
  LineSearch(const GrepRequest& request, GrepResult& result)
    : m_request(request),
      m_result(result)
  {
  }

  void add(GrepLine line, bool whole)
  {
    const bool matches = m_request.pattern->search(line.text, true, whole);
    if (line.text.size() > k_grep_line_bytes) {
      line.text.resize(k_grep_line_bytes);
    }
    feed_after(line);
    if (matches) {
      ++m_result.total_matches;
      deliver(line);
    }
    if (m_request.context > 0) {
      m_before.push_back(std::move(line));
      if (m_before.size() > m_request.context) {
        m_before.pop_front();
      }
    }
  }

private:
  void deliver(const GrepLine& line)
  {
    if (m_result.matches.size() >= m_request.max_matches) {
      m_result.truncated = true;
      return;
    }
    GrepMatch match{line, {m_before.begin(), m_before.end()}, {}};
    std::size_t bytes = line.text.size();
    for (const auto& l : match.before) {
      bytes += l.text.size();
    }
    if (m_bytes + bytes > m_request.max_bytes) {
      m_result.truncated = true;
      m_request_full = true;
      return;
    }
    m_bytes += bytes;
    m_result.matches.push_back(std::move(match));
  }

  // Appends `line` as context after the matches that still want some.
  void feed_after(const GrepLine& line)
  {
    for (auto i = m_first_open; i < m_result.matches.size(); ++i) {
      auto& after = m_result.matches[i].after;
      if (after.size() >= m_request.context) {
        m_first_open = i + 1;
        continue;
      }
      if (m_request_full || m_bytes + line.text.size() > m_request.max_bytes) {
        m_result.truncated = true;
        return;
      }
      m_bytes += line.text.size();
      after.push_back(line);
    }
  }

  const GrepRequest& m_request;
  GrepResult& m_result;
  std::deque<GrepLine> m_before;
  std::size_t m_first_open = 0; // matches before this one have all their context
  std::size_t m_bytes = 0;
  bool m_request_full = false;
};

// Splits the stream into lines, numbering them and keeping their first bytes.
class LineSplitter
{
public:
  LineSplitter(LineSearch& search, std::size_t window)
    : m_search(search),
      m_window(window)
  {
  }

  void gap()
  {
    end_line(); // a line cut by the gap ends there
    m_after_gap = true;
  }

  void feed(std::uint64_t offset, std::string_view data)
  {
    while (!data.empty()) {
      if (!m_open) {
        m_open = true;
        m_line = GrepLine{++m_number, m_after_gap, offset, {}};
        m_cut = false;
      }
      const auto newline = data.find('\n');
      const auto part = data.substr(0, newline);
      const std::size_t room = m_window - m_line.text.size();
      m_line.text.append(part.substr(0, std::min(room, part.size())));
      m_cut = m_cut || part.size() > room;
      if (newline == std::string_view::npos) {
        return;
      }
      end_line();
      offset += newline + 1;
      data.remove_prefix(newline + 1);
    }
  }

  void end_line()
  {
    if (m_open) {
      m_open = false;
      m_search.add(std::move(m_line), !m_cut); // `$` matches only a line's real end
    }
  }

private:
  LineSearch& m_search;
  std::size_t m_window; // the most of a line that is matched
  GrepLine m_line;
  std::uint64_t m_number = 0;
  bool m_open = false;
  bool m_cut = false; // the open line is longer than m_window
  bool m_after_gap = false;
};

} // namespace

GrepResult grep_output(const TaskDir& dir, const std::string& id, const GrepRequest& request)
{
  GrepResult result;
  result.record = load_current_record(dir, id); // first: a final record means all output is written
  const UniqueFd fd = open_output_file(dir, id);
  if (!fd) {
    throw Error(ExitCode::failure, "task " + id + " has no output file");
  }
  LineSearch search(request, result);
  LineSplitter lines(search, request.pattern->window_bytes());
  std::uint64_t offset = 0;
  for (;;) {
    const OutputChunk chunk = read_output_chunk(fd.get(), offset, k_read_bytes);
    if (chunk.skipped > 0) {
      result.dropped_bytes += chunk.skipped;
      lines.gap();
    }
    if (chunk.data.empty()) {
      offset = chunk.offset;
      break;
    }
    lines.feed(chunk.offset, chunk.data);
    result.scanned_bytes += chunk.data.size();
    offset = chunk.offset + chunk.data.size();
  }
  lines.end_line();
  result.end = offset;
  return result;
}

} // namespace bgtask
