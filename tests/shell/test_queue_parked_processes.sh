#!/usr/bin/env bash
# Queued tasks cost files, not processes: 120 tasks queued behind 2 slots
# leave at most slots + 4 bgtask processes (the two supervisors, and room
# for a hand-off in progress), and `cancel --queue` ends them all.
source "$(dirname "$0")/lib.sh"

tasks=120
bg queue q --slots 2 >/dev/null
for _ in $(seq "$tasks"); do
  bg start --queue q -- sleep 300 >>"$WORK/ids"
done
[ "$(wc -l <"$WORK/ids")" -eq "$tasks" ] || fail "not every start printed an ID"
# bgtask processes of this directory: the binary, with this test's work
# directory in its environment (every process the test starts has it).
count=0
for exe in /proc/[0-9]*/exe; do
  pid=${exe#/proc/}
  pid=${pid%/exe}
  [ "$(readlink "$exe" 2>/dev/null)" = "$(readlink -f "$BGTASK")" ] || continue
  grep -qzxF "BGTASK_TEST_WORK=$WORK" "/proc/$pid/environ" 2>/dev/null && count=$((count + 1))
done
[ "$count" -le 6 ] || fail "$tasks queued tasks behind 2 slots made $count bgtask processes"
running=$(bg list --json | jq '[.[] | select(.state == "running")] | length')
queued=$(bg list --json | jq '[.[] | select(.state == "queued")] | length')
[ "$running" -eq 2 ] && [ "$queued" -eq $((tasks - 2)) ] ||
  fail "want 2 running and $((tasks - 2)) queued, got $running and $queued"
bg cancel --queue q >/dev/null || fail "cancel --queue failed"
left=$(bg list --json | jq '[.[] | select(.state == "running" or .state == "queued")] | length')
[ "$left" -eq 0 ] || fail "$left tasks left unfinished after cancel --queue"
echo "ok: $count bgtask processes for $tasks queued tasks"
