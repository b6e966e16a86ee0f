#!/usr/bin/env bash
# PID reuse: in a pid namespace, kill a task's supervisor and command, then
# force the dead supervisor's pid (and, second case, the dead command's pid,
# taken by a process that leads its own session and group) onto an unrelated
# `sleep` via ns_last_pid. The task must become `lost`, and neither `status`
# nor `cancel` may signal the unrelated process. Each case runs
# BGTASK_CRASH_REUSE_ROUNDS times (default 3; full scale 30); a round where
# the kernel did not hand out the wanted pid is retried. The record is then
# given the new process's start time, as if the pid had been reused within
# one clock tick (which happens: pid and start time alone prove nothing).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_root
require_tool unshare jq setsid
unshare --pid --fork --mount-proc true 2>/dev/null || skip "unshare --pid --fork --mount-proc is not permitted here"

ROUNDS=${BGTASK_CRASH_REUSE_ROUNDS:-$(scaled 3 30)}

# The part that runs as pid 1 of a new pid namespace. Prints one line per
# round: "ok CASE SAME_START_TIME", "retry CASE" or "FAIL CASE: why".
cat >"$WORK/inner.sh" <<'EOF'
set -u
D=$1 CASE=$2
bg() { timeout 60 "$BGTASK" --dir "$D" "$@"; }
gone() { while [ -e "/proc/$1" ]; do sleep 0.01; done; }  # sleep(1) lets pid 1 reap
field22() { awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$1/stat"; }

ID=$(bg start -- sleep 100) || { echo "FAIL $CASE: start failed"; exit 0; }
R="$D/$ID.status.json"
S=$(jq .owner.pid "$R"); C=$(jq .child.pid "$R"); G=$(jq .child.pgid "$R")
S_TIME=$(jq .owner.start_time "$R"); C_TIME=$(jq .child.start_time "$R")
kill -9 "$S"; gone "$S"
kill -9 -- "-$G"; gone "$C"
if [ "$CASE" = supervisor ]; then
  P=$S; WANT_TIME=$S_TIME
  echo $((P - 1)) >/proc/sys/kernel/ns_last_pid
  sleep 100 &
  N=$!
else
  P=$C; WANT_TIME=$C_TIME
  echo $((P - 1)) >/proc/sys/kernel/ns_last_pid
  setsid sleep 100 &
  N=$!
fi
if [ "$N" != "$P" ]; then
  kill "$N" 2>/dev/null; echo "retry $CASE"; exit 0
fi
# A pid reused within the same clock tick also has the recorded start time;
# make that happen every time by writing N's start time into the record.
same=no
[ "$(field22 "$N")" = "$WANT_TIME" ] && same=yes
key=$([ "$CASE" = supervisor ] && echo owner || echo child)
jq -c --argjson t "$(field22 "$N")" ".$key.start_time = \$t" "$R" >"$D/.forge.tmp" && mv "$D/.forge.tmp" "$R"
out=$(bg status "$ID" 2>&1) || true
state=$(jq -r .state "$R")
bg cancel --grace 0 "$ID" >/dev/null 2>&1 || true
sleep 0.2
if ! kill -0 "$N" 2>/dev/null; then
  echo "FAIL $CASE: the unrelated process $N (pid reused, same start time: $same) was killed"
elif [ "$state" != lost ]; then
  echo "FAIL $CASE: task is '$state' after reconciliation, not lost (same start time: $same): $out"
else
  echo "ok $CASE $same"
fi
kill "$N" 2>/dev/null || true
EOF

ok=0
same_time=0
problems=0
for case in supervisor command; do
  for round in $(seq "$ROUNDS"); do
    for _ in 1 2 3 4 5; do
      dir="$WORK/$case.$round"
      rm -rf "$dir"
      mkdir -m 700 "$dir"
      line=$(BGTASK="$BGTASK" timeout 120 unshare --pid --fork --mount-proc bash "$WORK/inner.sh" "$dir" "$case" || true)
      echo "$line"
      case "$line" in
        "ok "*) ok=$((ok + 1)); [ "${line##* }" = no ] || same_time=$((same_time + 1)); break ;;
        "retry "*) continue ;;
        *) problems=$((problems + 1)); break ;;
      esac
    done
    if check_invariants "$dir"; then
      rm -rf "$dir"
    else
      problems=$((problems + 1))
    fi
  done
done

crash_summary "reuse_rounds=$((ok + problems)) natural_start_time_collisions=$same_time failures=$problems records_checked=$INV_RECORDS_CHECKED"
[ "$problems" -eq 0 ] || fail "pid reuse fooled bgtask"
[ "$ok" -gt 0 ] || skip "the kernel never handed out the wanted pid"
