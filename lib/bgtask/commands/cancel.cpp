#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/cli/task_selection.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/task_cancel.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <iostream>

namespace bgtask {

namespace {

// Every unfinished task of the directory, oldest first, with its record
// (cancel --all; the cancel reconciles them).
TaskSelection unfinished_tasks(const TaskDir& dir)
{
  TaskSelection selection;
  selection.read = load_records(dir, [](const TaskRecord& r) { return !is_final(r.state); });
  for (const auto& record : selection.read) {
    selection.ids.push_back(record.id);
  }
  return selection;
}

} // namespace

po::options_description cancel_options()
{
  po::options_description options;
  options.add_options()("grace", po::value<std::string>(),
                        "time between TERM and KILL (default: the task's --grace, else 5s)")(
    "json", "print a JSON array of the final records")("quiet,q", "print nothing on success")(
    "all", "every queued or running task of the directory (none is not an error)\n"
           "What a script runs when its session ends.");
  add_selection_options(options);
  return options;
}

int run_cancel(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  const auto& prefixes = args.operands;
  const std::optional<Milliseconds> grace = optional_duration(vm, "grace");
  const TaskDir dir = open_task_dir(global);
  const bool all = vm.count("all") != 0;
  if (all && (!prefixes.empty() || selects_by_record(vm))) {
    throw_usage("bgtask cancel: --all goes without IDs, --name or --queue");
  }
  auto selection = all ? unfinished_tasks(dir) : select_tasks_and_records(dir, vm, prefixes);
  const auto& ids = selection.ids;
  const CancelResult result = cancel_tasks(dir, ids, grace, nullptr, std::move(selection.read));
  // A task whose supervisor did not answer: what is true of it, and exit 76.
  const auto finish = [&] {
    for (const auto& problem : result.unanswered) {
      std::cerr << "bgtask: error: " << escape_for_terminal(problem, KeepNewlines::no) << '\n';
    }
    return result.unanswered.empty() ? 0 : static_cast<int>(ExitCode::unanswered);
  };

  if (vm.count("json") != 0) {
    print_json(records_to_json(result.records));
    return finish();
  }
  if (vm.count("quiet") != 0) {
    return finish();
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::cout << ids[i] << ' ' << (result.was_final[i] ? "already " : "")
              << for_stdout(state_text(result.records[i])) << '\n';
  }
  return finish();
}

} // namespace bgtask
