#include <bgtask/exec/local/retry_policy.hpp>

#include <gtest/gtest.h>

using bgtask::AttemptEnd;
using bgtask::AttemptResult;
using bgtask::RetryPolicy;
using bgtask::should_retry;

namespace {

AttemptResult exited(int code)
{
  return AttemptResult{code == 0 ? AttemptEnd::succeeded : AttemptEnd::failed, code, std::nullopt};
}

AttemptResult killed(int sig)
{
  return AttemptResult{AttemptEnd::failed, std::nullopt, sig};
}

const AttemptResult k_timed_out{AttemptEnd::timed_out, std::nullopt, 15};
const AttemptResult k_cancelled{AttemptEnd::cancelled, std::nullopt, 15};

} // namespace

TEST(RetryPolicy, NeverWithoutAPolicy)
{
  EXPECT_FALSE(should_retry(std::nullopt, 1, exited(1)));
  EXPECT_FALSE(should_retry(std::nullopt, 1, k_timed_out));
}

TEST(RetryPolicy, RetriesAnyFailureUpToTheCount)
{
  const RetryPolicy policy{2, 0, {}, false};
  EXPECT_TRUE(should_retry(policy, 1, exited(1)));
  EXPECT_TRUE(should_retry(policy, 2, killed(9)));
  EXPECT_FALSE(should_retry(policy, 3, exited(1))) << "three attempts ran: 1 + 2 retries";
  EXPECT_FALSE(should_retry(policy, 1, exited(0)));
  EXPECT_FALSE(should_retry(policy, 1, k_cancelled));
  EXPECT_FALSE(should_retry(policy, 1, k_timed_out)) << "timeouts need --retry-on timed_out";
  EXPECT_TRUE(should_retry(policy, 1, AttemptResult{AttemptEnd::oom, std::nullopt, 9}));
}

TEST(RetryPolicy, ZeroRetriesMeansOneAttempt)
{
  EXPECT_FALSE(should_retry(RetryPolicy{0, 0, {}, false}, 1, exited(1)));
}

TEST(RetryPolicy, OnlyTheCodesGiven)
{
  const RetryPolicy policy{5, 0, {75, 3}, false};
  EXPECT_TRUE(should_retry(policy, 1, exited(75)));
  EXPECT_TRUE(should_retry(policy, 1, exited(3)));
  EXPECT_FALSE(should_retry(policy, 1, exited(1)));
  EXPECT_FALSE(should_retry(policy, 1, killed(9)));
  EXPECT_FALSE(should_retry(policy, 1, k_timed_out));
}

TEST(RetryPolicy, TimedOutAloneRetriesOnlyTimeouts)
{
  const RetryPolicy policy{1, 0, {}, true};
  EXPECT_TRUE(should_retry(policy, 1, k_timed_out));
  EXPECT_FALSE(should_retry(policy, 2, k_timed_out));
  EXPECT_FALSE(should_retry(policy, 1, exited(1)));
}

TEST(RetryPolicy, CodesAndTimeouts)
{
  const RetryPolicy policy{1, 0, {2}, true};
  EXPECT_TRUE(should_retry(policy, 1, k_timed_out));
  EXPECT_TRUE(should_retry(policy, 1, exited(2)));
  EXPECT_FALSE(should_retry(policy, 1, exited(1)));
}

TEST(RetryPolicy, NamesOutcomes)
{
  EXPECT_STREQ(bgtask::attempt_end_name(AttemptEnd::oom), "oom");
  EXPECT_STREQ(bgtask::attempt_end_name(AttemptEnd::timed_out), "timed_out");
}
