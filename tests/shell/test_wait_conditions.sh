#!/usr/bin/env bash
# wait ID --until-output REGEX / --until-port PORT / --idle DUR: readiness
# and stuck-ness of a running task, as a script or an agent waits for a dev
# server. 0 when the line or the port is there, 6 when the task ended
# first, 7 when it printed nothing for DUR, 4 for --timeout; bad values 2.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

now_ms() { date +%s%3N; }

# A readiness line that arrives in three writes, with pauses between:
# matched as one line (the pattern is anchored at both ends), only once it
# is complete, and soon after (well before the 5 s safety poll).
ID=$(bg start -- sh -c 'printf "booting\nserver "; sleep 1; printf "rea"; sleep 1; printf "dy on 8080\n"; sleep 30')
t0=$(now_ms)
run wait "$ID" --until-output '^server ready on [0-9]+$'
t1=$(now_ms)
expect_rc 0 "--until-output on a split line"
[ "$out" = "server ready on 8080" ] || fail "printed '$out', not the matching line"
[ $((t1 - t0)) -ge 1500 ] || fail "matched after $((t1 - t0)) ms, before the line was complete"
[ $((t1 - t0)) -lt 4500 ] || fail "matched after $((t1 - t0)) ms: not woken by the write"
[ "$(field "$ID" .state)" = running ] || fail "the task does not run on after the wait"

# A line already there matches at once; --json says where the line ends.
run wait "$ID" --until-output 'booting' --json
expect_rc 0 "--until-output on earlier output"
[ "$(jq -r '.end + " " + .line' <<<"$out")" = "met booting" ] || fail "json: $out"
after=$(jq -r .cursor <<<"$out")
[ "$(jq -r .text <<<"$(bg output "$ID" --since "$after" --json)")" = 'server ready on 8080' ] ||
  fail "the cursor after the matched line does not lead to the next line"

# Colours do not hide a line from the pattern.
ID2=$(bg start -- sh -c 'printf "\033[32mREADY\033[0m in 3 ms\n"; sleep 30')
run wait "$ID2" --until-output '^READY in' --timeout 10s
expect_rc 0 "--until-output on a coloured line"

# The task ends without the line: 6, with a message; --timeout: 4; the
# task's final line without a newline still counts.
ID3=$(bg start -- sh -c 'echo one; echo two; exit 3')
run wait "$ID3" --until-output 'three'
expect_rc 6 "--until-output on a task that ended without the line"
grep -q "ended (failed" <<<"$err" || fail "no reason on stderr: $err"
ID4=$(bg start -- sh -c 'sleep 0.3; printf "last words"')
run wait "$ID4" --until-output 'words$'
expect_rc 0 "--until-output on a final line without a newline"
run wait "$ID" --until-output 'never printed' --timeout 1s
expect_rc 4 "--until-output --timeout"
[ "$(field "$ID" .state)" = running ] || fail "a wait that gave up stopped the task"

# --idle: busy for about 2 s (a line every 200 ms), then silent: returns 7
# once it has been quiet for 1 s, not while it prints.
ID5=$(bg start -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.2; done; sleep 30')
t0=$(now_ms)
run wait "$ID5" --idle 1s --json
t1=$(now_ms)
expect_rc 7 "--idle on a task that went quiet"
[ $((t1 - t0)) -ge 2500 ] || fail "idle after $((t1 - t0)) ms, while the task still printed"
[ "$(jq -r .end <<<"$out")" = idle ] || fail "json: $out"
awk -v q="$(jq -r .quiet_s <<<"$out")" 'BEGIN { exit !(q >= 1) }' || fail "quiet_s below 1: $out"
# Already quiet for longer than DUR: returns at once.
t0=$(now_ms)
run wait "$ID5" --idle 500ms
t1=$(now_ms)
expect_rc 7 "--idle on a task quiet for long"
[ $((t1 - t0)) -lt 3000 ] || fail "--idle on a quiet task took $((t1 - t0)) ms"
# Ready or stuck, whichever comes first.
run wait "$ID5" --until-output 'tick 99' --idle 300ms
expect_rc 7 "--until-output with --idle on a quiet task"
run wait "$ID3" --idle 1s
expect_rc 6 "--idle on a finished task"
bg cancel "$ID" "$ID2" "$ID5" >/dev/null

# --until-port: a grandchild of the task listens on the port after 1 s.
if command -v python3 >/dev/null; then
  port=$((20000 + RANDOM % 20000))
  listen="import socket,sys,time; time.sleep(float(sys.argv[2])); s=socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('::', int(sys.argv[1]))); s.listen(); time.sleep(60)"
  ID6=$(bg start -- sh -c 'python3 -c "$0" "$1" 1 & wait' "$listen" "$port")
  run wait "$ID6" --until-port "$port" --json --timeout 20s
  expect_rc 0 "--until-port"
  [ "$(jq -r .end <<<"$out")" = met ] || fail "json: $out"
  # Another process (not the task's) listening on a port does not count.
  port2=$((port + 1))
  python3 -c "$listen" "$port2" 0 &
  outsider=$!
  sleep 0.5
  run wait "$ID6" --until-port "$port2" --timeout 1500ms
  expect_rc 4 "--until-port of a port another process listens on"
  kill "$outsider"
  bg cancel "$ID6" >/dev/null
  run wait "$ID6" --until-port "$port"
  expect_rc 6 "--until-port on a finished task"
else
  echo "python3 missing: --until-port not tested" >&2
fi

# Bad values and combinations: exit 2, one line.
for args in "--until-output (" "--until-port 0" "--until-port 70000" "--until-port x" "--idle soon" \
  "--until-output a --until-port 80"; do
  # shellcheck disable=SC2086
  run wait "$ID3" $args
  expect_rc 2 "wait $args"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "wait $args: more than one line: $err"
done
run wait "$ID3" "$ID4" --until-output x
expect_rc 2 "--until-output with two tasks"
run wait "$ID3" --any --idle 1s
expect_rc 2 "--idle with --any"
echo ok
