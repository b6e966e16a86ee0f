#include <bgtask/exec/slurm/slurm_array.hpp>

#include <algorithm>

namespace bgtask {

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
