#!/usr/bin/env bash
# pause/resume stop and continue a task's whole process tree: a counter the
# task's processes write stops moving while paused and moves again after
# resume; the record and list show it; --timeout does not run out while
# paused; cancel of a paused task works.
source "$(dirname "$0")/lib.sh"

# A counter written by a child of the task's shell (so the tree is stopped, not just the leader).
counter="$WORK/counter"
id=$(bg start --timeout 6s --grace 1s -c "sh -c 'n=0; while :; do n=\$((n+1)); echo \$n >\"$counter\"; sleep 0.05; done' & wait")
for _ in $(seq 200); do [ -s "$counter" ] && break; sleep 0.05; done
[ -s "$counter" ] || fail "the counter never started"

[ "$(bg pause "$id")" = "$id paused" ] || fail "pause did not report the task paused"
[ "$(field "$id" .paused)" = true ] && [ "$(field "$id" .pause.paused)" = true ] || fail "record not paused"
sleep 0.3 # a write under way when the stop came lands now
before=$(cat "$counter")
sleep 5 # longer than what is left of the 6 s timeout... if its clock ran
after=$(cat "$counter")
[ "$before" = "$after" ] || fail "the counter moved while paused: $before -> $after"
bg list | grep -F "$id" | grep -F "paused" >/dev/null || fail "list does not show paused: $(bg list)"
bg status "$id" | grep -E "^State +running \(paused\)" >/dev/null || fail "status: $(bg status "$id")"
[ "$(bg list --summary)" != "" ] && bg list --summary | grep -F "paused=1" >/dev/null ||
  fail "summary: $(bg list --summary)"
[ "$(field "$id" .state)" = running ] || fail "the task timed out while paused: $(field "$id" .state)"

[ "$(bg resume "$id")" = "$id resumed" ] || fail "resume did not report the task resumed"
[ "$(field "$id" .paused)" = false ] || fail "record still paused"
moved=$after
for _ in $(seq 200); do # generous: the machine may be loaded
  moved=$(cat "$counter")
  [ "$moved" -gt "$after" ] && break
  sleep 0.05
done
[ "$moved" -gt "$after" ] || fail "the counter did not move within 10 s of resume: $after -> $moved"
# The timeout still applies: about 6 s of running time in all.
rc=0; bg wait --timeout 30s "$id" >/dev/null || rc=$?
[ "$rc" = 124 ] && [ "$(field "$id" .state)" = timed_out ] || fail "after resume: rc $rc, $(field "$id" .state)"
paused_s=$(field "$id" .pause.paused_s)
awk -v p="$paused_s" 'BEGIN { exit !(p >= 5) }' || fail "paused_s $paused_s, expected at least 5"
duration=$(field "$id" .duration_s)
awk -v d="$duration" 'BEGIN { exit !(d >= 11) }' || fail "the task ran only ${duration}s with a 6 s timeout and 5 s paused"

# cancel of a paused task: TERM, then CONT, so it ends without waiting for KILL.
id=$(bg start -- sleep 300)
for _ in $(seq 100); do [ "$(field "$id" .state)" = running ] && break; sleep 0.05; done
bg pause "$id" >/dev/null
[ "$(ps -o stat= -p "$(field "$id" .child.pid)" | cut -c1)" = T ] || fail "the paused command is not stopped"
bg cancel --grace 60s "$id" >/dev/null
[ "$(field "$id" .state)" = cancelled ] || fail "cancel of a paused task: $(field "$id" .state)"
[ "$(field "$id" .signal)" = 15 ] || fail "the paused task did not end by TERM: signal $(field "$id" .signal)"
[ "$(field "$id" .paused)" = false ] || fail "a cancelled task is still marked paused"

# Refusals: a finished task, an unknown ID.
rc=0; bg pause "$id" 2>"$WORK/err" || rc=$?
[ "$rc" = 1 ] && grep -F "not running" "$WORK/err" >/dev/null || fail "pause of a finished task: rc $rc $(cat "$WORK/err")"
rc=0; bg resume 0000000000zz 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "resume of an unknown ID exited $rc"
echo ok
