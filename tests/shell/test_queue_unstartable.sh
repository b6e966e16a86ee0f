#!/usr/bin/env bash
# A queued task that cannot start once admitted (its launch context in
# `.parked` is unreadable) ends `failed` with the reason, and the line goes
# on without any other bgtask command: the supervisors alone hand off. The
# test reads the records with jq only, since every bgtask command would
# make a hand-off of its own.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"

bg queue one --slots 1 >/dev/null
first=$(bg start --queue one -- sleep 1)
second=$(bg start --queue one -- true)
third=$(bg start --queue one -- true)
parked="$D/.parked/$second+one"
[ -f "$parked" ] || fail "no file $parked for the second task"
printf 'not a launch context' >"$parked"

state() { jq -r .state "$D/$1.status.json"; }
for _ in $(seq 300); do
  [ "$(state "$third")" = succeeded ] && break
  sleep 0.1
done
[ "$(state "$first")" = succeeded ] || fail "the first task is $(state "$first")"
[ "$(state "$second")" = failed ] || fail "the unstartable task is $(state "$second")"
reason=$(jq -r .error "$D/$second.status.json")
case "$reason" in
  *"launch context"*) ;;
  *) fail "the unstartable task's reason is '$reason'" ;;
esac
[ "$(state "$third")" = succeeded ] || fail "the task behind it is $(state "$third") after 30 s"
echo "ok: $second failed ($reason); $third ran after it"
