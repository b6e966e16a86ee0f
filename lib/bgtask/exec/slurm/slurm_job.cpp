#include <bgtask/exec/slurm/slurm_array.hpp>
#include <bgtask/exec/slurm/slurm_job.hpp>
#include <bgtask/util/decimal_count.hpp>
#include <bgtask/util/split.hpp>

#include <algorithm>
#include <cctype>

namespace bgtask {

namespace {

std::string_view trim(std::string_view text)
{
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  return text;
}

// Length of the key if `word` starts with `Key=` (letters, digits and `_:/`
// after a leading letter: `JobId=`, `AllocNode:Sid=`, `CPUs/Task=`), else 0.
std::size_t key_length(std::string_view word)
{
  if (word.empty() || std::isalpha(static_cast<unsigned char>(word.front())) == 0) {
    return 0;
  }
  for (std::size_t i = 1; i < word.size(); ++i) {
    const char c = word[i];
    if (c == '=') {
      return i;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != ':' && c != '/') {
      return 0;
    }
  }
  return 0;
}

std::string first_word(std::string_view text)
{
  text = trim(text);
  return std::string(text.substr(0, text.find(' ')));
}

const std::string* lookup(const std::vector<std::pair<std::string, std::string>>& pairs,
                          std::string_view key)
{
  const auto it =
    std::find_if(pairs.begin(), pairs.end(), [&](const auto& pair) { return pair.first == key; });
  return it != pairs.end() ? &it->second : nullptr;
}

std::string value_of(const std::vector<std::pair<std::string, std::string>>& pairs,
                     std::string_view key)
{
  const auto* value = lookup(pairs, key);
  return value != nullptr ? *value : std::string();
}

bool is_job_id(std::string_view text)
{
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '+';
  });
}

} // namespace

std::vector<std::pair<std::string, std::string>> split_key_values(std::string_view line)
{
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string* current = nullptr;
  std::vector<bool> keep; // false for a repeated key, whose value is dropped
  for (const auto word : split(trim(line), ' ', EmptyParts::keep)) {
    const auto length = key_length(word);
    if (length > 0) {
      const std::string key(word.substr(0, length));
      const bool repeated = lookup(pairs, key) != nullptr;
      pairs.emplace_back(key, std::string(word.substr(length + 1)));
      keep.push_back(!repeated);
      current = &pairs.back().second;
    } else if (current != nullptr) {
      *current += ' ';
      *current += word;
    }
  }
  std::vector<std::pair<std::string, std::string>> kept;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (keep[i]) {
      kept.push_back(std::move(pairs[i]));
    }
  }
  return kept;
}

std::vector<SlurmJobInfo> parse_squeue_jobs(std::string_view text)
{
  std::vector<SlurmJobInfo> jobs;
  for (auto line : split(text, '\n', EmptyParts::keep)) {
    if (line.ends_with('|')) {
      line.remove_suffix(1);
    }
    const auto fields = split(line, '|', EmptyParts::keep);
    if (fields.size() < 10 || !is_job_id(trim(fields[0]))) {
      continue;
    }
    SlurmJobInfo job;
    job.job_id = std::string(trim(fields[0]));
    job.state = first_word(fields[1]);
    job.reason = std::string(trim(fields[2]));
    const auto status = parse_decimal<unsigned>(trim(fields[3]));
    if (status) {
      const unsigned signal = *status & 0x7fU;
      job.exit_code =
        std::to_string(signal != 0 ? 0U : (*status >> 8) & 0xffU) + ":" + std::to_string(signal);
    }
    job.start_time = std::string(trim(fields[4]));
    job.end_time = std::string(trim(fields[5]));
    job.node_list = std::string(trim(fields[6]));
    job.time_limit = std::string(trim(fields[7]));
    job.submit_time = std::string(trim(fields[8]));
    const auto name_at = static_cast<std::size_t>(fields[9].data() - line.data());
    job.name = std::string(line.substr(name_at));
    if (!job.state.empty()) {
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

std::vector<SlurmJobInfo> parse_sacct_jobs(std::string_view text)
{
  std::vector<SlurmJobInfo> jobs;
  for (const auto line : split(text, '\n', EmptyParts::keep)) {
    const auto fields = split(line, '|', EmptyParts::keep);
    const auto elements =
      fields.size() < 10 ? std::vector<std::string>{} : expand_array_job_ids(trim(fields[0]));
    if (fields.size() < 10 || (!is_job_id(trim(fields[0])) && elements.empty())) {
      continue;
    }
    SlurmJobInfo job;
    job.job_id = std::string(trim(fields[0]));
    job.state = first_word(fields[1]);
    job.exit_code = std::string(trim(fields[2]));
    job.start_time = std::string(trim(fields[3]));
    job.end_time = std::string(trim(fields[4]));
    job.node_list = std::string(trim(fields[5]));
    job.submit_time = std::string(trim(fields[6]));
    job.reason = std::string(trim(fields[7]));
    job.time_limit = std::string(trim(fields[8]));
    const auto name_at = static_cast<std::size_t>(fields[9].data() - line.data());
    job.name = std::string(line.substr(name_at));
    if (job.state.empty()) {
      continue;
    }
    if (elements.empty()) {
      jobs.push_back(std::move(job));
      continue;
    }
    job.from_range = true;
    for (const auto& element : elements) {
      job.job_id = element;
      jobs.push_back(job);
    }
  }
  return jobs;
}

std::optional<SlurmJobInfo> parse_jobcomp_line(std::string_view line)
{
  if (!trim(line).starts_with("JobId=")) {
    return std::nullopt;
  }
  const auto pairs = split_key_values(line);
  SlurmJobInfo job;
  job.job_id = value_of(pairs, "JobId");
  job.name = value_of(pairs, "Name");
  job.state = first_word(value_of(pairs, "JobState"));
  job.exit_code = value_of(pairs, "ExitCode");
  job.start_time = value_of(pairs, "StartTime");
  job.end_time = value_of(pairs, "EndTime");
  job.node_list = value_of(pairs, "NodeList");
  job.time_limit = value_of(pairs, "TimeLimit");
  job.submit_time = value_of(pairs, "SubmitTime");
  // An array element: `ARRAYJOB_INDEX`, as the other sources name it (an
  // ArrayTaskId of 4294967294 means none).
  const auto array_job = value_of(pairs, "ArrayJobId");
  const auto array_task = value_of(pairs, "ArrayTaskId");
  if (!array_job.empty() && parse_decimal<unsigned>(array_job) &&
      parse_decimal<unsigned>(array_task) && array_task != "4294967294") {
    job.job_id = array_job + "_" + array_task;
  }
  if (!is_job_id(job.job_id) || job.state.empty()) {
    return std::nullopt;
  }
  return job;
}

std::vector<std::pair<std::string, std::string>> parse_slurm_config(std::string_view text)
{
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto line : split(text, '\n', EmptyParts::keep)) {
    const auto equals = line.find(" = ");
    if (equals == std::string_view::npos) {
      continue;
    }
    const auto key = trim(line.substr(0, equals));
    if (key.empty() || key.find(' ') != std::string_view::npos) {
      continue;
    }
    pairs.emplace_back(std::string(key), std::string(trim(line.substr(equals + 3))));
  }
  return pairs;
}

} // namespace bgtask
