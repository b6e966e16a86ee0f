#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/cli/mcp/tools_impl.hpp>
#include <bgtask/core/task_state.hpp>

#include <boost/json/parse.hpp>

#include <array>
#include <string>

namespace bgtask::mcp {

namespace {

// clang-format off
// Schemas of the task record (docs/record-schema.md, "The record") and of the task ID argument.
#define BGTASK_MCP_TASK R"j({"type":"object","description":"the task's summary (with verbose: its whole record, as `bgtask status --json` prints it)","properties":{"id":{"type":"string"},"state":{"type":"string"},"exit_code":{"type":["integer","null"]}},"required":["id","state"]})j"
#define BGTASK_MCP_VERBOSE R"j("verbose":{"type":"boolean","description":"the whole record instead of its summary"})j"
#define BGTASK_MCP_ID R"j("id":{"type":"string","description":"task ID, or a unique prefix of 4 or more characters"})j"

constexpr const char* k_start_in = R"j({"type":"object","properties":{
 "argv":{"type":"array","items":{"type":"string"},"minItems":1,"description":"the command and its arguments, run without a shell"},
 "shell":{"type":"string","description":"a command line run with /bin/sh -c (instead of argv)"},
 "cwd":{"type":"string","description":"working directory (default: the server's)"},
 "name":{"type":"string","description":"a name to find the task by"},
 "timeout_s":{"type":"number","exclusiveMinimum":0,"maximum":315360000,"description":"stop the command after this many seconds (state timed_out)"},
 "max_output":{"type":"string","description":"output bound: head and tail of SIZE/2 each are kept, e.g. 10M, or none (default 64M)"},
 "queue":{"type":"string","description":"run in this queue, one slot at a time unless set otherwise"},
 "after":{"type":"array","items":{"type":"string"},"description":"start only once these tasks have succeeded"},
 "env":{"type":"object","additionalProperties":{"type":"string"},"description":"variables set in the command's environment; their values are never stored"},
 "dedupe":{"type":"boolean","description":"if an identical task is queued or running, return it instead of starting another"}}})j";
constexpr const char* k_start_out = R"j({"type":"object","properties":{"id":{"type":"string"},"state":{"type":"string"},
 "duplicate":{"type":"boolean","description":"dedupe: an identical task was queued or running, and this is it"}},"required":["id","state"]})j";
constexpr const char* k_task_out =
  R"j({"type":"object","properties":{"id":{"type":"string"},"task":)j" BGTASK_MCP_TASK R"j(,"tail":{"type":"string","description":"the last lines of output asked for"}},"required":["id","task"]})j";
constexpr const char* k_status_in = R"j({"type":"object","properties":{)j" BGTASK_MCP_ID "," BGTASK_MCP_VERBOSE R"j(,
 "tail":{"type":"integer","minimum":0,"description":"also return the last N lines of output (at most 4 KiB)"}},"required":["id"]})j";
constexpr const char* k_list_in = R"j({"type":"object","properties":{
 "state":{"type":"array","items":{"type":"string"},"description":"only tasks in one of these states (@STATES@, ...)"},
 "name":{"type":"string","description":"only tasks with this name"},
 "queue":{"type":"string","description":"only tasks of this queue"},
 "limit":{"type":"integer","minimum":0,"description":"only the newest N that match"},)j" BGTASK_MCP_VERBOSE R"j(}})j";
constexpr const char* k_list_out =
  R"j({"type":"object","properties":{"tasks":{"type":"array","items":)j" BGTASK_MCP_TASK R"j(}},"required":["tasks"]})j";
constexpr const char* k_output_in = R"j({"type":"object","properties":{)j" BGTASK_MCP_ID R"j(,
 "cursor":{"type":"string","description":"the cursor of the previous call; omit to read from the start"},
 "tail_lines":{"type":"integer","minimum":0,"description":"read the last N lines instead (at most max_bytes of them); the cursor then reads on"},
 "from":{"type":"string","enum":["start","end"],"description":"end: read nothing now, only a cursor for what follows"},
 "grep":{"type":"string","description":"instead of reading: the lines matching this regular expression (RE2 syntax), numbered, over all the kept output"},
 "context":{"type":"integer","minimum":0,"maximum":20,"description":"with grep: lines before and after each match (default 0)"},
 "max_matches":{"type":"integer","minimum":1,"description":"with grep: matches returned (default 20; all are counted)"},
 "max_bytes":{"type":"integer","minimum":1,"maximum":16777216,"description":"most bytes to read (default 65536; with grep: bytes of lines returned, default 2048)"},
 "raw":{"type":"boolean","description":"keep terminal control characters in text (default false: removed, carriage-return redraws applied)"}},"required":["id"]})j";
constexpr const char* k_output_out = R"j({"type":"object","properties":{
 "id":{"type":"string"},"state":{"type":"string"},"exit_code":{"type":["integer","null"]},
 "text":{"type":"string","description":"the output after the cursor, as valid UTF-8"},
 "cursor":{"type":"string","description":"pass to the next call to read on"},
 "complete":{"type":"boolean","description":"the task has finished and everything is read"},
 "dropped_bytes":{"type":"integer","description":"bytes the output bound dropped between the cursor and text"},
 "offset":{"type":"integer"},"next_offset":{"type":"integer"},"bytes":{"type":"integer"},
 "total_bytes":{"type":"integer"},"replaced_bytes":{"type":"integer"},"removed_bytes":{"type":"integer"},
 "matches":{"type":"array","description":"with grep: the matching lines","items":{"type":"object","properties":{"line":{"type":"integer","description":"line number (after_gap: counted in the kept output)"},"after_gap":{"type":"boolean"},"cursor":{"type":"string","description":"reads on from the start of this line"},"text":{"type":"string"},"before":{"type":"array","items":{"type":"string"}},"after":{"type":"array","items":{"type":"string"}}},"required":["line","cursor","text"]}},
 "total_matches":{"type":"integer"},"truncated":{"type":"boolean","description":"the bounds left matches out"},"scanned_bytes":{"type":"integer"}},
 "required":["id","state","cursor","dropped_bytes"]})j";
constexpr const char* k_wait_in = R"j({"type":"object","properties":{)j" BGTASK_MCP_ID R"j(,
 "timeout_s":{"type":"number","minimum":0,"description":"return after this many seconds at most (default 30; more than 60 is taken as 60 and reported in clamped); call again to wait longer"},
 "until_output":{"type":"string","description":"return once a line of output matches this regular expression (RE2 syntax)"},
 "until_port":{"type":"integer","minimum":1,"maximum":65535,"description":"return once a process of the task listens on this TCP port"},
 "idle_s":{"type":"number","exclusiveMinimum":0,"description":"return once the task has printed nothing for this many seconds"}},"required":["id"]})j";
constexpr const char* k_wait_out = R"j({"type":"object","properties":{
 "id":{"type":"string"},"state":{"type":"string"},"exit_code":{"type":["integer","null"]},
 "end":{"type":"string","enum":["met","idle","task_ended","gave_up","interrupted"],"description":"met: the line or port is there; idle; task_ended: the task finished (first); gave_up: timeout_s passed"},
 "line":{"type":["string","null"],"description":"the matching line"},
 "cursor":{"type":"string","description":"an output cursor: after the matching line, else at the end of the output"},
 "quiet_s":{"type":"number","description":"seconds since the task last printed"},
 "tail":{"type":"string","description":"once the task has ended: its last lines (at most 10, 1 KiB)"},
 "clamped":{"type":"object","description":"arguments taken as a smaller value than given: name to value used"}},"required":["id","state","end","cursor"]})j";
constexpr const char* k_cancel_in = R"j({"type":"object","properties":{)j" BGTASK_MCP_ID "," BGTASK_MCP_VERBOSE R"j(,
 "grace_s":{"type":"number","minimum":0,"description":"seconds between TERM and KILL (default: the task's own grace)"}},"required":["id"]})j";
constexpr const char* k_cancel_out =
  R"j({"type":"object","properties":{"id":{"type":"string"},"was_final":{"type":"boolean"},"task":)j" BGTASK_MCP_TASK R"j(},"required":["id","was_final","task"]})j";
constexpr const char* k_events_in = R"j({"type":"object","properties":{
 "since":{"type":"string","description":"the cursor of the previous call (read after it), \"now\" (only what comes next) or \"-N\" (the last N events); omit to read from the oldest event kept"},
 "max":{"type":"integer","minimum":1,"maximum":1000,"description":"most events returned (default 100); more then says that others are already there"},
 "wait_s":{"type":"number","minimum":0,"description":"if nothing selected is there yet, wait this many seconds for it (default 0; more than 50 is taken as 50 and reported in clamped)"},
 "until_idle":{"type":"boolean","description":"wait (up to wait_s) until no selected task is queued or running; the last event is then queue.drained"},
 "ids":{"type":"array","items":{"type":"string"},"description":"only these tasks (IDs or unique prefixes)"},
 "name":{"type":"string","description":"only tasks with this name"},
 "queue":{"type":"string","description":"only tasks of this queue"},
 "types":{"type":"array","items":{"type":"string"},"description":"only these event types (task.exited, task.started, task.progress, ...)"}}})j";
constexpr const char* k_events_out = R"j({"type":"object","properties":{
 "events":{"type":"array","description":"in order; deduplicate by seq","items":{"type":"object","properties":{"seq":{"type":"integer"},"cursor":{"type":"string"},"type":{"type":"string"},"time":{"type":"string"},"task":{"type":["string","null"]},"name":{"type":["string","null"]},"queue":{"type":["string","null"]},"data":{"type":"object","description":"task.exited: state, exit_code, wait_status, duration_s, output_bytes, output_tail, output_cursor"}},"required":["seq","cursor","type"]}},
 "cursor":{"type":["string","null"],"description":"pass as since to read on (null while the stream is empty: omit since)"},
 "more":{"type":"boolean","description":"max was reached: call again at once"},
 "end":{"type":"string","enum":["read","gave_up","idle","gap"],"description":"read: what there was; gave_up: wait_s passed first; idle: nothing selected can change; gap: events after since are no longer kept (list the tasks, then go on from cursor)"},
 "clamped":{"type":"object","description":"arguments taken as a smaller value than given: name to value used"}},"required":["events","cursor","more","end"]})j";
// clang-format on

constexpr ToolHints k_reads{true, false, true};
constexpr ToolHints k_starts{false, false, false};
constexpr ToolHints k_stops{false, true, true};

const std::array<Tool, 7> k_tools{{
  {"start", "Start a background task",
   "Start a command in the background; returns its task ID at once. The task keeps running "
   "after this server exits, and its output is kept in the task directory.",
   k_start_in, k_start_out, tool_start_launched, k_starts, true},
  {"status", "Task status",
   "A task's summary: state, exit code, times, progress, output size; with tail, its last "
   "lines of output; with verbose, the whole record.",
   k_status_in, k_task_out, tool_status, k_reads},
  {"list", "List tasks", "The tasks of the task directory, oldest first, with optional filters.",
   k_list_in, k_list_out, tool_list, k_reads},
  {"output", "Read task output",
   "Read a task's output after a cursor, at most max_bytes at a time: pass the returned "
   "cursor to the next call to read only what is new. Cursors stay valid across restarts. "
   "tail_lines reads the end (where a failure shows); grep finds lines by regular expression.",
   k_output_in, k_output_out, tool_output, k_reads},
  {"wait", "Wait for a task",
   "Wait (at most 60 s per call) until the task ends, or a line matches until_output, or "
   "it listens on until_port, or it was idle for idle_s. An ended task's last lines come "
   "with the result.",
   k_wait_in, k_wait_out, tool_wait, k_reads},
  {"cancel", "Cancel a task", "Stop a task: TERM to its processes, KILL after the grace time.",
   k_cancel_in, k_cancel_out, tool_cancel, k_stops},
  {"events", "Task events",
   "The task directory's events after a cursor (task.exited with the outcome, task.started, "
   "task.progress, task.lost, ...), oldest first: pass the returned cursor as since to read "
   "only what is new, across restarts too. With wait_s (at most 50 s per call) it waits for "
   "the next selected event.",
   k_events_in, k_events_out, tool_events, k_reads},
}};

} // namespace

std::span<const Tool> all_tools()
{
  return k_tools;
}

namespace {

// A schema's text, parsed, with its placeholder filled in: `@STATES@`
// stands for the names of the task states (task_state.hpp).
boost::json::value parse_schema(std::string_view text)
{
  constexpr std::string_view placeholder = "@STATES@";
  std::string filled(text);
  if (const auto at = filled.find(placeholder); at != std::string::npos) {
    filled.replace(at, placeholder.size(), task_state_names(", ", ", "));
  }
  return boost::json::parse(filled);
}

} // namespace

boost::json::object input_schema(const Tool& tool)
{
  boost::json::object schema = parse_schema(tool.input_schema).as_object();
  schema["additionalProperties"] = false;
  return schema;
}

boost::json::object describe_tool(const Tool& tool)
{
  boost::json::object o{{"name", tool.name},
                        {"title", tool.title},
                        {"description", tool.description},
                        {"inputSchema", input_schema(tool)},
                        {"outputSchema", parse_schema(tool.output_schema)},
                        {"annotations",
                         {{"title", tool.title},
                          {"readOnlyHint", tool.hints.read_only},
                          {"destructiveHint", tool.hints.destructive},
                          {"idempotentHint", tool.hints.idempotent},
                          {"openWorldHint", false}}}};
  if (tool.task_support) {
    o["execution"] = {{"taskSupport", "optional"}};
  }
  return o;
}

} // namespace bgtask::mcp
