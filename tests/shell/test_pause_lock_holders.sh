#!/usr/bin/env bash
# pause never stops a bgtask process of the task while it holds a lock of
# the directory. A task that runs `bgtask progress` in a tight loop holds
# its record's update lock much of the time, and one that runs
# `bgtask start --dedupe` in a loop holds the directory's start.lock: each
# pause must still be confirmed at once, the record stay writable (the
# supervisor records the pause, `progress` from outside works), other
# `start --dedupe` of the directory start, and `cancel --grace 1s` of the
# paused task return within its bound (grace, 10 s, grace).
source "$(dirname "$0")/lib.sh"

# timed_bg LIMIT ARGS...: runs bg ARGS, fails if it takes LIMIT seconds or more.
timed_bg() {
  local limit=$1 started rc=0
  shift
  started=$(date +%s%N)
  timeout "$((limit + 5))" "$BGTASK" --dir "$D" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  elapsed_ms=$((($(date +%s%N) - started) / 1000000))
  [ "$elapsed_ms" -lt $((limit * 1000)) ] ||
    fail "bgtask $* took ${elapsed_ms} ms (limit ${limit} s), rc $rc: $(cat "$WORK/err")"
  return $rc
}

# cancel_paused ID: pauses ID once more, then `cancel --grace 1s` must end it
# as cancelled within its documented bound.
cancel_paused() {
  timed_bg 5 pause "$1" || fail "last pause failed: $(cat "$WORK/err")"
  local rc=0
  timed_bg 14 cancel --grace 1s "$1" || rc=$?
  [ "$rc" = 0 ] && [ "$(field "$1" .state)" = cancelled ] ||
    fail "cancel of the paused task: rc $rc, $(field "$1" .state): $(cat "$WORK/err")"
}

# 1. progress in a tight loop.
id=$(bg start --grace 1s -c "while :; do \"$BGTASK\" progress --message step; done")
for _ in $(seq 200); do [ "$(field "$id" .progress.message)" = step ] && break; sleep 0.05; done
[ "$(field "$id" .progress.message)" = step ] || fail "no progress was recorded"
for round in 1 2 3 4 5 6 7 8; do
  timed_bg 5 pause "$id" || fail "pause $round failed: $(cat "$WORK/err")"
  [ "$(cat "$WORK/out")" = "$id paused" ] || fail "pause $round: $(cat "$WORK/out")"
  timed_bg 3 progress --id "$id" --message outside || fail "progress of the paused task: $(cat "$WORK/err")"
  timed_bg 5 resume "$id" || fail "resume $round failed: $(cat "$WORK/err")"
done
cancel_paused "$id"

# 2. start --dedupe in a tight loop (every round after the first finds the
# running sleep and prints its ID).
id=$(bg start --grace 1s -c "while :; do \"$BGTASK\" start --dedupe -- sleep 300 >/dev/null; done")
sleeper=
for _ in $(seq 200); do
  sleeper=$(bg list --json | jq -r '.[] | select(.command[0] == "sleep") | .id')
  [ -n "$sleeper" ] && break
  sleep 0.05
done
[ -n "$sleeper" ] || fail "the task's start --dedupe did not start its sleep"
on_exit "'$BGTASK' --dir '$D' cancel --grace 0 $sleeper"
for round in 1 2 3 4 5; do
  timed_bg 5 pause "$id" || fail "pause $round failed: $(cat "$WORK/err")"
  timed_bg 3 start --dedupe -- true || fail "start --dedupe beside the paused task: $(cat "$WORK/err")"
  timed_bg 5 resume "$id" || fail "resume $round failed: $(cat "$WORK/err")"
done
cancel_paused "$id"
bg cancel --grace 0 "$sleeper" >/dev/null
echo ok
