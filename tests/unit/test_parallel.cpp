#include <bgtask/util/parallel.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using bgtask::for_each_index_in_parallel;

TEST(Parallel, CallsWorkOnceForEveryIndex)
{
  for (const std::size_t count : {0U, 1U, 7U, 64U, 1000U}) {
    for (const std::size_t workers : {1U, 3U, 16U}) {
      std::vector<std::atomic<int>> calls(count);
      for_each_index_in_parallel(count, workers, 5,
                                 [&](std::size_t, std::size_t i) { ++calls[i]; });
      for (std::size_t i = 0; i < count; ++i) {
        EXPECT_EQ(calls[i], 1) << "index " << i << " of " << count << " with " << workers
                               << " workers";
      }
    }
  }
}

TEST(Parallel, TheCallerIsWorkerZeroAndEachWorkerOneThread)
{
  std::mutex mutex;
  std::map<std::size_t, std::set<std::thread::id>> threads_of_worker;
  const auto caller = std::this_thread::get_id();
  for_each_index_in_parallel(400, 4, 1, [&](std::size_t worker, std::size_t) {
    EXPECT_LT(worker, 4U);
    EXPECT_EQ(std::this_thread::get_id() == caller, worker == 0);
    const std::lock_guard lock(mutex);
    threads_of_worker[worker].insert(std::this_thread::get_id());
  });
  for (const auto& [worker, threads] : threads_of_worker) {
    EXPECT_EQ(threads.size(), 1U) << "worker " << worker;
  }
}

TEST(Parallel, ZeroWorkersOrBlockMeansOne)
{
  std::atomic<int> calls{0};
  for_each_index_in_parallel(10, 0, 0, [&](std::size_t worker, std::size_t) {
    EXPECT_EQ(worker, 0U);
    ++calls;
  });
  EXPECT_EQ(calls, 10);
}

TEST(Parallel, RethrowsAWorkersExceptionAfterAllStop)
{
  std::atomic<int> running{0};
  EXPECT_THROW(for_each_index_in_parallel(10000, 4, 10,
                                          [&](std::size_t, std::size_t i) {
                                            ++running;
                                            if (i == 123) {
                                              --running;
                                              throw std::runtime_error("index 123");
                                            }
                                            --running;
                                          }),
               std::runtime_error);
  EXPECT_EQ(running, 0);
}
