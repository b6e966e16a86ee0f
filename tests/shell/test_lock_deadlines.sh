#!/usr/bin/env bash
# No command waits for ever on a lock of the task directory: a stopped
# process holding a record's update lock (as a `progress` under Ctrl-Z
# would) or `start.lock` (a `start --dedupe` under Ctrl-Z) makes each
# command that needs it fail after its patience (5 s) with exit 11 (the
# code of a busy lock, not bgtask's own failure) and a message naming the
# holder's pid; `cancel` keeps its bound; once the holder is gone
# everything works again.
source "$(dirname "$0")/lib.sh"

# timed LIMIT CMD...: runs CMD, its status in $rc, failing if it takes LIMIT s or more.
timed() {
  local limit=$1 started
  shift
  started=$(date +%s%N)
  rc=0
  timeout 30 "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  elapsed_ms=$((($(date +%s%N) - started) / 1000000))
  [ "$elapsed_ms" -lt $((limit * 1000)) ] || fail "$* took ${elapsed_ms} ms (limit ${limit} s), rc $rc"
}

id=$(bg start --grace 1s -- sleep 300)
on_exit "'$BGTASK' --dir '$D' cancel --grace 0 $id"

# A stopped holder of the record's update lock.
hold_update_lock_stopped "$D/$id.lock"

timed 9 "$BGTASK" --dir "$D" progress --id "$id" --message blocked
[ "$rc" = 11 ] || fail "progress under a held lock exited $rc: $(cat "$WORK/err")"
grep -F "pid $holder (python3, stopped)" "$WORK/err" >/dev/null || fail "progress: $(cat "$WORK/err")"
timed 13 "$BGTASK" --dir "$D" cancel --grace 1s "$id"
[ "$rc" = 11 ] && grep -F "pid $holder" "$WORK/err" >/dev/null ||
  fail "cancel under a held lock: rc $rc: $(cat "$WORK/err")"
# Reading commands never wait for the lock.
timed 3 "$BGTASK" --dir "$D" status "$id"
[ "$rc" = 0 ] || fail "status under a held lock: rc $rc: $(cat "$WORK/err")"

kill -CONT "$holder"
kill "$holder"
wait "$holder" 2>/dev/null || true
bg progress --id "$id" --message free >/dev/null || fail "progress once the holder is gone"
[ "$(field "$id" .progress.message)" = free ] || fail "progress not recorded"

# A stopped holder of start.lock (flock(1); -o: its sleep does not hold it).
flock -o "$D/start.lock" sleep 300 &
locker=$!
on_exit "kill -CONT $locker; kill \$(ps -o pid= --ppid $locker) $locker"
for _ in $(seq 200); do grep -q "FLOCK" "/proc/$locker/fdinfo/"* 2>/dev/null && break; sleep 0.05; done
kill -STOP "$locker"
timed 9 "$BGTASK" --dir "$D" start --dedupe -- true
[ "$rc" = 11 ] || fail "start --dedupe under a held start.lock exited $rc: $(cat "$WORK/err")"
grep -F "start.lock" "$WORK/err" | grep -F "pid $locker (flock, stopped)" >/dev/null ||
  fail "start --dedupe: $(cat "$WORK/err")"
# A start without --dedupe does not take the lock.
timed 3 "$BGTASK" --dir "$D" start -- true
[ "$rc" = 0 ] || fail "a plain start under a held start.lock: rc $rc: $(cat "$WORK/err")"
kill -CONT "$locker"
kill $(ps -o pid= --ppid "$locker") "$locker"
wait "$locker" 2>/dev/null || true
timed 5 "$BGTASK" --dir "$D" start --dedupe -- true
[ "$rc" = 0 ] || fail "start --dedupe once start.lock is free: rc $rc: $(cat "$WORK/err")"
bg cancel --grace 0 "$id" >/dev/null
echo ok
