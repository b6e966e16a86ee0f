// The supervisor is a fork of the CLI: an exception in it must end the
// task with the reason and exit the process, never unwind into the code
// that forked it.

#include <bgtask/exec/local/parked_launch.hpp>
#include <bgtask/exec/local/supervisor.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <fcntl.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

using bgtask::TaskRecord;
using bgtask::TaskState;

namespace {

constexpr int k_unwound = 99;

TaskRecord throwing_reconcile(const bgtask::TaskDir&, TaskRecord)
{
  throw std::runtime_error("reconciler exploded");
}

TaskRecord new_record(const std::string& id, const std::filesystem::path& root)
{
  TaskRecord r;
  r.id = id;
  r.command = {"true"};
  r.cwd = "/";
  r.state = TaskState::queued;
  r.created_at = bgtask::now();
  r.output.path = (root / bgtask::output_file_name(id)).string();
  return r;
}

std::string read_all(int fd)
{
  std::string text;
  char buffer[512];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

} // namespace

TEST(SupervisorChild, AnExceptionInTheHandOffNeitherUnwindsNorChangesTheOutcome)
{
  const TempRoot root("supervisor-exception");
  const auto dir = bgtask::TaskDir::open(root.path().string());
  // A parked task waits for a running one, so the hand-off of the
  // supervisor asks the reconciler about that one, which throws.
  TaskRecord dependency = new_record("01hx2k3m4n5a", root.path());
  dependency.state = TaskState::running;
  bgtask::save_record(dir, dependency);
  TaskRecord parked = new_record("01hx2k3m4n5c", root.path());
  parked.after = {dependency.id};
  parked.waiting_for = bgtask::WaitingFor::after;
  bgtask::save_record(dir, parked);
  bgtask::park_tasks(dir, {bgtask::ParkedEntry{parked.id, std::nullopt}}, {});
  TaskRecord record = new_record("01hx2k3m4n5b", root.path());

  auto lock = bgtask::TaskLock::create_owned(dir, record.id);
  ASSERT_TRUE(lock);
  bgtask::UniqueFd output(::openat(dir.fd(), bgtask::output_file_name(record.id).c_str(),
                                   O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600));
  bgtask::UniqueFd report_read;
  bgtask::UniqueFd report_write;
  ASSERT_TRUE(bgtask::make_pipe(report_read, report_write));
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    report_read.close();
    try {
      bgtask::LaunchRequest request;
      request.record = record;
      request.argv = {"true"};
      bgtask::SupervisorPlan plan{.request = std::move(request),
                                  .lock = std::move(*lock),
                                  .output = std::move(output),
                                  .report = std::move(report_write),
                                  .start_notice = {},
                                  .caller_umask = 022,
                                  .reconcile = &throwing_reconcile,
                                  .cgroup = std::nullopt,
                                  .slot = std::nullopt,
                                  .parked = std::nullopt,
                                  .launch_parked = &bgtask::launch_parked_task,
                                  .caller_stderr = {},
                                  .pty = std::nullopt};
      bgtask::run_supervisor(dir, std::move(plan));
    } catch (...) {
      ::_exit(k_unwound);
    }
    ::_exit(k_unwound + 1);
  }
  report_write.close();
  const std::string report = read_all(report_read.get());
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), k_unwound) << "the exception unwound out of run_supervisor";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(report, "0\n");
  const auto loaded = bgtask::load_record(dir, record.id);
  ASSERT_EQ(loaded.status, bgtask::LoadStatus::ok);
  EXPECT_EQ(loaded.record.state, TaskState::succeeded);
  EXPECT_EQ(bgtask::load_record(dir, parked.id).record.state, TaskState::queued);
}
