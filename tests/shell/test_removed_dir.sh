#!/usr/bin/env bash
# A queued supervisor whose task directory, or whose own record, is deleted
# under it exits instead of waiting for as long as the machine runs.
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
echo ok
