#pragma once

// Running the real bgtask binary (BGTASK_BINARY) from gtest: one fresh task
// directory per test, command lines run with their output captured, and
// helpers to read what bgtask wrote.

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace e2e {

using namespace std::chrono_literals;
using Milliseconds = std::chrono::milliseconds;

// The bgtask binary under test.
const std::string& bgtask_binary();

// How a command line finished.
struct Result
{
  int exit_code = -1; // exit status, or 128 + signal
  std::string out;
  std::string err;
  bool hung = false; // killed because it ran past its limit

  // Stdout without its final newline.
  std::string line() const;
};

std::ostream& operator<<(std::ostream& os, const Result& result);

struct RunOptions
{
  std::vector<std::string> env;   // NAME=VALUE entries added to (or replacing in) the environment
  std::vector<std::string> unset; // names removed from the environment
  std::optional<std::filesystem::path> cwd;
  Milliseconds limit = 60s; // killed (and reported hung) after this long
};

// A command line running in the background with its output captured.
class Process
{
public:
  Process(const std::vector<std::string>& argv, const RunOptions& options);
  Process(Process&& other) noexcept;
  Process& operator=(Process&&) = delete;
  Process(const Process&) = delete;
  ~Process();

  int pid() const { return m_pid; }

  // Reads stdout until it contains `text` (true) or `limit` passes or the
  // process closes stdout (false). What was read stays part of the result.
  bool wait_for_stdout(std::string_view text, Milliseconds limit = 20s);

  // Waits for the process to end (killing it past its limit) and returns
  // everything it wrote.
  Result finish();

private:
  void pump(Milliseconds limit);

  int m_pid = -1;
  int m_out = -1;
  int m_err = -1;
  std::chrono::steady_clock::time_point m_deadline;
  Result m_result;
  bool m_finished = false;
};

// Runs `argv` to completion.
Result run(const std::vector<std::string>& argv, const RunOptions& options = {});

// Live (not zombie) processes whose environment holds `entry` (e.g.
// `BGTASK_ID=...`), other than this one.
std::vector<int> processes_with_environment(const std::string& entry);

// Live processes whose command line mentions `text`, other than this one.
std::vector<int> processes_with_command_line(const std::string& text);

// True if `pid` is a live (not zombie) process.
bool is_alive(int pid);

// True if `pid` is blocked in poll(2) or ppoll(2), as a waiting bgtask is.
bool is_blocked_in_poll(int pid);

// Parses `text` as JSON; a test failure (and null) if it is not.
boost::json::value parse_json(std::string_view text);

// Waits until `condition()` holds or `limit` passes; returns the last result.
template <typename Condition> bool eventually(Condition condition, Milliseconds limit = 20s)
{
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (condition()) {
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(20ms);
  }
}

// Base of every end-to-end test: a fresh task directory `dir()` (mode 0700)
// under a fresh work directory `work()`. Whatever the test started is
// killed afterwards; both directories are removed unless the test failed.
class E2eTest : public ::testing::Test
{
protected:
  void SetUp() override;
  void TearDown() override;

  const std::filesystem::path& work() const { return m_work; }
  const std::filesystem::path& dir() const { return m_dir; }

  // `bgtask --dir DIR ARGS...`.
  Result bg(const std::vector<std::string>& args, const RunOptions& options = {});
  Process bg_async(const std::vector<std::string>& args, const RunOptions& options = {});

  // `bgtask start ARGS...`, which must succeed; returns the new ID.
  std::string start(const std::vector<std::string>& args);

  // `bgtask wait ID`; returns its exit code.
  int wait_for(const std::string& id);

  // Waits until no process holds the task's ownership lock any more: its
  // supervisor has exited, not just written the final record.
  bool wait_until_released(const std::string& id);

  // The record of `id` as its file holds it.
  boost::json::object record(const std::string& id);
  std::string record_bytes(const std::string& id);
  std::string state_of(const std::string& id);

  std::filesystem::path record_path(const std::string& id) const;
  std::filesystem::path output_path(const std::string& id) const;
  std::filesystem::path lock_path(const std::string& id) const;

  // The task's output file content.
  std::string output_of(const std::string& id);

  // Waits until the task's output contains `text`.
  bool wait_for_output(const std::string& id, std::string_view text);

  // Names in the task directory, sorted.
  std::vector<std::string> dir_entries() const;

  // The names in the task directory that belong to a task, sorted.
  std::vector<std::string> task_entries() const;

private:
  void kill_leftovers();

  std::filesystem::path m_work;
  std::filesystem::path m_dir;
};

} // namespace e2e
