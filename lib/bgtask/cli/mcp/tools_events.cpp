// The `events` tool: a page of the task directory's event stream after a
// cursor, with a bounded wait for the next events (exec/event_follow).
#include <bgtask/cli/event_reading.hpp>
#include <bgtask/cli/mcp/tool_args.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/cli/mcp/tools_impl.hpp>
#include <bgtask/exec/event_follow.hpp>
#include <bgtask/store/record_events.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <boost/json/array.hpp>

#include <algorithm>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

// The longest one call waits: under the 60 s after which clients give up
// on a call (the TypeScript SDK's default request timeout).
constexpr double k_max_events_wait_s = 50;
constexpr std::int64_t k_default_max_events = 100;

EventSelection selection_of(const TaskDir& dir, const json::object& args)
{
  EventSelection selection;
  const auto ids = opt_strings(args, "ids").value_or(std::vector<std::string>{});
  selection.ids = resolve_task_ids(dir, ids);
  selection.name = opt_string(args, "name");
  selection.queue = opt_string(args, "queue");
  for (auto& type : opt_strings(args, "types").value_or(std::vector<std::string>{})) {
    if (!is_stream_event_type(type)) {
      throw ToolArgumentError{"argument 'types': unknown event type '" + type.substr(0, 40) + "'"};
    }
    selection.types.push_back(std::move(type));
  }
  return selection;
}

} // namespace

json::object tool_events(const TaskDir& dir, const json::object& args, const ToolContext& context)
{
  const EventSelection selection = selection_of(dir, args);
  const auto max =
    static_cast<std::size_t>(opt_integer(args, "max").value_or(k_default_max_events));
  const double asked = opt_number(args, "wait_s").value_or(0);
  const double seconds = std::min(asked, k_max_events_wait_s);
  FollowOptions follow;
  follow.until_idle = opt_bool(args, "until_idle").value_or(false);
  follow.follow = seconds > 0 || follow.until_idle;
  follow.until_any = !follow.until_idle;
  follow.limit = from_seconds(seconds);
  follow.stop_fd = context.cancel_fd;
  EventLogReader reader = reader_since(dir, opt_string(args, "since"), "argument 'since'");
  append_missing_final_events(dir, load_records(dir));

  std::vector<LoggedEvent> read;
  std::optional<EventCursor> reached;
  const FollowSink sink{[&](const LoggedEvent& logged) { read.push_back(logged); },
                        [&](const EventCursor& cursor) { reached = cursor; }};
  EventGap gap;
  const FollowEnd end = follow_events(dir, reader, selection, follow, sink, gap);
  const bool more = read.size() > max;
  if (more) {
    read.resize(max);
    reached = EventCursor{read.back().log_id, read.back().seq};
  }
  std::string ended = read.empty() && seconds > 0 ? "gave_up" : "read";
  if (end == FollowEnd::gap) {
    read.push_back(gap_event(gap));
    reached = gap.resume;
    ended = "gap";
  } else if (end == FollowEnd::idle && !more) {
    if (selection.types.empty() || std::find(selection.types.begin(), selection.types.end(),
                                             "queue.drained") != selection.types.end()) {
      read.push_back(drained_event(reader.position(), selection));
    }
    ended = "idle";
  } else if (end == FollowEnd::gave_up && follow.until_idle) {
    ended = "gave_up";
  }
  json::array events;
  for (const LoggedEvent& logged : read) {
    events.push_back(logged_event_to_json(logged));
  }
  json::object answer{
    {"events", std::move(events)},
    {"cursor", reached ? json::value(encode_event_cursor(*reached)) : json::value(nullptr)},
    {"more", more},
    {"end", ended}};
  if (seconds < asked) {
    answer["clamped"] = {{"wait_s", static_cast<std::int64_t>(seconds)}};
  }
  return answer;
}

} // namespace bgtask::mcp
