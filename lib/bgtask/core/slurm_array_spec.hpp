#pragma once

#include <bgtask/util/result.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace bgtask {

// `start --executor slurm --array SPEC`: the indices of one Slurm job
// array, a task per element (exec/slurm/slurm_array.hpp writes it for sbatch).
struct SlurmArraySpec
{
  std::vector<std::uint32_t> indices; // ascending, each once
  std::optional<std::uint32_t> limit; // `%N`: at most N elements run at once
};

// The most elements one --array may have (Slurm's own MaxArraySize, 1001 by
// default, is usually lower and is enforced by sbatch).
inline constexpr std::size_t k_max_array_elements = 10000;

// The largest index sbatch takes (its MAX_ARRAY_SIZE is 4000001).
inline constexpr std::uint32_t k_max_array_index = 4000000;

// Parses sbatch's array syntax: comma-separated items, each `N`, `N-M` or
// `N-M:STEP`, then optionally `%LIMIT` (`1-1000%50`, `0-15:4`, `1,3,7`).
// A failure names the option and what was expected.
Result<SlurmArraySpec> parse_slurm_array(std::string_view text);

} // namespace bgtask
