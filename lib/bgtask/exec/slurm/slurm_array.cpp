#include <bgtask/exec/slurm/slurm_array.hpp>

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

std::string slurm_array_argument(const SlurmArraySpec& spec)
{
  std::string text;
  const auto& indices = spec.indices;
  for (std::size_t i = 0; i < indices.size();) {
    std::size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) {
      ++j;
    }
    text += (text.empty() ? "" : ",") + std::to_string(indices[i]);
    if (j > i) {
      text += "-" + std::to_string(indices[j]);
    }
    i = j + 1;
  }
  if (spec.limit) {
    text += "%" + std::to_string(*spec.limit);
  }
  return text;
}

std::string_view slurm_array_job(std::string_view job_id)
{
  return job_id.substr(0, job_id.find('_'));
}

std::vector<std::string> expand_array_job_ids(std::string_view job_id)
{
  const auto open = job_id.find("_[");
  if (open == std::string_view::npos || open == 0 || !job_id.ends_with(']') ||
      !std::all_of(job_id.begin(), job_id.begin() + static_cast<std::ptrdiff_t>(open),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return {};
  }
  const auto spec = parse_slurm_array(job_id.substr(open + 2, job_id.size() - open - 3));
  std::vector<std::string> ids;
  if (spec) {
    const std::string array(job_id.substr(0, open));
    for (const auto index : spec->indices) {
      ids.push_back(array + "_" + std::to_string(index));
    }
  }
  return ids;
}

} // namespace bgtask
