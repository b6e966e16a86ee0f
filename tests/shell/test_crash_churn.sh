#!/usr/bin/env bash
# Concurrency: tasks start and finish all the time while two `list` loops,
# a `cleanup --older-than 0` loop and a `wait` on every task run. No task
# that cleanup removed may come back (no record reappears after cleanup
# reported it removed), and every `wait` reports the task's real outcome
# (each task exits with a code chosen for it) or exit 8 (removed before the
# wait held it; 2 if it was removed before the wait started), never `lost`.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool jq

TASKS=$(scaled 60 600)
pids=()
for _ in 1 2; do
  (while :; do bg list >/dev/null 2>&1 || true; done) &
  pids+=($!)
done
(while :; do bg cleanup --older-than 0 2>/dev/null | sed -n 's/^removed \([0-9a-z]*\) .*/\1/p' >>"$WORK/removed" || true; done) &
pids+=($!)
at_exit 'kill ${pids[*]} 2>/dev/null'

one() {
  local code=$1 id rc=0 out
  id=$(bg start -- sh -c "sleep 0.0$((RANDOM % 10)); exit $code") || return 0
  out=$(bg wait "$id" 2>&1) || rc=$?
  echo "$id $code $rc $out" >>"$WORK/waits"
}
waiters=()
for i in $(seq "$TASKS"); do
  one $((i % 4)) &
  waiters+=($!)
  sleep 0.0$((RANDOM % 5))
done
wait "${waiters[@]}" || true
sleep 1
kill "${pids[@]}" 2>/dev/null || true
wait "${pids[@]}" 2>/dev/null || true

misreports=0
while read -r id code rc rest; do
  # 2 "no task": removed before this wait even started (the ID was unknown).
  if [ "$rc" = 2 ] && [[ "$rest" == *"no task $id"* ]]; then
    continue
  fi
  if [ "$rc" != "$code" ] && [ "$rc" != 8 ]; then
    problem "wait on $id (exit $code) exited $rc: $rest"
    misreports=$((misreports + 1))
  fi
done <"$WORK/waits"
reappeared=0
if [ -s "$WORK/removed" ]; then
  while read -r id; do
    if [ -e "$D/$id.status.json" ]; then
      problem "$id came back after cleanup removed it: $(jq -c '{state, error}' "$D/$id.status.json")"
      reappeared=$((reappeared + 1))
    fi
  done <"$WORK/removed"
fi
check_invariants "$D" || problem "invariants broken"
crash_summary "tasks=$TASKS waits=$(wc -l <"$WORK/waits") removed=$(sort -u "$WORK/removed" 2>/dev/null | wc -l)" \
  "misreports=$misreports reappeared=$reappeared problems=$problems"
[ "$problems" -eq 0 ] || exit 1
echo "PASS"
