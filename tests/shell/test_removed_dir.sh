#!/usr/bin/env bash
# A supervisor whose task directory, or whose own record, is deleted under
# it exits instead of waiting for as long as the machine runs: a queued one
# at once; a running one stops its command (TERM, KILL after the grace) and
# then exits, since nobody could see, wait for or cancel the task any more.
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

for what in dir record; do
  dir="$WORK/$what"
  mkdir -m 700 "$dir"
  blocker=$("$BGTASK" --dir "$dir" start -- sleep 300)
  id=$("$BGTASK" --dir "$dir" start --after "$blocker" -- true)
  [ "$(jq -r .state "$dir/$id.status.json")" = queued ] || fail "$what: not queued"
  sup=$(jq -r .owner.pid "$dir/$id.status.json")
  blocker_sup=$(jq -r .owner.pid "$dir/$blocker.status.json")
  if [ "$what" = dir ]; then
    # (The waiter may see its dependency's record go first and record its
    # own end meanwhile: remove again what that wrote.)
    rm -rf "$dir" 2>/dev/null || rm -rf "$dir"
  else
    rm -f "$dir/$id.status.json"
  fi
  # Generous: it notices at once (inotify), the failure was "never".
  gone_within "$sup" 10 || fail "$what removed: the queued supervisor $sup still waits"
  kill -TERM "$blocker_sup" 2>/dev/null || true
done

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
