#include <bgtask/cli/mcp/json_rpc.hpp>
#include <bgtask/cli/mcp/mcp_tasks.hpp>
#include <bgtask/cli/mcp/task_summary.hpp>
#include <bgtask/cli/mcp/tools_impl.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/exec/condition_wait.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_cancel.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/timestamp.hpp>
#include <bgtask/util/utf8.hpp>

#include <boost/json/array.hpp>

#include <algorithm>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

constexpr std::int64_t k_poll_interval_ms = 1000;
constexpr std::size_t k_page_size = 50;
constexpr std::size_t k_result_tail_lines = 20;
constexpr std::size_t k_result_tail_bytes = 2048;

std::string_view mcp_status(TaskState state)
{
  switch (state) {
  case TaskState::succeeded:
    return "completed";
  case TaskState::cancelled:
    return "cancelled";
  default:
    return is_final(state) ? "failed" : "working";
  }
}

std::string status_message(const TaskRecord& r)
{
  if (r.state == TaskState::queued && r.waiting_for) {
    return "queued: waiting for " +
           std::string(*r.waiting_for == WaitingFor::after ? "the tasks it runs after" : "a slot");
  }
  std::string message = task_line(r);
  if (!is_final(r.state) && r.progress && r.progress->message) {
    message += ": " + to_valid_utf8(*r.progress->message);
  }
  if (r.error) {
    message += ": " + to_valid_utf8(*r.error);
  }
  return message;
}

TimePoint last_updated(const TaskRecord& r)
{
  TimePoint last = r.created_at;
  for (const auto& t : {r.started_at, r.finished_at}) {
    if (t && *t > last) {
      last = *t;
    }
  }
  if (r.progress && r.progress->updated_at > last) {
    last = r.progress->updated_at;
  }
  return last;
}

// The ID params.taskId names; invalid params if it names no task.
std::string task_id_of(const TaskDir& dir, const json::object& params)
{
  const json::value* id = params.if_contains("taskId");
  if (id == nullptr || !id->is_string()) {
    throw RpcFailure{RpcError::invalid_params, "taskId must be a string"};
  }
  try {
    return resolve_task_id(dir, std::string(id->get_string()));
  } catch (const Error& e) {
    throw RpcFailure{RpcError::invalid_params, std::string("no such task: ") + e.what()};
  }
}

TaskRecord current_record(const TaskDir& dir, const std::string& id)
{
  try {
    return load_current_record(dir, id);
  } catch (const Error& e) {
    throw RpcFailure{RpcError::invalid_params, std::string("no such task: ") + e.what()};
  }
}

} // namespace

json::object mcp_task(const TaskRecord& r)
{
  return {{"taskId", r.id},
          {"status", mcp_status(r.state)},
          {"statusMessage", status_message(r)},
          {"createdAt", format_timestamp(r.created_at)},
          {"lastUpdatedAt", format_timestamp(last_updated(r))},
          {"ttl", nullptr},
          {"pollInterval", k_poll_interval_ms}};
}

json::object get_task(const TaskDir& dir, const json::object& params)
{
  return mcp_task(current_record(dir, task_id_of(dir, params)));
}

json::object list_tasks(const TaskDir& dir, const json::object& params)
{
  std::string after;
  if (const json::value* cursor = params.if_contains("cursor"); cursor && !cursor->is_null()) {
    if (!cursor->is_string() || !is_task_id(cursor->get_string())) {
      throw RpcFailure{RpcError::invalid_params, "invalid cursor for tasks/list"};
    }
    after = std::string(cursor->get_string());
  }
  auto records = load_records(dir, [&](const TaskRecord& r) { return r.id > after; });
  const bool more = records.size() > k_page_size;
  records.resize(std::min(records.size(), k_page_size));
  reconcile_records(dir, records);
  json::array tasks;
  for (const auto& record : records) {
    tasks.push_back(mcp_task(record));
  }
  json::object answer{{"tasks", std::move(tasks)}};
  if (more) {
    answer["nextCursor"] = records.back().id;
  }
  return answer;
}

json::object cancel_task(const TaskDir& dir, const json::object& params)
{
  const std::string id = task_id_of(dir, params);
  if (is_final(current_record(dir, id).state)) {
    throw RpcFailure{RpcError::invalid_params, "task " + id + " has already ended"};
  }
  return mcp_task(cancel_tasks(dir, {id}, std::nullopt).records.front());
}

std::optional<json::object> task_result(const TaskDir& dir, const json::object& params, int stop_fd)
{
  const std::string id = task_id_of(dir, params);
  WaitHooks hooks;
  hooks.stop_fd = stop_fd;
  const ConditionResult waited =
    wait_for_condition(dir, id, WaitCondition{}, std::nullopt, Interrupts::ignore, &hooks);
  if (waited.end == ConditionEnd::interrupted) {
    return std::nullopt;
  }
  const TaskRecord& record = waited.record;
  json::object data = task_summary(record);
  data["tail"] = output_tail_text(dir, id, k_result_tail_lines, k_result_tail_bytes);
  return json::object{{"content", {{{"type", "text"}, {"text", task_line(record)}}}},
                      {"structuredContent", std::move(data)},
                      {"isError", record.state != TaskState::succeeded},
                      {"_meta", {{"io.modelcontextprotocol/related-task", {{"taskId", id}}}}}};
}

} // namespace bgtask::mcp
