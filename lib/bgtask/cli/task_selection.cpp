#include <bgtask/cli/task_selection.hpp>
#include <bgtask/core/queue_name.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <unordered_set>

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

// Of `named` (oldest first, all with one name): the IDs of the newest task,
// with the other elements of its Slurm array or the other tasks of its
// fan-out (`group`) when it is one.
std::unordered_set<std::string> newest_of(const std::vector<const TaskRecord*>& named)
{
  std::unordered_set<std::string> ids;
  if (named.empty()) {
    return ids;
  }
  const TaskRecord& newest = *named.back();
  const std::string array_job = array_job_of(newest);
  for (const TaskRecord* r : named) {
    const bool with_newest = newest.group        ? r->group == newest.group
                             : array_job.empty() ? r == &newest
                                                 : array_job_of(*r) == array_job;
    if (with_newest) {
      ids.insert(r->id);
    }
  }
  return ids;
}

// The IDs of `records` (oldest first) named `name`: every one, or
// newest_of them.
std::unordered_set<std::string> ids_named(const std::vector<TaskRecord>& records,
                                          const std::string& name, bool newest)
{
  std::vector<const TaskRecord*> named;
  for (const auto& record : records) {
    if (record.name == name) {
      named.push_back(&record);
    }
  }
  if (newest) {
    return newest_of(named);
  }
  std::unordered_set<std::string> ids;
  for (const TaskRecord* record : named) {
    ids.insert(record->id);
  }
  return ids;
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
  if (!name && !queue) {
    return selection;
  }
  auto candidates = scan_task_ids(dir);
  if (queue && !name) {
    erase_parked_in_other_queues(dir, *queue, candidates);
  }
  auto records = load_records(dir, candidates, [&](const TaskRecord& r) {
    return (name && r.name == *name) || (queue && r.queue == *queue);
  });
  const auto named_ids =
    name ? ids_named(records, *name, newest_name.has_value()) : std::unordered_set<std::string>{};
  const std::unordered_set<std::string> given(selection.ids.begin(), selection.ids.end());
  std::erase_if(records, [&](const TaskRecord& r) {
    return given.contains(r.id) || !((queue && r.queue == *queue) || named_ids.contains(r.id));
  });
  if (records.empty() && prefixes.empty()) {
    throw_usage(std::string("no task ") +
                (name ? "named '" + escape_for_terminal(*name, KeepNewlines::no) + "'" : "") +
                (name && queue ? " or " : "") + (queue ? "in queue " + *queue : "") + " in " +
                dir.path());
  }
  for (const auto& record : records) {
    selection.ids.push_back(record.id);
  }
  selection.read = std::move(records);
  return selection;
}

} // namespace bgtask
