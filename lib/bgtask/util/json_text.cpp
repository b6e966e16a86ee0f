#include <bgtask/util/json_text.hpp>

#include <boost/json/serialize.hpp>

#include <charconv>
#include <cmath>

namespace bgtask {

namespace {

void append_number(std::string& out, double number)
{
  if (!std::isfinite(number)) {
    out += "null";
    return;
  }
  char buffer[64];
  auto written = std::to_chars(buffer, buffer + sizeof(buffer), number, std::chars_format::fixed);
  if (written.ec != std::errc() || written.ptr - buffer > 24) {
    // A huge or tiny magnitude keeps its exponent, which JSON allows too.
    written = std::to_chars(buffer, buffer + sizeof(buffer), number);
  }
  const std::string_view text(buffer, static_cast<std::size_t>(written.ptr - buffer));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) {
    out += ".0"; // still read back as a double, not an integer
  }
}

void append(std::string& out, const boost::json::value& value)
{
  switch (value.kind()) {
  case boost::json::kind::object: {
    out += '{';
    bool first = true;
    for (const auto& [key, member] : value.get_object()) {
      out += first ? "" : ",";
      first = false;
      out += boost::json::serialize(boost::json::string_view(key));
      out += ':';
      append(out, member);
    }
    out += '}';
    break;
  }
  case boost::json::kind::array: {
    out += '[';
    bool first = true;
    for (const auto& element : value.get_array()) {
      out += first ? "" : ",";
      first = false;
      append(out, element);
    }
    out += ']';
    break;
  }
  case boost::json::kind::double_:
    append_number(out, value.get_double());
    break;
  default:
    out += boost::json::serialize(value);
  }
}

} // namespace

std::string json_text(const boost::json::value& value)
{
  std::string out;
  append(out, value);
  return out;
}

} // namespace bgtask
