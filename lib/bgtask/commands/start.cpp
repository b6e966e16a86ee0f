#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/start_options.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <iostream>

namespace bgtask {

po::options_description start_options()
{
  po::options_description options;
  add_start_options(options);
  return options;
}

int run_start(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  StartPlan plan = build_start_plan(vm, args.command);
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  const StartResult result = start_task(dir, std::move(plan));
  require_durable_record(dir, result);
  std::cout << result.id << std::endl;
  if (!std::cout) {
    throw Error(ExitCode::failure,
                "task " + result.id +
                  " started, but its ID could not be written to standard output");
  }
  require_launched(result);
  return 0;
}

} // namespace bgtask
