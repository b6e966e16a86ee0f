#include <bgtask/cli/mcp/json_rpc.hpp>
#include <bgtask/cli/mcp/mcp_server.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/util/error.hpp>

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
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
  return {{"protocolVersion", version},
          {"capabilities", {{"tools", json::object{}}}},
          {"serverInfo", {{"name", "bgtask"}, {"version", BGTASK_VERSION}}},
          {"instructions", "Background tasks that outlive this server: start, then wait and "
                           "read output by cursor between turns; the task directory is the "
                           "only state."}};
}

json::value list_tools()
{
  json::array tools;
  for (const auto& tool : all_tools()) {
    tools.push_back(describe_tool(tool));
  }
  return {{"tools", std::move(tools)}};
}

json::value tool_result(const json::object& structured)
{
  return {{"content", {{{"type", "text"}, {"text", json::serialize(structured)}}}},
          {"structuredContent", structured},
          {"isError", false}};
}

json::value tool_error(const std::string& message)
{
  return {{"content", {{{"type", "text"}, {"text", message}}}}, {"isError", true}};
}

json::value call_tool(const TaskDir& dir, const json::object& params)
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
  static const json::object no_arguments;
  const auto* arguments = params.if_contains("arguments");
  if (arguments != nullptr && !arguments->is_object() && !arguments->is_null()) {
    throw RpcFailure{RpcError::invalid_params, "arguments must be an object"};
  }
  try {
    return tool_result(tool->handler(
      dir, arguments && arguments->is_object() ? arguments->as_object() : no_arguments));
  } catch (const ToolArgumentError& e) {
    throw RpcFailure{RpcError::invalid_params, e.message};
  } catch (const Error& e) {
    return tool_error(e.what());
  } catch (const std::exception& e) {
    return tool_error(std::string("bgtask: ") + e.what());
  }
}

json::value dispatch(const TaskDir& dir, const RpcMessage& message)
{
  if (message.method == "initialize") {
    return initialize(params_object(message));
  }
  if (message.method == "ping") {
    return json::object{};
  }
  if (message.method == "tools/list") {
    return list_tools();
  }
  if (message.method == "tools/call") {
    return call_tool(dir, params_object(message));
  }
  throw RpcFailure{RpcError::method_not_found, "method not found: " + message.method};
}

} // namespace

void serve(const TaskDir& dir, std::istream& in, std::ostream& out)
{
  RpcStream stream(in, out);
  while (auto message = stream.next()) {
    if (message->is_response || !message->id) {
      continue; // notifications (initialized, cancelled) and responses need no answer
    }
    try {
      stream.send_result(*message->id, dispatch(dir, *message));
    } catch (const RpcFailure& failure) {
      stream.send_error(*message->id, failure.code, failure.message);
    }
  }
}

} // namespace bgtask::mcp
