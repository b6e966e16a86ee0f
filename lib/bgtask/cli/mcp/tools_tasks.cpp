#include <bgtask/cli/mcp/launcher.hpp>
#include <bgtask/cli/mcp/task_summary.hpp>
#include <bgtask/cli/mcp/tool_args.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/cli/mcp/tools_impl.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/start_plan.hpp>
#include <bgtask/exec/task_cancel.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

// The most output `status` returns with `tail`.
constexpr std::size_t k_status_tail_bytes = 4096;

// The `start` options the arguments ask for.
StartOptions start_options_of(const json::object& args)
{
  StartOptions options;
  options.command = opt_strings(args, "argv").value_or(std::vector<std::string>{});
  options.shell = opt_string(args, "shell");
  options.name = opt_string(args, "name");
  options.cwd = opt_string(args, "cwd");
  if (const auto text = opt_string(args, "max_output")) {
    auto bound = parse_output_bound(*text);
    if (!bound) {
      throw ToolArgumentError{"argument 'max_output': " + bound.error()};
    }
    options.max_output = *bound;
  }
  options.queue = opt_string(args, "queue");
  if (const auto timeout = opt_number(args, "timeout_s")) {
    options.timeout = from_seconds(*timeout);
  }
  options.after = opt_strings(args, "after").value_or(std::vector<std::string>{});
  if (const auto* env = args.if_contains("env"); env && env->is_object()) {
    for (const auto& [name, value] : env->as_object()) {
      options.env.push_back(std::string(name) + "=" + std::string(value.as_string()));
    }
  }
  options.dedupe = opt_bool(args, "dedupe").value_or(false);
  return options;
}

// `message` of the start options with each option named as the argument
// that gave it ("--timeout must be..." -> "argument 'timeout_s' must be...").
std::string with_argument_names(std::string message)
{
  static const std::pair<std::string_view, std::string_view> k_names[] = {
    {"--max-output", "max_output"},
    {"--timeout", "timeout_s"},
    {"--after", "after"},
    {"--queue", "queue"},
    {"--name", "name"},
    {"--cwd", "cwd"},
    {"--env", "env"}};
  for (const auto& [option, argument] : k_names) {
    for (auto at = message.find(option); at != std::string::npos; at = message.find(option)) {
      auto end = at + option.size();
      const bool quoted =
        at > 0 && message[at - 1] == '\'' && end < message.size() && message[end] == '\'';
      if (quoted) {
        --at;
        ++end;
      }
      message.replace(at, end - at, "argument '" + std::string(argument) + "'");
    }
  }
  return message;
}

} // namespace

json::object tool_start(const TaskDir& dir, const json::object& args)
{
  const StartOptions options = start_options_of(args);
  if (options.command.empty() == !options.shell) {
    throw ToolArgumentError{"give exactly one of 'argv' (a non-empty array) and 'shell'"};
  }
  StartPlan plan;
  try {
    plan = plan_start(options);
  } catch (const Error& e) {
    if (e.code() != ExitCode::usage) {
      throw;
    }
    throw ToolArgumentError{with_argument_names(e.what())};
  }
  const StartResult result = start_task(dir, std::move(plan));
  require_durable_record(dir, result);
  require_launched(result);
  json::object answer{{"id", result.id},
                      {"state", to_string(load_current_record(dir, result.id).state)}};
  if (result.duplicate) {
    answer["duplicate"] = true; // dedupe: an identical task was running; nothing started
  }
  return answer;
}

json::object tool_start_launched(const TaskDir& /*dir*/, const json::object& args,
                                 const ToolContext& context)
{
  return context.launcher->start(args);
}

namespace {

// The record as a tool returns it: its summary, or with `verbose` all of it.
json::value task_json(const TaskRecord& record, const json::object& args)
{
  if (opt_bool(args, "verbose").value_or(false)) {
    return record_to_json(record);
  }
  return task_summary(record);
}

} // namespace

json::object tool_status(const TaskDir& dir, const json::object& args,
                         const ToolContext& /*context*/)
{
  const std::string id = resolve_task_id(dir, required_string(args, "id"));
  json::object answer{{"id", id}, {"task", task_json(load_current_record(dir, id), args)}};
  if (const auto tail = opt_integer(args, "tail")) {
    answer["tail"] =
      output_tail_text(dir, id, static_cast<std::size_t>(*tail), k_status_tail_bytes);
  }
  return answer;
}

json::object tool_list(const TaskDir& dir, const json::object& args, const ToolContext& /*context*/)
{
  std::vector<TaskState> states;
  for (const auto& name : opt_strings(args, "state").value_or(std::vector<std::string>{})) {
    const auto state = parse_task_state(name);
    if (!state) {
      throw ToolArgumentError{"argument 'state': unknown state '" + name + "'"};
    }
    states.push_back(*state);
  }
  const auto name = opt_string(args, "name");
  const auto queue = opt_string(args, "queue");
  const auto limit = opt_integer(args, "limit");
  // Corrupt records are left out: `bgtask status ID` explains them.
  auto records = load_records(dir, [&](const TaskRecord& r) {
    return (!name || r.name == name) && (!queue || r.queue == queue);
  });
  reconcile_records(dir, records);
  json::array tasks;
  for (const auto& record : records) {
    if (states.empty() || std::find(states.begin(), states.end(), record.state) != states.end()) {
      tasks.push_back(task_json(record, args));
    }
  }
  if (limit && tasks.size() > static_cast<std::size_t>(*limit)) {
    tasks.erase(tasks.begin(), tasks.end() - *limit);
  }
  return {{"tasks", std::move(tasks)}};
}

json::object tool_cancel(const TaskDir& dir, const json::object& args,
                         const ToolContext& /*context*/)
{
  const std::string id = resolve_task_id(dir, required_string(args, "id"));
  std::optional<Milliseconds> grace;
  if (const auto seconds = opt_number(args, "grace_s")) {
    grace = from_seconds(*seconds);
  }
  const CancelResult result = cancel_tasks(dir, {id}, grace);
  json::object answer{{"id", id},
                      {"was_final", result.was_final.front()},
                      {"task", task_json(result.records.front(), args)}};
  if (!result.unanswered.empty()) {
    answer["unanswered"] = result.unanswered.front(); // the record is not final yet
  }
  return answer;
}

} // namespace bgtask::mcp
