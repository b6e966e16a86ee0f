#include <bgtask/cli/task_selection.hpp>
#include <bgtask/core/queue_name.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>

namespace bgtask {

void add_selection_options(po::options_description& options)
{
  options.add_options()("name", po::value<std::string>()->value_name("N"),
                        "also every task named N")(
    "queue", po::value<std::string>()->value_name("Q"), "also every task of queue Q");
}

std::vector<std::string> select_tasks(const TaskDir& dir, const po::variables_map& vm,
                                      const std::vector<std::string>& prefixes)
{
  const auto name = optional_value<std::string>(vm, "name");
  const auto queue = optional_value<std::string>(vm, "queue");
  if (queue) {
    check_queue_name(*queue);
  }
  if (prefixes.empty() && !name && !queue) {
    throw_usage("give at least one task ID, --name N or --queue Q");
  }
  auto ids = resolve_task_ids(dir, prefixes);
  if (name || queue) {
    std::vector<std::string> matching;
    for (auto& record : load_records(dir, [&](const TaskRecord& r) {
           return ((name && r.name == *name) || (queue && r.queue == *queue)) &&
                  std::find(ids.begin(), ids.end(), r.id) == ids.end();
         })) {
      matching.push_back(std::move(record.id));
    }
    if (matching.empty() && prefixes.empty()) {
      throw_usage(std::string("no task ") +
                  (name ? "named '" + escape_for_terminal(*name, KeepNewlines::no) + "'" : "") +
                  (name && queue ? " or " : "") + (queue ? "in queue " + *queue : "") + " in " +
                  dir.path());
    }
    ids.insert(ids.end(), matching.begin(), matching.end());
  }
  return ids;
}

} // namespace bgtask
