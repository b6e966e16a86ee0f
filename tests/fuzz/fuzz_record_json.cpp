// The record parser on arbitrary bytes: it must accept or reject without
// crashing, give a reason for every rejection, and whatever it accepts must
// render (status, list, JSON) and survive an encode/decode round trip.

#include <bgtask/record_json.hpp>
#include <bgtask/record_view.hpp>

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto record = bgtask::decode_record(text, error);
  if (!record) {
    if (error.empty()) {
      std::abort();
    }
    return 0;
  }
  static_cast<void>(bgtask::status_text(*record));
  static_cast<void>(bgtask::list_row(*record));
  static_cast<void>(boost::json::serialize(bgtask::record_to_json(*record)));

  const std::string encoded = bgtask::encode_record(*record);
  std::string again_error;
  const auto again = bgtask::decode_record(encoded, again_error);
  if (!again || bgtask::encode_record(*again) != encoded) {
    std::abort();
  }
  return 0;
}
