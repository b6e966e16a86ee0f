#!/usr/bin/env bash
# A paused task whose supervisor was killed: nobody can resume it, so
# `cancel` and reconciliation thaw it and kill what is left, and remove its
# cgroup; a KILL alone never reaches a process frozen by the v1 freezer.
# With a cgroup (skipped where none can be written) and without one.
source "$(dirname "$0")/lib.sh"

# paused_orphan [START OPTIONS]: a running task of two processes (a shell and
# its child), paused, its supervisor then SIGKILLed; its ID in $id. They
# ignore SIGHUP: without a cgroup, the kernel sends SIGHUP and SIGCONT to
# the stopped group its supervisor's death orphans, which would end them.
paused_orphan() {
  local pid
  id=$(bg start --grace 1s "$@" -c "trap '' HUP; sh -c 'while :; do sleep 0.05; done' & wait")
  for _ in $(seq 200); do [ "$(field "$id" .state)" = running ] && break; sleep 0.05; done
  [ "$(bg pause "$id")" = "$id paused" ] || fail "pause of $id"
  pid=$(field "$id" .owner.pid)
  on_exit "thaw_and_kill '$(field "$id" .cgroup | sed 's/null//' | tr ';' ' ')'"
  kill -KILL "$pid"
  for _ in $(seq 200); do [ -d "/proc/$pid" ] || break; sleep 0.05; done
}

# thaw_and_kill CGROUPS: on exit, what the test left frozen is thawed and killed
# (kill_leftovers cannot end a process the v1 freezer holds).
thaw_and_kill() {
  local dir
  for dir in $1; do
    [ -f "$dir/freezer.state" ] && echo THAWED >"$dir/freezer.state"
    [ -f "$dir/cgroup.freeze" ] && echo 0 >"$dir/cgroup.freeze"
    [ -f "$dir/cgroup.procs" ] && xargs -r kill -KILL <"$dir/cgroup.procs"
  done
  sleep 0.2
  for dir in $1; do
    rmdir "$dir" 2>/dev/null
  done
  return 0
}

# task_pids ID: the processes of the task's session (and of its cgroups).
task_pids() {
  local sid dir
  sid=$(field "$1" .owner.pid)
  ps -eo pid=,sid=,stat= | awk -v s="$sid" '$2 == s && $3 !~ /^Z/ { print $1 }'
  for dir in $(field "$1" .cgroup | sed 's/null//' | tr ';' ' '); do
    [ -f "$dir/cgroup.procs" ] && cat "$dir/cgroup.procs"
  done
  return 0
}

# check_gone ID CGROUPS: the task's processes and cgroup directories are gone.
check_gone() {
  local left dir
  for _ in $(seq 100); do
    left=$(task_pids "$1" | sort -u | paste -sd,)
    [ -z "$left" ] && break
    sleep 0.05
  done
  [ -z "$left" ] || fail "task $1 left processes: $(ps -o pid=,stat=,args= -p "$left" || true)"
  for dir in $2; do
    [ ! -d "$dir" ] || fail "task $1 left its cgroup $dir"
  done
}

# cancel_in_bound ID: cancel --grace 1s ends the task within its bound.
cancel_in_bound() {
  local started elapsed rc=0
  started=$(date +%s%N)
  timeout 20 "$BGTASK" --dir "$D" cancel --grace 1s "$1" >/dev/null 2>"$WORK/err" || rc=$?
  elapsed=$((($(date +%s%N) - started) / 1000000))
  [ "$rc" = 0 ] || fail "cancel of $1 exited $rc: $(cat "$WORK/err")"
  [ "$elapsed" -lt 13000 ] || fail "cancel of $1 took $elapsed ms"
  # Reconciliation, which cancel runs first, ends it: nobody can resume it.
  [ "$(field "$1" .state)" = lost ] || fail "cancel of $1: $(field "$1" .state)"
}

# 1. Without a cgroup (SIGSTOP): cancel, then reconciliation.
paused_orphan
cancel_in_bound "$id"
check_gone "$id" ""
paused_orphan
bg list >/dev/null
check_gone "$id" ""
[ "$(field "$id" .state)" = lost ] || fail "the reconciled paused orphan is $(field "$id" .state)"

# 2. With a cgroup (frozen by the freezer).
if ! reason=$(bg start --memory-max 64M -- true 2>&1 >/dev/null); then
  rc=$?
  [ "$rc" = 78 ] || fail "start --memory-max failed with $rc, not 78: $reason"
  skip "no writable cgroup here: $reason"
fi
paused_orphan --memory-max 256M
cgroups=$(field "$id" .cgroup | tr ';' ' ')
[ -n "$cgroups" ] && [ "$cgroups" != null ] || fail "the task has no cgroup"
cancel_in_bound "$id"
check_gone "$id" "$cgroups"
paused_orphan --memory-max 256M
cgroups=$(field "$id" .cgroup | tr ';' ' ')
bg status "$id" >/dev/null || true
check_gone "$id" "$cgroups"
[ "$(field "$id" .state)" = lost ] || fail "the reconciled paused orphan is $(field "$id" .state)"
echo ok
