#!/usr/bin/env bash
# A script's `bgtask wait ID && bgtask cleanup ID` removes the task: the
# supervisor may still be exiting (here: running its --on-exit hook, which
# holds the task) when wait returns, and cleanup waits a moment for it
# instead of skipping the task.
source "$(dirname "$0")/lib.sh"

for round in 1 2 3; do
  id=$(bg start --on-exit 'sleep 0.3' -- true)
  bg wait "$id" >/dev/null || fail "round $round: wait failed"
  bg cleanup --quiet "$id" || fail "round $round: cleanup of $id failed"
  [ ! -e "$D/$id.status.json" ] || fail "round $round: cleanup left the finished task $id"
  [ ! -e "$D/$id.lock" ] || fail "round $round: cleanup left the lock of $id"
done
# A hook that runs on is not waited for without bound: cleanup keeps it.
id=$(bg start --on-exit 'sleep 5' -- true)
bg wait "$id" >/dev/null
start=$(date +%s%N)
bg cleanup --quiet "$id" || true
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[ -e "$D/$id.status.json" ] || fail "cleanup removed a task whose exit hook still runs"
[ "$elapsed_ms" -lt 4000 ] || fail "cleanup waited ${elapsed_ms} ms for a running exit hook"
# Once the hook has ended, the supervisor is gone and cleanup removes the task
# (and the test leaves no process behind).
for _ in $(seq 100); do
  bg cleanup --quiet "$id" 2>/dev/null || true
  [ -e "$D/$id.status.json" ] || break
  sleep 0.1
done
[ ! -e "$D/$id.status.json" ] || fail "cleanup kept $id after its exit hook ended"
echo ok
