#include <bgtask/cli/mcp/request_set.hpp>
#include <bgtask/util/error.hpp>

#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstdint>
#include <sys/eventfd.h>
#include <thread>
#include <unistd.h>

namespace bgtask::mcp {

RequestSet::Control::Control(std::shared_ptr<State> state)
  : cancel_fd(state->cancel_fd.get()),
    m_state(std::move(state))
{
}

void RequestSet::signal(State& state)
{
  const std::uint64_t one = 1;
  static_cast<void>(::write(state.cancel_fd.get(), &one, sizeof one));
}

void RequestSet::start(const boost::json::value& id, std::function<void(const Control&)> work)
{
  auto state = std::make_shared<State>();
  state->cancel_fd = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!state->cancel_fd) {
    throw_system("cannot make an eventfd", errno);
  }
  const std::string key = boost::json::serialize(id);
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_serving[key] = state;
    ++m_threads;
  }
  std::thread([this, key, state, work = std::move(work)] {
    try {
      work(Control(state));
    } catch (...) {
      // the work answers its own failures; nothing may leave the thread
    }
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (auto it = m_serving.find(key); it != m_serving.end() && it->second == state) {
      m_serving.erase(it);
    }
    --m_threads;
    m_done.notify_all();
  }).detach();
}

void RequestSet::cancel(const boost::json::value& id)
{
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (auto it = m_serving.find(boost::json::serialize(id)); it != m_serving.end()) {
    it->second->cancelled = true;
    signal(*it->second);
  }
}

void RequestSet::cancel_all_and_wait()
{
  std::unique_lock<std::mutex> lock(m_mutex);
  for (auto& entry : m_serving) {
    signal(*entry.second);
  }
  m_done.wait(lock, [this] { return m_threads == 0; });
}

} // namespace bgtask::mcp
