#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/json_text.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <optional>

namespace bgtask {

namespace {

enum class ListFormat { table, json, jsonl };

ListFormat parse_format(const po::variables_map& vm)
{
  const auto text = optional_value<std::string>(vm, "format");
  const bool json = vm.count("json") != 0;
  if (!text) {
    return json ? ListFormat::json : ListFormat::table;
  }
  if (json && *text != "json") {
    throw_usage("--json and --format " + escape_for_terminal(*text, KeepNewlines::no) +
                " contradict each other");
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

// What list prints for one task: its table row, or its record as JSON text.
struct Shown
{
  TableRow row;
  std::string info;          // the INFO cell (list_info)
  std::string short_started; // STARTED for a narrow terminal (short_list_started)
  bool unsupervised = false; // shown as `running*`
  std::string json;
  std::string_view state; // for --summary: a state name or "corrupt"
  bool paused = false;
};

// --summary: the count of each state (and of paused tasks) among `shown`,
// as one line `queued=0 running=2 ... total=N`, or as a JSON object.
void print_summary(const std::vector<std::optional<Shown>>& shown, ListFormat format)
{
  std::vector<std::pair<std::string_view, std::size_t>> counts;
  for (const auto state :
       {TaskState::queued, TaskState::running, TaskState::succeeded, TaskState::failed,
        TaskState::cancelled, TaskState::timed_out, TaskState::lost}) {
    counts.emplace_back(to_string(state), 0);
  }
  counts.emplace_back("corrupt", 0);
  std::size_t paused = 0;
  for (const auto& s : shown) {
    for (auto& [name, count] : counts) {
      count += name == s->state ? 1 : 0;
    }
    paused += s->paused ? 1 : 0;
  }
  counts.emplace_back("paused", paused);
  counts.emplace_back("total", shown.size());
  if (format == ListFormat::table) {
    std::string line;
    for (const auto& [name, count] : counts) {
      line += (line.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(count);
    }
    std::cout << line << '\n';
    return;
  }
  boost::json::object o;
  for (const auto& [name, count] : counts) {
    o[name] = count;
  }
  std::cout << json_text(o) << '\n';
}

struct Filter
{
  std::vector<std::string> states;
  std::optional<std::string> name;
  std::optional<std::string> queue;

  bool accepts(const LoadedRecord& entry) const
  {
    const std::string_view state =
      entry.status == LoadStatus::ok ? to_string(entry.record.state) : "corrupt";
    if (!states.empty() && std::find(states.begin(), states.end(), state) == states.end()) {
      return false;
    }
    if (queue && (entry.status != LoadStatus::ok || entry.record.queue != *queue)) {
      return false;
    }
    return !name || (entry.status == LoadStatus::ok && entry.record.name == *name);
  }
};

// A record to reconcile, read at position `at` of the IDs.
struct Unfinished
{
  std::size_t at;
  TaskRecord record;
};

// Reads the records of `ids` (read_records_in_parallel). Those that need no
// reconciling (final, parked) and corrupt ones are shown at once, so a big
// directory is never held in memory whole: `shown[i]` is set for each one
// the filter takes. Returns the others in ID order (their slots in `shown`
// stay empty).
template <typename Show>
std::vector<Unfinished> read_records(const TaskDir& dir, const std::vector<std::string>& ids,
                                     const Filter& filter, const Show& show,
                                     std::vector<std::optional<Shown>>& shown)
{
  shown.assign(ids.size(), std::nullopt);
  std::vector<std::vector<Unfinished>> unfinished(record_reader_count(ids.size()));
  read_records_in_parallel(ids.size(), [&](std::size_t reader, std::size_t i) {
    LoadedRecord entry = load_record(dir, ids[i]);
    if (entry.status == LoadStatus::ok && needs_reconciling(entry.record)) {
      unfinished[reader].push_back(Unfinished{i, std::move(entry.record)});
    } else if (entry.status != LoadStatus::missing && filter.accepts(entry)) {
      shown[i] = show(entry);
    }
  });
  std::vector<Unfinished> all;
  for (auto& part : unfinished) {
    std::move(part.begin(), part.end(), std::back_inserter(all));
  }
  std::sort(all.begin(), all.end(),
            [](const Unfinished& a, const Unfinished& b) { return a.at < b.at; });
  return all;
}

// Prints the tasks list shows, in `format`.
// At a terminal an empty table is a line on stderr naming `dir_path`
// (`filtered`: the filters left nothing), and `*` gets a legend.
void print_shown(std::vector<std::optional<Shown>>& shown, ListFormat format, ListColumns columns,
                 const std::string& dir_path, bool filtered)
{
  if (format != ListFormat::table) {
    const auto printable = [](const std::string& json) {
      return stdout_is_terminal() ? escape_json_for_terminal(json) : json;
    };
    if (format == ListFormat::json) {
      std::string array = "[";
      for (const auto& s : shown) {
        array += (array.size() > 1 ? "," : "") + printable(s->json);
      }
      std::cout << array << "]\n";
    } else {
      for (const auto& s : shown) {
        std::cout << printable(s->json) << '\n';
      }
    }
    return;
  }
  if (shown.empty() && stdout_is_terminal()) {
    std::cerr << "no " << (filtered ? "matching " : "") << "tasks in "
              << escape_for_terminal(dir_path) << '\n';
    return;
  }
  // INFO only when a task has something to say in it.
  const bool info = std::any_of(shown.begin(), shown.end(),
                                [](const std::optional<Shown>& s) { return s->info != "-"; });
  std::vector<TableRow> rows;
  rows.reserve(shown.size());
  bool unsupervised = false;
  for (auto& s : shown) {
    if (info) {
      s->row.insert(s->row.begin() + k_list_fixed_columns + 1, std::move(s->info));
    }
    unsupervised = unsupervised || s->unsupervised;
    rows.push_back(std::move(s->row));
  }
  TableRow header = list_header(columns);
  if (info) {
    header.insert(header.begin() + k_list_fixed_columns + 1, "INFO");
  }
  // --wide shows everything; otherwise the widest cells are cut to fit, and
  // STARTED gets shorter when even the columns that are not cut do not.
  const auto width = columns == ListColumns::wide ? std::nullopt : stdout_width();
  if (width && narrowest_table_width(header, rows, k_list_fixed_columns) > *width) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      rows[i][k_list_started_column] = std::move(shown[i]->short_started);
    }
  }
  std::cout << render_table(header, rows, width, k_list_fixed_columns);
  if (unsupervised && stdout_is_terminal()) {
    std::cout << "* its supervisor died; the command runs on (cancel works)\n";
  }
}

} // namespace

po::options_description list_options()
{
  po::options_description options;
  options.add_options()("state", po::value<std::string>(),
                        "only tasks in these states (comma-separated; `corrupt` too; see STATES)")(
    "name", po::value<std::string>(), "only tasks with this name")(
    "queue", po::value<std::string>()->value_name("Q"), "only tasks of queue Q")(
    "limit", po::value<std::string>(), "only the N newest of the tasks that match")(
    "format", po::value<std::string>(),
    "table (default), json (an array) or jsonl (a record per line)")(
    "json", "print a JSON array of records (same as --format json)")(
    "wide", "also show each task's directory and full command\n"
            "NAME is then `-` for unnamed tasks. Nothing is cut to fit the terminal.")(
    "summary", "print only the count of tasks per state, on one line (JSON with --json)\n"
               "For example `queued=0 running=2 succeeded=5 failed=1 cancelled=0 timed_out=0 "
               "lost=0 corrupt=0 paused=0 total=8` (`paused` counts running tasks that are "
               "paused). The filters apply; `--limit` and `--format jsonl` do not go with it. A "
               "cron job can decide from it whether to start more work.");
  return options;
}

int run_list(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  const ListFormat format = parse_format(vm);
  const ListColumns columns = vm.count("wide") != 0 ? ListColumns::wide : ListColumns::normal;
  Filter filter;
  if (auto states = optional_value<std::string>(vm, "state")) {
    filter.states = parse_state_list(*states, "corrupt");
  }
  filter.name = optional_value<std::string>(vm, "name");
  filter.queue = optional_value<std::string>(vm, "queue");
  const bool summary = vm.count("summary") != 0;
  if (summary && (format == ListFormat::jsonl || vm.count("limit") != 0)) {
    throw_usage("--summary takes neither --limit nor --format jsonl");
  }
  std::optional<std::size_t> limit;
  if (auto text = optional_value<std::string>(vm, "limit")) {
    limit = value_or_usage(parse_count(*text, "--limit"));
  }
  // A missing directory has no tasks; a read-only command does not create it.
  const auto dir = open_existing_task_dir(global);
  const Color color = stdout_color();
  const auto show = [&](const LoadedRecord& entry) {
    Shown shown;
    const bool ok = entry.status == LoadStatus::ok;
    shown.state = ok ? to_string(entry.record.state) : "corrupt";
    shown.paused = ok && entry.record.pause.paused;
    if (summary) {
      return shown;
    }
    if (format == ListFormat::table) {
      shown.row = ok ? list_row(entry.record, columns, color)
                     : corrupt_list_row(entry.id, entry.reason, columns, color);
      shown.info = ok ? list_info(entry.record) : "-";
      shown.short_started = ok ? short_list_started(entry.record) : "-";
      shown.unsupervised = ok && !is_final(entry.record.state) && entry.record.unsupervised;
    } else {
      shown.json = json_text(ok ? record_to_json(entry.record)
                                : corrupt_record_to_json(entry.id, entry.reason));
    }
    return shown;
  };

  std::vector<std::optional<Shown>> shown;
  if (dir) {
    auto ids = scan_task_ids(*dir);
    if (filter.queue) {
      erase_parked_in_other_queues(*dir, *filter.queue, ids);
    }
    auto unfinished = read_records(*dir, ids, filter, show, shown);
    // Unfinished records are reconciled in one batch, so that Slurm's
    // controller is asked once, not once per task.
    std::vector<TaskRecord> records;
    records.reserve(unfinished.size());
    for (auto& u : unfinished) {
      records.push_back(std::move(u.record));
    }
    reconcile_records(*dir, records);
    for (std::size_t i = 0; i < records.size(); ++i) {
      LoadedRecord entry;
      entry.id = records[i].id;
      entry.status = LoadStatus::ok;
      entry.record = std::move(records[i]);
      if (filter.accepts(entry)) {
        shown[unfinished[i].at] = show(entry);
      }
    }
  }
  std::erase_if(shown, [](const std::optional<Shown>& s) { return !s; });
  if (summary) {
    print_summary(shown, format);
    return 0;
  }
  if (limit && shown.size() > *limit) {
    shown.erase(shown.begin(), shown.end() - static_cast<long>(*limit));
  }

  const bool filtered = !filter.states.empty() || filter.name || filter.queue;
  print_shown(shown, format, columns, dir ? dir->path() : TaskDir::resolve_path(global.dir),
              filtered);
  return 0;
}

} // namespace bgtask
