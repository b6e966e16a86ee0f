#!/usr/bin/env bash
# A drain of many short tasks: one `start --each-line` queues 3,000 tasks
# behind 4 slots, each a mkdir that ends at once. Every task runs exactly
# once (a second run would fail) and the queue drains (a generous liveness
# bound, not a speed check); from the records, no slot ever holds two tasks
# at once and no more than 4 run at once; and the hand-offs stay bounded by the
# slots: sampled while the queue drains, there are never more bgtask
# processes than a supervisor per slot, one handing off per freed slot, and
# the CLI processes, with room to spare (a hand-off storm made hundreds).
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"

tasks=3000
slots=4
bg queue q --slots "$slots" >/dev/null
# Should the test fail with tasks still waiting, none is admitted while
# its processes are ended (a hand-off storm would fork on for minutes).
on_exit "rm -rf '$D/.parked'"
seq "$tasks" >"$WORK/lines"
mkdir "$WORK/ran"

# bgtask_processes: how many bgtask processes of this directory live (their
# command line names it, the supervisors' too: they are forks of `start`),
# leaving out those that have exited and wait to be reaped.
bgtask_processes() {
  local pids
  pids=$(pgrep -d, -f -- "--dir $D ") || { echo 0; return; }
  ps -o stat= -p "$pids" | grep -vc '^Z' || true
}

"$BGTASK" --dir "$D" start --queue q --each-line "$WORK/lines" --quiet -- \
  mkdir "$WORK/ran/{}" || fail "start --each-line failed"
# Liveness only (3,000 tasks that do nothing drain in seconds), and the
# bound on processes checked as it drains: a hand-off storm fails here at
# once rather than loading the machine for minutes.
limit=$((3 * slots + 4))
timeout 300 "$BGTASK" --dir "$D" wait --queue q >/dev/null &
waiter=$!
most=0
while kill -0 "$waiter" 2>/dev/null; do
  now=$(bgtask_processes)
  [ "$now" -le "$most" ] || most=$now
  [ "$most" -le "$limit" ] ||
    fail "$most bgtask processes at once behind $slots slots ($(find "$WORK/ran" -mindepth 1 | wc -l) of $tasks run)"
  sleep 0.2
done
status=0
wait "$waiter" || status=$?
ran=$(find "$WORK/ran" -mindepth 1 | wc -l)
[ "$status" -eq 0 ] || fail "the queue did not drain: wait exited $status with $ran of $tasks run"
[ "$ran" -eq "$tasks" ] || fail "$ran of $tasks tasks ran"
# A task run twice fails (its mkdir finds its folder made).
bg list --json >"$WORK/records"
left=$(jq '[.[] | select(.state != "succeeded")] | length' "$WORK/records")
[ "$left" -eq 0 ] || fail "$left tasks did not succeed: $(jq -c '[.[] | select(.state != "succeeded")][0]' "$WORK/records")"
# From the records' start and end times (the slot is held over both): no
# slot holds two tasks at once, and no more than $slots run at once.
shared=$(jq '[group_by(.slot)[] | sort_by(.started_at) as $s
  | range(1; $s | length) | select($s[.].started_at < $s[. - 1].finished_at)] | length' "$WORK/records")
[ "$shared" -eq 0 ] || fail "$shared times a task started in a slot before its last task ended"
at_once=$(jq -r '.[] | "\(.started_at) 1\n\(.finished_at) 0"' "$WORK/records" |
  sort -k1,1 -k2,2n | awk '$2 == 1 { n++; if (n > m) m = n } $2 == 0 { n-- } END { print m + 0 }')
[ "$at_once" -le "$slots" ] || fail "$at_once tasks of a $slots-slot queue ran at once"
[ -z "$(ls -A "$D/.parked" | grep -vxF .looked)" ] || fail ".parked still holds $(ls -A "$D/.parked" | wc -l) files"
echo "ok: $tasks tasks ran once each; at most $most bgtask processes at once"
