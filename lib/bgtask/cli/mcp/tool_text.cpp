#include <bgtask/cli/mcp/tool_text.hpp>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

std::string text_of(const json::object& o, std::string_view key)
{
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::string number_of(const json::object& o, std::string_view key)
{
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_number() ? std::to_string(v->to_number<std::int64_t>()) : "0";
}

// "task ID STATE[: exit N]" of an object with id, state and exit_code.
std::string task_text(const json::object& o)
{
  std::string line = "task " + text_of(o, "id") + " " + text_of(o, "state");
  if (const json::value* code = o.if_contains("exit_code"); code && code->is_number()) {
    line += ": exit " + number_of(o, "exit_code");
  }
  return line;
}

std::string output_text(const json::object& data)
{
  const std::string id = text_of(data, "id");
  if (const json::value* matches = data.if_contains("matches")) {
    return number_of(data, "total_matches") + " matching lines in task " + id + "'s output (" +
           std::to_string(matches->as_array().size()) + " shown)";
  }
  const json::value* complete = data.if_contains("complete");
  return number_of(data, "bytes") + " bytes of task " + id + "'s output" +
         (complete && complete->is_bool() && complete->get_bool() ? " (complete)" : "");
}

} // namespace

std::string tool_text(std::string_view tool, const json::object& data)
{
  if (tool == "start") {
    const json::value* duplicate = data.if_contains("duplicate");
    return duplicate && duplicate->is_bool() && duplicate->get_bool()
             ? "task " + text_of(data, "id") + " was already " + text_of(data, "state")
             : "started task " + text_of(data, "id") + " (" + text_of(data, "state") + ")";
  }
  if (tool == "list") {
    return std::to_string(data.at("tasks").as_array().size()) + " tasks";
  }
  if (tool == "output") {
    return output_text(data);
  }
  if (tool == "events") {
    const json::value* more = data.if_contains("more");
    return std::to_string(data.at("events").as_array().size()) + " events (" +
           text_of(data, "end") +
           (more && more->is_bool() && more->get_bool() ? ", more to read)" : ")");
  }
  if (tool == "wait") {
    return task_text(data) + " (" + text_of(data, "end") + ")";
  }
  if (const json::value* task = data.if_contains("task"); task && task->is_object()) {
    return task_text(task->as_object());
  }
  return std::string(tool);
}

} // namespace bgtask::mcp
