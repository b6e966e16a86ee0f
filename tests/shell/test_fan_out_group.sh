#!/usr/bin/env bash
# A fan-out is one group. A local --array gives each task its index in
# BGTASK_ARRAY_INDEX, as the Slurm executor does, and leaves `{}` alone; its
# %N is refused (a queue's slots do that here). With --name the start prints
# the name once, and wait --name, cancel --name and list --name --summary act
# on the whole group, not on its newest task alone nor on an older task of
# that name; a start resumed with --name joins the group.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"

bg start --array 1-3,7 -- sh -c 'echo "$BGTASK_ARRAY_INDEX {}"' >"$WORK/ids" || fail "a local --array failed"
[ "$(wc -l <"$WORK/ids")" -eq 4 ] || fail "want 4 IDs, got $(cat "$WORK/ids")"
sort -c "$WORK/ids" || fail "the IDs are not in index order"
# shellcheck disable=SC2046
bg wait $(cat "$WORK/ids") >/dev/null || fail "the array's tasks failed"
got=$(for id in $(cat "$WORK/ids"); do bg output "$id"; done)
[ "$got" = $'1 {}\n2 {}\n3 {}\n7 {}' ] || fail "array outputs: $got"
rc=0
bg start --array '1-4%2' -- true >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -eq 2 ] || fail "a local --array with %N exited $rc"
grep -q -- "--slots" "$WORK/err" || fail "the refusal does not point at --slots: $(cat "$WORK/err")"

# An older task of the name, then a group of 5 behind 2 slots: wait --name
# returns once all 5 ended.
old=$(bg start --name batch -- true)
bg wait "$old" >/dev/null
printf '%s\n' a b c d e >"$WORK/lines"
out=$(bg start --each-line "$WORK/lines" --queue g --slots 2 --name batch -- sh -c 'sleep 0.2; echo "$1"' _ {})
[ "$out" = batch ] || fail "start --each-line --name printed: $out"
bg wait --name batch >/dev/null || fail "wait --name batch failed"
ended=$(bg list --name batch --json | jq '[.[] | select(.state == "succeeded")] | length')
[ "$ended" -eq 6 ] || fail "wait --name returned with $ended of 6 tasks named batch ended: $(bg list)"

# A second group of the name, in a queue without slots: cancel --name ends
# its 3 tasks and no other.
bg queue h --slots 0 >/dev/null
head -3 "$WORK/lines" | bg start --each-line - --queue h --name batch -- echo {} >/dev/null
[ "$(bg list --name batch --summary)" = "queued=3 running=0 succeeded=6 failed=0 cancelled=0 timed_out=0 lost=0 corrupt=0 paused=0 total=9" ] ||
  fail "summary: $(bg list --name batch --summary)"
bg cancel --name batch >/dev/null || fail "cancel --name batch failed"
[ "$(bg list --name batch --summary)" = "queued=0 running=0 succeeded=6 failed=0 cancelled=3 timed_out=0 lost=0 corrupt=0 paused=0 total=9" ] ||
  fail "after cancel --name: $(bg list --name batch --summary)"

# Resumed with --name: the 2 lines left join that group, so that cancel
# --name reaches them too.
bg start --each-line "$WORK/lines" --resume 3 --queue h --name batch -- echo {} >/dev/null
groups=$(bg list --name batch --json | jq -r '[.[] | select(.queue == "h") | .group] | unique | length')
[ "$groups" -eq 1 ] || fail "the resumed start made a group of its own"
bg cancel --name batch >/dev/null || fail "the second cancel --name failed"
[ "$(bg list --name batch --state cancelled --json | jq length)" -eq 5 ] || fail "cancelled: $(bg list)"
echo ok
