#pragma once

#include <bgtask/util/result.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// Typed reading of JSON that bgtask did not just build: the records, the
// queue settings, the MCP tools' arguments. Each reader takes a value and
// the key it was found under; a value of another type is a Failure whose
// reason names the key and what it must be ("slots: expected an integer").
Result<std::string> json_as_string(const boost::json::value& v, std::string_view key);
Result<std::int64_t> json_as_integer(const boost::json::value& v, std::string_view key);
Result<double> json_as_number(const boost::json::value& v, std::string_view key); // finite
Result<bool> json_as_bool(const boost::json::value& v, std::string_view key);
Result<std::vector<std::string>> json_as_strings(const boost::json::value& v, std::string_view key);

// The field `key` of `o`, or nullptr if it is absent or null.
const boost::json::value* json_field(const boost::json::object& o, std::string_view key);

// An optional field read with one of the readers above: nullopt if it is
// absent or null, else what `read` made of it.
template <typename T>
Result<std::optional<T>> json_optional(const boost::json::object& o, std::string_view key,
                                       Result<T> (*read)(const boost::json::value&,
                                                         std::string_view))
{
  const boost::json::value* v = json_field(o, key);
  if (v == nullptr) {
    return std::optional<T>();
  }
  auto value = read(*v, key);
  if (!value) {
    return Failure{value.error()};
  }
  return std::optional<T>(std::move(value).value());
}

} // namespace bgtask
