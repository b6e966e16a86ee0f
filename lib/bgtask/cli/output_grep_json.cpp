#include <bgtask/cli/output_grep_json.hpp>
#include <bgtask/core/output_cursor.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/util/agent_text.hpp>

#include <boost/json/array.hpp>

namespace bgtask {

namespace json = boost::json;

namespace {

json::array line_texts(const std::vector<GrepLine>& lines)
{
  json::array texts;
  for (const auto& line : lines) {
    texts.emplace_back(to_agent_text(line.text, Controls::strip).text);
  }
  return texts;
}

json::object match_to_json(const std::string& id, const GrepMatch& match)
{
  json::object o{{"line", match.line.number},
                 {"cursor", encode_output_cursor(id, match.line.offset)},
                 {"text", to_agent_text(match.line.text, Controls::strip).text}};
  if (match.line.after_gap) {
    o["after_gap"] = true;
  }
  if (!match.before.empty()) {
    o["before"] = line_texts(match.before);
  }
  if (!match.after.empty()) {
    o["after"] = line_texts(match.after);
  }
  return o;
}

} // namespace

json::object grep_result_to_json(const GrepResult& result)
{
  json::object o = task_outcome_to_json(result.record);
  json::array matches;
  for (const auto& match : result.matches) {
    matches.push_back(match_to_json(result.record.id, match));
  }
  o["matches"] = std::move(matches);
  o["total_matches"] = result.total_matches;
  o["truncated"] = result.truncated;
  o["scanned_bytes"] = result.scanned_bytes;
  o["dropped_bytes"] = result.dropped_bytes;
  o["cursor"] = encode_output_cursor(result.record.id, result.end);
  return o;
}

} // namespace bgtask
