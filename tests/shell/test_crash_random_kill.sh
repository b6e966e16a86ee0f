#!/usr/bin/env bash
# Random kill loop: ITERATIONS x (start a short task; wait 0-49 ms; SIGKILL
# the `start` process, the newest supervisor, or nothing) while four `list`
# loops and a `cleanup` loop run alongside. Afterwards: the invariants, no
# zombie left by a supervisor, no process of the directory left running.
# BGTASK_CRASH_ITERATIONS overrides the count (default 200; full scale 3000).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool jq pgrep ps

ITERATIONS=${BGTASK_CRASH_ITERATIONS:-$(scaled 200 3000)}
PRINTED="$WORK/printed"
PROBLEMS="$WORK/problems"
: >"$PRINTED"
: >"$PROBLEMS"

# start_time PID: field 22 of /proc/PID/stat.
start_time() { awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }

# newest_supervisor: the most recently started supervisor of $D (a
# supervisor leads its own session).
newest_supervisor() {
  local pid best="" best_time=-1 stat sid t
  for pid in $(pgrep -f -- "--dir $D start"); do
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
    stat=${stat##*) }
    read -r _ _ _ sid _ <<<"$stat"
    [ "$sid" = "$pid" ] || continue
    t=$(start_time "$pid") || continue
    if [ "${t:-0}" -gt "$best_time" ]; then
      best=$pid
      best_time=$t
    fi
  done
  [ -n "$best" ] && echo "$best"
}

# cli_done PID: the start process PID has exited (it may be a zombie until waited for).
cli_done() { [ "$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null || echo Z)" = Z ]; }

touch "$WORK/running"
list_loop() {
  local out
  while [ -e "$WORK/running" ]; do
    if ! out=$(bg list 2>&1); then
      echo "list failed: $out" >>"$PROBLEMS"
    elif grep -q corrupt <<<"$out"; then
      echo "list showed a corrupt record: $out" >>"$PROBLEMS"
    fi
    sleep 0.01
  done
}
cleanup_loop() {
  local out
  while [ -e "$WORK/running" ]; do
    out=$(bg cleanup 2>&1) || echo "cleanup failed: $out" >>"$PROBLEMS"
    sleep 0.01
  done
}
loops=()
for _ in 1 2 3 4; do
  list_loop &
  loops+=($!)
done
cleanup_loop &
loops+=($!)
at_exit 'rm -f "$WORK/running"; wait ${loops[*]} 2>/dev/null'

killed_cli=0
killed_supervisor=0
untouched=0
for i in $(seq "$ITERATIONS"); do
  "$BGTASK" --dir "$D" start -- sh -c "echo x; sleep 0.$RANDOM" >>"$PRINTED" 2>"$WORK/start.err" &
  cli=$!
  sleep "$(printf '0.%03d' $((RANDOM % 50)))"
  victim=$((RANDOM % 3))
  if [ "$victim" -eq 0 ]; then
    kill -KILL "$cli" 2>/dev/null && killed_cli=$((killed_cli + 1))
  elif [ "$victim" -eq 1 ]; then
    sup=$(newest_supervisor || true)
    if [ -n "$sup" ] && kill -KILL "$sup" 2>/dev/null; then
      killed_supervisor=$((killed_supervisor + 1))
    fi
  fi
  if ! wait_until 60 cli_done "$cli"; then
    echo "start $i still runs a minute later" >>"$PROBLEMS"
    kill -KILL "$cli" 2>/dev/null || true
  fi
  rc=0
  wait "$cli" 2>/dev/null || rc=$?
  if [ "$victim" -eq 2 ]; then
    untouched=$((untouched + 1))
    [ "$rc" -eq 0 ] || echo "untouched start $i failed ($rc): $(cat "$WORK/start.err")" >>"$PROBLEMS"
  elif [ "$rc" -ne 0 ] && [ "$rc" -ne 137 ] && ! grep -q '^bgtask: error: ' "$WORK/start.err"; then
    echo "start $i exited $rc without a message" >>"$PROBLEMS"
  fi
  if [ $((i % 50)) -eq 0 ]; then
    zombies=$(lasting_zombies "$D")
    [ -z "$zombies" ] || echo "zombies not reaped by supervisors: $zombies" >>"$PROBLEMS"
  fi
done 2>"$WORK/loop.err" # the shell's notices of killed jobs
rm -f "$WORK/running"
wait "${loops[@]}"

wait_until 60 dir_idle "$D" || echo "processes of $D still run a minute later" >>"$PROBLEMS"
check_invariants "$D" "$PRINTED" || echo "invariants broken" >>"$PROBLEMS"
records=$(find "$D" -name '*.status.json' | wc -l)

lost_ids=$(while read -r id; do [ -e "$D/$id.status.json" ] || echo "$id"; done <"$PRINTED" | grep -c . || true)

crash_summary "iterations=$ITERATIONS killed_cli=$killed_cli killed_supervisor=$killed_supervisor" \
  "untouched=$untouched records_checked=$records printed_ids=$(wc -l <"$PRINTED") records_lost=$lost_ids" \
  "failures=$(wc -l <"$PROBLEMS")"
if [ -s "$PROBLEMS" ]; then
  cat "$PROBLEMS" >&2
  fail "the random kill loop broke something"
fi
