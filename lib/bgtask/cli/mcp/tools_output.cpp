#include <bgtask/cli/condition_json.hpp>
#include <bgtask/cli/mcp/tool_args.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/cli/mcp/tools_impl.hpp>
#include <bgtask/cli/output_slice_json.hpp>
#include <bgtask/exec/condition_wait.hpp>
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

} // namespace

json::object tool_output(const TaskDir& dir, const json::object& args)
{
  const std::string id = resolve_task_id(dir, required_string(args, "id"));
  std::uint64_t from = 0;
  if (const auto cursor = opt_string(args, "cursor")) {
    from = parse_output_cursor(id, *cursor);
  }
  const auto max_bytes = opt_integer(args, "max_bytes").value_or(k_default_slice_bytes);
  if (max_bytes < 1 || max_bytes > static_cast<std::int64_t>(k_max_slice_bytes)) {
    throw ToolArgumentError{"argument 'max_bytes' must be between 1 and " +
                            std::to_string(k_max_slice_bytes)};
  }
  const OutputSlice slice = read_output_slice(dir, id, from, static_cast<std::size_t>(max_bytes));
  return output_slice_to_json(slice, opt_bool(args, "raw").value_or(false) ? Controls::keep
                                                                           : Controls::strip);
}

json::object tool_wait(const TaskDir& dir, const json::object& args)
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
  const double seconds =
    std::min(opt_number(args, "timeout_s").value_or(k_default_wait_s), k_max_wait_s);
  const ConditionResult result =
    wait_for_condition(dir, id, condition, from_seconds(seconds), Interrupts::ignore);
  return condition_result_to_json(result);
}

} // namespace bgtask::mcp
