#include <bgtask/cli/console.hpp>
#include <bgtask/cli/pause_command.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <chrono>
#include <iostream>

namespace bgtask {

namespace {

constexpr Milliseconds k_confirm_limit{10000};

bool confirmed(const TaskRecord& record, PauseAction action)
{
  return is_final(record.state) || record.pause.paused == (action == PauseAction::pause);
}

} // namespace

int change_pause(const GlobalOptions& global, const CommandArgs& args, PauseAction action)
{
  const TaskDir dir = open_task_dir(global);
  const auto ids = resolve_task_ids(dir, args.operands);
  auto records = load_current_records(dir, ids);
  for (const auto& record : records) {
    if (!confirmed(record, action) || record.pause.requested != (action == PauseAction::pause)) {
      request_pause_change(dir, record, action);
    }
  }
  TaskWatcher watcher(dir, WatchOutput::no);
  const auto give_up = std::chrono::steady_clock::now() + k_confirm_limit;
  for (;;) {
    records = load_current_records(dir, ids);
    std::vector<TaskRecord> pending;
    for (const auto& record : records) {
      if (!confirmed(record, action)) {
        pending.push_back(record);
      }
    }
    if (pending.empty()) {
      break;
    }
    if (std::chrono::steady_clock::now() >= give_up) {
      throw Error(ExitCode::failure,
                  "the supervisor of task " + pending.front().id + " did not confirm within 10s");
    }
    watcher.wait_for_change(pending, Milliseconds(200));
  }
  if (args.options.count("json") != 0) {
    print_json(records_to_json(records));
    return 0;
  }
  for (const auto& record : records) {
    std::cout << record.id << ' '
              << (is_final(record.state)         ? for_stdout(state_text(record))
                  : action == PauseAction::pause ? "paused"
                                                 : "resumed")
              << '\n';
  }
  return 0;
}

} // namespace bgtask
