#include <bgtask/cli/event_format.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/json_text.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <boost/json.hpp>

#include <iomanip>
#include <sstream>

namespace json = boost::json;

namespace bgtask {

namespace {

std::string data_text(const json::object& data, std::string_view key)
{
  const auto it = data.find(key);
  if (it == data.end() || it->value().is_null()) {
    return {};
  }
  if (it->value().is_string()) {
    return std::string(it->value().as_string());
  }
  return json_text(it->value());
}

// What follows the task in a line of text: the outcome, progress or wait.
std::string text_details(const LoggedEvent& logged)
{
  const StreamEvent& event = logged.event;
  const json::object& data = event.data;
  std::ostringstream out;
  if (event.type == "task.exited") {
    out << ' ' << data_text(data, "state");
    if (const auto code = data_text(data, "exit_code"); !code.empty()) {
      out << " (exit " << code << ')';
    } else if (const auto signal = data_text(data, "signal"); !signal.empty()) {
      out << " (signal " << signal << ')';
    }
    if (const auto duration = data.find("duration_s");
        duration != data.end() && duration->value().is_number()) {
      out << " after " << std::fixed << std::setprecision(1)
          << duration->value().to_number<double>() << 's';
    }
  } else if (event.type == "task.progress") {
    if (const auto percent = data_text(data, "percent"); !percent.empty()) {
      out << ' ' << percent << '%';
    }
    if (const auto message = data_text(data, "message"); !message.empty()) {
      out << ' ' << message;
    }
  } else if (event.type == "task.ready") {
    if (const auto port = data_text(data, "port"); !port.empty()) {
      out << " port " << port;
    } else {
      out << ": " << data_text(data, "line");
    }
  } else if (event.type == "stream.gap" || event.type == "queue.drained") {
    out << ' ' << json_text(data);
  } else if (const auto error = data_text(data, "error"); !error.empty()) {
    out << ' ' << error;
  }
  return out.str();
}

std::string text_line(const LoggedEvent& logged)
{
  const StreamEvent& event = logged.event;
  std::string line = format_timestamp(event.time) + ' ' + event.type;
  if (!event.task.empty()) {
    line += ' ' + event.task;
  }
  if (event.name) {
    line += " [" + *event.name + ']';
  }
  if (event.queue && event.task.empty()) {
    line += " queue " + *event.queue;
  }
  line += text_details(logged);
  return escape_table_cell(line);
}

json::object cloud_event(const LoggedEvent& logged, std::string_view source)
{
  const StreamEvent& event = logged.event;
  json::object o;
  o["specversion"] = "1.0";
  o["id"] = logged.log_id + "." + std::to_string(logged.seq);
  o["source"] = "bgtask://" + std::string(source);
  o["type"] = "bgtask." + event.type;
  if (!event.task.empty()) {
    o["subject"] = event.task;
  }
  o["time"] = format_timestamp(event.time);
  o["datacontenttype"] = "application/json";
  json::object data = event.data;
  data["name"] = event.name ? json::value(*event.name) : json::value(nullptr);
  data["queue"] = event.queue ? json::value(*event.queue) : json::value(nullptr);
  data["seq"] = logged.seq;
  data["cursor"] = encode_event_cursor({logged.log_id, logged.seq});
  o["data"] = std::move(data);
  return o;
}

} // namespace

EventFormat parse_event_format(std::string_view name)
{
  if (name == "jsonl") {
    return EventFormat::jsonl;
  }
  if (name == "text") {
    return EventFormat::text;
  }
  if (name == "cloudevents") {
    return EventFormat::cloudevents;
  }
  throw_usage("--format: expected jsonl, text or cloudevents, not '" + std::string(name) + "'");
}

std::string format_event(const LoggedEvent& logged, EventFormat format, std::string_view source)
{
  switch (format) {
  case EventFormat::text:
    return text_line(logged);
  case EventFormat::cloudevents:
    return json_text(cloud_event(logged, source));
  case EventFormat::jsonl:
    break;
  }
  return json_text(logged_event_to_json(logged));
}

} // namespace bgtask
