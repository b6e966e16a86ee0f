#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/commands/pause.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>

#include <iostream>

namespace bgtask {

// Also the options of `resume`.
po::options_description pause_options()
{
  po::options_description options;
  options.add_options()("json", "print a JSON array of the records");
  return options;
}

int run_pause_action(const GlobalOptions& global, const CommandArgs& args, PauseAction action)
{
  const TaskDir dir = open_task_dir(global);
  const auto records = change_pause(dir, resolve_task_ids(dir, args.operands), action);
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

int run_pause(const GlobalOptions& global, const CommandArgs& args)
{
  return run_pause_action(global, args, PauseAction::pause);
}

} // namespace bgtask
