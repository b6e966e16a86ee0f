#include <bgtask/cli/task_selection.hpp>
#include <bgtask/core/queue_name.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <iterator>

namespace bgtask {

namespace {

// The Slurm array job an element belongs to (`ARRAYJOB` of
// `ARRAYJOB_INDEX`), or "" for any other task.
std::string array_job_of(const TaskRecord& record)
{
  if (!record.slurm || !record.slurm->array_index) {
    return "";
  }
  return record.slurm->job_id.substr(0, record.slurm->job_id.find('_'));
}

// Of `named` (oldest first, all with one name): the newest task, with the
// other elements of its Slurm array or the other tasks of its fan-out
// (`group`) when it is one.
std::vector<TaskRecord> newest_of(std::vector<TaskRecord> named)
{
  if (named.empty()) {
    return named;
  }
  if (const auto group = named.back().group) {
    std::erase_if(named, [&](const TaskRecord& r) { return r.group != group; });
    return named;
  }
  const std::string array_job = array_job_of(named.back());
  if (array_job.empty()) {
    return {std::move(named.back())};
  }
  std::erase_if(named, [&](const TaskRecord& r) { return array_job_of(r) != array_job; });
  return named;
}

} // namespace

void add_selection_options(po::options_description& options)
{
  options.add_options()("name", po::value<std::string>()->value_name("N"),
                        "also the newest task named N (a whole array or --each-line group)")(
    "all-named", po::value<std::string>()->value_name("N"), "also every task named N")(
    "queue", po::value<std::string>()->value_name("Q"),
    "also every task of queue Q\n"
    "Those in the directory when the command starts, finished ones included; an empty "
    "selection is an error (exit 2).");
}

bool selects_by_record(const po::variables_map& vm)
{
  return vm.count("name") != 0 || vm.count("all-named") != 0 || vm.count("queue") != 0;
}

std::vector<std::string> select_tasks(const TaskDir& dir, const po::variables_map& vm,
                                      const std::vector<std::string>& prefixes)
{
  return select_tasks_and_records(dir, vm, prefixes).ids;
}

TaskSelection select_tasks_and_records(const TaskDir& dir, const po::variables_map& vm,
                                       const std::vector<std::string>& prefixes)
{
  const auto newest_name = optional_value<std::string>(vm, "name");
  const auto all_named = optional_value<std::string>(vm, "all-named");
  if (newest_name && all_named) {
    throw_usage("give either --name N (the newest task of that name) or --all-named N");
  }
  const auto name = newest_name ? newest_name : all_named;
  const auto queue = optional_value<std::string>(vm, "queue");
  if (queue) {
    check_queue_name(*queue);
  }
  if (prefixes.empty() && !name && !queue) {
    throw_usage("give at least one task ID, --name N, --all-named N or --queue Q");
  }
  TaskSelection selection{resolve_task_ids(dir, prefixes), {}};
  auto& ids = selection.ids;
  if (name || queue) {
    auto records = load_records(dir, [&](const TaskRecord& r) {
      return (name && r.name == *name) || (queue && r.queue == *queue);
    });
    std::vector<TaskRecord> named;
    std::copy_if(records.begin(), records.end(), std::back_inserter(named),
                 [&](const TaskRecord& r) { return name && r.name == *name; });
    if (newest_name) {
      named = newest_of(std::move(named));
    }
    const auto is_named = [&](const TaskRecord& r) {
      return std::any_of(named.begin(), named.end(),
                         [&](const TaskRecord& n) { return n.id == r.id; });
    };
    std::vector<std::string> matching;
    for (auto& record : records) {
      if (((queue && record.queue == *queue) || is_named(record)) &&
          std::find(ids.begin(), ids.end(), record.id) == ids.end()) {
        matching.push_back(record.id);
        selection.read.push_back(std::move(record));
      }
    }
    if (matching.empty() && prefixes.empty()) {
      throw_usage(std::string("no task ") +
                  (name ? "named '" + escape_for_terminal(*name, KeepNewlines::no) + "'" : "") +
                  (name && queue ? " or " : "") + (queue ? "in queue " + *queue : "") + " in " +
                  dir.path());
    }
    ids.insert(ids.end(), matching.begin(), matching.end());
  }
  return selection;
}

} // namespace bgtask
