#!/usr/bin/env bash
# What SECURITY.md says of a waiting task's environment: its --env values
# and start's environment wait in a file of `.parked` (0600, in a 0700
# folder), for a start and for a fan-out, and only until the task is
# admitted or ends: then no file of the directory holds them.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"

bg queue q --slots 0 >/dev/null
one=$(bg start --queue q --env TOKEN=s3cret-one -- true)
printf 'a\nb\n' | bg start --each-line - --queue q --env TOKEN=s3cret-two -- true >/dev/null
cancelled=$(BGTASK_CALLER=s3cret-three bg start --queue q -- true)
[ "$(stat -c %a "$D/.parked")" = 700 ] || fail ".parked is $(stat -c %a "$D/.parked")"
n=0
for f in "$D"/.parked/*; do
  [ "$(stat -c %a "$f")" = 600 ] || fail "$f is $(stat -c %a "$f")"
  n=$((n + 1))
done
[ "$n" -eq 4 ] || fail "want 4 files in .parked, found $n"
grep -rlq s3cret-one "$D/.parked" || fail "the --env value is not where SECURITY.md says it waits"
grep -rlq s3cret-three "$D/.parked" || fail "start's environment is not where SECURITY.md says it waits"
grep -lq s3cret "$D"/*.status.json 2>/dev/null && fail "a record holds a value"

bg cancel "$cancelled" >/dev/null
bg queue q --slots 2 >/dev/null
bg wait --queue q >/dev/null 2>&1 || true
[ "$(bg list --queue q --state succeeded --json | jq length)" -eq 3 ] || fail "not every task ran: $(bg list)"
[ -z "$(ls -A "$D/.parked" | grep -vxF .looked)" ] || fail ".parked still holds $(ls -A "$D/.parked")"
! grep -rlq s3cret "$D" || fail "a file still holds a value: $(grep -rl s3cret "$D")"
echo ok
