// `bgtask mcp` driven the way an agent drives it: the official MCP
// TypeScript SDK client over stdio. Usage: node e2e.mjs BGTASK TASK_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ResourceUpdatedNotificationSchema, TaskStatusNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { readdirSync } from "node:fs";
import assert from "node:assert/strict";

const [bgtask, dir] = process.argv.slice(2);

async function connect() {
  const transport = new StdioClientTransport({
    command: bgtask,
    args: ["mcp"],
    env: { ...process.env, BGTASK_DIR: dir },
    stderr: "inherit",
  });
  const client = new Client({ name: "bgtask-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

// Calls a tool and returns its structuredContent; fails on isError. The
// text content is one short line, not the data a second time.
async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.content)}`);
  assert.equal(result.content[0].type, "text");
  assert.ok(result.content[0].text.length < 200 && !result.content[0].text.includes("\n"),
    `${name}: text content ${JSON.stringify(result.content[0].text)}`);
  return result.structuredContent;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sizeOf = (result) => JSON.stringify(result).length;
// The threads of the server process.
const threads = (pid) => readdirSync(`/proc/${pid}/task`).length;

// Reads by cursor until `complete`; returns the text and the last cursor.
async function readToEnd(client, id, cursor, maxBytes) {
  let text = "";
  for (let calls = 0; ; calls++) {
    assert.ok(calls < 10000, "reading by cursor does not end");
    const args = { id, max_bytes: maxBytes };
    if (cursor) args.cursor = cursor;
    const slice = await call(client, "output", args);
    assert.ok(slice.bytes <= maxBytes, "a slice holds more than max_bytes");
    text += slice.text;
    cursor = slice.cursor;
    if (slice.complete) return { text, cursor };
    // Caught up with a running task: give it time to print more, as an agent
    // between turns would (a reader that never pauses can outrun the task).
    if (slice.bytes === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const numbered = (from, to) =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join("");

let { client, transport } = await connect();

// The handshake and the tool table with declared schemas.
assert.equal(client.getServerVersion().name, "bgtask");
assert.ok(client.getServerCapabilities().tools, "no tools capability");
assert.ok(client.getServerCapabilities().tasks?.requests?.tools?.call, "no tasks capability");
const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name).sort(), ["cancel", "events", "list", "output", "start", "status", "wait"]);
for (const tool of tools) {
  assert.ok(tool.title && tool.annotations, `${tool.name}: no title or annotations`);
  assert.equal(tool.annotations.readOnlyHint, ["status", "list", "output", "wait", "events"].includes(tool.name), `${tool.name}: readOnlyHint`);
  assert.equal(tool.annotations.destructiveHint, tool.name === "cancel", `${tool.name}: destructiveHint`);
  assert.equal(tool.inputSchema.type, "object", `${tool.name}: inputSchema`);
  assert.equal(tool.outputSchema.type, "object", `${tool.name}: outputSchema`);
  assert.ok(tool.description.length > 10, `${tool.name}: description`);
}
const output = tools.find((t) => t.name === "output");
assert.deepEqual(output.inputSchema.required, ["id"]);
assert.ok(output.outputSchema.properties.cursor && output.outputSchema.properties.complete);
await client.ping();

// Strict arguments: every schema is closed; a guessed name is refused with
// the nearest real one, before anything starts; errors name the argument.
for (const tool of tools) assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name}: open schema`);
const refused = async (name, args, pattern) =>
  assert.rejects(client.callTool({ name, arguments: args }), (e) => {
    assert.equal(e.code, -32602, e.message);
    assert.match(e.message, pattern);
    return true;
  });
await refused("start", { argv: ["sleep", "100"], timeout: 5 }, /unknown argument 'timeout'; did you mean 'timeout_s'\?/);
await refused("start", { argv: ["true"], envs: { PORT: "3000" } }, /unknown argument 'envs'; did you mean 'env'\?/);
await refused("wait", { id: "x", until: "ready" }, /unknown argument 'until'; did you mean 'until_(output|port)'\?/);
await refused("list", { colour: "red" }, /unknown argument 'colour'; known: /);
await refused("start", { argv: ["true"], timeout_s: 0 }, /argument 'timeout_s' must be greater than 0/);
await refused("start", { argv: ["true"], timeout_s: "5" }, /argument 'timeout_s' must be a number/);
await refused("start", { argv: ["true"], max_output: "lots" }, /argument 'max_output'/);
await refused("output", { id: "x", from: "middle" }, /argument 'from' must be one of/);
assert.equal((await call(client, "list", {})).tasks.length, 0, "a refused start started a task");

// A task's output read by cursor to the end: exactly what it printed.
const short = await call(client, "start", {
  shell: "i=1; while [ $i -le 300 ]; do echo \"line $i\"; i=$((i+1)); done",
  name: "numbers",
});
assert.match(short.id, /^[0-9a-z]{12}$/);
const whole = await readToEnd(client, short.id, null, 512);
assert.equal(whole.text, numbered(1, 300));

// A dev server: wait until its readiness line, while it keeps running.
const server = await call(client, "start", {
  argv: ["sh", "-c", "echo booting; sleep 1; printf 'listening on '; sleep 0.5; echo 'port 8080'; sleep 120"],
  name: "dev-server",
});
const ready = await call(client, "wait", { id: server.id, until_output: "^listening on port \\d+$", timeout_s: 30 });
assert.equal(ready.end, "met");
assert.equal(ready.line, "listening on port 8080");
assert.equal(ready.state, "running");
const idle = await call(client, "wait", { id: server.id, idle_s: 0.5, timeout_s: 10 });
assert.equal(idle.end, "idle");
const bounded = await call(client, "wait", { id: server.id, timeout_s: 1 });
assert.equal(bounded.end, "gave_up");

// Errors: bgtask's own as isError results, malformed arguments as JSON-RPC errors.
const missing = await client.callTool({ name: "status", arguments: { id: "zzzzzzzz" } });
assert.equal(missing.isError, true);
assert.match(missing.content[0].text, /no task matches/);
const badCursor = await client.callTool({ name: "output", arguments: { id: server.id, cursor: "12.deadbeef" } });
assert.equal(badCursor.isError, true);
assert.match(badCursor.content[0].text, /invalid cursor/);
await assert.rejects(client.callTool({ name: "start", arguments: {} }), (e) => e.code === -32602);
await assert.rejects(client.callTool({ name: "no-such-tool", arguments: {} }), (e) => e.code === -32602);

// A failing build of 200,000 lines: its error line is found at the end by
// tail_lines, and anywhere by grep, each in one call of under 4 KB.
const build = await call(client, "start", {
  shell: "seq 1 199990 | sed 's/^/compiling unit /'; echo 'src/main.c:42: error: expected ;'; seq 1 9 | sed 's/^/note /'; exit 2",
  name: "build",
});
const ended = await call(client, "wait", { id: build.id, timeout_s: 60 });
assert.equal(ended.state, "failed");
assert.match(ended.tail, /note 9\n$/);
assert.ok(ended.tail.length <= 1024, "wait's tail is not bounded");
const tailRead = await client.callTool({ name: "output", arguments: { id: build.id, tail_lines: 12 } });
assert.ok(sizeOf(tailRead) < 4096, `tail_lines answer of ${sizeOf(tailRead)} bytes`);
assert.match(tailRead.structuredContent.text, /src\/main.c:42: error: expected ;/);
assert.equal(tailRead.structuredContent.complete, true);
console.log(`failing build: tail_lines answer ${sizeOf(tailRead)} bytes`);
const grepRead = await client.callTool({ name: "output", arguments: { id: build.id, grep: "error:" } });
assert.ok(sizeOf(grepRead) < 4096, `grep answer of ${sizeOf(grepRead)} bytes`);
assert.equal(grepRead.structuredContent.matches[0].line, 199991);
console.log(`failing build: grep answer ${sizeOf(grepRead)} bytes`);
assert.equal(grepRead.structuredContent.matches[0].text, "src/main.c:42: error: expected ;");
const statusTail = await call(client, "status", { id: build.id, tail: 2 });
assert.equal(statusTail.tail, "note 8\nnote 9\n");
const atEnd = await call(client, "output", { id: build.id, from: "end" });
assert.equal(atEnd.text, "");
assert.equal(atEnd.complete, true);

// Cancel, then list.
const cancelled = await call(client, "cancel", { id: server.id, grace_s: 1 });
assert.equal(cancelled.task.state, "cancelled");
const listed = await call(client, "list", {});
const states = Object.fromEntries(listed.tasks.map((t) => [t.id, t.state]));
assert.equal(states[short.id], "succeeded");
assert.equal(states[server.id], "cancelled");
const onlyCancelled = await call(client, "list", { state: ["cancelled"] });
assert.deepEqual(onlyCancelled.tasks.map((t) => t.id), [server.id]);

// The server is killed while a task prints; a new server continues from
// the old cursor: nothing lost, nothing repeated.
const slow = await call(client, "start", {
  shell: "i=1; while [ $i -le 200 ]; do echo \"line $i\"; i=$((i+1)); sleep 0.01; done",
});
await call(client, "wait", { id: slow.id, until_output: "^line 20$" });
let before = "";
let cursor = null;
for (let i = 0; i < 3; i++) {
  const args = { id: slow.id, max_bytes: 40 };
  if (cursor) args.cursor = cursor;
  const slice = await call(client, "output", args);
  before += slice.text;
  cursor = slice.cursor;
}
process.kill(transport.pid, "SIGKILL");
await new Promise((resolve) => setTimeout(resolve, 200));
({ client, transport } = await connect());
const status = await call(client, "status", { id: slow.id });
assert.ok(["running", "succeeded"].includes(status.task.state), `the task did not survive: ${status.task.state}`);
const after = await readToEnd(client, slow.id, cursor, 100);
assert.equal(before + after.text, numbered(1, 200));
const done = await call(client, "wait", { id: slow.id, timeout_s: 30 });
assert.equal(done.end, "task_ended");
assert.equal(done.state, "succeeded");

// Concurrent and cancellable: a 10 s wait blocks only itself; ping answers
// at once; the wait reports progress; notifications/cancelled ends it.
const sleeper = await call(client, "start", { argv: ["sleep", "30"], name: "sleeper" });
await sleep(200); // the threads of the calls before have ended
const baseline = threads(transport.pid);
const abort = new AbortController();
let progressed = 0;
const waiting = client.callTool({ name: "wait", arguments: { id: sleeper.id, timeout_s: 10 } }, CallToolResultSchema,
  { signal: abort.signal, onprogress: () => progressed++, timeout: 20000 });
waiting.catch(() => {});
await sleep(300);
const pingStart = performance.now();
await client.ping();
const pingMs = performance.now() - pingStart;
assert.ok(pingMs < 100, `ping took ${pingMs} ms during a wait`);
const quick = await call(client, "status", { id: sleeper.id });
assert.equal(quick.task.state, "running");
assert.ok(threads(transport.pid) > baseline, "the wait has no thread of its own");
for (let i = 0; i < 40 && progressed === 0; i++) await sleep(100);
assert.ok(progressed > 0, "no progress notification during a long wait");
abort.abort("the user interrupted");
await assert.rejects(waiting);
let waitEnded = false;
for (let i = 0; i < 50 && !waitEnded; i++) {
  waitEnded = threads(transport.pid) <= baseline;
  if (!waitEnded) await sleep(20);
}
assert.ok(waitEnded, "the cancelled wait still runs in the server");
console.log(`ping during a wait: ${pingMs.toFixed(1)} ms`);

// env reaches the command and its values are not stored; dedupe finds the running twin;
// a clamped wait says so.
const withEnv = await call(client, "start", { shell: "echo \"$GREETING\"", env: { GREETING: "hi there" } });
const greeted = await call(client, "wait", { id: withEnv.id, timeout_s: 600 });
assert.equal(greeted.tail, "hi there\n");
assert.deepEqual(greeted.clamped, { timeout_s: 60 });
const greetedRecord = await call(client, "status", { id: withEnv.id, verbose: true });
assert.deepEqual(greetedRecord.task.env_names, ["GREETING"]);
assert.ok(!JSON.stringify(greetedRecord).includes("hi there"), "an env value was stored");
const twin = await call(client, "start", { argv: ["sleep", "30"], name: "sleeper", dedupe: true });
assert.equal(twin.id, sleeper.id);
assert.equal(twin.duplicate, true);

// list of 50 more tasks stays small.
await Promise.all(Array.from({ length: 50 }, (_, i) => call(client, "start", { argv: ["true"], name: `many-${i}` })));
const many = await client.callTool({ name: "list", arguments: {} });
assert.ok(many.structuredContent.tasks.length >= 50);
assert.ok(sizeOf(many) < 16384, `list of ${many.structuredContent.tasks.length} tasks is ${sizeOf(many)} bytes`);
console.log(`list of ${many.structuredContent.tasks.length} tasks: ${sizeOf(many)} bytes`);
const verbose = await call(client, "status", { id: sleeper.id, verbose: true });
assert.ok(verbose.task.owner, "verbose: not the whole record");
console.log(`status: ${sizeOf(quick)} bytes; verbose: ${sizeOf(verbose)} bytes`);

// MCP Tasks: a task-augmented start followed to its result, with status notifications.
await client.listTools(); // this client learns which tools run as tasks
const statuses = [];
client.setNotificationHandler(TaskStatusNotificationSchema, (n) => statuses.push(n.params));
let created = null;
let final = null;
for await (const m of client.experimental.tasks.callToolStream({ name: "start", arguments: { shell: "echo hello; sleep 1" } })) {
  if (m.type === "taskCreated") created = m.task;
  if (m.type === "result") final = m.result;
  if (m.type === "error") throw m.error;
}
assert.match(created.taskId, /^[0-9a-z]{12}$/);
assert.equal(created.status, "working");
assert.equal(final.isError, false);
assert.equal(final.structuredContent.state, "succeeded");
assert.equal(final.structuredContent.tail, "hello\n");
for (let i = 0; i < 50 && !statuses.some((n) => n.taskId === created.taskId && n.status === "completed"); i++) await sleep(50);
assert.ok(statuses.some((n) => n.taskId === created.taskId && n.status === "completed"), "no completed status notification");
const page = await client.experimental.tasks.listTasks();
assert.equal(page.tasks.length, 50);
assert.ok(page.nextCursor, "tasks/list is not paginated");
const next = await client.experimental.tasks.listTasks(page.nextCursor);
assert.ok(next.tasks.some((t) => t.taskId === created.taskId));

// cancelTask, then a second one of the ended task is refused.
const toCancel = await call(client, "start", { argv: ["sleep", "100"] });
const cancelledTask = await client.experimental.tasks.cancelTask(toCancel.id);
assert.equal(cancelledTask.status, "cancelled");
assert.equal((await client.experimental.tasks.getTask(toCancel.id)).status, "cancelled");
await assert.rejects(client.experimental.tasks.cancelTask(toCancel.id), (e) => e.code === -32602);
await assert.rejects(client.experimental.tasks.getTask("zzzzzzzzzzzz"), (e) => e.code === -32602);

// The server is killed while a task runs; a new server answers for it.
let durable = null;
for await (const m of client.experimental.tasks.callToolStream({ name: "start", arguments: { shell: "sleep 2; echo 'fatal: out of cheese'; exit 3" } })) {
  if (m.type === "taskCreated") { durable = m.task; break; }
}
process.kill(transport.pid, "SIGKILL");
await sleep(200);
({ client, transport } = await connect());
assert.equal((await client.experimental.tasks.getTask(durable.taskId)).status, "working");
const outcome = await client.experimental.tasks.getTaskResult(durable.taskId, CallToolResultSchema);
assert.equal(outcome.isError, true);
assert.equal(outcome.structuredContent.state, "failed");
assert.equal(outcome.structuredContent.exit_code, 3);
assert.equal(outcome.structuredContent.tail, "fatal: out of cheese\n");
assert.equal(outcome._meta["io.modelcontextprotocol/related-task"].taskId, durable.taskId);
const afterRestart = await client.experimental.tasks.getTask(durable.taskId);
assert.equal(afterRestart.status, "failed");
assert.match(afterRestart.statusMessage, /exit 3/);
assert.equal(afterRestart.ttl, null);
await call(client, "cancel", { id: sleeper.id, grace_s: 0 });

// The event stream: the events tool returns a task's exit after a cursor,
// and a subscription to bgtask://task/ID is told when the task's record
// changes, both when the task ends and when its supervisor is killed.
assert.ok(client.getServerCapabilities().resources?.subscribe, "no resources.subscribe capability");
const updated = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
const mark = (await call(client, "events", { since: "-1" })).cursor;
assert.match(mark, /^e1\./);
const startedAt = performance.now();
const failing = await call(client, "start", { shell: "echo 'disk on fire'; sleep 1; exit 7", name: "failing" });
const uri = `bgtask://task/${failing.id}`;
await client.subscribeResource({ uri });
const exitStart = performance.now();
const exits = await call(client, "events", { since: mark, ids: [failing.id], types: ["task.exited"], wait_s: 20 });
const exitMs = performance.now() - exitStart;
assert.equal(exits.end, "read");
assert.equal(exits.events.length, 1, JSON.stringify(exits));
const exit = exits.events[0];
assert.equal(exit.task, failing.id);
assert.equal(exit.data.state, "failed");
assert.equal(exit.data.exit_code, 7);
assert.equal(exit.data.output_tail, "disk on fire\n");
// It waited: called before the task could end, it returned after the exit, within 4 s of it.
const returnedAt = exitStart + exitMs - startedAt;
assert.ok(returnedAt >= 1000 && returnedAt < 5000, `events returned ${returnedAt} ms after the start of a 1 s task`);
for (let i = 0; i < 100 && !updated.includes(uri); i++) await sleep(50);
assert.ok(updated.includes(uri), `no notifications/resources/updated for ${uri}: ${JSON.stringify(updated)}`);
const read = await client.readResource({ uri });
assert.equal(read.contents[0].mimeType, "application/json");
assert.equal(JSON.parse(read.contents[0].text).state, "failed");
// Nothing new after the exit: the bounded wait gives up; the cursor reads on.
const quiet = await call(client, "events", { since: exits.cursor, ids: [failing.id], wait_s: 0.5 });
assert.deepEqual([quiet.end, quiet.events.length], ["gave_up", 0]);
// Every event of the task, a page of one at a time, in order; a long wait is clamped.
const pages = [];
for (let since = mark, page; ; since = page.cursor) {
  page = await call(client, "events", { since, ids: [failing.id], max: 1, wait_s: 600 });
  assert.deepEqual(page.clamped, { wait_s: 50 });
  pages.push(...page.events.map((e) => e.type));
  if (!page.more) break;
}
assert.deepEqual(pages, ["task.created", "task.started", "task.exited"]);
// until_idle: the ended task's events, then queue.drained.
const idleRead = await call(client, "events", { ids: [failing.id], until_idle: true, wait_s: 10 });
assert.equal(idleRead.end, "idle");
assert.deepEqual(idleRead.events.map((e) => e.type), ["task.created", "task.started", "task.exited", "queue.drained"]);
const templates = await client.listResourceTemplates();
assert.equal(templates.resourceTemplates[0].uriTemplate, "bgtask://task/{id}");
assert.ok((await client.listResources()).resources.length > 0, "resources/list is empty");
await assert.rejects(client.subscribeResource({ uri: "bgtask://task/zzzzzzzzzzzz" }), (e) => e.code === -32002);
await assert.rejects(client.readResource({ uri: "file:///etc/passwd" }), (e) => e.code === -32002);
// A subscribed task whose supervisor and command are killed: told at once (pidfd), not on a poll.
const doomed = await call(client, "start", { argv: ["sleep", "100"] });
const doomedUri = `bgtask://task/${doomed.id}`;
await client.subscribeResource({ uri: doomedUri });
await sleep(300);
const record = await call(client, "status", { id: doomed.id, verbose: true });
updated.length = 0; // from here on, an update can only be the loss
const killedAt = performance.now();
process.kill(record.task.owner.pid, "SIGKILL");
process.kill(record.task.child.pid, "SIGKILL");
while (!updated.includes(doomedUri) && performance.now() - killedAt < 10000) await sleep(20);
const lostMs = performance.now() - killedAt;
assert.ok(updated.includes(doomedUri), "no update for a task whose supervisor was killed");
assert.ok(lostMs < 2500, `the update came ${lostMs} ms after the kill`);
assert.equal(JSON.parse((await client.readResource({ uri: doomedUri })).contents[0].text).state, "lost");
await client.unsubscribeResource({ uri: doomedUri });
console.log(`events: a call made ${(exitStart - startedAt).toFixed(0)} ms after starting a 1 s task returned after ${exitMs.toFixed(0)} ms; lost update ${lostMs.toFixed(0)} ms after the kill`);

await client.close();
console.log("ok");
