#include <bgtask/cli/mcp/argument_check.hpp>
#include <bgtask/cli/mcp/json_rpc.hpp>
#include <bgtask/cli/mcp/launcher.hpp>
#include <bgtask/cli/mcp/mcp_server.hpp>
#include <bgtask/cli/mcp/mcp_tasks.hpp>
#include <bgtask/cli/mcp/request_set.hpp>
#include <bgtask/cli/mcp/resource_notifier.hpp>
#include <bgtask/cli/mcp/status_notifier.hpp>
#include <bgtask/cli/mcp/task_resources.hpp>
#include <bgtask/cli/mcp/tool_text.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/util/error.hpp>

#include <boost/json/array.hpp>

#include <algorithm>
#include <istream>
#include <string_view>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

const json::object& params_object(const RpcMessage& message)
{
  static const json::object empty;
  if (message.params.is_null()) {
    return empty;
  }
  if (!message.params.is_object()) {
    throw RpcFailure{RpcError::invalid_params, "params must be an object"};
  }
  return message.params.as_object();
}

json::value initialize(const json::object& params)
{
  std::string_view version = k_protocol_versions[0];
  if (const auto* asked = params.if_contains("protocolVersion"); asked && asked->is_string()) {
    const auto* known =
      std::find(std::begin(k_protocol_versions), std::end(k_protocol_versions), asked->as_string());
    if (known != std::end(k_protocol_versions)) {
      version = *known;
    }
  }
  const json::object tasks{{"list", json::object{}},
                           {"cancel", json::object{}},
                           {"requests", {{"tools", {{"call", json::object{}}}}}}};
  return {{"protocolVersion", version},
          {"capabilities",
           {{"tools", json::object{}}, {"resources", {{"subscribe", true}}}, {"tasks", tasks}}},
          {"serverInfo", {{"name", "bgtask"}, {"version", BGTASK_VERSION}}},
          {"instructions", "Background tasks that outlive this server: start, then wait and "
                           "read output by cursor between turns (tail_lines for the end, grep "
                           "to search); the task directory is the only state."}};
}

json::value list_tools()
{
  json::array tools;
  for (const auto& tool : all_tools()) {
    tools.push_back(describe_tool(tool));
  }
  return {{"tools", std::move(tools)}};
}

json::value tool_error(const std::string& message)
{
  return {{"content", {{{"type", "text"}, {"text", message}}}}, {"isError", true}};
}

const Tool& find_tool(const json::object& params)
{
  const auto* name = params.if_contains("name");
  if (name == nullptr || !name->is_string()) {
    throw RpcFailure{RpcError::invalid_params, "tools/call needs a tool name"};
  }
  const auto tools = all_tools();
  const auto tool = std::find_if(tools.begin(), tools.end(),
                                 [&](const Tool& t) { return t.name == name->as_string(); });
  if (tool == tools.end()) {
    throw RpcFailure{RpcError::invalid_params,
                     "unknown tool '" + std::string(name->as_string()) + "'"};
  }
  return *tool;
}

const json::object& tool_arguments(const json::object& params)
{
  static const json::object no_arguments;
  const auto* arguments = params.if_contains("arguments");
  if (arguments != nullptr && !arguments->is_object() && !arguments->is_null()) {
    throw RpcFailure{RpcError::invalid_params, "arguments must be an object"};
  }
  return arguments && arguments->is_object() ? arguments->as_object() : no_arguments;
}

// One connection: requests served on threads, one writer, tasks watched.
class Session
{
public:
  Session(const TaskDir& dir, RpcStream& stream, Launcher& launcher)
    : m_dir(dir),
      m_stream(stream),
      m_launcher(launcher),
      m_notifier(dir, stream),
      m_resources(dir, stream)
  {
  }

  void handle(RpcMessage message);

  // Ends the waits of the requests still served and waits for their answers.
  void finish() { m_requests.cancel_all_and_wait(); }

private:
  void serve(const RpcMessage& message, const RequestSet::Control& control);
  json::value call_tool(const json::object& params, const RequestSet::Control& control);
  json::value start_task_call(const Tool& tool, const json::object& args);
  std::function<void(const std::string&)> progress_of(const json::object& params);
  void unsubscribe(const json::object& params);

  const TaskDir& m_dir;
  RpcStream& m_stream;
  Launcher& m_launcher;
  StatusNotifier m_notifier;
  ResourceNotifier m_resources;
  RequestSet m_requests;
};

void Session::handle(RpcMessage message)
{
  if (message.is_response) {
    return;
  }
  if (!message.id) {
    if (message.method == "notifications/cancelled" && message.params.is_object()) {
      if (const auto* id = message.params.as_object().if_contains("requestId")) {
        m_requests.cancel(*id);
      }
    }
    return; // other notifications (initialized) need nothing
  }
  if (message.method == "initialize" || message.method == "ping" ||
      message.method == "tools/list") {
    serve(message, RequestSet::Control{}); // answered at once, on this thread
    return;
  }
  m_requests.start(
    *message.id, [this, message](const RequestSet::Control& control) { serve(message, control); });
}

// Answers one request, unless it was cancelled meanwhile (then nothing is sent).
void Session::serve(const RpcMessage& message, const RequestSet::Control& control)
{
  std::optional<json::value> result;
  try {
    const std::string& method = message.method;
    if (method == "initialize") {
      result = initialize(params_object(message));
    } else if (method == "ping") {
      result = json::object{};
    } else if (method == "tools/list") {
      result = list_tools();
    } else if (method == "tools/call") {
      result = call_tool(params_object(message), control);
    } else if (method == "resources/list") {
      result = list_resources(m_dir, params_object(message));
    } else if (method == "resources/templates/list") {
      result = list_resource_templates();
    } else if (method == "resources/read") {
      result = read_resource(m_dir, params_object(message));
    } else if (method == "resources/subscribe") {
      m_resources.subscribe(task_of_uri(m_dir, params_object(message)));
      result = json::object{};
    } else if (method == "resources/unsubscribe") {
      unsubscribe(params_object(message));
      result = json::object{};
    } else if (method == "tasks/get") {
      const json::object task = get_task(m_dir, params_object(message));
      result = task;
    } else if (method == "tasks/list") {
      result = list_tasks(m_dir, params_object(message));
    } else if (method == "tasks/cancel") {
      result = cancel_task(m_dir, params_object(message));
    } else if (method == "tasks/result") {
      if (auto answer = task_result(m_dir, params_object(message), control.cancel_fd)) {
        result = std::move(*answer);
      }
    } else {
      throw RpcFailure{RpcError::method_not_found, "method not found: " + method};
    }
    if (result && !control.cancelled()) {
      m_stream.send_result(*message.id, std::move(*result));
    }
  } catch (const RpcFailure& failure) {
    if (!control.cancelled()) {
      m_stream.send_error(*message.id, failure.code, failure.message);
    }
  }
}

// resources/unsubscribe: a URI of a task removed meanwhile is no error.
void Session::unsubscribe(const json::object& params)
{
  try {
    m_resources.unsubscribe(task_of_uri(m_dir, params));
  } catch (const RpcFailure& failure) {
    if (failure.code != RpcError::resource_not_found) {
      throw;
    }
  }
}

std::function<void(const std::string&)> Session::progress_of(const json::object& params)
{
  const auto* meta = params.if_contains("_meta");
  const auto* token =
    meta && meta->is_object() ? meta->as_object().if_contains("progressToken") : nullptr;
  if (token == nullptr || !(token->is_string() || token->is_number())) {
    return {};
  }
  auto count = std::make_shared<std::int64_t>(0);
  return [this, token = *token, count](const std::string& message) {
    m_stream.send_notification(
      "notifications/progress",
      {{"progressToken", token}, {"progress", ++*count}, {"message", message}});
  };
}

// A task-augmented `start`: the task is started and its MCP task returned.
json::value Session::start_task_call(const Tool& tool, const json::object& args)
{
  if (!tool.task_support) {
    throw RpcFailure{RpcError::method_not_found,
                     "tool '" + std::string(tool.name) + "' does not run as a task"};
  }
  const json::object started = m_launcher.start(args);
  const TaskRecord record = load_current_record(m_dir, std::string(started.at("id").as_string()));
  m_notifier.track(record);
  const std::string line = tool_text(tool.name, started);
  return {{"task", mcp_task(record)},
          {"_meta", {{"io.modelcontextprotocol/model-immediate-response", line}}}};
}

json::value Session::call_tool(const json::object& params, const RequestSet::Control& control)
{
  const Tool& tool = find_tool(params);
  const json::object& args = tool_arguments(params);
  try {
    check_arguments(input_schema(tool), args);
    if (const auto* task = params.if_contains("task"); task && task->is_object()) {
      return start_task_call(tool, args);
    }
    const ToolContext context{&m_launcher, control.cancel_fd, progress_of(params)};
    json::object data = tool.handler(m_dir, args, context);
    std::string text = tool_text(tool.name, data);
    return {{"content", {{{"type", "text"}, {"text", text}}}},
            {"structuredContent", std::move(data)},
            {"isError", false}};
  } catch (const ToolArgumentError& e) {
    throw RpcFailure{RpcError::invalid_params, e.message};
  } catch (const Error& e) {
    return tool_error(e.what());
  } catch (const std::exception& e) {
    return tool_error(std::string("bgtask: ") + e.what());
  }
}

} // namespace

void serve(const TaskDir& dir, std::istream& in, std::ostream& out)
{
  Launcher launcher(dir); // first: it is forked before any thread exists
  in.tie(nullptr);        // reading must not flush `out` outside the writer's lock
  RpcStream stream(in, out);
  Session session(dir, stream, launcher);
  while (auto message = stream.next()) {
    session.handle(std::move(*message));
  }
  session.finish();
}

} // namespace bgtask::mcp
