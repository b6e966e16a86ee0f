#!/usr/bin/env bash
# A long line through one slot: each queued task's supervisor is forked by
# the supervisor of the task before it, so 1,200 tasks behind one slot make
# a line of 1,200 generations. Every task runs once and succeeds (none is
# `lost` to a supervisor that died of an overflowed stack, as each
# generation once started on top of the last one's frames), and the last
# supervisor is no bigger than an early one (each generation once carried
# the heap of the one before it).
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"

tasks=1200
bg queue one --slots 1 >/dev/null
# Should the test fail with tasks still waiting, none is admitted while
# its processes are ended (a hand-off storm would fork on for minutes).
on_exit "rm -rf '$D/.parked'"
seq "$tasks" >"$WORK/lines"
mkdir "$WORK/ran"
# Each task notes its supervisor's resident size (kB).
"$BGTASK" --dir "$D" start --queue one --each-line "$WORK/lines" --quiet -- \
  sh -c 'mkdir "$1" && awk "/^VmRSS:/ { print \$2 }" "/proc/$PPID/status" >"$1/rss"' sh \
  "$WORK/ran/{}" || fail "start --each-line failed"
status=0
timeout 300 "$BGTASK" --dir "$D" wait --queue one >/dev/null || status=$?
bg list --json >"$WORK/records"
summary=$(jq -r '[.[] | .state] | group_by(.) | map("\(length) \(.[0])") | join(", ")' "$WORK/records")
[ "$status" -eq 0 ] || fail "wait --queue exited $status: $summary"
left=$(jq '[.[] | select(.state != "succeeded")] | length' "$WORK/records")
[ "$left" -eq 0 ] || fail "$left of $tasks tasks did not succeed: $summary"
[ "$(find "$WORK/ran" -mindepth 1 -maxdepth 1 | wc -l)" -eq "$tasks" ] || fail "not every task ran"
early=$(cat "$WORK/ran/20/rss")
late=$(cat "$WORK/ran/$tasks/rss")
[ "$late" -le $((early + 4096)) ] ||
  fail "the supervisor of task $tasks holds $late kB, that of task 20 $early kB"
echo "ok: $tasks tasks through one slot; supervisors of $early and $late kB"
