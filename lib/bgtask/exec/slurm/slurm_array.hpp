#pragma once

#include <bgtask/core/slurm_array_spec.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

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
