#!/usr/bin/env bash
# cancel never hangs: with the supervisor stopped (SIGSTOP), cancel stops the
# command itself after the grace period and 2 s, says so and exits 76, and
# the supervisor records `cancelled` once it runs again. From another pid
# namespace (unshare --pid --fork --mount-proc), where the supervisor cannot
# be signalled, the request in the record reaches it; if it does not answer
# there either, cancel says why after the grace and 10 s and exits 76. A
# CLI there never judges the task by pids it cannot see (no `lost`). From
# another time namespace (unshare --time --boottime), start times still
# match and cancel works as usual.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool jq unshare

alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
  [ -n "$state" ] && [ "$state" != Z ]
}
dead() { ! alive "$1"; }
sups=()
at_exit 'for s in "${sups[@]}"; do kill -CONT "$s" 2>/dev/null; done'

# 1. A stopped supervisor.
id=$(bg start --grace 1s -- sleep 100)
sup=$(field "$id" .owner.pid)
cmd=$(field "$id" .child.pid)
sups+=("$sup")
kill -STOP "$sup"
rc=0
timeout 60 "$BGTASK" --dir "$D" cancel "$id" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 76 ] || problem "cancel with a stopped supervisor exited $rc, not 76: $(cat "$WORK/err")"
grep -c "is stopped" "$WORK/err" >/dev/null || problem "cancel did not say the supervisor is stopped: $(cat "$WORK/err")"
grep -c "stopped its command" "$WORK/err" >/dev/null || problem "cancel did not say it stopped the command: $(cat "$WORK/err")"
wait_until 5 dead "$cmd" || problem "cancel left the command of a stopped supervisor running"
bg status "$id" >/dev/null 2>&1 || true
[ "$(field "$id" .state)" = running ] || problem "with its supervisor stopped the task is $(field "$id" .state), not running"
kill -CONT "$sup"
rc=0
bg wait "$id" >/dev/null || rc=$?
[ "$rc" -eq 125 ] || problem "the continued supervisor's task: wait exited $rc, not 125"
[ "$(field "$id" .state)" = cancelled ] || problem "the continued supervisor recorded $(field "$id" .state), not cancelled"

# 1b. The same, cancelled together with queued tasks, which `cleanup`
#     removes while the cancel waits for the stopped supervisor: the final
#     records the cancel wrote are reported, not that the tasks were removed.
bg queue held --slots 0 >/dev/null
mapfile -t held < <(seq 3 | "$BGTASK" --dir "$D" start --queue held --each-line - -- true)
id=$(bg start --grace 3s -- sleep 100)
sup=$(field "$id" .owner.pid)
sups+=("$sup")
kill -STOP "$sup"
rc=0
timeout 60 "$BGTASK" --dir "$D" cancel "$id" "${held[@]}" >"$WORK/out" 2>"$WORK/err" &
canceller=$!
sleep 1
bg cleanup --older-than 0s --quiet || problem "cleanup during the cancel failed"
wait "$canceller" || rc=$?
[ "$rc" -eq 76 ] || problem "cancel with queued tasks cleaned up meanwhile exited $rc, not 76: $(cat "$WORK/err")"
for h in "${held[@]}"; do
  [ ! -e "$D/$h.status.json" ] || problem "cleanup did not remove $h, which the cancel had ended"
  grep -Fx "$h cancelled" "$WORK/out" >/dev/null || problem "cancel did not report $h cancelled: $(cat "$WORK/out")"
done
kill -CONT "$sup"
bg wait "$id" >/dev/null 2>&1 || true

if unshare --pid --fork --mount-proc true 2>/dev/null; then
  # 2. cancel from another pid namespace: the request reaches the supervisor
  #    through the record.
  id=$(bg start --grace 1s -- sleep 100)
  cmd=$(field "$id" .child.pid)
  rc=0
  timeout 60 unshare --pid --fork --mount-proc "$BGTASK" --dir "$D" cancel "$id" >"$WORK/out" 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 0 ] || problem "cancel from another pid namespace exited $rc: $(cat "$WORK/err")"
  [ "$(field "$id" .state)" = cancelled ] || problem "cancel from another pid namespace: $(field "$id" .state)"
  wait_until 5 dead "$cmd" || problem "cancel from another pid namespace left the command running"

  # 3. Judged from another pid namespace: the supervisor is dead, the
  #    command runs on. That namespace cannot see it, so it says nothing
  #    new; here the task is unsupervised and cancel stops it.
  id=$(bg start --grace 1s -- sleep 100)
  sup=$(field "$id" .owner.pid)
  cmd=$(field "$id" .child.pid)
  kill -KILL "$sup"
  wait_until 10 dead "$sup" || problem "the supervisor did not die"
  timeout 60 unshare --pid --fork --mount-proc "$BGTASK" --dir "$D" status "$id" >/dev/null 2>&1 || true
  timeout 60 unshare --pid --fork --mount-proc "$BGTASK" --dir "$D" list >/dev/null 2>&1 || true
  [ "$(field "$id" .state)" = running ] || problem "judged from another pid namespace, a running command's task became $(field "$id" .state)"
  bg status "$id" >/dev/null 2>&1 || true
  [ "$(jq -r .unsupervised "$D/$id.status.json")" = true ] || problem "here the task is not unsupervised"
  bg cancel "$id" >/dev/null || problem "cancel of the unsupervised task exited $?"
  wait_until 5 dead "$cmd" || problem "cancel left the unsupervised command running"

  # 4. Another pid namespace and a stopped supervisor: cancel says why it
  #    could not, exits 76, and signals nothing.
  id=$(bg start --grace 0 -- sleep 100)
  sup=$(field "$id" .owner.pid)
  cmd=$(field "$id" .child.pid)
  sups+=("$sup")
  kill -STOP "$sup"
  rc=0
  timeout 60 unshare --pid --fork --mount-proc "$BGTASK" --dir "$D" cancel "$id" >"$WORK/out" 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 76 ] || problem "cancel from another pid namespace of a stopped supervisor exited $rc, not 76: $(cat "$WORK/err")"
  grep -c "another pid namespace" "$WORK/err" >/dev/null || problem "cancel did not say why: $(cat "$WORK/err")"
  alive "$cmd" || problem "cancel from another pid namespace signalled a process it cannot verify"
  [ "$(field "$id" .state)" = running ] || problem "state $(field "$id" .state), not running"
  kill -CONT "$sup"
  bg wait "$id" >/dev/null 2>&1 || true
  [ "$(field "$id" .state)" = cancelled ] || problem "the continued supervisor recorded $(field "$id" .state), not cancelled"
else
  echo "note: unshare --pid not permitted here; pid namespace cases skipped" >&2
fi

if unshare --time --boottime 100000 true 2>/dev/null; then
  # 5. Another time namespace: start times read there are shifted by its
  #    boottime offset; cancel still recognises the supervisor.
  id=$(bg start --grace 1s -- sleep 100)
  rc=0
  timeout 60 unshare --time --boottime 100000 "$BGTASK" --dir "$D" cancel "$id" >/dev/null 2>"$WORK/err" || rc=$?
  [ "$rc" -eq 0 ] || problem "cancel from another time namespace exited $rc: $(cat "$WORK/err")"
  [ "$(field "$id" .state)" = cancelled ] || problem "cancel from another time namespace: $(field "$id" .state)"
else
  echo "note: unshare --time not permitted here; time namespace case skipped" >&2
fi

wait_until 10 dir_idle "$D" || problem "supervisors still run"
[ "$problems" -eq 0 ] || fail "$problems checks failed"
echo ok
