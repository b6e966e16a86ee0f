#pragma once

#include <cstddef>
#include <functional>

namespace bgtask {

// Calls work(worker, index) once for every index in [0, count), on up to
// `workers` threads (fewer if no more can be created); the calling thread is
// worker 0 and the others are numbered 1..workers-1. Threads take `block`
// consecutive indices at a time. Returns once every call has returned. If a
// call throws, the threads stop taking blocks and one of the exceptions
// thrown is rethrown here.
void for_each_index_in_parallel(
  std::size_t count, std::size_t workers, std::size_t block,
  const std::function<void(std::size_t worker, std::size_t index)>& work);

} // namespace bgtask
