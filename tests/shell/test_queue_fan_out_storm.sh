#!/usr/bin/env bash
# 8 concurrent fan-outs (`start --each-line`, 12 lines each) into one queue
# of 2 slots, half of them behind a --after task, while one loop cancels
# queued tasks and another runs `cleanup --older-than 0s` (which may take a
# dependency away: its dependents then fail). Every task ends; none runs
# twice; a task cancelled before it started never runs; never more than 2
# run at once (from the commands' own start and end times); none starts
# before its dependency ended; the invariants hold.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/invariants.sh"
source "$(dirname "$0")/queue_handoff_lib.sh"
command -v jq >/dev/null || skip "jq is missing"

TASK="trap 'echo end \$(date +%s%N) >>$WORK/log/\$0; exit 143' TERM; echo start \$(date +%s%N) >>$WORK/log/\$0; sleep 0.02; echo end \$(date +%s%N) >>$WORK/log/\$0"
bg queue s --slots 2 >/dev/null
dep=$(bg start -c "sleep 1; $(logged_command dep)") # alive while the fan-outs start
fan_out() { # N: lines N-1 .. N-12
  local after=()
  [ $(($1 % 2)) -eq 0 ] || after=(--after "$dep")
  seq 12 | sed "s/^/$1-/" | bg start --each-line - "${after[@]}" --queue s -- sh -c "$TASK" {} >"$WORK/ids.$1"
}
touch "$WORK/storm"
on_exit 'rm -f "$WORK/storm"' # the loops below end with it
(while [ -e "$WORK/storm" ]; do
  id=$(bg list --queue s --state queued --json 2>/dev/null | jq -r '.[0].id // empty')
  [ -n "$id" ] && bg cancel "$id" >/dev/null 2>&1
  sleep 0.05
done) &
canceller=$!
(while [ -e "$WORK/storm" ]; do bg cleanup --older-than 0s >/dev/null 2>&1 || true; sleep 0.1; done) &
cleaner=$!
starters=()
for n in 1 2 3 4 5 6 7 8; do
  fan_out "$n" &
  starters+=($!)
done
for pid in "${starters[@]}"; do wait "$pid" || fail "a fan-out failed"; done
rm "$WORK/storm"
wait "$canceller" "$cleaner" || true
cat "$WORK"/ids.* >"$WORK/printed"
[ "$(wc -l <"$WORK/printed")" -eq 96 ] || fail "the fan-outs printed $(wc -l <"$WORK/printed") IDs, not 96"
bg wait --timeout 60s --queue s >/dev/null 2>&1 || true
names=()
for n in 1 2 3 4 5 6 7 8; do for i in $(seq 12); do names+=("$n-$i"); done; done
check_storm_outcome 2 "${names[@]}"
never_started=$(bg list --json | jq -r '.[] | select(.state == "cancelled" and .started_at == null) | .command[3]')
for name in $never_started; do
  [ "$(runs_of "$name")" -eq 0 ] || fail "$name ran though it was cancelled while queued"
done
ran=0
for name in "${names[@]}"; do ran=$((ran + $(runs_of "$name"))); done
dep_end=$(first_of end dep)
for n in 1 3 5 7; do
  for i in $(seq 12); do
    [ -e "$WORK/log/$n-$i" ] || continue
    start=$(first_of start "$n-$i")
    [ "$start" -ge "$dep_end" ] || fail "$n-$i started before its dependency ended"
  done
done
check_invariants "$D" || fail "invariants"
echo "ok: $ran of 96 ran, at most $most at once"
