#!/usr/bin/env bash
# The CLI of a group start (`start --each-line`) SIGKILLed at each of its
# points (test seam BGTASK_TEST_GROUP_START_KILL=POINT@N, in its Nth group):
# its tasks' files written but no record (parked), the record temps written
# before their sync (temps_written), half the records renamed into place
# (half_renamed), the records durable before their IDs are printed
# (durable), the IDs printed before the hand-off (printed). The tasks wait
# for a --after task and a queue of 2 slots. Afterwards: every printed ID
# has a record; the tasks that have one are a prefix of the input, so that
# their count (`list --summary`) is where to resume; once resumed, every
# line runs exactly once, never more than 2 at a time, and none before its
# dependency ended; nothing is left in `.parked`; the invariants hold.
# CI size: 20 lines, killed in the first group; full size (scripts/soak):
# 2,100 lines, killed in the second.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
source "$(dirname "$0")/queue_handoff_lib.sh"
[ "${BGTASK_TEST_SEAMS_BUILT:-0}" = 1 ] || skip "this build has no test seams"
command -v jq >/dev/null || skip "jq is missing"

LINES=$(scaled 20 2100)
GROUP=$(scaled 1 2)
# Each task logs its start and end under its line's name ($0), like
# logged_command.
TASK="trap 'echo end \$(date +%s%N) >>$WORK/log/\$0; exit 143' TERM; echo start \$(date +%s%N) >>$WORK/log/\$0; echo end \$(date +%s%N) >>$WORK/log/\$0"
points=(parked temps_written half_renamed durable printed)
for point in "${points[@]}"; do
  D="$WORK/$point"
  mkdir -m 700 "$D"
  seq "$LINES" | sed "s/^/$point-/" >"$WORK/$point.lines"
  bg queue q --slots 2 >/dev/null
  dep=$(bg start -c "$(logged_command "$point-dep")")
  rc=$(quietly env BGTASK_TEST_GROUP_START_KILL="$point@$GROUP" timeout 120 "$BGTASK" --dir "$D" \
    start --each-line "$WORK/$point.lines" --after "$dep" --queue q -- sh -c "$TASK" {} \
    "$WORK/$point.printed" "$WORK/$point.err")
  [ "$rc" -eq 137 ] || fail "$point: the start was not killed (exit $rc): $(cat "$WORK/$point.err")"
  printed=$(wc -l <"$WORK/$point.printed")

  # The next invocation: every printed ID has a record, and those with one
  # are the first lines.
  started=$(bg list --queue q --summary | sed -n 's/.*total=\([0-9]*\).*/\1/p')
  while read -r id; do
    [ -e "$D/$id.status.json" ] || fail "$point: $id was printed and has no record"
  done <"$WORK/$point.printed"
  [ "$started" -ge "$printed" ] || fail "$point: $started records, $printed IDs printed"
  bg list --queue q --json | jq -r '.[].command[3]' | sort -t- -k2n >"$WORK/$point.recorded"
  head -n "$started" "$WORK/$point.lines" | cmp -s - "$WORK/$point.recorded" ||
    fail "$point: the $started tasks with a record are not the first lines"

  bg start --each-line "$WORK/$point.lines" --resume "$started" --after "$dep" --queue q -- sh -c "$TASK" {} \
    >"$WORK/$point.resumed" || fail "$point: the resumed start failed"
  bg wait --timeout 120s --queue q >/dev/null || fail "$point: not every task succeeded: $(bg list --summary)"
  names=()
  for i in $(seq "$LINES"); do
    names+=("$point-$i")
    [ "$(runs_of "$point-$i")" = 1 ] || fail "$point: line $i ran $(runs_of "$point-$i") times"
  done
  [ "$(bg list --queue q --summary)" = "queued=0 running=0 succeeded=$LINES failed=0 cancelled=0 timed_out=0 lost=0 corrupt=0 paused=0 total=$LINES" ] ||
    fail "$point: $(bg list --queue q --summary)"
  most=$(most_at_once "${names[@]}")
  [ "$most" -le 2 ] || fail "$point: $most tasks of a 2-slot queue ran at once"
  dep_end=$(first_of end "$point-dep")
  first_start=$(cat "${names[@]/#/$WORK/log/}" | awk '$1 == "start" { print $2 }' | sort -n | sed -n 1p)
  [ "$first_start" -ge "$dep_end" ] || fail "$point: a task started before its dependency ended"
  [ -z "$(ls -A "$D/.parked" | grep -vxF .looked)" ] || fail "$point: .parked still holds $(ls -A "$D/.parked" | sed -n 1,3p)"
  cat "$WORK/$point.printed" "$WORK/$point.resumed" >"$WORK/$point.ids"
  check_invariants "$D" "$WORK/$point.ids" || fail "$point: invariants"
  echo "$point: $printed IDs printed, $started records before the resume" >&2
done
crash_summary "points=${#points[@]} lines=$LINES group=$GROUP"
echo ok
