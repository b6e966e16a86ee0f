#!/usr/bin/env bash
# wait --until-output (and the MCP `wait` tool) with long lines and
# patterns that make a backtracking matcher recurse or run for ever: a
# 50 KB line is matched without a crash, a catastrophic pattern neither
# outlasts --timeout nor SIGTERM, a line of a few MB is matched anywhere,
# and the last state of a `\r` progress bar longer than 64 KiB matches.
source "$(dirname "$0")/lib.sh"

# ms_since START_NS: milliseconds since START_NS ($(date +%s%N)).
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# A 50 KB line ending in " ready", then nothing for a while.
long=$(bg start -- sh -c 'head -c 50000 /dev/zero | tr "\0" a; echo " ready"; sleep 60')
on_exit "timeout 30 '$BGTASK' --dir '$D' cancel --grace 0s '$long' >/dev/null"
set +e
line=$(timeout -s KILL 30 "$BGTASK" --dir "$D" wait "$long" --until-output '(a|b)+ ready$' --timeout 20s)
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "wait on a 50 KB line exited $rc (139: SIGSEGV)"
[ "${#line}" -eq 50006 ] || fail "the matching line has ${#line} characters, not 50006"

# gives_up_in ID PATTERN MS WHAT: `wait ID --until-output PATTERN --timeout
# 2s` gives up (exit 4) within MS milliseconds.
gives_up_in() {
  local start rc=0 elapsed
  start=$(date +%s%N)
  timeout -s KILL 60 "$BGTASK" --dir "$D" wait "$1" --until-output "$2" --timeout 2s 2>/dev/null || rc=$?
  elapsed=$(ms_since "$start")
  [ "$rc" -eq 4 ] || fail "wait --timeout 2s with $4 exited $rc after $elapsed ms"
  [ "$elapsed" -lt "$3" ] || fail "wait --timeout 2s with $4 took $elapsed ms"
}

# A pattern that backtracks exponentially on a short line: --timeout wins.
short=$(bg start -- sh -c 'echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!; sleep 60')
on_exit "timeout 30 '$BGTASK' --dir '$D' cancel --grace 0s '$short' >/dev/null"
gives_up_in "$short" '^(a+)+$' 6000 "a backtracking pattern"

# A pattern whose DFA blows up, on a 2 MB line of random a and b: each
# search is linear but slow, and --timeout still wins.
random=$(bg start -- sh -c 'awk "BEGIN { srand(1); for (i = 0; i < 2000000; i++) printf \"%s\", (rand() < 0.5 ? \"a\" : \"b\") }"; sleep 60')
on_exit "timeout 30 '$BGTASK' --dir '$D' cancel --grace 0s '$random' >/dev/null"
for _ in $(seq 300); do
  [ "$(stat -c %s "$D/$random.output")" -lt 2000000 ] || break
  sleep 0.1
done
gives_up_in "$random" '[ab]*a[ab]{20}c' 8000 "a DFA-busting pattern"

# ... and SIGTERM wins over a backtracking pattern.
"$BGTASK" --dir "$D" wait "$short" --until-output '^(a+)+$' 2>/dev/null &
waiter=$!
sleep 0.5
start=$(date +%s%N)
kill -TERM "$waiter"
set +e
wait "$waiter"
rc=$?
set -e
[ "$rc" -eq 5 ] || fail "wait interrupted by SIGTERM exited $rc"
[ "$(ms_since "$start")" -lt 3000 ] || fail "SIGTERM took $(ms_since "$start") ms to end the wait"

# A 3 MB line: a match far from its start is found.
huge=$(bg start -- sh -c 'head -c 2000000 /dev/zero | tr "\0" x; printf MARK; head -c 1000000 /dev/zero | tr "\0" y; echo')
rc=0
bg wait "$huge" --until-output 'xMARKy' --timeout 20s >/dev/null || rc=$?
[ "$rc" -eq 0 ] || fail "a match 2 MB into a line was not found (exit $rc)"

# A `\r` progress bar of 100 KB on one line: its last state matches.
bar=$(bg start -- sh -c 'i=0; while [ $i -lt 10000 ]; do printf "\r%05d/10000" $i; i=$((i + 1)); done; printf "\r100%% done\n"')
rc=0
line=$(bg wait "$bar" --until-output '^100% done$' --timeout 30s) || rc=$?
[ "$rc" -eq 0 ] || fail "the last state of a long progress bar did not match (exit $rc)"
[ "$line" = "100% done" ] || fail "the matching line is '$line'"

# The same through the MCP server, which must survive and answer on.
call() { # call ID TASK PATTERN
  printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"wait","arguments":{"id":"%s","until_output":"%s","timeout_s":2}}}' "$1" "$2" "$3"
}
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
start=$(date +%s%N)
set +e
# (stdin stays open past the waits: the end of input ends a wait.)
{
  printf '%s\n' "$init" "$(call 2 "$long" '(a|b)+ ready$')" "$(call 3 "$short" '^(a+)+$')" \
    "$(call 4 "$short" '(a')" '{"jsonrpc":"2.0","id":5,"method":"ping"}'
  sleep 6
} | timeout -s KILL 40 "$BGTASK" --dir "$D" mcp >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "bgtask mcp exited $rc: $(tail -3 "$WORK/err")"
[ "$(ms_since "$start")" -lt 15000 ] || fail "the MCP calls took $(ms_since "$start") ms"
reply() { jq -c "select(.id == $1)" "$WORK/out"; }
[ "$(reply 2 | jq -r .result.structuredContent.end)" = met ] || fail "MCP 50 KB line: $(reply 2 | cut -c1-300)"
[ "$(reply 3 | jq -r .result.structuredContent.end)" = gave_up ] || fail "MCP backtracking: $(reply 3 | cut -c1-300)"
[ "$(reply 4 | jq -r '.result.isError // .error.code')" != null ] || fail "MCP bad pattern: $(reply 4)"
[ "$(reply 5 | jq -c .result)" = '{}' ] || fail "the MCP server did not answer after the waits"
echo ok
