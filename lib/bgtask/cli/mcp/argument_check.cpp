#include <bgtask/cli/mcp/argument_check.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/util/spelling.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

[[noreturn]] void refuse(std::string_view name, const std::string& what)
{
  throw ToolArgumentError{"argument '" + std::string(name) + "' " + what};
}

// A number's text without an exponent where it is whole (60, not 6E1).
std::string number_text(const json::value& v)
{
  const double d = v.to_number<double>();
  return d == std::floor(d) && std::fabs(d) < 1e15 ? std::to_string(static_cast<long long>(d))
                                                   : json::serialize(v);
}

void check_range(std::string_view name, const json::value& value, const json::object& schema)
{
  const double d = value.to_number<double>();
  if (const auto* min = schema.if_contains("minimum"); min && d < min->to_number<double>()) {
    refuse(name, "must be at least " + number_text(*min));
  }
  if (const auto* min = schema.if_contains("exclusiveMinimum");
      min && d <= min->to_number<double>()) {
    refuse(name, "must be greater than " + number_text(*min));
  }
  if (const auto* max = schema.if_contains("maximum"); max && d > max->to_number<double>()) {
    refuse(name, "must be at most " + number_text(*max));
  }
}

bool all_strings(const json::value& value)
{
  if (value.is_array()) {
    const auto& a = value.get_array();
    return std::all_of(a.begin(), a.end(), [](const json::value& v) { return v.is_string(); });
  }
  const auto& o = value.get_object();
  return std::all_of(o.begin(), o.end(), [](const auto& kv) { return kv.value().is_string(); });
}

void check_type(std::string_view name, const json::value& value, const json::object& schema)
{
  const std::string_view type = schema.at("type").as_string();
  const bool whole = value.is_int64() || value.is_uint64() ||
                     (value.is_double() && value.get_double() == std::floor(value.get_double()) &&
                      std::fabs(value.get_double()) < 9e15);
  const bool ok =
    (type == "string" && value.is_string()) || (type == "integer" && whole) ||
    (type == "number" && value.is_number() && std::isfinite(value.to_number<double>())) ||
    (type == "boolean" && value.is_bool()) ||
    (type == "array" && value.is_array() && all_strings(value)) ||
    (type == "object" && value.is_object() && all_strings(value));
  if (!ok) {
    static const std::pair<std::string_view, const char*> k_names[] = {
      {"string", "a string"},           {"integer", "a whole number"},
      {"number", "a number"},           {"boolean", "true or false"},
      {"array", "an array of strings"}, {"object", "an object of strings"}};
    const auto* n = std::find_if(std::begin(k_names), std::end(k_names),
                                 [&](const auto& p) { return p.first == type; });
    refuse(name, std::string("must be ") + (n != std::end(k_names) ? n->second : "valid"));
  }
}

void check_value(std::string_view name, const json::value& value, const json::object& schema)
{
  check_type(name, value, schema);
  if (value.is_number()) {
    check_range(name, value, schema);
  }
  if (const auto* allowed = schema.if_contains("enum")) {
    const auto& list = allowed->as_array();
    if (std::find(list.begin(), list.end(), value) == list.end()) {
      refuse(name, "must be one of " + json::serialize(*allowed));
    }
  }
  if (const auto* min = schema.if_contains("minItems");
      min && value.is_array() && value.get_array().size() < min->to_number<std::size_t>()) {
    refuse(name, "must not be empty");
  }
}

// The name in `names` nearest to `name` (edit distance, at most a third of
// its length plus one), or empty if none is near.
std::string_view nearest_name(std::string_view name, const json::object& names)
{
  std::string_view best;
  std::size_t best_distance = name.size() / 3 + 2;
  for (const auto& kv : names) {
    const std::string_view known = kv.key();
    std::size_t d = edit_distance(name, known);
    if (known.starts_with(name) || name.starts_with(known)) {
      d = std::min<std::size_t>(d, 1); // 'timeout' for 'timeout_s'
    }
    if (d < best_distance) {
      best = known;
      best_distance = d;
    }
  }
  return best;
}

} // namespace

void check_arguments(const json::object& schema, const json::object& args)
{
  static const json::object no_properties;
  const auto* p = schema.if_contains("properties");
  const json::object& properties = p ? p->as_object() : no_properties;
  for (const auto& kv : args) {
    const auto* property = properties.if_contains(kv.key());
    if (property == nullptr) {
      std::string message = "unknown argument '" + std::string(kv.key()) + "'";
      if (const auto near = nearest_name(kv.key(), properties); !near.empty()) {
        message += "; did you mean '" + std::string(near) + "'?";
      } else {
        std::string known;
        for (const auto& k : properties) {
          known += (known.empty() ? "" : ", ") + std::string(k.key());
        }
        message += known.empty() ? "; this tool takes none" : "; known: " + known;
      }
      throw ToolArgumentError{message};
    }
    if (!kv.value().is_null()) {
      check_value(kv.key(), kv.value(), property->as_object());
    }
  }
  if (const auto* required = schema.if_contains("required")) {
    for (const auto& name : required->as_array()) {
      const auto* given = args.if_contains(name.as_string());
      if (given == nullptr || given->is_null()) {
        throw ToolArgumentError{"argument '" + std::string(name.as_string()) + "' is required"};
      }
    }
  }
}

} // namespace bgtask::mcp
