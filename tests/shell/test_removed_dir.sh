#!/usr/bin/env bash
# A supervisor whose task directory, or whose own record, is deleted under
# it stops its command (TERM, KILL after the grace) and then exits, since
# nobody could see, wait for or cancel the task any more. A queued task,
# which has no process, never runs once its record is deleted.
source "$(dirname "$0")/lib.sh"

gone_within() { # PID SECONDS
  local i
  for i in $(seq $(($2 * 20))); do
    [ -e "/proc/$1" ] || return 0
    [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ] || return 0
    sleep 0.05
  done
  return 1
}

# A queued task has no process: one whose record is deleted never runs,
# and the hand-off that finds its file in .parked removes it.
dir="$WORK/queued"
mkdir -m 700 "$dir"
blocker=$("$BGTASK" --dir "$dir" start -- sleep 0.3)
id=$("$BGTASK" --dir "$dir" start --after "$blocker" -- touch "$WORK/ran")
[ "$(jq -r .state "$dir/$id.status.json")" = queued ] || fail "queued: not queued"
rm -f "$dir/$id.status.json"
"$BGTASK" --dir "$dir" wait "$blocker" >/dev/null || fail "the blocker failed"
"$BGTASK" --dir "$dir" list >/dev/null
[ ! -e "$WORK/ran" ] || fail "a queued task whose record was deleted ran"
[ -z "$(ls -A "$dir/.parked" | grep -vxF .looked)" ] || fail ".parked still holds $(ls -A "$dir/.parked")"

for what in dir record; do
  dir="$WORK/running-$what"
  mkdir -m 700 "$dir"
  # The command ignores TERM: the grace (1 s) then KILL must still end it.
  id=$("$BGTASK" --dir "$dir" start --grace 1s -- sh -c 'trap "" TERM; sleep 300 & wait; sleep 300')
  sup=$(jq -r .owner.pid "$dir/$id.status.json")
  cmd=$(jq -r .child.pid "$dir/$id.status.json")
  if [ "$what" = dir ]; then
    rm -rf "$dir"
  else
    rm -f "$dir/$id.status.json"
  fi
  gone_within "$cmd" 10 || fail "running, $what removed: the command $cmd still runs"
  gone_within "$sup" 10 || fail "running, $what removed: the supervisor $sup still runs"
  [ ! -e "$dir/$id.status.json" ] || fail "running, $what removed: the record came back"
done
echo ok
