#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/start_options.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/exec/start_plan.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <iostream>

namespace bgtask {

namespace {

// The names `original` was started with that `entries` do not set.
std::vector<std::string> missing_env_names(const TaskRecord& original,
                                           const std::vector<std::string>& entries)
{
  std::vector<std::string> missing;
  for (const auto& name : original.env_names) {
    const bool given = std::any_of(entries.begin(), entries.end(),
                                   [&](const std::string& e) { return e.starts_with(name + "="); });
    if (!given) {
      missing.push_back(name);
    }
  }
  return missing;
}

} // namespace

po::options_description rerun_options()
{
  po::options_description options;
  add_env_options(options);
  return options;
}

int run_rerun(const GlobalOptions& global, const CommandArgs& args)
{
  auto env = env_from_options(args.options);
  const TaskDir dir = open_task_dir(global);
  const TaskRecord original = load_current_record(dir, resolve_task_id(dir, args.operands.front()));
  const auto missing = missing_env_names(original, env);
  StartResult result = start_task(dir, plan_start(options_to_rerun(original, std::move(env))));
  require_durable_record(dir, result);
  std::cout << result.id << std::endl;
  if (!missing.empty()) {
    std::string names;
    for (const auto& name : missing) {
      names += (names.empty() ? "" : ", ") + name;
    }
    std::cerr << "bgtask: task " << original.id << " was started with --env " << names
              << "; not given to this rerun: " << names << " (values are never stored)\n";
  }
  require_launched(result);
  return 0;
}

} // namespace bgtask
