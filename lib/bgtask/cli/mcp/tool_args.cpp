#include <bgtask/cli/mcp/tool_args.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/util/duration.hpp>

#include <cmath>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

[[noreturn]] void wrong(const char* name, const char* expected)
{
  throw ToolArgumentError{std::string("argument '") + name + "' must be " + expected};
}

const json::value* find(const json::object& args, const char* name)
{
  const json::value* v = args.if_contains(name);
  return v == nullptr || v->is_null() ? nullptr : v;
}

} // namespace

std::optional<std::string> opt_string(const json::object& args, const char* name)
{
  const json::value* v = find(args, name);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_string()) {
    wrong(name, "a string");
  }
  return std::string(v->as_string());
}

std::string required_string(const json::object& args, const char* name)
{
  auto value = opt_string(args, name);
  if (!value) {
    throw ToolArgumentError{std::string("argument '") + name + "' is required"};
  }
  return *value;
}

std::optional<double> opt_number(const json::object& args, const char* name)
{
  const json::value* v = find(args, name);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_number()) {
    wrong(name, "a number");
  }
  const double d = v->to_number<double>();
  if (!std::isfinite(d) || d < 0) {
    wrong(name, "a number of 0 or more");
  }
  return d;
}

std::optional<std::int64_t> opt_integer(const json::object& args, const char* name)
{
  const auto d = opt_number(args, name);
  if (!d) {
    return std::nullopt;
  }
  if (*d != std::floor(*d) || *d > 9.0e15) {
    wrong(name, "a whole number");
  }
  return static_cast<std::int64_t>(*d);
}

std::optional<bool> opt_bool(const json::object& args, const char* name)
{
  const json::value* v = find(args, name);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_bool()) {
    wrong(name, "true or false");
  }
  return v->as_bool();
}

std::optional<std::vector<std::string>> opt_strings(const json::object& args, const char* name)
{
  const json::value* v = find(args, name);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_array()) {
    wrong(name, "an array of strings");
  }
  std::vector<std::string> out;
  for (const auto& item : v->as_array()) {
    if (!item.is_string()) {
      wrong(name, "an array of strings");
    }
    out.emplace_back(item.as_string());
  }
  return out;
}

std::string seconds_text(double seconds, const char* name)
{
  if (seconds > 86400.0 * 3650) {
    wrong(name, "at most ten years");
  }
  return std::to_string(from_seconds(seconds).count()) + "ms";
}

} // namespace bgtask::mcp
