#include <bgtask/core/event_line.hpp>
#include <bgtask/util/json_fields.hpp>
#include <bgtask/util/json_text.hpp>

#include <boost/json.hpp>

#include <charconv>

namespace json = boost::json;

namespace bgtask {

namespace {

constexpr std::string_view k_cursor_prefix = "e1.";

json::value optional_text(const std::optional<std::string>& text)
{
  return text ? json::value(*text) : json::value(nullptr);
}

Result<std::optional<std::string>> optional_text_field(const json::object& o, std::string_view key)
{
  return json_optional<std::string>(o, key, json_as_string);
}

} // namespace

std::string encode_event_cursor(const EventCursor& cursor)
{
  return std::string(k_cursor_prefix) + cursor.log_id + "." + std::to_string(cursor.seq);
}

std::optional<EventCursor> decode_event_cursor(std::string_view text)
{
  if (!text.starts_with(k_cursor_prefix)) {
    return std::nullopt;
  }
  text.remove_prefix(k_cursor_prefix.size());
  const auto dot = text.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot > 64) {
    return std::nullopt;
  }
  EventCursor cursor;
  cursor.log_id = std::string(text.substr(0, dot));
  for (const char c : cursor.log_id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return std::nullopt;
    }
  }
  const std::string_view digits = text.substr(dot + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cursor.seq);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return std::nullopt;
  }
  return cursor;
}

json::object logged_event_to_json(const LoggedEvent& logged)
{
  const StreamEvent& event = logged.event;
  json::object o;
  o["seq"] = logged.seq;
  o["cursor"] = encode_event_cursor({logged.log_id, logged.seq});
  o["type"] = event.type;
  o["time"] = format_timestamp(event.time);
  o["task"] = event.task.empty() ? json::value(nullptr) : json::value(event.task);
  o["name"] = optional_text(event.name);
  o["queue"] = optional_text(event.queue);
  o["data"] = event.data;
  return o;
}

std::string encode_event_line(const LoggedEvent& logged)
{
  return json_text(logged_event_to_json(logged)) + "\n";
}

Result<LoggedEvent> decode_event_line(std::string_view line)
{
  boost::system::error_code ec;
  const json::value parsed = json::parse(line, ec);
  if (ec || !parsed.is_object()) {
    return Failure{"not a JSON object"};
  }
  const json::object& o = parsed.as_object();
  const json::value* seq = json_field(o, "seq");
  const json::value* cursor = json_field(o, "cursor");
  const json::value* type = json_field(o, "type");
  const json::value* time = json_field(o, "time");
  if (seq == nullptr || (!seq->is_uint64() && !seq->is_int64()) || cursor == nullptr ||
      !cursor->is_string() || type == nullptr || !type->is_string() || time == nullptr ||
      !time->is_string()) {
    return Failure{"missing seq, cursor, type or time"};
  }
  const auto decoded = decode_event_cursor(cursor->as_string());
  const auto at = parse_timestamp(time->as_string());
  if (!decoded || !at) {
    return Failure{"malformed cursor or time"};
  }
  LoggedEvent logged;
  logged.seq = decoded->seq;
  logged.log_id = decoded->log_id;
  logged.event.type = std::string(type->as_string());
  logged.event.time = *at;
  auto task = optional_text_field(o, "task");
  auto name = optional_text_field(o, "name");
  auto queue = optional_text_field(o, "queue");
  if (!task || !name || !queue) {
    return Failure{"task, name or queue is not a string"};
  }
  logged.event.task = task.value().value_or("");
  logged.event.name = name.value();
  logged.event.queue = queue.value();
  if (const json::value* data = json_field(o, "data"); data != nullptr && data->is_object()) {
    logged.event.data = data->as_object();
  }
  return logged;
}

} // namespace bgtask
