#include <bgtask/cli/output_slice_json.hpp>
#include <bgtask/core/output_cursor.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

namespace bgtask {

boost::json::object output_slice_to_json(const OutputSlice& slice, Controls controls)
{
  const AgentText text = to_agent_text(slice.data, controls);
  boost::json::object o = task_outcome_to_json(slice.record);
  o["text"] = text.text;
  o["cursor"] = encode_output_cursor(slice.record.id, slice.next);
  o["offset"] = slice.offset;
  o["next_offset"] = slice.next;
  o["bytes"] = slice.data.size();
  o["dropped_bytes"] = slice.dropped;
  o["replaced_bytes"] = text.replaced;
  o["removed_bytes"] = text.removed;
  o["total_bytes"] = slice.total;
  o["complete"] = slice.complete;
  return o;
}

std::uint64_t parse_output_cursor(const std::string& id, const std::string& cursor)
{
  const auto offset = decode_output_cursor(id, cursor);
  if (!offset) {
    throw_usage("invalid cursor '" + escape_for_terminal(cursor, KeepNewlines::no) + "' for task " +
                id + ": use a cursor that `output --since` or `--json` printed");
  }
  return *offset;
}

} // namespace bgtask
