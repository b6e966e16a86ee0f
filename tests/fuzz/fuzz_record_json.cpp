// The record parser on arbitrary bytes: it must accept or reject without
// crashing, give a reason for every rejection, and whatever it accepts must
// render (status, list, JSON) and survive an encode/decode round trip.
// Numbers may move by an ulp or so per trip: Boost.JSON 1.81 parses doubles
// fast, not correctly rounded (its serializer writes the shortest exact form).

#include <bgtask/cli/record_view.hpp>
#include <bgtask/core/record_json.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

namespace json = boost::json;

bool same_json(const json::value& a, const json::value& b)
{
  if (a.is_double() && b.is_double()) {
    const double x = a.get_double();
    const double y = b.get_double();
    return x == y || std::abs(x - y) <= 1e-12 * std::max(std::abs(x), std::abs(y));
  }
  if (a.kind() != b.kind()) {
    return false;
  }
  if (a.is_object()) {
    const auto& o = a.get_object();
    const auto& p = b.get_object();
    if (o.size() != p.size()) {
      return false;
    }
    for (const auto& [key, value] : o) {
      const auto* other = p.if_contains(key);
      if (other == nullptr || !same_json(value, *other)) {
        return false;
      }
    }
    return true;
  }
  if (a.is_array()) {
    const auto& x = a.get_array();
    const auto& y = b.get_array();
    if (x.size() != y.size()) {
      return false;
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!same_json(x[i], y[i])) {
        return false;
      }
    }
    return true;
  }
  return a == b;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto record = bgtask::decode_record(text);
  if (!record) {
    if (record.error().empty()) {
      std::abort();
    }
    return 0;
  }
  static_cast<void>(bgtask::status_text(*record));
  static_cast<void>(bgtask::list_row(*record));
  static_cast<void>(boost::json::serialize(bgtask::record_to_json(*record)));

  const std::string encoded = bgtask::encode_record(*record);
  const auto again = bgtask::decode_record(encoded);
  if (!again || !same_json(json::parse(bgtask::encode_record(*again)), json::parse(encoded))) {
    std::abort();
  }
  return 0;
}
