#pragma once

#include <bgtask/core/launch_request.hpp>
#include <bgtask/util/result.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// `start --executor slurm --array SPEC`: one Slurm job array, one task per
// element.

// The most elements one --array may have (Slurm's own MaxArraySize, 1001 by
// default, is usually lower and is enforced by sbatch).
inline constexpr std::size_t k_max_array_elements = 10000;

// The largest index sbatch takes (its MAX_ARRAY_SIZE is 4000001).
inline constexpr std::uint32_t k_max_array_index = 4000000;

// Parses sbatch's array syntax: comma-separated items, each `N`, `N-M` or
// `N-M:STEP`, then optionally `%LIMIT` (`1-1000%50`, `0-15:4`, `1,3,7`).
// A failure names the option and what was expected.
Result<SlurmArraySpec> parse_slurm_array(std::string_view text);

// The spec as sbatch is given it: the indices as ranges of consecutive
// ones, then `%LIMIT` (`1-5,7,9-11%2`), so that exactly the recorded
// elements run.
std::string slurm_array_argument(const SlurmArraySpec& spec);

// The array job part of an element's job id (`41_3` -> `41`); `job_id`
// itself for a job that is no array element.
std::string_view slurm_array_job(std::string_view job_id);

// The element job ids a row for several pending elements names
// (`41_[3-5,7%2]` -> `41_3`, `41_4`, `41_5`, `41_7`: accounting writes one
// row for the elements cancelled before they ran); empty for any other id.
std::vector<std::string> expand_array_job_ids(std::string_view job_id);

} // namespace bgtask
