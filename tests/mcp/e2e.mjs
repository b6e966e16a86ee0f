// `bgtask mcp` driven the way an agent drives it: the official MCP
// TypeScript SDK client over stdio. Usage: node e2e.mjs BGTASK TASK_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
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

// Calls a tool and returns its structuredContent; fails on isError.
async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.content)}`);
  assert.equal(result.content[0].type, "text");
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

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
const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name).sort(), ["cancel", "list", "output", "start", "status", "wait"]);
for (const tool of tools) {
  assert.equal(tool.inputSchema.type, "object", `${tool.name}: inputSchema`);
  assert.equal(tool.outputSchema.type, "object", `${tool.name}: outputSchema`);
  assert.ok(tool.description.length > 10, `${tool.name}: description`);
}
const output = tools.find((t) => t.name === "output");
assert.deepEqual(output.inputSchema.required, ["id"]);
assert.ok(output.outputSchema.properties.cursor && output.outputSchema.properties.complete);
await client.ping();

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
const sizeOf = (result) => JSON.stringify(result).length;
const tailRead = await client.callTool({ name: "output", arguments: { id: build.id, tail_lines: 12 } });
assert.ok(sizeOf(tailRead) < 4096, `tail_lines answer of ${sizeOf(tailRead)} bytes`);
assert.match(tailRead.structuredContent.text, /src\/main.c:42: error: expected ;/);
assert.equal(tailRead.structuredContent.complete, true);
const grepRead = await client.callTool({ name: "output", arguments: { id: build.id, grep: "error:" } });
assert.ok(sizeOf(grepRead) < 4096, `grep answer of ${sizeOf(grepRead)} bytes`);
assert.equal(grepRead.structuredContent.matches[0].line, 199991);
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

await client.close();
console.log("ok");
