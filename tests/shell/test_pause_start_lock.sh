#!/usr/bin/env bash
# A task whose command runs `bgtask start --dedupe` in a tight loop, each
# start launching a new task, holds the directory's start.lock most of the
# time. Paused again and again, it must never be left stopped while it holds
# the lock: each time, a `start --dedupe` from outside must start its task at
# once, well within the lock's patience (5 s), not fail naming a stopped
# holder. And no process of the tasks it started may be left stopped: each
# of them ends.
source "$(dirname "$0")/lib.sh"

looper=$(bg start --grace 1s -c "while :; do \"$BGTASK\" start --dedupe -- true >/dev/null; done")
on_exit "'$BGTASK' --dir '$D' cancel --grace 0 $looper"
for _ in $(seq 200); do
  [ "$(bg list --json | jq '[.[] | select(.command[0] == "true")] | length')" -ge 3 ] && break
  sleep 0.05
done
[ "$(bg list --json | jq '[.[] | select(.command[0] == "true")] | length')" -ge 3 ] ||
  fail "the looping task started no tasks of its own"

for round in $(seq 10); do
  timeout 10 "$BGTASK" --dir "$D" pause "$looper" >/dev/null 2>"$WORK/err" ||
    fail "pause $round failed: $(cat "$WORK/err")"
  started=$(date +%s%N) rc=0
  timeout 10 "$BGTASK" --dir "$D" start --dedupe -- true outside "$round" >/dev/null 2>"$WORK/err" || rc=$?
  elapsed_ms=$((($(date +%s%N) - started) / 1000000))
  [ "$rc" = 0 ] && [ "$elapsed_ms" -lt 3000 ] ||
    fail "round $round: start --dedupe beside the paused task exited $rc after $elapsed_ms ms: $(cat "$WORK/err")"
  timeout 10 "$BGTASK" --dir "$D" resume "$looper" >/dev/null 2>"$WORK/err" ||
    fail "resume $round failed: $(cat "$WORK/err")"
done
bg cancel --grace 1s "$looper" >/dev/null
[ "$(field "$looper" .state)" = cancelled ] || fail "the looping task ended $(field "$looper" .state)"
# (One it was starting as it was cancelled may end cancelled.)
mapfile -t started < <(bg list --json | jq -r '.[] | select(.command[0] == "true") | .id')
rc=0
bg wait --timeout 10s "${started[@]}" >/dev/null || rc=$?
[ "$rc" != 4 ] && [ "$(bg list --state running,queued --json | jq length)" = 0 ] ||
  fail "the tasks the looping task started did not all end (wait exited $rc):
$(bg list --state running,queued)"
echo ok
