#include <bgtask/core/slurm_array_spec.hpp>

#include <algorithm>
#include <charconv>

namespace bgtask {

namespace {

Failure bad_spec(std::string_view why)
{
  return Failure{"--array: " + std::string(why) +
                 " (expected indices like 1-1000%50, 0-15:4 or 1,3,7)"};
}

// A decimal number of at most 7 digits; nullopt otherwise.
std::optional<std::uint32_t> parse_index(std::string_view text)
{
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text.size() > 7 || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// Adds the indices of one item (`N`, `N-M`, `N-M:STEP`) to `out`.
std::optional<Failure> add_item(std::string_view item, std::vector<std::uint32_t>& out)
{
  const auto colon = item.find(':');
  const auto range = item.substr(0, colon);
  const auto dash = range.find('-');
  const auto first = parse_index(range.substr(0, dash));
  const auto last = dash == std::string_view::npos ? first : parse_index(range.substr(dash + 1));
  const auto step = colon == std::string_view::npos ? std::optional<std::uint32_t>(1)
                                                    : parse_index(item.substr(colon + 1));
  if (!first || !last || !step ||
      (colon != std::string_view::npos && dash == std::string_view::npos)) {
    return bad_spec("'" + std::string(item) + "' is not N, N-M or N-M:STEP");
  }
  if (*last < *first || *step == 0) {
    return bad_spec("'" + std::string(item) + "' is an empty range");
  }
  if (*last > k_max_array_index) {
    return bad_spec("indices go up to " + std::to_string(k_max_array_index));
  }
  for (std::uint64_t i = *first; i <= *last; i += *step) {
    out.push_back(static_cast<std::uint32_t>(i));
    if (out.size() > k_max_array_elements) {
      return bad_spec("more than " + std::to_string(k_max_array_elements) + " elements");
    }
  }
  return std::nullopt;
}

} // namespace

Result<SlurmArraySpec> parse_slurm_array(std::string_view text)
{
  SlurmArraySpec spec;
  const auto percent = text.find('%');
  if (percent != std::string_view::npos) {
    spec.limit = parse_index(text.substr(percent + 1));
    if (!spec.limit || *spec.limit == 0) {
      return bad_spec("the limit after % must be a number of at least 1");
    }
    text = text.substr(0, percent);
  }
  if (text.empty()) {
    return bad_spec("no indices");
  }
  std::size_t at = 0;
  for (;;) {
    const auto comma = text.find(',', at);
    const auto item = text.substr(at, comma == std::string_view::npos ? text.npos : comma - at);
    if (auto failure = add_item(item, spec.indices)) {
      return std::move(*failure);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    at = comma + 1;
  }
  std::sort(spec.indices.begin(), spec.indices.end());
  spec.indices.erase(std::unique(spec.indices.begin(), spec.indices.end()), spec.indices.end());
  return spec;
}

} // namespace bgtask
