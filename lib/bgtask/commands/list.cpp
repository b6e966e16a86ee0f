#include <bgtask/commands/commands.hpp>

#include <bgtask/command_line.hpp>
#include <bgtask/console.hpp>
#include <bgtask/error.hpp>
#include <bgtask/reconcile.hpp>
#include <bgtask/record_json.hpp>
#include <bgtask/record_store.hpp>
#include <bgtask/record_view.hpp>
#include <bgtask/task_dir.hpp>
#include <bgtask/terminal_escape.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <iostream>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "list", "[--state S[,S...]] [--name N] [--limit N] [--format table|json|jsonl] [--json] [--wide]",
  "Lists tasks, oldest first. Corrupt records are listed as `corrupt`. On a terminal the\n"
  "state is coloured unless NO_COLOR is set."};

enum class ListFormat { table, json, jsonl };

ListFormat parse_format(const po::variables_map& vm)
{
  const auto text = optional_value<std::string>(vm, "format");
  const bool json = vm.count("json") != 0;
  if (!text) {
    return json ? ListFormat::json : ListFormat::table;
  }
  if (json && *text != "json") {
    throw_usage("--json and --format " + escape_for_terminal(*text, KeepNewlines::no) + " contradict each other");
  }
  if (*text == "table") {
    return ListFormat::table;
  }
  if (*text == "json") {
    return ListFormat::json;
  }
  if (*text == "jsonl") {
    return ListFormat::jsonl;
  }
  throw_usage("unknown format '" + escape_for_terminal(*text, KeepNewlines::no) +
              "': expected table, json or jsonl");
}

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
    ("format", po::value<std::string>(), "table (default), json (an array) or jsonl (a record per line)")
    ("json", "print a JSON array of records (same as --format json)")
    ("wide", "also show each task's directory and full command");
  const auto vm = parse_command_line(k_syntax, options, {}, args);
  if (!vm) {
    return 0;
  }
  const ListFormat format = parse_format(*vm);
  const ListColumns columns = vm->count("wide") != 0 ? ListColumns::wide : ListColumns::normal;
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

  std::vector<LoadedRecord> loaded;
  std::vector<TaskRecord> records;
  for (const auto& id : scan_task_ids(dir)) {
    auto entry = load_record(dir, id);
    if (entry.status == LoadStatus::missing) {
      continue; // removed since the scan
    }
    if (entry.status == LoadStatus::ok) {
      records.push_back(std::move(entry.record));
    }
    loaded.push_back(std::move(entry));
  }
  // One batch, so that Slurm's controller is asked once, not once per task.
  reconcile_records(dir, records);
  std::vector<LoadedRecord> entries;
  auto next = records.begin();
  for (auto& entry : loaded) {
    if (entry.status == LoadStatus::ok) {
      entry.record = std::move(*next++);
    }
    if (filter.accepts(entry)) {
      entries.push_back(std::move(entry));
    }
  }
  if (limit && entries.size() > *limit) {
    entries.erase(entries.begin(), entries.end() - static_cast<long>(*limit));
  }

  if (format != ListFormat::table) {
    boost::json::array array;
    for (const auto& entry : entries) {
      array.push_back(entry.status == LoadStatus::ok ? record_to_json(entry.record)
                                                     : corrupt_record_to_json(entry.id, entry.reason));
    }
    if (format == ListFormat::json) {
      print_json(array);
    } else {
      for (const auto& value : array) {
        print_json(value);
      }
    }
    return 0;
  }
  const Color color = stdout_color();
  std::vector<TableRow> rows;
  for (const auto& entry : entries) {
    rows.push_back(entry.status == LoadStatus::ok ? list_row(entry.record, columns, color)
                                                  : corrupt_list_row(entry.id, entry.reason, columns, color));
  }
  std::cout << render_table(list_header(columns), rows);
  return 0;
}

} // namespace bgtask
