#include <bgtask/cli/command.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/commands/table.hpp>

#include <algorithm>
#include <array>

namespace bgtask {

namespace {

// Each command's options are declared next to its handler (commands/NAME.cpp).
constexpr std::array<Command, 18> k_commands{{
  {.name = "__complete",
   .summary = "complete a command line for the shell completion scripts",
   .usage = "WORD...",
   .help = "Prints the completion of the words after `bgtask` (the last one is completed).",
   .options = nullptr,
   .operands = Operands::words,
   .handler = run_complete},
  {.name = "__supervise",
   .summary = "supervise a queued task that a hand-off admitted",
   .usage = "ID LOCK_FD [SLOT_FD SLOT_INDEX]",
   .help = "Run by bgtask itself: the supervisor of a queued task whose claims (its lock, its\n"
           "queue slot) it inherits as open descriptors.",
   .options = nullptr,
   .operands = Operands::words,
   .handler = run_supervise},
  {.name = "cancel",
   .summary = "stop running tasks (TERM, then KILL after a grace period)",
   .usage =
     "(ID... | --all | --name N | --all-named N | --queue Q) [--grace DUR] [--json] [--quiet]",
   .help =
     "Stops running tasks: TERM to the command's process group and descendants, KILL after\n"
     "the grace period (default: the task's own, from `start --grace`, else 5s). Returns once\n"
     "each final record is written. Cancelling a finished task changes nothing and is not an\n"
     "error. A Slurm task is cancelled with scancel (Slurm's KillWait applies instead).",
   .options = cancel_options,
   .operands = Operands::any_task_ids,
   .handler = run_cancel},
  {.name = "cleanup",
   .summary = "delete the files of finished tasks",
   .usage =
     "[ID...] [--older-than DUR] [--state S[,S...]] [--keep N] [--max-bytes SIZE] [--dry-run] "
     "[--json] [--quiet]",
   .help =
     "Deletes all files of finished tasks that match every filter (finished more than\n"
     "--older-than ago, default 7d, or no age limit for tasks named by ID; in one of --state;\n"
     "not among the --keep newest finished).\n"
     "With --max-bytes, only the oldest of them, until finished tasks take at most SIZE.\n"
     "Never touches a running task or a corrupt record. Safe to run from cron alongside\n"
     "other invocations.",
   .options = cleanup_options,
   .operands = Operands::any_task_ids,
   .handler = run_cleanup},
  {.name = "events",
   .summary = "print the stream of task events; follow it, resume it from a cursor",
   .usage = "[ID...] [--since CURSOR|now|-N] [--cursor-file FILE] [--follow [--until-idle]]\n"
            "       [--name N] [--queue Q] [--type T[,T...]] [--timeout DUR]\n"
            "       [--format jsonl|text|cloudevents]",
   .help =
     "Prints the task directory's events, one line each, oldest first: task.created, queued,\n"
     "started, progress, paused, resumed, retrying, exited (every final state), lost, cleaned.\n"
     "Each has a sequence number and a cursor; --since CURSOR or --cursor-file FILE goes on\n"
     "after it. --follow then prints new events as they come; --until-idle ends once no\n"
     "selected task can change (last line: queue.drained). A cursor older than the events\n"
     "kept prints a stream.gap line and exits 10: list the tasks again, then go on.",
   .options = events_options,
   .operands = Operands::any_task_ids,
   .handler = run_events},
  {.name = "list",
   .summary = "list tasks, oldest first",
   .usage =
     "[--state S[,S...]] [--name N] [--queue Q] [--limit N] [--format table|json|jsonl] [--json] "
     "[--wide] [--summary]",
   .help =
     "Lists tasks, oldest first. Corrupt records are listed as `corrupt`. On a terminal the\n"
     "state is coloured unless NO_COLOR is set. --summary prints one line of counts per state.",
   .options = list_options,
   .operands = Operands::none,
   .handler = run_list},
  {.name = "mcp",
   .summary = "serve the Model Context Protocol on stdio, for coding agents",
   .usage = "",
   .help =
     "Serves the Model Context Protocol on stdin/stdout (newline-delimited JSON-RPC 2.0) for\n"
     "coding agents: tools start, status, list, output, wait and cancel on the task directory.\n"
     "Ends at the end of stdin; the tasks it started keep running. See docs/agents.md.",
   .options = mcp_options,
   .operands = Operands::none,
   .handler = run_mcp},
  {.name = "output",
   .summary = "print or follow a task's output",
   .usage = "(ID | --name N) [--follow] [--tail N] [--raw] |\n"
            "       --follow ID... [--name N] [--all-named N] [--queue Q] |\n"
            "       (ID | --name N) [--since CURSOR] [--max-bytes N] [--json] [--raw]",
   .help =
     "Prints a task's output; --name N alone reads the newest task named N. With --follow,\n"
     "streams it until the task ends and exits as `wait` would; exits 141 as soon as a pipe's\n"
     "reader goes away (`| head -1`), and 5 on Ctrl-C. With several tasks (IDs, --all-named,\n"
     "--queue) --follow interleaves their lines, each after `NAME| ` (or `ID| `), until all\n"
     "have ended; a single one is followed without a prefix. On a terminal, control characters\n"
     "are escaped unless --raw is given. With --since or --json, prints what was written\n"
     "after CURSOR (default: the start), at most --max-bytes, and the cursor to continue\n"
     "from (in the JSON, or on stderr). Without --follow, exits 1 (with a warning) if the\n"
     "output is shorter than the record says; with it, warns and exits as `wait` would.",
   .options = output_options,
   .operands = Operands::any_task_ids,
   .handler = run_output},
  {.name = "pause",
   .summary = "stop running tasks with their whole process tree until resumed",
   .usage = "ID... [--json]",
   .help =
     "Stops running tasks with their whole process tree (SIGSTOP to every process of the task)\n"
     "until `bgtask resume`. The timeout does not run out while a task is paused; cancel still\n"
     "works. Returns once each record shows the task paused.",
   .options = pause_options,
   .operands = Operands::task_ids,
   .handler = run_pause},
  {.name = "progress",
   .summary = "report the progress of a running task",
   .usage = "[ID] [--percent P] [--current C --total T] [--message M]",
   .help = "Updates the progress of a running task. The ID defaults to $BGTASK_ID, so a task can\n"
           "report its own progress. Updates are partial: what is not given keeps its last value\n"
           "(`--message linking` keeps --current/--total). --current above --total is refused.",
   .options = progress_options,
   .operands = Operands::optional_task_id,
   .handler = run_progress},
  {.name = "queue",
   .summary = "show queues, or set how many of a queue's tasks may run at once",
   .usage = "[Q] [--slots N] [--json]",
   .help =
     "Shows queues: their slot count and their running and queued tasks (in the order they\n"
     "will start). With Q and --slots N, sets how many of Q's tasks may run at once (0 pauses\n"
     "the queue); tasks waiting in Q start at once if the new count allows.",
   .options = queue_options,
   .operands = Operands::optional_queue,
   .handler = run_queue},
  {.name = "rerun",
   .summary = "start a new task with the command and options of an earlier one",
   .usage = "ID [--env K=V|NAME]... [--env-file FILE]",
   .help = "Starts a new task with the command, directory, name and options of task ID and prints\n"
           "its ID. Values of --env are never stored: give them again; stderr names those the\n"
           "original had that were not given.",
   .options = rerun_options,
   .operands = Operands::task_id,
   .handler = run_rerun},
  {.name = "resume",
   .summary = "continue paused tasks",
   .usage = "ID... [--json]",
   .help = "Continues tasks stopped by `bgtask pause` (SIGCONT to every process of the task).\n"
           "Returns once each record shows the task running again.",
   .options = pause_options,
   .operands = Operands::task_ids,
   .handler = run_resume},
  {.name = "run",
   .summary = "start a task and stream its output; detach if it runs long",
   .usage =
     "[--detach-after DUR|never] [--escape] [start options] (-- CMD [ARG...] | -c 'SHELL STRING')",
   .help =
     "Starts a task as `start` does, then streams its output to stdout as the command wrote it.\n"
     "If the task ends within --detach-after (default 30s; `never`: wait for it), exits with\n"
     "its status as `wait` would; otherwise stops streaming, tells on stderr how to follow it,\n"
     "and exits 3 while the task keeps running. Ctrl-C cancels the task and exits 130, as for\n"
     "a command in the foreground; Ctrl-\\ (SIGQUIT), SIGTERM and SIGHUP detach (exit 3).\n"
     "Ctrl-Z (SIGTSTP) pauses the task and stops `run` as a job; `fg` resumes both.\n"
     "When stderr is a terminal or file other than stdout (`2>/dev/null`, `| jq` at a\n"
     "terminal), the command's stderr goes straight there, not into the task's output.\n"
     "When stdout and stderr are the same terminal, stderr shows a status line meanwhile.",
   .options = run_options,
   .operands = Operands::command,
   .handler = run_run},
  {.name = "start",
   .summary = "start a command in the background and print its task ID",
   .usage =
     "[--name N] [--cwd DIR] [--env K=V|NAME]... [--env-file FILE] [--timeout DUR] [--grace DUR] "
     "[--max-output SIZE] [--queue Q [--slots N]] [--after ID[,ID...]] [--dedupe] [--quiet] "
     "[--max-running N] "
     "[--retry N [--retry-delay DUR] [--retry-on CODES|timed_out]] [--memory-max SIZE] "
     "[--pids-max N] [--cpu-max CPUS] [--on-exit 'SHELL STRING'] "
     "[--each-line FILE|- | --array SPEC] [--resume N] "
     "(-- CMD [ARG...] | -c 'SHELL STRING')",
   .help = "Starts a command in the background and prints its task ID once the task is running\n"
           "(or queued). `-- CMD ARGS` runs argv directly; `-c STRING` runs it with /bin/sh -c.",
   .options = start_options,
   .operands = Operands::command,
   .handler = run_start},
  {.name = "status",
   .summary = "show a task's record and the end of its output",
   .usage = "(ID... | --name N | --all-named N | --queue Q) [--json] [--tail N]",
   .help = "Shows each task's record and the last N lines of its output (@: the newest task\n"
           "started here; @last: the newest task). Exits 1 if a record is corrupt or an output is\n"
           "shorter than its record says, and 2 if an ID is unknown, after showing the others.",
   .options = status_options,
   .operands = Operands::any_task_ids,
   .handler = run_status},
  {.name = "top",
   .summary = "a live view of the tasks on the terminal, driven by the event stream",
   .usage = "[--name TEXT] [--state all|running|queued|ended|failed]",
   .help = "Shows running and queued tasks with their progress, each queue's slots in use and the\n"
           "latest events, failures highlighted; it redraws when an event comes, and sleeps\n"
           "otherwise. Keys: j/k or arrows select, o or Enter follows the selected task's output\n"
           "(Ctrl-C returns), c cancels (y confirms), p pauses, r resumes it, / filters by name,\n"
           "s by state, q quits. Needs a terminal (TERM=dumb or a pipe: exit 2). Exits 0 on q, 5\n"
           "on Ctrl-C, SIGTERM or SIGHUP, the terminal restored each way.",
   .options = top_options,
   .operands = Operands::none,
   .handler = run_top},
  {.name = "wait",
   .summary = "wait for tasks to finish; exit with their status",
   .usage =
     "[ID...] [--name N] [--all-named N] [--queue Q] [--timeout DUR] [--any] [--json] [--quiet] |\n"
     "       ID (--until-output REGEX | --until-port PORT) [--idle DUR] [--timeout DUR] [--json]",
   .help =
     "Waits until every task (with --any: the first) has finished, then exits with the tasks'\n"
     "status: 0 only if every task succeeded. Exits 4 if --timeout passes first and 5 on\n"
     "Ctrl-C (SIGINT, SIGTERM, SIGHUP); the tasks run on. --name and --queue add every task\n"
     "with that name or of that queue. With --until-output, --until-port or --idle, waits for\n"
     "one running task to print a matching line, listen on PORT, or print nothing for DUR:\n"
     "0 when the line or port is there, 6 if the task ended first, 7 when it was idle.\n"
     "The exit codes: man bgtask, EXIT STATUS.",
   .options = wait_options,
   .operands = Operands::any_task_ids,
   .handler = run_wait},
}};

static_assert(std::is_sorted(k_commands.begin(), k_commands.end(),
                             [](const Command& a, const Command& b) { return a.name < b.name; }));

} // namespace

std::span<const Command> all_commands()
{
  return k_commands;
}

} // namespace bgtask
