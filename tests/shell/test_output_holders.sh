#!/usr/bin/env bash
# A task is its processes: a background job that keeps the task's stdout or
# stderr open belongs to the task (as with nq), so the task runs while it
# lives, and --timeout and cancel stop it; a daemon that closed them, or sent
# them elsewhere, is not the task's, and the task ends with its command.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool pgrep jq

# Marks unique to this run, as sleep durations: 300.<pid><n>.
mark() { printf '300.%07d%d' $$ "$1"; }
pid_of() { pgrep -fx "sleep $1" || true; }
at_exit 'for m in 1 2 3 4 5 6; do p=$(pid_of "$(mark $m)"); [ -z "$p" ] || kill -KILL $p; done'

# 1. The job keeps the output open: running past its command's exit, then
#    timed out, and the job is stopped with it.
id=$(bg start --timeout 2s --grace 1s -- sh -c "sleep $(mark 1) & echo started")
wait_until 10 bash -c "grep -c started '$D/$id.output' >/dev/null" || problem "the command printed nothing"
wait_until 10 bash -c "[ -n \"\$(pgrep -fx 'sleep $(mark 1)')\" ]" || problem "the background job never ran"
sleep 0.5 # the command has exited by now
state=$(field "$id" .state)
[ "$state" = running ] || problem "with its background job still holding the output, the task is $state, not running"
rc=0
bg wait "$id" >/dev/null || rc=$?
[ "$rc" -eq 124 ] || problem "wait exited $rc, not 124 (timed out)"
[ "$(field "$id" .state)" = timed_out ] || problem "state $(field "$id" .state), not timed_out"
wait_until 5 bash -c "[ -z \"\$(pgrep -fx 'sleep $(mark 1)')\" ]" || problem "the background job survived the timeout"

# 2. cancel stops such a job, and does not answer "already succeeded".
id=$(bg start --grace 1s -- sh -c "sleep $(mark 2) & echo started")
wait_until 10 bash -c "[ -n \"\$(pgrep -fx 'sleep $(mark 2)')\" ]" || problem "the second job never ran"
sleep 0.3
out=$(bg cancel "$id") || problem "cancel exited $?"
[ "$out" = "$id cancelled" ] || problem "cancel said '$out', not '$id cancelled'"
wait_until 5 bash -c "[ -z \"\$(pgrep -fx 'sleep $(mark 2)')\" ]" || problem "the background job survived cancel"

# 3. A job that writes later: the task succeeds once it is done, and the
#    record counts the late output.
id=$(bg start -- sh -c '(sleep 1; echo late) & echo early')
rc=0
bg wait "$id" >/dev/null || rc=$?
[ "$rc" -eq 0 ] || problem "wait on the late writer exited $rc"
[ "$(cat "$D/$id.output")" = "$(printf 'early\nlate')" ] || problem "output: $(cat "$D/$id.output")"
[ "$(field "$id" .output.bytes)" -eq 11 ] || problem "the record counts $(field "$id" .output.bytes) bytes, not 11"

# 4. The same with --max-output (the supervisor bounds the file meanwhile).
id=$(bg start --max-output 1M -- sh -c '(sleep 1; echo late) & echo early')
bg wait "$id" >/dev/null || problem "wait on the bounded late writer exited $?"
[ "$(cat "$D/$id.output")" = "$(printf 'early\nlate')" ] || problem "bounded output: $(cat "$D/$id.output")"

# 5. Daemons that let go of the output are not the task's: redirected, or
#    closed. The task ends with its command; the daemons live on.
for how in '>/dev/null 2>&1' '>&- 2>&-'; do
  n=$([ "$how" = '>&- 2>&-' ] && echo 4 || echo 3)
  id=$(bg start -- sh -c "sleep $(mark "$n") $how & echo detached")
  rc=0
  bg wait "$id" >/dev/null || rc=$?
  [ "$rc" -eq 0 ] || problem "wait on a task whose daemon detached ($how) exited $rc"
  [ "$(field "$id" .state)" = succeeded ] || problem "detached ($how): $(field "$id" .state)"
  daemon=$(pid_of "$(mark "$n")")
  [ -n "$daemon" ] || problem "the detached daemon ($how) did not survive its task"
  [ -z "$daemon" ] || kill -KILL "$daemon"
done

# 6. A job holding only stderr counts too.
id=$(bg start --timeout 1s --grace 1s -- sh -c "sleep $(mark 5) >/dev/null & echo started")
rc=0
bg wait "$id" >/dev/null || rc=$?
[ "$rc" -eq 124 ] || problem "a job holding stderr: wait exited $rc, not 124"
wait_until 5 bash -c "[ -z \"\$(pgrep -fx 'sleep $(mark 5)')\" ]" || problem "the stderr holder survived the timeout"

wait_until 10 dir_idle "$D" || problem "supervisors still run"
[ "$problems" -eq 0 ] || fail "$problems checks failed"
echo ok
