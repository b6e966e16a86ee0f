#!/usr/bin/env bash
# A wall-clock jump does not reorder a queue, the `list` order or `--limit`,
# and never gives a negative duration. The wall clock every bgtask process
# reads (start, supervisors, list) is set back by an hour in the middle of
# the run, while tasks are queued and one runs; then:
# - the queue runs its tasks in the order they were started;
# - `list` shows them in that order and `list --limit 1` the last one;
# - the task that ran across the jump has its true duration (about 1 s,
#   from the monotonic clock), not minus an hour.
# The clock is jumped two ways: through the test seam
# BGTASK_TEST_CLOCK_OFFSET_FILE (test builds), and with libfaketime
# (LD_PRELOAD, re-reading its offset file), which needs nothing of bgtask.
source "$(dirname "$0")/lib.sh"

FAKETIME_LIB=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | sed -n 1p || true)

# scenario NAME: runs the checks with the clock jumped by `jump SECONDS`.
scenario() {
  local name=$1 dir="$WORK/$1" blocker a b across ids rc
  mkdir -m 700 "$dir"
  run() { timeout 30 "$BGTASK" --dir "$dir" "$@"; }
  jump 0
  blocker=$(run start --queue q --slots 1 -- sleep 1.5)
  a=$(run start --queue q -- sh -c "echo a >>'$dir/order'")
  across=$(run start -- sleep 1)
  jump -3600
  b=$(run start --queue q -- sh -c "echo b >>'$dir/order'")
  # The jump took effect (b's creation time is an hour before a's).
  local a_at b_at
  a_at=$(date -d "$(jq -r .created_at "$dir/$a.status.json")" +%s)
  b_at=$(date -d "$(jq -r .created_at "$dir/$b.status.json")" +%s)
  [ $((a_at - b_at)) -gt 3000 ] || fail "$name: the clock did not jump (created $a_at, then $b_at)"

  rc=0; run wait "$blocker" "$a" "$b" "$across" >/dev/null || rc=$?
  [ "$rc" = 0 ] || fail "$name: wait exited $rc"
  [ "$(tr '\n' ' ' <"$dir/order")" = "a b " ] || fail "$name: the queue ran '$(tr '\n' ' ' <"$dir/order")', not 'a b'"

  ids=$(run list --format jsonl | jq -r .id | tr '\n' ' ')
  [ "$ids" = "$blocker $a $across $b " ] || fail "$name: list order '$ids', started '$blocker $a $across $b'"
  [ "$(run list --limit 1 --format jsonl | jq -r .id)" = "$b" ] || fail "$name: --limit 1 is not the last task started"

  local duration
  duration=$(jq -r .duration_s "$dir/$across.status.json")
  awk -v d="$duration" 'BEGIN { exit !(d >= 0.9 && d < 60) }' ||
    fail "$name: the task that ran across the jump has duration_s $duration, not about 1"
  jump 0
}

checked=0
if [ "${BGTASK_TEST_SEAMS_BUILT:-0}" = 1 ]; then
  export BGTASK_TEST_CLOCK_OFFSET_FILE="$WORK/seam-offset"
  jump() { echo $(($1 * 1000)) >"$BGTASK_TEST_CLOCK_OFFSET_FILE"; }
  scenario seam
  unset BGTASK_TEST_CLOCK_OFFSET_FILE
  checked=$((checked + 1))
fi

if [ -n "$FAKETIME_LIB" ]; then
  jump() { if [ "$1" -lt 0 ]; then echo "$1" >"$WORK/faketime-offset"; else echo "+$1" >"$WORK/faketime-offset"; fi; }
  jump 0
  # Only the wall clock is faked; bgtask's own processes (and their
  # commands) carry the preload, which re-reads the offset at every call.
  # An ASan build of bgtask accepts a library preloaded before its runtime
  # only when told so.
  LD_PRELOAD=$FAKETIME_LIB FAKETIME_TIMESTAMP_FILE="$WORK/faketime-offset" FAKETIME_NO_CACHE=1 \
    FAKETIME_DONT_FAKE_MONOTONIC=1 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    scenario faketime
  checked=$((checked + 1))
fi

[ "$checked" -gt 0 ] || skip "neither test seams nor libfaketime"
echo ok
