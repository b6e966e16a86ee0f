#include <bgtask/cli/output_slice_json.hpp>
#include <bgtask/core/output_cursor.hpp>
#include <bgtask/core/task_state.hpp>

namespace bgtask {

boost::json::object output_slice_to_json(const OutputSlice& slice, Controls controls)
{
  const AgentText text = to_agent_text(slice.data, controls);
  boost::json::object o;
  o["id"] = slice.record.id;
  o["state"] = to_string(slice.record.state);
  if (slice.record.exit_code) {
    o["exit_code"] = *slice.record.exit_code;
  } else {
    o["exit_code"] = nullptr;
  }
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

} // namespace bgtask
