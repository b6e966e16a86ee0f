#include <bgtask/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace bgtask {

void for_each_index_in_parallel(
  std::size_t count, std::size_t workers, std::size_t block,
  const std::function<void(std::size_t worker, std::size_t index)>& work)
{
  workers = std::max<std::size_t>(workers, 1);
  block = std::max<std::size_t>(block, 1);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(workers);
  const auto run = [&](std::size_t worker) {
    try {
      for (std::size_t begin = 0; !failed && (begin = next.fetch_add(block)) < count;) {
        for (std::size_t i = begin; i < std::min(begin + block, count); ++i) {
          work(worker, i);
        }
      }
    } catch (...) {
      errors[worker] = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::jthread> threads;
  threads.reserve(workers - 1);
  for (std::size_t worker = 1; worker < workers; ++worker) {
    try {
      threads.emplace_back(run, worker);
    } catch (const std::system_error&) {
      break; // no more threads to be had (RLIMIT_NPROC, memory): the others do the work
    }
  }
  run(0);
  threads.clear(); // joins
  for (const auto& error : errors) {
    if (error) {
      std::rethrow_exception(error);
    }
  }
}

} // namespace bgtask
