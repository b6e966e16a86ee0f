#include <bgtask/util/json_fields.hpp>

#include <cmath>
#include <cstdint>

namespace bgtask {

namespace json = boost::json;

namespace {

Failure expected(std::string_view key, std::string_view what)
{
  return Failure{std::string(key) + ": expected " + std::string(what)};
}

} // namespace

Result<std::string> json_as_string(const json::value& v, std::string_view key)
{
  if (!v.is_string()) {
    return expected(key, "a string");
  }
  return std::string(v.get_string());
}

Result<std::int64_t> json_as_integer(const json::value& v, std::string_view key)
{
  if (v.is_int64()) {
    return v.get_int64();
  }
  if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(v.get_uint64());
  }
  return expected(key, "an integer");
}

Result<double> json_as_number(const json::value& v, std::string_view key)
{
  if (!v.is_number()) {
    return expected(key, "a number");
  }
  const double d = v.to_number<double>();
  if (!std::isfinite(d)) {
    return expected(key, "a finite number");
  }
  return d;
}

Result<bool> json_as_bool(const json::value& v, std::string_view key)
{
  if (!v.is_bool()) {
    return expected(key, "true or false");
  }
  return v.get_bool();
}

Result<std::vector<std::string>> json_as_strings(const json::value& v, std::string_view key)
{
  if (!v.is_array()) {
    return expected(key, "an array of strings");
  }
  std::vector<std::string> out;
  out.reserve(v.get_array().size());
  for (const auto& item : v.get_array()) {
    if (!item.is_string()) {
      return expected(key, "an array of strings");
    }
    out.emplace_back(item.get_string());
  }
  return out;
}

const json::value* json_field(const json::object& o, std::string_view key)
{
  const json::value* v = o.if_contains(key);
  return v != nullptr && !v->is_null() ? v : nullptr;
}

} // namespace bgtask
