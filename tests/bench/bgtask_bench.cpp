// bgtask-bench: the measuring tools behind scripts/bench.
//
//   generate DIR COUNT [DAYS_AGO [OUTPUT_BYTES]]
//                                  writes COUNT finished tasks (record, output
//                                  and lock file each) that finished DAYS_AGO
//                                  days ago (default 8), with the library's
//                                  own encoder; records are not fsync'd;
//                                  outputs hold OUTPUT_BYTES (default 120)
//   latency RUNS WARMUP NAME [VAR=VALUE...] CMD... [::after [VAR=VALUE...] CMD...]
//           [::: NAME ...]...      runs the commands in turn (interleaved),
//                                  with VAR=VALUE added to the environment,
//                                  stdout and stderr on /dev/null, and prints
//                                  wall-time statistics (ms) per NAME as JSON,
//                                  with the median CPU time (user + system);
//                                  the order is shuffled each round;
//                                  after each, untimed, runs its ::after
//                                  command and waits until every process it
//                                  left behind has ended, so that the next
//                                  one starts on a quiet machine
//   sleep-stamp SECONDS FILE       sleeps, then writes CLOCK_REALTIME in ns to
//                                  FILE and exits at once
//   exit-time CMD...               runs CMD (stdout on /dev/null) and prints
//                                  CLOCK_REALTIME in ns when it has exited,
//                                  then its exit status
//   write-probe DIR RUNS           times RUNS durable replacements of a
//                                  1 KiB file the way bgtask writes records
//                                  (temp, fsync, rename, fsync of DIR) and
//                                  prints statistics (ms) as JSON
//   create-probe DIR RUNS          times RUNS creations of an empty file in
//                                  DIR (O_CREAT | O_EXCL, as bgtask creates
//                                  a task's files), leaves the files, and
//                                  prints statistics (ms) as JSON
//   floor DIR                      the least a durable start can do: this
//                                  process forks a child that writes one
//                                  record durably (as the first record of a
//                                  task: temp, fsync, rename, fsync of DIR)
//                                  and tells it so through a pipe; it exits
//                                  once told (scripts/bench times it)
//   floor-exec DIR PROGRAM         the floor plus what a start that runs a
//                                  command must add: this process creates
//                                  the output file; the child starts the
//                                  command's process (a fork, as bgtask
//                                  does), which sets its output on the
//                                  file and waits on a pipe; writes the
//                                  record durably; releases the command,
//                                  which execs PROGRAM (a path); this
//                                  process exits at the end of file of a
//                                  CLOEXEC pipe only the command holds (its
//                                  exec)
//   floor-promises DIR PROGRAM     floor-exec plus, in bare system calls,
//                                  what bgtask's promises add to a start
//                                  (RELIABILITY.md, SECURITY.md): this
//                                  process claims the task's ID under the
//                                  directory's lock (unique, in start order),
//                                  reads the fingerprint key, and creates and
//                                  locks the task's lock file (its owner
//                                  tells a live supervisor from a dead one);
//                                  the child makes a session of its
//                                  own with stdio on /dev/null, becomes a
//                                  subreaper, reads its signals through a
//                                  signalfd, reserves room for the final
//                                  record, watches the output's bound (a
//                                  probe hole, an inotify watch), puts the
//                                  command in a process
//                                  group of its own, reads the identities a
//                                  record names (start times, instance,
//                                  host, boot, namespaces) and holds the
//                                  record's update lock while writing it;
//                                  this process also waits for the child's
//                                  report. What bgtask does beyond this is
//                                  its own code
//   floor-task DIR PROGRAM         floor-exec plus the rest of a durable
//                                  task's life: once the command has exited,
//                                  the child writes the final record durably
//                                  (what a task manager that keeps its
//                                  promises must do per task at least; the
//                                  throughput rounds run it as a floor)
//   floor-cancel DIR COUNT         the least a durable cancel of COUNT
//                                  parked tasks does: makes COUNT queued
//                                  tasks' files (record, output, lock and
//                                  parked file, untimed), then times, 256
//                                  tasks at a time as bgtask's cancel does:
//                                  their records read and written to
//                                  temps, a syncfs, the renames over the
//                                  records, a syncfs, their parked files
//                                  removed; prints wall and CPU time (ms)
//                                  as JSON
//   reap CMD...                    runs CMD as a child subreaper, waits for
//                                  every process it leaves behind, and prints
//                                  the wall time and the CPU time (user +
//                                  system) of all of them, in ms
//   stats                          reads numbers from stdin, prints
//                                  statistics as JSON

#include <bgtask/core/record_json.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/core/task_record.hpp>
#include <bgtask/proc/process_exit.hpp>
#include <bgtask/store/atomic_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <random>
#include <spawn.h>
#include <string>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

using bgtask::TaskRecord;
using bgtask::TimePoint;
using bgtask::UniqueFd;

[[noreturn]] void die(const std::string& message)
{
  std::cerr << "bgtask-bench: " << message << '\n';
  std::exit(2);
}

std::int64_t clock_ns(clockid_t clock)
{
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void write_file(int dir_fd, const std::string& name, std::string_view content)
{
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd) {
    die("cannot create " + name + ": " + std::strerror(errno));
  }
  if (!content.empty() &&
      ::write(fd.get(), content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
    die("cannot write " + name + ": " + std::strerror(errno));
  }
}

// A finished task as the supervisor leaves it: every tenth one failed.
TaskRecord finished_record(const bgtask::TaskDir& dir, TimePoint created, std::size_t index)
{
  TaskRecord r;
  r.generation = 3;
  r.id = bgtask::make_task_id(created);
  if (index % 4 == 0) {
    r.name = "job-" + std::to_string(index);
  }
  r.command = {"/bin/sh", "-c", "make -C /srv/build target-" + std::to_string(index % 97)};
  r.shell = true;
  r.cwd = "/srv/build";
  r.created_at = created;
  r.started_at = created + std::chrono::milliseconds(4);
  r.finished_at = *r.started_at + std::chrono::milliseconds(1500 + index % 1000);
  r.duration_s = static_cast<double>((*r.finished_at - *r.started_at).count()) / 1000.0;
  const bool failed = index % 10 == 9;
  r.state = failed ? bgtask::TaskState::failed : bgtask::TaskState::succeeded;
  r.exit_code = failed ? 2 : 0;
  if (failed) {
    r.error = "exited with status 2";
  }
  r.owner = bgtask::OwnerIdentity{100000 + static_cast<int>(index % 50000),
                                  "0123456789abcdef0123456789abcdef", 123456 + index,
                                  "d8e6b402-39d9-4ffa-8d5b-d408718c0000", "bench-host"};
  r.child = bgtask::ChildIdentity{r.owner->pid + 1, r.owner->pid + 1, r.owner->start_time};
  r.events = {{"started", *r.started_at, std::nullopt},
              {"finished", *r.finished_at, std::string(bgtask::to_string(r.state))}};
  r.output.path = dir.file_path(bgtask::output_file_name(r.id));
  return r;
}

int generate(const std::vector<std::string>& args)
{
  if (args.size() < 2 || args.size() > 4) {
    die("usage: generate DIR COUNT [DAYS_AGO [OUTPUT_BYTES]]");
  }
  const auto dir = bgtask::TaskDir::open(args[0]);
  const auto count = std::stoul(args[1]);
  const auto days_ago = args.size() >= 3 ? std::stoi(args[2]) : 8;
  const auto output_bytes = args.size() == 4 ? std::stoul(args[3]) : 120;
  // One task per 2 ms, the newest DAYS_AGO days ago; IDs are unique by time.
  const auto newest =
    std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now()) -
    std::chrono::hours(24 * days_ago);
  const std::string output(output_bytes, 'x');
  for (std::size_t i = 0; i < count; ++i) {
    const TimePoint created = newest - std::chrono::milliseconds(2 * (count - i));
    TaskRecord record = finished_record(dir, created, i);
    record.output.bytes = output.size();
    write_file(dir.fd(), bgtask::status_file_name(record.id), bgtask::encode_record(record));
    write_file(dir.fd(), bgtask::output_file_name(record.id), output);
    write_file(dir.fd(), bgtask::lock_file_name(record.id), "");
  }
  return 0;
}

struct Stats
{
  std::size_t n = 0;
  double median = 0, p10 = 0, p90 = 0, mean = 0, min = 0, max = 0;
};

Stats summarize(std::vector<double> values)
{
  Stats s;
  s.n = values.size();
  if (values.empty()) {
    return s;
  }
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
  };
  s.median = at(0.5);
  s.p10 = at(0.1);
  s.p90 = at(0.9);
  s.min = values.front();
  s.max = values.back();
  double sum = 0;
  for (const double v : values) {
    sum += v;
  }
  s.mean = sum / static_cast<double>(values.size());
  return s;
}

std::string stats_json(const Stats& s)
{
  char buffer[256];
  std::snprintf(buffer, sizeof buffer,
                "{\"n\":%zu,\"median\":%.3f,\"p10\":%.3f,\"p90\":%.3f,\"mean\":%.3f,\"min\":%.3f,"
                "\"max\":%.3f}",
                s.n, s.median, s.p10, s.p90, s.mean, s.min, s.max);
  return buffer;
}

// Spawns `argv` with stdout (and, with quiet stderr, stderr) on /dev/null.
enum class QuietStderr { yes, no };

pid_t spawn(const std::vector<std::string>& argv, QuietStderr quiet,
            const std::vector<std::string>& env_overrides = {})
{
  std::vector<char*> c_env;
  for (const auto& entry : env_overrides) {
    c_env.push_back(const_cast<char*>(entry.c_str()));
  }
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view name(*entry, std::strcspn(*entry, "="));
    const bool overridden =
      std::any_of(env_overrides.begin(), env_overrides.end(), [&](const std::string& o) {
        return o.size() > name.size() && o.compare(0, name.size(), name) == 0 &&
               o[name.size()] == '=';
      });
    if (!overridden) {
      c_env.push_back(*entry);
    }
  }
  c_env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (quiet == QuietStderr::yes) {
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  std::vector<char*> c_argv;
  for (const auto& a : argv) {
    c_argv.push_back(const_cast<char*>(a.c_str()));
  }
  c_argv.push_back(nullptr);
  pid_t pid = 0;
  const int err = ::posix_spawnp(&pid, c_argv[0], &actions, nullptr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    die("cannot run " + argv[0] + ": " + std::strerror(err));
  }
  return pid;
}

struct Exit
{
  int code = 0;
  double cpu_ms = 0; // user + system time of the process and the children it waited for
};

Exit wait_exit(pid_t pid)
{
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      die(std::string("wait4: ") + std::strerror(errno));
    }
  }
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return Exit{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
              ms(usage.ru_utime) + ms(usage.ru_stime)};
}

struct Candidate
{
  std::string name;
  std::vector<std::string> env;
  std::vector<std::string> argv;
  // The untimed command run after each timed one (::after), if any.
  std::vector<std::string> after_env;
  std::vector<std::string> after_argv;
  std::vector<double> times_ms;
  std::vector<double> cpu_ms;
  std::size_t failures = 0;
};

// Until every process the timed command left behind has ended: latency is a
// subreaper, so whatever a tool detaches (a supervisor, a job runner, the
// command itself) is its child once orphaned. Dies after a minute, naming
// the candidate, rather than hang on a tool that leaves a server behind.
void settle_descendants(const std::string& name)
{
  static std::string stuck;
  stuck = "latency: processes left behind by " + name + " still running after 60 s\n";
  struct sigaction on_alarm
  {
  };
  on_alarm.sa_handler = [](int) {
    static_cast<void>(::write(2, stuck.data(), stuck.size()));
    ::_exit(1);
  };
  ::sigaction(SIGALRM, &on_alarm, nullptr);
  ::alarm(60);
  int status = 0;
  while (::wait(&status) >= 0 || errno == EINTR) {
  }
  ::alarm(0);
}

int latency(const std::vector<std::string>& args)
{
  if (args.size() < 4) {
    die("usage: latency RUNS WARMUP NAME CMD... [::after CMD...] [::: NAME CMD...]...");
  }
  const auto runs = std::stoul(args[0]);
  const auto warmup = std::stoul(args[1]);
  std::vector<Candidate> candidates;
  bool after = false;
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (args[i] == ":::" || candidates.empty()) {
      if (args[i] == ":::") {
        ++i;
      }
      after = false;
      if (i >= args.size()) {
        die("latency: missing NAME after :::");
      }
      candidates.push_back(Candidate{args[i], {}, {}, {}, {}, {}, {}, 0});
      continue;
    }
    auto& c = candidates.back();
    if (args[i] == "::after") {
      after = true;
      continue;
    }
    auto& env = after ? c.after_env : c.env;
    auto& argv = after ? c.after_argv : c.argv;
    const bool assignment = argv.empty() && args[i].find('=') != std::string::npos &&
                            args[i].find('/') > args[i].find('=');
    (assignment ? env : argv).push_back(args[i]);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // A new order each round (fixed seed: runs repeat): on a VM where a
  // process's start depends on which CPU the one before left it on, a
  // fixed rotation gives each command the same predecessor every time.
  std::vector<Candidate*> order;
  for (auto& c : candidates) {
    order.push_back(&c);
  }
  std::mt19937 shuffle_seed(1);
  for (std::size_t round = 0; round < warmup + runs; ++round) {
    std::shuffle(order.begin(), order.end(), shuffle_seed);
    for (Candidate* candidate : order) {
      auto& c = *candidate;
      if (c.argv.empty()) {
        die("latency: no command for " + c.name);
      }
      const auto begin = clock_ns(CLOCK_MONOTONIC);
      const Exit exit = wait_exit(spawn(c.argv, QuietStderr::yes, c.env));
      const auto end = clock_ns(CLOCK_MONOTONIC);
      if (!c.after_argv.empty()) {
        wait_exit(spawn(c.after_argv, QuietStderr::yes, c.after_env));
      }
      settle_descendants(c.name);
      if (round < warmup) {
        continue;
      }
      if (exit.code != 0) {
        ++c.failures;
      }
      c.times_ms.push_back(static_cast<double>(end - begin) / 1e6);
      c.cpu_ms.push_back(exit.cpu_ms);
    }
  }
  std::cout << '{';
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    std::string stats = stats_json(summarize(c.times_ms));
    char cpu[64];
    std::snprintf(cpu, sizeof cpu, ",\"cpu_median\":%.3f", summarize(c.cpu_ms).median);
    stats.insert(stats.size() - 1, ",\"failures\":" + std::to_string(c.failures) + cpu);
    std::cout << (i > 0 ? "," : "") << '"' << c.name << "\":" << stats;
  }
  std::cout << "}\n";
  return 0;
}

int sleep_stamp(const std::vector<std::string>& args)
{
  if (args.size() != 2) {
    die("usage: sleep-stamp SECONDS FILE");
  }
  const auto pause = std::chrono::duration<double>(std::stod(args[0]));
  std::this_thread::sleep_for(pause);
  const std::string stamp = std::to_string(clock_ns(CLOCK_REALTIME)) + "\n";
  const int fd = ::open(args[1].c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::write(fd, stamp.data(), stamp.size()) != static_cast<ssize_t>(stamp.size())) {
    return 1;
  }
  ::close(fd);
  ::_exit(0);
}

int exit_time(const std::vector<std::string>& args)
{
  if (args.empty()) {
    die("usage: exit-time CMD...");
  }
  const int code = wait_exit(spawn(args, QuietStderr::no)).code;
  const auto at = clock_ns(CLOCK_REALTIME);
  std::cout << at << ' ' << code << '\n';
  return 0;
}

int write_probe(const std::vector<std::string>& args)
{
  if (args.size() != 2) {
    die("usage: write-probe DIR RUNS");
  }
  const auto dir = bgtask::TaskDir::open(args[0]);
  const auto runs = std::stoul(args[1]);
  const std::string content(1024, 'x');
  std::vector<double> times_ms;
  for (std::size_t i = 0; i < runs; ++i) {
    const auto begin = clock_ns(CLOCK_MONOTONIC);
    bgtask::replace_file_atomically(dir, "probe", content);
    times_ms.push_back(static_cast<double>(clock_ns(CLOCK_MONOTONIC) - begin) / 1e6);
  }
  ::unlinkat(dir.fd(), "probe", 0);
  std::cout << stats_json(summarize(times_ms)) << '\n';
  return 0;
}

int create_probe(const std::vector<std::string>& args)
{
  if (args.size() != 2) {
    die("usage: create-probe DIR RUNS");
  }
  const auto dir = bgtask::TaskDir::open(args[0]);
  const auto runs = std::stoul(args[1]);
  std::vector<double> times_ms;
  for (std::size_t i = 0; i < runs; ++i) {
    const std::string name =
      ".create-probe-" + std::to_string(::getpid()) + "-" + std::to_string(i);
    const auto begin = clock_ns(CLOCK_MONOTONIC);
    const int fd = ::openat(dir.fd(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    times_ms.push_back(static_cast<double>(clock_ns(CLOCK_MONOTONIC) - begin) / 1e6);
    if (fd < 0) {
      die("create-probe: " + name + ": " + std::strerror(errno));
    }
    ::close(fd);
  }
  std::cout << stats_json(summarize(times_ms)) << '\n';
  return 0;
}

int floor_cancel(const std::vector<std::string>& args)
{
  if (args.size() != 2) {
    die("usage: floor-cancel DIR COUNT");
  }
  const auto dir = bgtask::TaskDir::open(args[0]);
  const auto count = std::stoul(args[1]);
  ::mkdirat(dir.fd(), ".parked", 0700);
  const UniqueFd parked(::openat(dir.fd(), ".parked", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parked) {
    die("cannot open .parked: " + std::string(std::strerror(errno)));
  }
  const auto newest =
    std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < count; ++i) {
    TaskRecord record =
      finished_record(dir, newest - std::chrono::milliseconds(2 * (count - i)), i);
    record.state = bgtask::TaskState::queued;
    write_file(dir.fd(), bgtask::status_file_name(record.id), bgtask::encode_record(record));
    write_file(dir.fd(), bgtask::output_file_name(record.id), "");
    write_file(dir.fd(), bgtask::lock_file_name(record.id), "");
    write_file(parked.get(), record.id + "+q", "");
    ids.push_back(record.id);
  }
  ::syncfs(dir.fd());
  constexpr std::size_t k_batch = 256; // as cancel_parked_tasks, in its order
  const auto begin = clock_ns(CLOCK_MONOTONIC);
  rusage before{};
  ::getrusage(RUSAGE_SELF, &before);
  std::string text;
  for (std::size_t from = 0; from < count; from += k_batch) {
    const std::size_t to = std::min(count, from + k_batch);
    for (std::size_t i = from; i < to; ++i) {
      const auto name = bgtask::status_file_name(ids[i]);
      text.clear();
      if (const UniqueFd in(::openat(dir.fd(), name.c_str(), O_RDONLY | O_CLOEXEC));
          !in || bgtask::read_all(in.get(), text, std::size_t{1} << 20) != 0) {
        die("cannot read " + name);
      }
      write_file(dir.fd(), name + ".tmp", text);
    }
    ::syncfs(dir.fd());
    for (std::size_t i = from; i < to; ++i) {
      const auto name = bgtask::status_file_name(ids[i]);
      if (::renameat(dir.fd(), (name + ".tmp").c_str(), dir.fd(), name.c_str()) != 0) {
        die("cannot replace " + name + ": " + std::strerror(errno));
      }
    }
    ::syncfs(dir.fd());
    for (std::size_t i = from; i < to; ++i) {
      if (::unlinkat(parked.get(), (ids[i] + "+q").c_str(), 0) != 0) {
        die("cannot remove the parked file of " + ids[i] + ": " + std::strerror(errno));
      }
    }
  }
  rusage after{};
  ::getrusage(RUSAGE_SELF, &after);
  const double wall_ms = static_cast<double>(clock_ns(CLOCK_MONOTONIC) - begin) / 1e6;
  const auto ms = [](const timeval& a, const timeval& b) {
    return static_cast<double>(b.tv_sec - a.tv_sec) * 1e3 +
           static_cast<double>(b.tv_usec - a.tv_usec) / 1e3;
  };
  const double cpu_ms = ms(before.ru_utime, after.ru_utime) + ms(before.ru_stime, after.ru_stime);
  std::printf("{\"wall_ms\":%.1f,\"cpu_ms\":%.1f,\"per_task_ms\":%.4f}\n", wall_ms, cpu_ms,
              wall_ms / static_cast<double>(count));
  return 0;
}

// The first record of a task, as the floors write it: running, one event.
TaskRecord first_record(const bgtask::TaskDir& dir)
{
  TaskRecord record = finished_record(dir, bgtask::now(), 0);
  record.state = bgtask::TaskState::running;
  record.finished_at.reset();
  record.events.resize(1);
  return record;
}

int floor_start(const std::vector<std::string>& args)
{
  if (args.size() != 1) {
    die("usage: floor DIR");
  }
  const auto dir = bgtask::TaskDir::open(args[0]);
  const TaskRecord record = first_record(dir);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    die(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t child = ::fork();
  if (child < 0) {
    die(std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    ::close(report[0]);
    bgtask::replace_file_atomically(dir, bgtask::status_file_name(record.id),
                                    bgtask::encode_record(record));
    const char done = '0';
    ::_exit(::write(report[1], &done, 1) == 1 ? 0 : 1);
  }
  ::close(report[1]);
  char done = 0;
  while (::read(report[0], &done, 1) < 0 && errno == EINTR) {
  }
  return done == '0' ? 0 : 1;
}

enum class FinalRecord { no, yes };
enum class Promises { no, yes };

// floor-promises, in the CLI: the task's ID claimed under the directory's
// newest-ID lock (per boot), then its lock file created and its owner byte
// locked. Returns the lock file's descriptor.
int claim_task(int dir_fd, const std::string& id)
{
  ::mkdirat(dir_fd, ".cache", 0700);
  const int newest =
    ::openat(dir_fd, ".cache/newest", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  char hint[256];
  unsigned char random[3];
  if (newest < 0 || ::flock(newest, LOCK_EX) != 0 || ::pread(newest, hint, sizeof hint, 0) < 0 ||
      ::getrandom(random, sizeof random, 0) != sizeof random) {
    die(std::string("floor-promises: newest ID: ") + std::strerror(errno));
  }
  bgtask::read_small_file("/proc/sys/kernel/random/boot_id", 4096);
  // The key of the records' fingerprints (made by the first start).
  char key[32];
  int key_fd = ::openat(dir_fd, "fingerprint.key", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (key_fd < 0) {
    key_fd = ::openat(dir_fd, "fingerprint.key", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    static_cast<void>(::getrandom(key, sizeof key, 0));
    static_cast<void>(::write(key_fd, key, sizeof key));
  } else {
    struct stat key_file
    {
    };
    ::fstat(key_fd, &key_file);
    static_cast<void>(::read(key_fd, key, sizeof key));
  }
  ::close(key_fd);
  const int lock = ::openat(dir_fd, bgtask::lock_file_name(id).c_str(),
                            O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  struct flock owner
  {
  };
  owner.l_type = F_WRLCK;
  owner.l_len = 1;
  const std::string line = id + "\n";
  if (lock < 0 || ::fcntl(lock, F_OFD_SETLK, &owner) != 0 ||
      ::pwrite(newest, line.data(), line.size(), 0) < 0) {
    die(std::string("floor-promises: lock file: ") + std::strerror(errno));
  }
  ::close(newest);
  return lock;
}

// floor-promises, in the child before the command: detached from the
// caller's session and terminal, a subreaper, signals read through a
// signalfd, room for the final record reserved in the lock file, the
// output's bound watched (a hole punched where it is trimmed, an inotify
// watch for its writes).
void become_supervisor(int lock, int output)
{
  ::setsid();
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  ::dup2(null, 0);
  ::dup2(null, 1);
  ::dup2(null, 2);
  ::close(null);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t signals;
  sigemptyset(&signals);
  for (const int signal : {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGTERM, SIGCHLD}) {
    sigaddset(&signals, signal);
  }
  ::sigprocmask(SIG_BLOCK, &signals, nullptr);
  ::signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
  ::fallocate(lock, 0, 0, 64 * 1024);
  struct stat output_file
  {
  };
  ::fstat(output, &output_file);
  ::fallocate(output, FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, 0, 4096);
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ::inotify_add_watch(watch, ("/proc/self/fd/" + std::to_string(output)).c_str(), IN_MODIFY);
}

// floor-promises, in the child once the command's process exists: the
// identities the record names, read as bgtask reads them.
void read_identities(pid_t command)
{
  bgtask::read_small_file(("/proc/" + std::to_string(command) + "/stat").c_str(), 4096);
  bgtask::read_small_file("/proc/self/stat", 4096);
  bgtask::read_small_file("/proc/self/timens_offsets", 4096);
  unsigned char instance[16];
  static_cast<void>(::getrandom(instance, sizeof instance, 0));
  utsname host{};
  ::uname(&host);
  struct stat namespace_file
  {
  };
  ::stat("/proc/self/ns/pid", &namespace_file);
  char link[64];
  static_cast<void>(::readlink("/proc/self/ns/time", link, sizeof link));
}

// What the floors' command's process is given.
struct CommandStart
{
  char* const* argv;
  int output;
  int go_read;
  int go_write;
  bool own_group; // floor-promises
};

// The floors' command's process, forked as bgtask forks it. Its output is
// set before the record, so the exec is all that is left after it.
pid_t start_command(const CommandStart& start)
{
  const pid_t pid = ::fork();
  if (pid != 0) {
    return pid;
  }
  ::close(start.go_write);
  if (start.own_group) {
    // Its own process group, the supervisor's blocked signals unblocked.
    sigset_t no_signals;
    sigemptyset(&no_signals);
    ::setpgid(0, 0);
    ::sigprocmask(SIG_SETMASK, &no_signals, nullptr);
  }
  char byte = 0;
  if (::dup2(start.output, 1) == 1 && ::dup2(start.output, 2) == 2 &&
      ::read(start.go_read, &byte, 1) == 1) {
    ::execve(start.argv[0], start.argv, environ);
  }
  ::_exit(127);
}

// floor-exec; with FinalRecord::yes floor-task, with Promises::yes
// floor-promises.
int floor_run(const std::vector<std::string>& args, FinalRecord final_record, Promises promises)
{
  if (args.size() != 2) {
    die(std::string("usage: ") +
        (final_record == FinalRecord::yes
           ? "floor-task"
           : (promises == Promises::yes ? "floor-promises" : "floor-exec")) +
        " DIR PROGRAM");
  }
  const auto dir = bgtask::TaskDir::open(args[0]);
  const TaskRecord record = first_record(dir);
  char* const argv[] = {const_cast<char*>(args[1].c_str()), nullptr};
  const int lock = promises == Promises::yes ? claim_task(dir.fd(), record.id) : -1;
  // The file the command's output goes to: a task's output is kept.
  const std::string output_name = bgtask::output_file_name(record.id);
  const int output = ::openat(dir.fd(), output_name.c_str(),
                              O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
  int notice[2];
  int report[2] = {-1, -1};
  if (output < 0 || ::pipe2(notice, O_CLOEXEC) != 0 ||
      (promises == Promises::yes && ::pipe2(report, O_CLOEXEC) != 0)) {
    die(std::string("floor-exec: ") + std::strerror(errno));
  }
  const pid_t child = ::fork();
  if (child < 0) {
    die(std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    ::close(notice[0]);
    if (promises == Promises::yes) {
      ::close(report[0]);
      become_supervisor(lock, output);
    }
    int go[2];
    if (::pipe2(go, O_CLOEXEC) != 0) {
      ::_exit(1);
    }
    CommandStart start{argv, output, go[0], go[1], promises == Promises::yes};
    const pid_t command = start_command(start);
    ::close(go[0]);
    ::close(notice[1]);
    struct flock update
    {
    };
    update.l_start = 1;
    update.l_len = 1;
    if (promises == Promises::yes) {
      ::setpgid(command, command);
      read_identities(command);
      update.l_type = F_WRLCK;
      ::fcntl(lock, F_OFD_SETLKW, &update);
    }
    bgtask::replace_file_atomically(dir, bgtask::status_file_name(record.id),
                                    bgtask::encode_record(record));
    if (promises == Promises::yes) {
      update.l_type = F_UNLCK;
      ::fcntl(lock, F_OFD_SETLK, &update);
      static_cast<void>(::write(report[1], "0\n", 2));
    }
    const char go_byte = 'g';
    static_cast<void>(::write(go[1], &go_byte, 1));
    int status = 0;
    ::waitpid(command, &status, 0);
    if (final_record == FinalRecord::yes) {
      TaskRecord finished = record;
      finished.state = bgtask::TaskState::succeeded;
      finished.finished_at = bgtask::now();
      finished.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
      bgtask::replace_file_atomically(dir, bgtask::status_file_name(record.id),
                                      bgtask::encode_record(finished));
    }
    ::_exit(0);
  }
  ::close(notice[1]);
  ::close(output);
  char byte = 0;
  ssize_t got = 0;
  while ((got = ::read(notice[0], &byte, 1)) < 0 && errno == EINTR) {
  }
  if (promises == Promises::yes) {
    ::close(report[1]);
    char answer[2] = {};
    if (got != 0 || ::read(report[0], answer, sizeof answer) != 2 || answer[0] != '0') {
      return 1;
    }
  }
  return got == 0 ? 0 : 1;
}

int floor_exec(const std::vector<std::string>& args)
{
  return floor_run(args, FinalRecord::no, Promises::no);
}

int floor_promises(const std::vector<std::string>& args)
{
  return floor_run(args, FinalRecord::no, Promises::yes);
}

int floor_task(const std::vector<std::string>& args)
{
  return floor_run(args, FinalRecord::yes, Promises::no);
}

int reap(const std::vector<std::string>& args)
{
  if (args.empty()) {
    die("usage: reap CMD...");
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const auto begin = clock_ns(CLOCK_MONOTONIC);
  const pid_t pid = spawn(args, QuietStderr::no);
  int code = 0;
  for (;;) {
    int status = 0;
    const pid_t done = ::wait(&status);
    if (done < 0 && errno == EINTR) {
      continue;
    }
    if (done < 0) {
      break; // no child left
    }
    if (done == pid) {
      code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
  }
  const double wall_ms = static_cast<double>(clock_ns(CLOCK_MONOTONIC) - begin) / 1e6;
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  std::printf("{\"wall_ms\":%.1f,\"cpu_ms\":%.1f,\"exit\":%d}\n", wall_ms,
              ms(usage.ru_utime) + ms(usage.ru_stime), code);
  return 0;
}

int stats(const std::vector<std::string>&)
{
  std::vector<double> values;
  double v = 0;
  while (std::cin >> v) {
    values.push_back(v);
  }
  std::cout << stats_json(summarize(values)) << '\n';
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  const std::map<std::string, int (*)(const std::vector<std::string>&)> tools = {
    {"generate", generate},
    {"latency", latency},
    {"sleep-stamp", sleep_stamp},
    {"exit-time", exit_time},
    {"write-probe", write_probe},
    {"create-probe", create_probe},
    {"floor", floor_start},
    {"floor-exec", floor_exec},
    {"floor-promises", floor_promises},
    {"floor-task", floor_task},
    {"floor-cancel", floor_cancel},
    {"reap", reap},
    {"stats", stats}};
  if (argc < 2 || tools.count(argv[1]) == 0) {
    die("usage: bgtask-bench generate|latency|sleep-stamp|exit-time|write-probe|create-probe|"
        "floor|floor-exec|floor-promises|floor-task|floor-cancel|reap|stats ARGS...");
  }
  int code = 0;
  try {
    code = tools.at(argv[1])(std::vector<std::string>(argv + 2, argv + argc));
  } catch (const std::exception& e) {
    die(e.what());
  }
  bgtask::exit_process(code); // as bgtask ends: the floors are timed to their exit
}
