#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/start_options.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/exec/group_start.hpp>
#include <bgtask/exec/start_plan.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/decimal_count.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <fcntl.h>
#include <functional>
#include <iostream>

namespace bgtask {

po::options_description start_options()
{
  po::options_description options;
  add_start_options(options);
  add_array_option(options);
  options.add_options()("quiet,q",
                        "print no ID (a cron line that prints nothing is mailed nothing)")(
    "each-line", po::value<std::string>()->value_name("FILE|-"),
    "a task per line of FILE (- : stdin): {} in the command's words is the line, "
    "and BGTASK_ITEM too\n"
    "An empty line is a task too. `{}` is never replaced inside a `-c` string, and never "
    "through a shell. The tasks share the other options. With `--name N` the start prints N "
    "once instead of the IDs, and `wait --name N`, `cancel --name N` and `list --name N "
    "--summary` act on the whole group (the record field `group`). With `--queue` or `--after`, "
    "their records are made durable 1,024 at a time with one sync, and each group's IDs are "
    "printed, in input order, once it is durable. A start that fails half-way exits 1 and says "
    "how many tasks started and where to go on (`--resume N`).")(
    "resume", po::value<std::string>()->value_name("N"),
    "with --each-line or a local --array: skip the first N lines or indices (where a start "
    "that failed said to go on)\n"
    "After a crash, N is the count of the group's tasks (`list --name N --summary`, before "
    "`cleanup`): a start makes its tasks durable in input order. With `--name`, the tasks "
    "join the group of the newest task of that name.");
  return options;
}

namespace {

// The most bytes --each-line reads.
constexpr std::size_t k_max_each_line_bytes = 256 * 1024 * 1024;

// The lines of FILE (or stdin for `-`), each a task: every line, an empty
// one too, but for the end of the last one. Throws Error(usage).
std::vector<std::string> read_item_lines(const std::string& source)
{
  UniqueFd file;
  int fd = 0;
  if (source != "-") {
    file = UniqueFd(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file) {
      throw_system("--each-line: cannot open " + source, errno);
    }
    fd = file.get();
  }
  std::string text;
  if (const int err = read_all(fd, text, k_max_each_line_bytes); err != 0) {
    throw_system("--each-line: cannot read " + source, err);
  }
  std::vector<std::string> lines;
  for (const auto part : split(text, '\n', EmptyParts::keep)) {
    lines.emplace_back(part);
  }
  if (!lines.empty() && lines.back().empty()) {
    lines.pop_back();
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find('\0') != std::string::npos) {
      throw_usage("--each-line: line " + std::to_string(i + 1) +
                  " holds a NUL byte, which no command line can carry");
    }
  }
  return lines;
}

// Where the IDs of a group start go: one per line, or with --name the
// name alone, once (the group answers to it: wait --name, cancel --name).
class GroupPrinter
{
public:
  explicit GroupPrinter(const po::variables_map& vm)
    : m_quiet(vm.count("quiet") != 0),
      m_name(optional_value<std::string>(vm, "name"))
  {
  }

  void operator()(const std::vector<std::string>& ids)
  {
    if (!m_quiet && !m_name) {
      for (const auto& id : ids) {
        std::cout << id << '\n';
      }
    } else if (!m_quiet && !m_named && !ids.empty()) {
      std::cout << *m_name << '\n';
      m_named = true;
    }
    std::cout.flush();
  }

private:
  bool m_quiet;
  std::optional<std::string> m_name;
  bool m_named = false;
};

// The group a resumed start joins: that of the newest task named as it is.
std::optional<std::string> resumed_group(const TaskDir& dir, const std::optional<std::string>& name)
{
  if (!name) {
    return std::nullopt;
  }
  auto named = load_records(dir, [&](const TaskRecord& r) { return r.name == *name; });
  return named.empty() ? std::nullopt : named.back().group;
}

int start_items(const GlobalOptions& global, const po::variables_map& vm, StartPlan plan,
                const std::vector<GroupItem>& items, std::size_t resume)
{
  const TaskDir dir = open_task_dir(global);
  auto group = resume > 0 ? resumed_group(dir, plan.request.record.name) : std::nullopt;
  GroupPrinter print(vm);
  start_group(dir, std::move(plan), items, resume, std::move(group), std::ref(print));
  if (!std::cout) {
    throw Error(ExitCode::failure, "tasks started, but their IDs could not be written");
  }
  return 0;
}

int run_start_each_line(const GlobalOptions& global, const CommandArgs& args,
                        const std::string& source)
{
  const auto& vm = args.options;
  if (vm.count("array") != 0) {
    throw_usage("--each-line and --array cannot be used together");
  }
  StartPlan plan = plan_start(parse_start_options(vm, args.command));
  std::size_t resume = 0;
  if (auto text = optional_value<std::string>(vm, "resume")) {
    resume = value_or_usage(parse_count(*text, "--resume"));
  }
  const auto lines = read_item_lines(source);
  std::vector<GroupItem> items;
  for (std::size_t i = resume; i < lines.size(); ++i) {
    items.push_back(GroupItem{lines[i], {"BGTASK_ITEM=" + lines[i]}});
  }
  return start_items(global, vm, std::move(plan), items, resume);
}

// A local --array: a task per index, with BGTASK_ARRAY_INDEX as the Slurm
// executor sets it.
int run_start_local_array(const GlobalOptions& global, const CommandArgs& args, StartPlan plan)
{
  const auto& vm = args.options;
  std::size_t resume = 0;
  if (auto text = optional_value<std::string>(vm, "resume")) {
    resume = value_or_usage(parse_count(*text, "--resume"));
  }
  const auto& indices = plan.array->indices;
  std::vector<GroupItem> items;
  for (std::size_t i = resume; i < indices.size(); ++i) {
    items.push_back(GroupItem{std::nullopt, {"BGTASK_ARRAY_INDEX=" + std::to_string(indices[i])}});
  }
  return start_items(global, vm, std::move(plan), items, resume);
}

} // namespace

int run_start(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  if (auto source = optional_value<std::string>(vm, "each-line")) {
    return run_start_each_line(global, args, *source);
  }
  StartPlan plan = plan_start(parse_start_options(vm, args.command));
  if (plan.array && plan.request.record.executor == k_local_executor) {
    return run_start_local_array(global, args, std::move(plan));
  }
  if (vm.count("resume") != 0) {
    throw_usage("--resume needs --each-line or a local --array");
  }
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
