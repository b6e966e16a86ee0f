#!/usr/bin/env bash
# `bgtask mcp` at the protocol level, through a real pipe: version
# negotiation, JSON-RPC errors for malformed messages, nothing but protocol
# messages on stdout, a clean exit at the end of stdin with the tasks it
# started still running. (tests/mcp drives it with the TypeScript SDK.)
source "$(dirname "$0")/lib.sh"

# mcp_session LINE...: feeds the lines to one server; its stdout in $WORK/out.
mcp_session() {
  set +e
  printf '%s\n' "$@" | timeout 30 "$BGTASK" --dir "$D" mcp >"$WORK/out" 2>"$WORK/err"
  rc=$?
  set -e
}
# reply ID: the answer to request ID.
reply() { jq -c "select(.id == $1)" "$WORK/out"; }

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"VERSION","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
for version in 2025-06-18 2025-11-25 1999-01-01; do
  mcp_session "${init/VERSION/$version}" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  [ "$rc" -eq 0 ] || fail "mcp exited $rc at the end of stdin"
  expected=$version
  [ "$version" != 1999-01-01 ] || expected=2025-11-25
  [ "$(reply 1 | jq -r .result.protocolVersion)" = "$expected" ] || fail "asked $version, got $(reply 1)"
  [ "$(wc -l <"$WORK/out")" -eq 1 ] || fail "a notification was answered: $(cat "$WORK/out")"
done
[ "$(reply 1 | jq -c .result.capabilities)" = '{"tools":{},"resources":{"subscribe":true},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}' ] ||
  fail "capabilities: $(reply 1)"

mcp_session "${init/VERSION/2025-11-25}" \
  'not json' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
  '[{"jsonrpc":"2.0","id":3,"method":"ping"}]' \
  '{"jsonrpc":"1.0","id":4,"method":"ping"}' \
  '{"jsonrpc":"2.0","id":5}' \
  '{"jsonrpc":"2.0","id":6,"method":"no/such"}' \
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope"}}' \
  '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"status","arguments":{"id":7}}}' \
  '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"status","arguments":{"id":"zzzzzz"}}}' \
  '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"start","arguments":{"argv":["sh","-c","echo started; sleep 30"]}}}' \
  '{"jsonrpc":"2.0","id":11,"method":"ping"}'
[ "$rc" -eq 0 ] || fail "mcp exited $rc"
jq -e . "$WORK/out" >/dev/null || fail "stdout holds something that is not JSON"
[ "$(jq -r .jsonrpc "$WORK/out" | sort -u)" = 2.0 ] || fail "a line on stdout is not JSON-RPC 2.0"
[ "$(jq -c 'select(.id == null) | .error.code' "$WORK/out" | tr '\n' ' ')" = "-32700 -32600 " ] ||
  fail "parse error / batch: $(jq -c 'select(.id == null)' "$WORK/out")"
[ "$(reply 2 | jq -r '.result.tools | map(.name) | sort | join(",")')" = cancel,events,list,output,start,status,wait ] ||
  fail "tools/list: $(reply 2)"
[ "$(reply 2 | jq '[.result.tools[] | select(.inputSchema.type == "object" and .outputSchema.type == "object")] | length')" -eq 7 ] ||
  fail "a tool without schemas"
[ "$(reply 4 | jq .error.code)" = -32600 ] || fail "jsonrpc 1.0: $(reply 4)"
[ "$(reply 5 | jq .error.code)" = -32600 ] || fail "no method: $(reply 5)"
[ "$(reply 6 | jq .error.code)" = -32601 ] || fail "unknown method: $(reply 6)"
[ "$(reply 7 | jq .error.code)" = -32602 ] || fail "unknown tool: $(reply 7)"
[ "$(reply 8 | jq .error.code)" = -32602 ] || fail "id of the wrong type: $(reply 8)"
[ "$(reply 9 | jq .result.isError)" = true ] || fail "unknown task is not isError: $(reply 9)"
grep -q 'no task matches' <<<"$(reply 9 | jq -r '.result.content[0].text')" || fail "no bgtask message: $(reply 9)"
[ "$(reply 10 | jq .result.isError)" = false ] || fail "start: $(reply 10)"
[ "$(reply 11 | jq -c .result)" = '{}' ] || fail "ping: $(reply 11)"
id=$(reply 10 | jq -r .result.structuredContent.id)
[ "$(reply 10 | jq -r '.result.content[0].text')" = "started task $id (running)" ] ||
  fail "the text is not the short line: $(reply 10)"
# The end of stdin ends a long wait at once; its answer is still sent.
started=$SECONDS
mcp_session "${init/VERSION/2025-11-25}" \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"id":"'"$id"'","timeout_s":60}}}'
[ "$rc" -eq 0 ] || fail "mcp exited $rc"
[ $((SECONDS - started)) -lt 10 ] || fail "a wait kept the server $((SECONDS - started)) s after stdin ended"
[ "$(reply 2 | jq -r .result.structuredContent.end)" = interrupted ] || fail "the cut wait: $(reply 2)"
# The server is gone; its task runs on.
sleep 0.3
[ "$(field "$id" .state)" = running ] || fail "the task did not outlive the server: $(field "$id" .state)"
timeout 60 "$BGTASK" --dir "$D" cancel "$id" >/dev/null

# Arguments reach the task as given, never through a command line: a name
# or a shell string that starts with a dash is no option.
mcp_session "${init/VERSION/2025-11-25}" \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start","arguments":{"shell":"-x","name":"--nightly"}}}'
[ "$(reply 2 | jq .result.isError)" = false ] || fail "start with dashes: $(reply 2)"
id=$(reply 2 | jq -r .result.structuredContent.id)
[ "$(field "$id" .name)" = --nightly ] || fail "name: $(field "$id" .name)"
[ "$(field "$id" '.command[2]')" = -x ] || fail "shell string: $(field "$id" .command)"
echo ok
