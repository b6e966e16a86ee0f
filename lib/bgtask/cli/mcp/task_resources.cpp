#include <bgtask/cli/mcp/json_rpc.hpp>
#include <bgtask/cli/mcp/task_resources.hpp>
#include <bgtask/cli/mcp/task_summary.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/json_text.hpp>

#include <boost/json/array.hpp>

#include <algorithm>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

constexpr std::size_t k_page_size = 50;
constexpr const char* k_mime_type = "application/json";

json::object resource_of(const TaskRecord& record)
{
  return {{"uri", task_uri(record.id)},
          {"name", record.id},
          {"title", task_line(record)},
          {"mimeType", k_mime_type}};
}

} // namespace

std::string task_uri(std::string_view id)
{
  return std::string(k_task_uri_prefix) + std::string(id);
}

std::string task_of_uri(const TaskDir& dir, const json::object& params)
{
  const json::value* uri = params.if_contains("uri");
  if (uri == nullptr || !uri->is_string()) {
    throw RpcFailure{RpcError::invalid_params, "uri must be a string"};
  }
  const std::string_view text = uri->get_string();
  if (!text.starts_with(k_task_uri_prefix)) {
    throw RpcFailure{RpcError::resource_not_found,
                     "resource not found: " + std::string(text.substr(0, 200)) +
                       " (bgtask's resources are " + std::string(k_task_uri_prefix) + "ID)"};
  }
  try {
    return resolve_task_id(dir, text.substr(k_task_uri_prefix.size()));
  } catch (const Error& e) {
    throw RpcFailure{RpcError::resource_not_found, std::string("resource not found: ") + e.what()};
  }
}

json::object list_resources(const TaskDir& dir, const json::object& params)
{
  std::string after;
  if (const json::value* cursor = params.if_contains("cursor"); cursor && !cursor->is_null()) {
    if (!cursor->is_string() || !is_task_id(cursor->get_string())) {
      throw RpcFailure{RpcError::invalid_params, "invalid cursor for resources/list"};
    }
    after = std::string(cursor->get_string());
  }
  auto records = load_records(dir, [&](const TaskRecord& r) { return r.id > after; });
  const bool more = records.size() > k_page_size;
  records.resize(std::min(records.size(), k_page_size));
  reconcile_records(dir, records);
  json::array resources;
  for (const auto& record : records) {
    resources.push_back(resource_of(record));
  }
  json::object answer{{"resources", std::move(resources)}};
  if (more) {
    answer["nextCursor"] = records.back().id;
  }
  return answer;
}

json::object list_resource_templates()
{
  const json::object task{
    {"uriTemplate", std::string(k_task_uri_prefix) + "{id}"},
    {"name", "task"},
    {"title", "A background task"},
    {"description", "The task's record, as `bgtask status --json` prints it; subscribe to be "
                    "told when it changes"},
    {"mimeType", k_mime_type}};
  return {{"resourceTemplates", json::array{task}}};
}

json::object read_resource(const TaskDir& dir, const json::object& params)
{
  const std::string id = task_of_uri(dir, params);
  TaskRecord record;
  try {
    record = load_current_record(dir, id);
  } catch (const Error& e) {
    throw RpcFailure{RpcError::resource_not_found, std::string("resource not found: ") + e.what()};
  }
  const json::object content{
    {"uri", task_uri(id)}, {"mimeType", k_mime_type}, {"text", json_text(record_to_json(record))}};
  return {{"contents", json::array{content}}};
}

} // namespace bgtask::mcp
