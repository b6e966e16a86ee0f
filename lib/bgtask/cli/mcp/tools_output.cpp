#include <bgtask/cli/condition_json.hpp>
#include <bgtask/cli/mcp/tool_args.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/cli/mcp/tools_impl.hpp>
#include <bgtask/cli/output_grep_json.hpp>
#include <bgtask/cli/output_slice_json.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/exec/condition_wait.hpp>
#include <bgtask/exec/output_grep.hpp>
#include <bgtask/exec/output_slice.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>

#include <algorithm>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

// The longest one `wait` call blocks, and its default.
constexpr double k_max_wait_s = 60;
constexpr double k_default_wait_s = 30;

// How often a long wait reports progress, when the client asked for it.
constexpr Milliseconds k_progress_every{2000};

// The bounds of a search's answer unless the arguments set them.
constexpr std::int64_t k_default_grep_matches = 20;
constexpr std::int64_t k_default_grep_bytes = 2048;
constexpr std::int64_t k_max_grep_context = 20;

// The last lines an ended task's `wait` result carries.
constexpr std::size_t k_wait_tail_lines = 10;
constexpr std::size_t k_wait_tail_bytes = 1024;

json::object grep(const TaskDir& dir, const std::string& id, const json::object& args)
{
  for (const char* other : {"cursor", "tail_lines", "from"}) {
    if (args.contains(other)) {
      throw ToolArgumentError{std::string("'grep' searches all the output: it goes without '") +
                              other + "'"};
    }
  }
  const LinePattern pattern = compile_output_pattern(required_string(args, "grep"), "grep");
  GrepRequest request;
  request.pattern = &pattern;
  const auto context = opt_integer(args, "context").value_or(0);
  if (context > k_max_grep_context) {
    throw ToolArgumentError{"argument 'context' must be at most " +
                            std::to_string(k_max_grep_context)};
  }
  request.context = static_cast<std::size_t>(context);
  request.max_matches =
    static_cast<std::size_t>(opt_integer(args, "max_matches").value_or(k_default_grep_matches));
  request.max_bytes =
    static_cast<std::size_t>(opt_integer(args, "max_bytes").value_or(k_default_grep_bytes));
  return grep_result_to_json(grep_output(dir, id, request));
}

// Where the arguments ask a slice to start: a cursor, the last lines, or the end.
std::uint64_t slice_start(const TaskDir& dir, const std::string& id, const json::object& args,
                          std::size_t max_bytes)
{
  const auto cursor = opt_string(args, "cursor");
  const auto tail = opt_integer(args, "tail_lines");
  const auto from = opt_string(args, "from");
  if ((cursor ? 1 : 0) + (tail ? 1 : 0) + (from ? 1 : 0) > 1) {
    throw ToolArgumentError{"give at most one of 'cursor', 'tail_lines' and 'from'"};
  }
  if (from && *from != "start" && *from != "end") {
    throw ToolArgumentError{"argument 'from' must be \"start\" or \"end\""};
  }
  if (cursor) {
    return parse_output_cursor(id, *cursor);
  }
  if (tail || from == "end") {
    return output_tail_offset(dir, id, static_cast<std::size_t>(tail.value_or(0)), max_bytes);
  }
  return 0;
}

} // namespace

json::value output_tail_text(const TaskDir& dir, const std::string& id, std::size_t lines,
                             std::size_t max_bytes)
{
  const std::uint64_t from = output_tail_offset(dir, id, lines, max_bytes);
  return json::value(
    to_agent_text(read_output_slice(dir, id, from, max_bytes).data, Controls::strip).text);
}

json::object tool_output(const TaskDir& dir, const json::object& args,
                         const ToolContext& /*context*/)
{
  const std::string id = resolve_task_id(dir, required_string(args, "id"));
  if (args.contains("grep")) {
    return grep(dir, id, args);
  }
  for (const char* grep_only : {"context", "max_matches"}) {
    if (args.contains(grep_only)) {
      throw ToolArgumentError{std::string("argument '") + grep_only + "' needs 'grep'"};
    }
  }
  const auto max_bytes = opt_integer(args, "max_bytes").value_or(k_default_slice_bytes);
  if (max_bytes < 1 || max_bytes > static_cast<std::int64_t>(k_max_slice_bytes)) {
    throw ToolArgumentError{"argument 'max_bytes' must be between 1 and " +
                            std::to_string(k_max_slice_bytes)};
  }
  const std::uint64_t from = slice_start(dir, id, args, static_cast<std::size_t>(max_bytes));
  const OutputSlice slice = read_output_slice(dir, id, from, static_cast<std::size_t>(max_bytes));
  return output_slice_to_json(slice, opt_bool(args, "raw").value_or(false) ? Controls::keep
                                                                           : Controls::strip);
}

json::object tool_wait(const TaskDir& dir, const json::object& args, const ToolContext& context)
{
  const std::string id = resolve_task_id(dir, required_string(args, "id"));
  WaitCondition condition;
  if (const auto pattern = opt_string(args, "until_output")) {
    condition.until_output = compile_output_pattern(*pattern, "until_output");
  }
  if (const auto port = opt_integer(args, "until_port")) {
    if (*port < 1 || *port > 65535) {
      throw ToolArgumentError{"argument 'until_port' must be a TCP port, 1 to 65535"};
    }
    condition.until_port = static_cast<std::uint16_t>(*port);
  }
  if (condition.until_output && condition.until_port) {
    throw ToolArgumentError{"'until_output' and 'until_port' exclude each other"};
  }
  if (const auto idle = opt_number(args, "idle_s")) {
    condition.idle = from_seconds(*idle);
  }
  const double asked = opt_number(args, "timeout_s").value_or(k_default_wait_s);
  const double seconds = std::min(asked, k_max_wait_s);
  WaitHooks hooks;
  hooks.stop_fd = context.cancel_fd;
  if (context.progress) {
    hooks.report_every = k_progress_every;
    hooks.report = [&](const ConditionResult& now) {
      context.progress("task " + id + " " + std::string(to_string(now.record.state)) + ", waiting");
    };
  }
  const ConditionResult result =
    wait_for_condition(dir, id, condition, from_seconds(seconds), Interrupts::ignore, &hooks);
  json::object answer = condition_result_to_json(result);
  if (seconds < asked) {
    answer["clamped"] = {{"timeout_s", static_cast<std::int64_t>(seconds)}}; // 60, not 6E1
  }
  if (is_final(result.record.state)) {
    answer["tail"] = output_tail_text(dir, id, k_wait_tail_lines, k_wait_tail_bytes);
  }
  return answer;
}

} // namespace bgtask::mcp
