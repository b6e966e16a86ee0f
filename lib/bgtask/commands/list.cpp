#include <bgtask/commands/commands.hpp>

#include <bgtask/command_line.hpp>
#include <bgtask/console.hpp>
#include <bgtask/reconcile.hpp>
#include <bgtask/record_json.hpp>
#include <bgtask/record_store.hpp>
#include <bgtask/record_view.hpp>
#include <bgtask/task_dir.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <iostream>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{"list", "[--state S[,S...]] [--name N] [--limit N] [--json]",
                                 "Lists tasks, oldest first. Corrupt records are listed as `corrupt`."};

struct Filter
{
  std::vector<std::string> states;
  std::optional<std::string> name;

  bool accepts(const LoadedRecord& entry) const
  {
    const std::string_view state =
      entry.status == LoadStatus::ok ? to_string(entry.record.state) : "corrupt";
    if (!states.empty() && std::find(states.begin(), states.end(), state) == states.end()) {
      return false;
    }
    return !name || (entry.status == LoadStatus::ok && entry.record.name == *name);
  }
};

} // namespace

int run_list(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("Options");
  options.add_options()
    ("state", po::value<std::string>(), "only tasks in these states (comma-separated; `corrupt` too)")
    ("name", po::value<std::string>(), "only tasks with this name")
    ("limit", po::value<std::string>(), "only the N newest of the tasks that match")
    ("json", "print a JSON array of records");
  const auto vm = parse_command_line(k_syntax, options, {}, args);
  if (!vm) {
    return 0;
  }
  Filter filter;
  if (auto states = optional_value<std::string>(*vm, "state")) {
    filter.states = parse_state_list(*states, "corrupt");
  }
  filter.name = optional_value<std::string>(*vm, "name");
  std::optional<std::size_t> limit;
  if (auto text = optional_value<std::string>(*vm, "limit")) {
    limit = parse_count(*text, "--limit");
  }
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));

  std::vector<LoadedRecord> entries;
  for (const auto& id : scan_task_ids(dir)) {
    auto entry = load_record(dir, id);
    if (entry.status == LoadStatus::missing) {
      continue; // removed since the scan
    }
    if (entry.status == LoadStatus::ok) {
      entry.record = reconcile_record(dir, std::move(entry.record));
    }
    if (filter.accepts(entry)) {
      entries.push_back(std::move(entry));
    }
  }
  if (limit && entries.size() > *limit) {
    entries.erase(entries.begin(), entries.end() - static_cast<long>(*limit));
  }

  if (vm->count("json") != 0) {
    boost::json::array array;
    for (const auto& entry : entries) {
      array.push_back(entry.status == LoadStatus::ok ? record_to_json(entry.record)
                                                     : corrupt_record_to_json(entry.id, entry.reason));
    }
    print_json(array);
    return 0;
  }
  std::vector<TableRow> rows;
  for (const auto& entry : entries) {
    rows.push_back(entry.status == LoadStatus::ok
                     ? list_row(entry.record)
                     : TableRow{entry.id, "corrupt", "-", "-", "-", for_stdout(entry.reason)});
  }
  std::cout << render_table(list_header(), rows);
  return 0;
}

} // namespace bgtask
