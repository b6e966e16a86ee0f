#include "e2e/e2e_support.hpp"

#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <poll.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;
namespace json = boost::json;

namespace e2e {

namespace {

using Clock = std::chrono::steady_clock;

std::string read_file(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string name_of(const std::string& entry)
{
  return entry.substr(0, entry.find('='));
}

// This process's environment without anything of an outer bgtask task,
// with `options` applied.
std::vector<std::string> child_environment(const RunOptions& options)
{
  std::vector<std::string> removed = options.unset;
  removed.insert(removed.end(), {"BGTASK_ID", "BGTASK_DIR"});
  for (const auto& entry : options.env) {
    removed.push_back(name_of(entry));
  }
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    if (std::find(removed.begin(), removed.end(), name_of(text)) == removed.end()) {
      env.push_back(text);
    }
  }
  env.insert(env.end(), options.env.begin(), options.env.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings)
{
  std::vector<char*> pointers;
  for (auto& s : strings) {
    pointers.push_back(s.data());
  }
  pointers.push_back(nullptr);
  return pointers;
}

template <typename Visit> void for_each_process(Visit visit)
{
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return;
  }
  const int self = ::getpid();
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid > 0 && *end == '\0' && pid != self && is_alive(static_cast<int>(pid))) {
      visit(static_cast<int>(pid));
    }
  }
  ::closedir(proc);
}

// The NUL-separated entries of /proc/PID/<file>.
std::vector<std::string> proc_strings(int pid, const char* file)
{
  const std::string content = read_file("/proc/" + std::to_string(pid) + "/" + file);
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < content.size()) {
    const auto end = content.find('\0', start);
    parts.push_back(
      content.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return parts;
}

} // namespace

const std::string& bgtask_binary()
{
  static const std::string path = BGTASK_BINARY;
  return path;
}

std::string Result::line() const
{
  return !out.empty() && out.back() == '\n' ? out.substr(0, out.size() - 1) : out;
}

std::ostream& operator<<(std::ostream& os, const Result& result)
{
  return os << "exit " << result.exit_code << (result.hung ? " (hung, killed)" : "")
            << "\n--- stdout ---\n"
            << result.out << "\n--- stderr ---\n"
            << result.err;
}

Process::Process(const std::vector<std::string>& argv, const RunOptions& options)
{
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> env = child_environment(options);
  auto c_args = c_strings(args);
  auto c_env = c_strings(env);
  const std::string cwd = options.cwd ? options.cwd->string() : std::string();
  m_pid = ::fork();
  if (m_pid < 0) {
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (m_pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      ::_exit(126);
    }
    ::execvpe(c_args[0], c_args.data(), c_env.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  m_out = out[0];
  m_err = err[0];
  m_deadline = Clock::now() + options.limit;
}

Process::Process(Process&& other) noexcept
  : m_pid(std::exchange(other.m_pid, -1)),
    m_out(std::exchange(other.m_out, -1)),
    m_err(std::exchange(other.m_err, -1)),
    m_deadline(other.m_deadline),
    m_result(std::move(other.m_result)),
    m_finished(std::exchange(other.m_finished, true))
{
}

Process::~Process()
{
  if (!m_finished && m_pid > 0) {
    ::kill(m_pid, SIGKILL);
    finish();
  }
}

void Process::pump(Milliseconds limit)
{
  const auto until = std::min(m_deadline, Clock::now() + limit);
  while (m_out >= 0 || m_err >= 0) {
    const auto left = std::chrono::ceil<Milliseconds>(until - Clock::now()).count();
    if (left <= 0) {
      return;
    }
    pollfd fds[2] = {{m_out, POLLIN, 0}, {m_err, POLLIN, 0}};
    const int ready = ::poll(fds, 2, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready <= 0) {
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) {
        continue;
      }
      char buffer[65536];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? m_result.out : m_result.err).append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        (i == 0 ? m_out : m_err) = -1;
      }
    }
    return; // let the caller look at what arrived
  }
}

bool Process::wait_for_stdout(std::string_view text, Milliseconds limit)
{
  const auto until = Clock::now() + limit;
  while (m_result.out.find(text) == std::string::npos) {
    if (m_out < 0 || Clock::now() >= until || Clock::now() >= m_deadline) {
      return false;
    }
    pump(std::chrono::ceil<Milliseconds>(until - Clock::now()));
  }
  return true;
}

Result Process::finish()
{
  if (m_finished) {
    return m_result;
  }
  while ((m_out >= 0 || m_err >= 0) && Clock::now() < m_deadline) {
    pump(std::chrono::ceil<Milliseconds>(m_deadline - Clock::now()));
  }
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(m_pid, &status, WNOHANG);
    if (done == m_pid) {
      break;
    }
    if (Clock::now() >= m_deadline) {
      m_result.hung = true;
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(2ms);
  }
  for (int* fd : {&m_out, &m_err}) {
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
  }
  m_result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  m_finished = true;
  return m_result;
}

Result run(const std::vector<std::string>& argv, const RunOptions& options)
{
  Process process(argv, options);
  return process.finish();
}

bool is_alive(int pid)
{
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' &&
         stat[paren + 2] != 'X';
}

bool is_blocked_in_poll(int pid)
{
  const std::string prefix = "/proc/" + std::to_string(pid);
  if (read_file(prefix + "/wchan").find("poll") != std::string::npos) {
    return true;
  }
#if defined(__x86_64__)
  const std::string syscall = read_file(prefix + "/syscall");
  return syscall.starts_with("7 ") || syscall.starts_with("271 ");
#else
  return false;
#endif
}

std::vector<int> processes_with_environment(const std::string& entry)
{
  std::vector<int> pids;
  for_each_process([&](int pid) {
    const auto env = proc_strings(pid, "environ");
    if (std::find(env.begin(), env.end(), entry) != env.end()) {
      pids.push_back(pid);
    }
  });
  return pids;
}

std::vector<int> processes_with_command_line(const std::string& text)
{
  std::vector<int> pids;
  for_each_process([&](int pid) {
    for (const auto& arg : proc_strings(pid, "cmdline")) {
      if (arg.find(text) != std::string::npos) {
        pids.push_back(pid);
        break;
      }
    }
  });
  return pids;
}

json::value parse_json(std::string_view text)
{
  json::error_code ec;
  auto value = json::parse(text, ec);
  EXPECT_FALSE(ec) << "not JSON (" << ec.message() << "): " << text;
  return ec ? json::value() : value;
}

void E2eTest::SetUp()
{
  char pattern[] = "/tmp/bgtask-e2e.XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr) << std::strerror(errno);
  m_work = pattern;
  m_dir = m_work / "tasks";
  ASSERT_EQ(::mkdir(m_dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(m_dir.c_str(), 0700), 0);
}

void E2eTest::TearDown()
{
  kill_leftovers();
  if (!HasFailure()) {
    // Every record the test left, and their --json forms, match the schema.
    const Result check =
      run({"/usr/bin/python3", BGTASK_RECORD_CHECKER, "--bgtask", bgtask_binary(), m_dir.string()});
    EXPECT_EQ(check.exit_code, 0) << "records violate docs/record.schema.json: " << check;
  }
  if (HasFailure()) {
    std::cerr << "kept " << m_work << " for inspection\n";
    return;
  }
  std::error_code ignored;
  fs::permissions(m_dir, fs::perms::owner_all, ignored);
  fs::remove_all(m_work, ignored);
}

void E2eTest::kill_leftovers()
{
  const auto leftovers = [&] {
    auto pids = processes_with_environment("BGTASK_DIR=" + m_dir.string());
    const auto more = processes_with_command_line(m_work.string());
    pids.insert(pids.end(), more.begin(), more.end());
    return pids;
  };
  eventually(
    [&] {
      const auto pids = leftovers();
      for (const int pid : pids) {
        ::kill(pid, SIGKILL);
      }
      return pids.empty();
    },
    10s);
}

Result E2eTest::bg(const std::vector<std::string>& args, const RunOptions& options)
{
  std::vector<std::string> argv = {bgtask_binary(), "--dir", m_dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, options);
}

Process E2eTest::bg_async(const std::vector<std::string>& args, const RunOptions& options)
{
  std::vector<std::string> argv = {bgtask_binary(), "--dir", m_dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return Process(argv, options);
}

std::string E2eTest::start(const std::vector<std::string>& args)
{
  std::vector<std::string> argv = {"start"};
  argv.insert(argv.end(), args.begin(), args.end());
  const Result result = bg(argv);
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out.size(), 13u) << result;
  return result.line();
}

int E2eTest::wait_for(const std::string& id)
{
  const Result result = bg({"wait", id});
  EXPECT_FALSE(result.hung) << result;
  return result.exit_code;
}

bool E2eTest::wait_until_released(const std::string& id)
{
  const auto task_dir = bgtask::TaskDir::open(m_dir.string());
  return eventually([&] {
    auto lock = bgtask::TaskLock::open_existing(task_dir, id);
    return lock && lock->try_take_ownership();
  });
}

json::object E2eTest::record(const std::string& id)
{
  const auto value = parse_json(record_bytes(id));
  EXPECT_TRUE(value.is_object()) << "record of " << id;
  return value.is_object() ? value.get_object() : json::object();
}

std::string E2eTest::record_bytes(const std::string& id)
{
  return read_file(record_path(id));
}

std::string E2eTest::state_of(const std::string& id)
{
  const auto o = record(id);
  const auto* state = o.if_contains("state");
  return state != nullptr && state->is_string() ? std::string(state->get_string()) : "?";
}

fs::path E2eTest::record_path(const std::string& id) const
{
  return m_dir / (id + ".status.json");
}

fs::path E2eTest::output_path(const std::string& id) const
{
  return m_dir / (id + ".output");
}

fs::path E2eTest::lock_path(const std::string& id) const
{
  return m_dir / (id + ".lock");
}

std::string E2eTest::output_of(const std::string& id)
{
  return read_file(output_path(id));
}

bool E2eTest::wait_for_output(const std::string& id, std::string_view text)
{
  return eventually([&] { return output_of(id).find(text) != std::string::npos; });
}

std::vector<std::string> E2eTest::dir_entries() const
{
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(m_dir)) {
    if (entry.path().filename() != ".cache") {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> E2eTest::task_entries() const
{
  auto names = dir_entries();
  std::erase_if(names, [](const std::string& name) { return !bgtask::parse_task_file_name(name); });
  return names;
}

} // namespace e2e
