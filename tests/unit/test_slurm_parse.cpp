// Parsing of real Slurm 22.05 client output (tests/data/slurm/, captured by
// scripts/slurm-capture).

#include <bgtask/exec/slurm/slurm_job.hpp>
#include <bgtask/exec/slurm/slurm_submission.hpp>

#include <gtest/gtest.h>

#include "slurm_test_data.hpp"
#include <algorithm>

using bgtask::SlurmJobInfo;
using slurm_test_data::read;

namespace {

const SlurmJobInfo& by_name(const std::vector<SlurmJobInfo>& jobs, const std::string& name)
{
  const auto it =
    std::find_if(jobs.begin(), jobs.end(), [&](const SlurmJobInfo& j) { return j.name == name; });
  if (it == jobs.end()) {
    throw std::runtime_error("no job named " + name);
  }
  return *it;
}

std::string value(const std::vector<std::pair<std::string, std::string>>& pairs,
                  const std::string& key)
{
  for (const auto& [k, v] : pairs) {
    if (k == key) {
      return v;
    }
  }
  return "<absent>";
}

} // namespace

TEST(KeyValueSplit, ContinuesValuesAndKeepsTheFirstOfRepeatedKeys)
{
  const auto pairs = bgtask::split_key_values(
    "JobId=7 JobName=a b c JobState=RUNNING AllocNode:Sid=h:1 CPUs/Task=2 Empty= JobState=FAILED ");
  EXPECT_EQ(value(pairs, "JobId"), "7");
  EXPECT_EQ(value(pairs, "JobName"), "a b c");
  EXPECT_EQ(value(pairs, "JobState"), "RUNNING");
  EXPECT_EQ(value(pairs, "AllocNode:Sid"), "h:1");
  EXPECT_EQ(value(pairs, "CPUs/Task"), "2");
  EXPECT_EQ(value(pairs, "Empty"), "");
}

TEST(SqueueParse, ReadsTheAnswerAndTurnsWaitStatusesIntoExitCodes)
{
  const auto jobs = bgtask::parse_squeue_jobs(read("squeue_mixed.txt"));
  ASSERT_EQ(jobs.size(), 5u);
  EXPECT_EQ(by_name(jobs, "bgtask-exit3").state, "FAILED");
  EXPECT_EQ(by_name(jobs, "bgtask-exit3").exit_code, "3:0"); // 768
  EXPECT_EQ(by_name(jobs, "bgtask-kill9").exit_code, "0:9");
  EXPECT_EQ(by_name(jobs, "bgtask-held").state, "PENDING");
  EXPECT_EQ(by_name(jobs, "bgtask-held").reason, "JobHeldUser");
  EXPECT_EQ(by_name(jobs, "bgtask-held").node_list, "");
  EXPECT_EQ(by_name(jobs, "bgtask-run").state, "RUNNING");
  EXPECT_EQ(by_name(jobs, "bgtask-run").node_list, "localhost");
  EXPECT_EQ(by_name(jobs, "bgtask-run").time_limit, "5:00");
  EXPECT_EQ(by_name(jobs, "bgtask-run").submit_time, "2026-12-01T14:15:56");
  EXPECT_EQ(by_name(jobs, "t1").exit_code, "0:15");

  const auto odd =
    bgtask::parse_squeue_jobs("9|RUNNING|None|0|N/A|N/A|n1|1:00|N/A|a|b|\nshort|line\n");
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].name, "a|b");
}

TEST(SacctParse, ReadsTheJobcompAnswer)
{
  const auto jobs = bgtask::parse_sacct_jobs(read("sacct_c.txt"));
  // sacct -c itself garbles the line of the job whose name has spaces (no
  // state): it is skipped.
  ASSERT_EQ(jobs.size(), 7u);
  EXPECT_EQ(by_name(jobs, "bgtask-exit3").state, "FAILED");
  EXPECT_EQ(by_name(jobs, "bgtask-exit3").exit_code, "3:0");
  EXPECT_EQ(by_name(jobs, "bgtask-kill9").exit_code, "0:9");
  EXPECT_EQ(by_name(jobs, "bgtask-timeout").state, "TIMEOUT");
  EXPECT_EQ(by_name(jobs, "bgtask-pending").state, "CANCELLED");
  EXPECT_EQ(by_name(jobs, "bgtask-pending").node_list, "(null)");
  EXPECT_EQ(by_name(jobs, "bgtask-ok").node_list, "localhost");
}

TEST(SacctParse, TakesTheFirstWordOfAStateAndTheRestOfTheLineAsName)
{
  const auto jobs = bgtask::parse_sacct_jobs(
    "12|CANCELLED by 0|0:0|2026-01-01T00:00:00|2026-01-01T00:00:01|n1|2026-01-01T00:00:00|"
    "Dependency|00:01:00|name|with|bars\n"
    "12.batch|CANCELLED|0:15|||n1||||batch\n"
    "garbage\n");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, "CANCELLED");
  EXPECT_EQ(jobs[0].reason, "Dependency");
  EXPECT_EQ(jobs[0].time_limit, "00:01:00");
  EXPECT_EQ(jobs[0].name, "name|with|bars");
}

TEST(JobcompParse, ReadsEveryLineOfTheLog)
{
  const auto text = read("jobcomp.log");
  std::vector<SlurmJobInfo> jobs;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = text.find('\n', at);
    if (auto job = bgtask::parse_jobcomp_line(std::string_view(text).substr(at, end - at))) {
      jobs.push_back(*job);
    }
    at = end == std::string::npos ? text.size() : end + 1;
  }
  ASSERT_EQ(jobs.size(), 8u);
  EXPECT_EQ(by_name(jobs, "bgtask with spaces").state, "COMPLETED");
  EXPECT_EQ(by_name(jobs, "bgtask-exit3").exit_code, "3:0");
  EXPECT_EQ(by_name(jobs, "bgtask-timeout").state, "TIMEOUT");
  EXPECT_EQ(by_name(jobs, "bgtask-pending").node_list, "(null)");
  EXPECT_FALSE(bgtask::parse_jobcomp_line("not a jobcomp line"));
  EXPECT_FALSE(bgtask::parse_jobcomp_line("JobId=x JobState=FAILED"));
}

TEST(SlurmConfigParse, FindsTheKeysBgtaskUses)
{
  const auto pairs = bgtask::parse_slurm_config(read("scontrol_config.txt"));
  EXPECT_EQ(value(pairs, "ClusterName"), "bgtaskci");
  EXPECT_EQ(value(pairs, "AccountingStorageType"), "accounting_storage/none");
  EXPECT_EQ(value(pairs, "JobCompType"), "jobcomp/filetxt");
  EXPECT_TRUE(value(pairs, "JobCompLoc").ends_with("/log/jobcomp.log"));
}

TEST(SbatchOutput, ReadsTheJobIdAndAnOptionalCluster)
{
  const auto plain = bgtask::parse_sbatch_output(read("sbatch_parsable.txt"));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->job_id, "1");
  EXPECT_FALSE(plain->cluster);

  const auto clustered = bgtask::parse_sbatch_output("42;other\n");
  ASSERT_TRUE(clustered);
  EXPECT_EQ(clustered->job_id, "42");
  EXPECT_EQ(clustered->cluster, "other");

  const auto after_warning = bgtask::parse_sbatch_output("sbatch: warning: something\n43\n");
  ASSERT_TRUE(after_warning);
  EXPECT_EQ(after_warning->job_id, "43");

  EXPECT_FALSE(bgtask::parse_sbatch_output(""));
  EXPECT_FALSE(bgtask::parse_sbatch_output("Submitted batch job 44\n"));
}
