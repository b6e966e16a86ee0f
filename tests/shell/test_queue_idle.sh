#!/usr/bin/env bash
# A queued task waits without polling: while nothing in the task directory
# changes, its supervisor makes no system call at all (it sleeps in one poll
# on a signalfd, an inotify watch and the pidfd of the task ahead of it).
source "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip "strace is not installed"
go="$WORK/go"
holder=$(bg start --queue q -c "while [ ! -e '$go' ]; do sleep 0.05; done")
waiter=$(bg start --queue q -- true)
for _ in $(seq 100); do
  [ "$(field "$holder" .state)" = running ] && break
  sleep 0.05
done
[ "$(field "$holder" .state)" = running ] || fail "the first task of the queue did not start"
[ "$(field "$waiter" .state)" = queued ] || fail "the second task is not queued"

pid=$(field "$waiter" .owner.pid)
timeout -s INT 1.5 strace -p "$pid" -o "$WORK/trace" 2>"$WORK/strace.err" || true
grep -q "Operation not permitted" "$WORK/strace.err" && skip "ptrace is not permitted here"
[ -s "$WORK/trace" ] || skip "strace could not attach: $(cat "$WORK/strace.err")"
# The one poll the supervisor was already in shows up as resumed or
# unfinished; anything else is a call made while nothing changed.
calls=$(grep -v -e 'restart_syscall' -e '<unfinished' -e '<detached' -e '^+++' -e '^---' "$WORK/trace" || true)
[ -z "$calls" ] || fail "the waiting supervisor made system calls while idle: $calls"

touch "$go"
bg wait "$waiter" >/dev/null || fail "the queued task did not succeed once the slot was free"
echo "ok"
