#!/usr/bin/env bash
# SIGSTOPped supervisors, and readers in another pid namespace. A stopped
# supervisor still holds its task (its lock): `list` and `status` say
# running, `wait --timeout` times out (4); once continued it records the
# outcome and `wait` and `output --follow` return it. A supervisor killed
# while stopped is noticed (`lost`, 75). From a pid namespace
# (`unshare --pid --fork --mount-proc`), where the supervisor's pid is not
# visible, `status` says running and `wait` returns the task's own status
# when it ends. (`cancel` of a stopped supervisor is tested with cancel.)
source "$(dirname "$0")/lib.sh"

gone() { for _ in $(seq 200); do [ -e "/proc/$1" ] || return 0; sleep 0.02; done; return 1; }
stopped() { # PID: its state is T (stopped)
  for _ in $(seq 100); do
    [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
    sleep 0.02
  done
  return 1
}

# Stopped, then continued.
id=$(bg start -- sh -c 'sleep 0.5; echo finished; exit 6')
sup=$(field "$id" .owner.pid)
kill -STOP "$sup"
stopped "$sup" || fail "supervisor $sup did not stop"
sleep 1 # the command has exited by now; only the stopped supervisor can record it
[ "$(bg status --json "$id" | jq -r '.[0].state')" = running ] || fail "status of a stopped supervisor's task"
grep -E "^$id +running" <<<"$(bg list)" >/dev/null || fail "list does not show the task running"
rc=0; bg wait --timeout 500ms "$id" >/dev/null || rc=$?
[ "$rc" = 4 ] || fail "wait --timeout on a stopped supervisor exited $rc, not 4"
bg output --follow "$id" >"$WORK/followed" &
follower=$!
bg wait "$id" >/dev/null &
waiter=$!
sleep 0.3
kill -CONT "$sup"
rc=0; wait "$waiter" || rc=$?
[ "$rc" = 6 ] || fail "wait after SIGCONT exited $rc, not 6"
rc=0; wait "$follower" || rc=$?
grep -Fx finished "$WORK/followed" >/dev/null || fail "output --follow missed the output: $(cat "$WORK/followed")"

# Killed while stopped.
id=$(bg start -- sleep 300)
sup=$(field "$id" .owner.pid)
pgid=$(field "$id" .child.pgid)
kill -STOP "$sup"
stopped "$sup" || fail "supervisor $sup did not stop"
bg wait "$id" >/dev/null 2>&1 &
waiter=$!
sleep 0.3
kill -KILL -- "-$pgid"
kill -KILL "$sup"
gone "$sup" || fail "supervisor $sup did not die"
rc=0; wait "$waiter" || rc=$?
[ "$rc" = 75 ] || fail "wait on a task whose stopped supervisor was killed exited $rc, not 75"

# Readers in another pid namespace.
if [ "$(id -u)" -eq 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
  id=$(bg start -- sh -c 'sleep 1.5; exit 7')
  rc=0
  out=$(unshare --pid --fork --mount-proc sh -c '
    state=$(timeout 20 "$1" --dir "$2" status --json "$3" | jq -r ".[0].state")
    [ "$state" = running ] || { echo "status in the pid namespace: $state"; exit 1; }
    timeout 20 "$1" --dir "$2" wait "$3"' sh "$BGTASK" "$D" "$id" 2>&1) || rc=$?
  [ "$rc" = 7 ] || fail "wait from a pid namespace exited $rc, not 7: $out"
  [ "$(field "$id" .state)" = failed ] || fail "the task is $(field "$id" .state), not failed"
fi
echo ok
