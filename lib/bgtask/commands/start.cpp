#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/start_options.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/exec/start_plan.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <iostream>

namespace bgtask {

po::options_description start_options()
{
  po::options_description options;
  add_start_options(options);
  add_array_option(options);
  options.add_options()("quiet,q",
                        "print no ID (a cron line that prints nothing is mailed nothing)");
  return options;
}

int run_start(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  StartPlan plan = plan_start(parse_start_options(vm, args.command));
  const TaskDir dir = open_task_dir(global);
  const StartResult result = start_task(dir, std::move(plan));
  require_durable_record(dir, result);
  if (vm.count("quiet") == 0) {
    for (const auto& id : result.ids) {
      std::cout << id << '\n';
    }
  }
  std::cout.flush();
  if (!std::cout) {
    throw Error(ExitCode::failure,
                result.ids.size() == 1
                  ? "task " + result.id +
                      " started, but its ID could not be written to standard "
                      "output"
                  : std::to_string(result.ids.size()) + " tasks (" + result.id +
                      ", ...) started, but their IDs could not be written to standard output");
  }
  require_launched(result);
  return 0;
}

} // namespace bgtask
