#include <bgtask/exec/slurm/slurm_array.hpp>
#include <bgtask/exec/slurm/slurm_client.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>

namespace bgtask {

namespace {

constexpr Milliseconds k_default_timeout{10000};
constexpr Milliseconds k_default_lost_grace{120000};

// A duration from the environment variable `name`, else `fallback`.
Milliseconds duration_from_env(const char* name, Milliseconds fallback)
{
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') {
    return fallback;
  }
  const auto duration = parse_duration(text);
  if (!duration) {
    throw_usage(std::string(name) + ": " + duration.error());
  }
  return *duration;
}

bool mentions(const ClientResult& result, std::string_view text)
{
  return result.err.find(text) != std::string::npos || result.out.find(text) != std::string::npos;
}

std::string join(const std::vector<std::string>& parts, char separator)
{
  std::string text;
  for (const auto& part : parts) {
    if (!text.empty()) {
      text += separator;
    }
    text += part;
  }
  return text;
}

// The ids to name in a query for `job_ids`: an array element by its array
// job (one id for any number of elements), each once.
std::string query_ids(const std::vector<std::string>& job_ids)
{
  std::vector<std::string> ids;
  for (const auto& job_id : job_ids) {
    std::string id(slurm_array_job(job_id));
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      ids.push_back(std::move(id));
    }
  }
  return join(ids, ',');
}

std::string slurm_local_time(TimePoint time)
{
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  ::localtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &tm);
  return buffer;
}

ClientResult run_slurm(std::vector<std::string> argv)
{
  ClientCall call;
  call.argv = std::move(argv);
  call.timeout = slurm_client_timeout();
  return run_client(call);
}

// Keeps the jobs of `wanted`, the last line of each job id and name (a
// requeued job has several; after a controller lost its state, one id can
// name several jobs), an element's own line before one for a range of
// elements.
std::vector<SlurmJobInfo> keep_wanted(std::vector<SlurmJobInfo> jobs,
                                      const std::set<std::string>& wanted)
{
  std::map<std::pair<std::string, std::string>, SlurmJobInfo> last;
  for (auto& job : jobs) {
    if (wanted.count(job.job_id) != 0) {
      auto key = std::pair(job.job_id, job.name);
      const auto seen = last.find(key);
      if (seen == last.end() || !job.from_range || seen->second.from_range) {
        last.insert_or_assign(std::move(key), std::move(job));
      }
    }
  }
  std::vector<SlurmJobInfo> kept;
  kept.reserve(last.size());
  for (auto& [id, job] : last) {
    kept.push_back(std::move(job));
  }
  return kept;
}

// Reads the jobcomp/filetxt log itself; a failure if it cannot be read.
Result<std::vector<SlurmJobInfo>> read_jobcomp_log(const std::string& path,
                                                   const std::set<std::string>& wanted)
{
  std::ifstream in(path);
  if (!in) {
    return Failure{"cannot read " + path + ": " + std::strerror(errno)};
  }
  std::set<std::string> arrays; // the array jobs of wanted elements
  for (const auto& id : wanted) {
    if (id.find('_') != std::string::npos) {
      arrays.emplace(slurm_array_job(id));
    }
  }
  std::vector<SlurmJobInfo> jobs;
  std::string line;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    const auto array_at = line.find(" ArrayJobId=");
    const auto array_job =
      array_at == std::string::npos
        ? std::string()
        : line.substr(array_at + 12, line.find(' ', array_at + 1) - array_at - 12);
    if (!line.starts_with("JobId=") || space == std::string::npos ||
        (wanted.count(line.substr(6, space - 6)) == 0 && arrays.count(array_job) == 0)) {
      continue;
    }
    if (auto job = parse_jobcomp_line(line)) {
      jobs.push_back(std::move(*job));
    }
  }
  if (in.bad()) {
    return Failure{"cannot read " + path};
  }
  return keep_wanted(std::move(jobs), wanted);
}

} // namespace

Milliseconds slurm_client_timeout()
{
  const auto timeout = duration_from_env("BGTASK_SLURM_TIMEOUT", k_default_timeout);
  return timeout.count() > 0 ? timeout : k_default_timeout;
}

Milliseconds slurm_lost_grace()
{
  return duration_from_env("BGTASK_SLURM_LOST_AFTER", k_default_lost_grace);
}

Result<SlurmConfig> query_slurm_config()
{
  const auto result = run_slurm({"scontrol", "show", "config"});
  if (result.end != ClientEnd::exited || result.exit_code != 0) {
    return Failure{client_message(result)};
  }
  SlurmConfig config;
  for (const auto& [key, value] : parse_slurm_config(result.out)) {
    if (key == "ClusterName") {
      config.cluster = value;
    } else if (key == "AccountingStorageType") {
      config.accounting_storage = value;
    } else if (key == "JobCompType") {
      config.jobcomp_type = value;
    } else if (key == "JobCompLoc") {
      config.jobcomp_location = value;
    }
  }
  if (config.cluster.empty()) {
    return Failure{"scontrol show config printed no ClusterName"};
  }
  return config;
}

Result<std::vector<SlurmJobInfo>> query_controller(const std::vector<std::string>& job_ids)
{
  const auto result = run_slurm({"squeue", "-h", "-r", "-t", "all", "-j", query_ids(job_ids), "-O",
                                 std::string(k_squeue_fields)});
  if (result.end != ClientEnd::exited) {
    return Failure{client_message(result)};
  }
  if (result.exit_code != 0) {
    // None of the jobs is still held by the controller.
    if (mentions(result, "Invalid job id specified")) {
      return std::vector<SlurmJobInfo>{};
    }
    return Failure{client_message(result)};
  }
  const std::set<std::string> wanted(job_ids.begin(), job_ids.end());
  return keep_wanted(parse_squeue_jobs(result.out), wanted);
}

Result<AccountingRecords> query_accounting(const SlurmConfig& config,
                                           const std::vector<std::string>& job_ids, TimePoint since)
{
  const std::set<std::string> wanted(job_ids.begin(), job_ids.end());
  const std::vector<std::string> common{"-X",
                                        "-n",
                                        "-P",
                                        "-j",
                                        query_ids(job_ids),
                                        "-S",
                                        slurm_local_time(since - std::chrono::hours(24)),
                                        "-o",
                                        std::string(k_sacct_fields)};
  if (!config.accounting_storage.empty() &&
      config.accounting_storage != "accounting_storage/none") {
    std::vector<std::string> argv{"sacct", "--duplicates"};
    argv.insert(argv.end(), common.begin(), common.end());
    const auto result = run_slurm(argv);
    if (result.end == ClientEnd::exited && result.exit_code == 0) {
      return AccountingRecords{keep_wanted(parse_sacct_jobs(result.out), wanted), "accounting"};
    }
    if (!mentions(result, "accounting storage is disabled")) {
      return Failure{client_message(result)};
    }
  }
  if (config.jobcomp_type != "jobcomp/filetxt" || config.jobcomp_location.empty()) {
    return AccountingRecords{{}, {}};
  }
  // `sacct -c` shows an array element under its internal job id (and
  // complains about the log's ArrayJobId): read the log for those.
  const bool elements = std::any_of(job_ids.begin(), job_ids.end(), [](const std::string& id) {
    return id.find('_') != std::string::npos;
  });
  std::vector<std::string> argv{"sacct", "-c"};
  argv.insert(argv.end(), common.begin(), common.end());
  const auto result = elements ? ClientResult{} : run_slurm(argv);
  if (!elements && result.end == ClientEnd::exited && result.exit_code == 0) {
    return AccountingRecords{keep_wanted(parse_sacct_jobs(result.out), wanted), "the jobcomp log"};
  }
  if (!elements && result.end == ClientEnd::timed_out) {
    return Failure{client_message(result)};
  }
  // `sacct -c` opens the log for writing, which only Slurm's user may: read
  // it ourselves.
  auto jobs = read_jobcomp_log(config.jobcomp_location, wanted);
  if (!jobs) {
    return Failure{jobs.error()};
  }
  return AccountingRecords{std::move(jobs).value(), "the jobcomp log"};
}

std::optional<std::string> cancel_slurm_job(const std::string& job_id, const std::string& job_name)
{
  // An array element is cancelled by its id alone: Slurm 22.05's scancel,
  // given a name as well, cancels every pending element of the array. The
  // caller has just seen the element under its name.
  auto argv = job_id.find('_') != std::string::npos
                ? std::vector<std::string>{"scancel", job_id}
                : std::vector<std::string>{"scancel", "--name=" + job_name, job_id};
  const auto result = run_slurm(std::move(argv));
  if (result.end != ClientEnd::exited) {
    return client_message(result);
  }
  if (result.exit_code == 0 || mentions(result, "Invalid job id") ||
      mentions(result, "already completing or completed")) {
    return std::nullopt;
  }
  return client_message(result);
}

} // namespace bgtask
