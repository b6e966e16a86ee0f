#!/usr/bin/env bash
# A cancel of many queued tasks SIGKILLed inside its second batch of 256
# (test seam BGTASK_TEST_GROUP_START_KILL=POINT@2): after the record temps
# are written (temps_written), or halfway through their renames
# (half_renamed). Afterwards every record is whole, queued or cancelled; a
# second cancel ends the rest; no task ever ran; once the queue has a slot,
# its hand-off clears the files the killed cancel left in `.parked`; and
# `events` (which backfills final events) shows one task.exited per task.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
[ "${BGTASK_TEST_SEAMS_BUILT:-0}" = 1 ] || skip "this build has no test seams"
command -v jq >/dev/null || skip "jq is missing"

tasks=600
for point in temps_written half_renamed; do
  D="$WORK/$point"
  mkdir -m 700 "$D"
  bg queue q --slots 0 >/dev/null
  seq "$tasks" | "$BGTASK" --dir "$D" start --queue q --each-line - --quiet -- touch "$WORK/ran-$point" ||
    fail "$point: start --each-line failed"
  rc=$(quietly env BGTASK_TEST_GROUP_START_KILL="$point@2" timeout 60 "$BGTASK" --dir "$D" \
    cancel --queue q --quiet --grace 0s "$WORK/$point.out" "$WORK/$point.err")
  [ "$rc" -eq 137 ] || fail "$point: the cancel was not killed (exit $rc): $(cat "$WORK/$point.err")"

  bg list --queue q --json >"$WORK/$point.list"
  others=$(jq '[.[] | select(.state != "queued" and .state != "cancelled")] | length' "$WORK/$point.list")
  [ "$others" -eq 0 ] || fail "$point: after the kill, $others records are neither queued nor cancelled"
  ended=$(jq '[.[] | select(.state == "cancelled")] | length' "$WORK/$point.list")
  [ "$ended" -ge 256 ] && [ "$ended" -lt "$tasks" ] ||
    fail "$point: $ended of $tasks cancelled by the killed cancel, not its first batch and less than all"

  bg cancel --queue q --quiet --grace 0s || fail "$point: the second cancel exited $?"
  [ "$(bg list --queue q --state cancelled --json | jq length)" -eq "$tasks" ] ||
    fail "$point: not all $tasks tasks cancelled after the second cancel"
  bg queue q --slots 1 >/dev/null # its hand-off visits the line
  left=$(find "$D/.parked" -name '*+q' | wc -l)
  [ "$left" -eq 0 ] || fail "$point: .parked still names $left tasks of the queue"
  [ ! -e "$WORK/ran-$point" ] || fail "$point: a cancelled task ran"
  bg events --queue q --type task.exited | jq -r .task | sort | uniq -c >"$WORK/$point.events"
  [ "$(wc -l <"$WORK/$point.events")" -eq "$tasks" ] && ! grep -qv '^ *1 ' "$WORK/$point.events" ||
    fail "$point: not one task.exited per task: $(sort -rn "$WORK/$point.events" | sed -n 1,3p)"
done
echo "ok: a cancel killed at each point leaves whole records, and the next ends the rest"
