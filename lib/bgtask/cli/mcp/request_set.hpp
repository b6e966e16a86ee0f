#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <boost/json/value.hpp>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace bgtask::mcp {

// The requests being served, each on a thread of its own, by request ID,
// so that notifications/cancelled can end the one it names.
class RequestSet
{
  struct State
  {
    UniqueFd cancel_fd; // an eventfd, readable once cancelled
    std::atomic<bool> cancelled{false};
  };

public:
  // What a request's work sees of its cancellation (a default one: never).
  class Control
  {
  public:
    Control() = default;
    explicit Control(std::shared_ptr<State> state);
    bool cancelled() const { return m_state && m_state->cancelled; }
    int cancel_fd = -1;

  private:
    std::shared_ptr<State> m_state;
  };

  // Runs `work` on a new thread as the request `id`.
  void start(const boost::json::value& id, std::function<void(const Control&)> work);

  // Cancels the request `id`, if it is still served: its wait ends, and
  // its answer is not sent.
  void cancel(const boost::json::value& id);

  // Ends the waits of every request still served (their answers are still
  // sent, to a client that closed only its end) and waits until none is.
  void cancel_all_and_wait();

private:
  static void signal(State& state);

  std::mutex m_mutex;
  std::condition_variable m_done;
  std::map<std::string, std::shared_ptr<State>> m_serving; // by serialized request ID
  std::size_t m_threads = 0;
};

} // namespace bgtask::mcp
