#!/usr/bin/env bash
# Descriptor hygiene: the command inherits only fds 0-2 (even when the caller
# has others open); killing the supervisor releases the task lock at once
# (the command does not hold it); and under `ulimit -n 64` long loops keep
# working, with the descriptor counts of `wait`, `output --follow` and the
# supervisor flat while a task updates its record hundreds of times.
# BGTASK_CRASH_FD_LOOPS overrides the loop length (default 200; full 2000).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool jq

LOOPS=${BGTASK_CRASH_FD_LOOPS:-$(scaled 200 2000)}
fd_count() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# 1. Only 0-2 reach the command, even with extra descriptors in the caller.
exec 7>"$WORK/caller-fd" 8<"$WORK/caller-fd"
id=$(bg start -- sh -c 'for f in $(seq 3 1023); do [ -e /proc/$$/fd/$f ] && echo "fd $f: $(readlink /proc/$$/fd/$f)"; done; echo end')
exec 7>&- 8<&-
bg wait "$id" >/dev/null || problem "the fd probe failed"
[ "$(bg output "$id")" = end ] || problem "the command inherited descriptors: $(bg output "$id" | sed -n 1,5p | tr '\n' ';')"

# 2. Killing the supervisor frees the lock at once; the command runs on.
id=$(bg start -- sleep 30)
sup=$(field "$id" .owner.pid)
ino=$(stat -c %i "$D/$id.lock")
grep -qx "$ino" <<<"$(held_lock_inodes)" || problem "the lock of a running task is not held"
kill -KILL "$sup"
wait_until 5 bash -c "! kill -0 $sup 2>/dev/null" || problem "supervisor $sup did not die"
# Gone means its descriptors are closed: nobody else may hold the lock.
if grep -qx "$ino" <<<"$(held_lock_inodes)"; then
  problem "the lock is still held after the supervisor died (an inherited descriptor?)"
fi
[ "$(bg status --json "$id" | jq -r '.[0].unsupervised')" = true ] ||
  problem "task not seen as unsupervised right after its supervisor died"
bg cancel --grace 0 "$id" >/dev/null || problem "cancel of the unsupervised task failed"

# 3. Long loops under `ulimit -n 64`.
(
  ulimit -n 64
  id=$(bg start -- sh -c "i=0; while [ \$i -lt $LOOPS ]; do \"$BGTASK\" progress --current \$i --total $LOOPS || exit 9; i=\$((i + 1)); done; exit 5")
  bg wait "$id" >/dev/null &
  waiter=$!
  bg output --follow "$id" >/dev/null &
  follower=$!
  sup=$(field "$id" .owner.pid)
  sleep 0.3
  first="$(fd_count "$waiter") $(fd_count "$follower") $(fd_count "$sup")"
  max_w=0 max_f=0 max_s=0
  while kill -0 "$waiter" 2>/dev/null; do
    w=$(fd_count "$waiter") f=$(fd_count "$follower") s=$(fd_count "$sup")
    [ "$w" -le "$max_w" ] || max_w=$w
    [ "$f" -le "$max_f" ] || max_f=$f
    [ "$s" -le "$max_s" ] || max_s=$s
    sleep 0.1
  done
  rc=0
  wait "$waiter" || rc=$?
  [ "$rc" -eq 5 ] || echo "FAIL: wait under ulimit -n 64 exited $rc, the task 5" >&2
  rc=0
  wait "$follower" || rc=$?
  [ "$rc" -eq 5 ] || echo "FAIL: output --follow under ulimit -n 64 exited $rc, the task 5" >&2
  read -r w0 f0 s0 <<<"$first"
  # A handful of descriptors come and go within one wake-up; a leak grows
  # with every one of the hundreds of updates.
  [ "$max_w" -le $((w0 + 4)) ] || echo "FAIL: wait's descriptors grew from $w0 to $max_w" >&2
  [ "$max_f" -le $((f0 + 4)) ] || echo "FAIL: output --follow's descriptors grew from $f0 to $max_f" >&2
  [ "$max_s" -le $((s0 + 4)) ] || echo "FAIL: the supervisor's descriptors grew from $s0 to $max_s" >&2
  [ "$(field "$id" .progress.current)" = $((LOOPS - 1)) ] || echo "FAIL: progress updates were lost" >&2
  for _ in $(seq "$LOOPS"); do
    bg status "$id" >/dev/null || { echo "FAIL: status under ulimit -n 64 failed" >&2; break; }
  done
  for _ in $(seq $((LOOPS / 4))); do
    bg list >/dev/null || { echo "FAIL: list under ulimit -n 64 failed" >&2; break; }
  done
) 2>"$WORK/ulimit.err" || problem "the ulimit -n 64 part failed"
if grep -q FAIL "$WORK/ulimit.err"; then
  cat "$WORK/ulimit.err" >&2
  problems=$((problems + $(grep -c FAIL "$WORK/ulimit.err")))
fi

wait_until 10 dir_idle "$D" || problem "processes left"
check_invariants "$D" || problem "invariants broken"
crash_summary "loops=$LOOPS records_checked=$INV_RECORDS_CHECKED failures=$problems"
[ "$problems" -eq 0 ] || fail "$problems descriptor problems"
