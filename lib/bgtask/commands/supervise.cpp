#include <bgtask/commands/commands.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <sys/prctl.h>

namespace bgtask {

// `bgtask __supervise ID LOCK_FD [SLOT_FD SLOT_INDEX]`: what a hand-off
// execs for each task it admits. Does not return while it supervises; exits
// 1 if the descriptors do not hold the task's claims.
int run_supervise(const GlobalOptions& global, const CommandArgs& args)
{
  const auto handles = parse_supervise_words(args.operands);
  if (!handles) {
    throw_usage("__supervise: " + handles.error());
  }
  ::prctl(PR_SET_NAME, "bgtask"); // not `exe`, from the /proc/self/exe it was run as
  const auto dir = TaskDir::open_existing(TaskDir::resolve_path(global.dir));
  if (!dir) {
    throw Error(ExitCode::failure, "__supervise: no task directory");
  }
  throw Error(ExitCode::failure, "__supervise: " + supervise_admitted_task(*dir, *handles));
}

} // namespace bgtask
