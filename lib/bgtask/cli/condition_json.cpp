#include <bgtask/cli/condition_json.hpp>
#include <bgtask/core/output_cursor.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/core/task_state.hpp>

namespace bgtask {

std::string_view condition_end_name(ConditionEnd end)
{
  switch (end) {
  case ConditionEnd::met:
    return "met";
  case ConditionEnd::idle:
    return "idle";
  case ConditionEnd::task_ended:
    return "task_ended";
  case ConditionEnd::gave_up:
    return "gave_up";
  case ConditionEnd::interrupted:
    return "interrupted";
  }
  return "gave_up";
}

boost::json::object condition_result_to_json(const ConditionResult& result)
{
  boost::json::object o = task_outcome_to_json(result.record);
  o["end"] = condition_end_name(result.end);
  if (result.end == ConditionEnd::met && !result.line.empty()) {
    o["line"] = result.line;
  } else {
    o["line"] = nullptr;
  }
  o["cursor"] = encode_output_cursor(result.record.id, result.offset);
  o["quiet_s"] = static_cast<double>(result.quiet_for.count()) / 1000.0;
  return o;
}

} // namespace bgtask
