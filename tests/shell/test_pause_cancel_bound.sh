#!/usr/bin/env bash
# `cancel --grace 1s` of a paused task returns within its documented bound
# (the grace and 10 s; exit 76 where the supervisor does not act) in every
# pause case, without a cgroup (SIGSTOP) and with one (the freezer): the
# supervisor alive, the supervisor stopped as well, and a stopped process
# outside holding the record's update lock (exit 11 after 5 s, then a
# cancel once it is gone). The command ignores TERM, so only KILL ends it,
# and no process of the task is left. (A supervisor killed under a paused
# task: test_pause_orphan.sh.)
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"
bound_ms=13000 # 1 s grace + 10 s + 2 s for a loaded machine

# paused_task [START OPTIONS]: a running task of two TERM-ignoring
# processes, paused; its ID in $id.
paused_task() {
  id=$(bg start --grace 1s "$@" -c "trap '' TERM HUP; sh -c 'trap \"\" TERM; while :; do sleep 0.05; done' & wait")
  for _ in $(seq 200); do [ "$(field "$id" .state)" = running ] && break; sleep 0.05; done
  [ "$(bg pause "$id")" = "$id paused" ] || fail "pause of $id"
  on_exit "kill -CONT $(field "$id" .owner.pid); '$BGTASK' --dir '$D' cancel --grace 0 $id"
}

# timed_cancel ID: cancel --grace 1s; its status in $rc, fails past the bound.
timed_cancel() {
  local started elapsed
  started=$(date +%s%N)
  rc=0
  timeout 30 "$BGTASK" --dir "$D" cancel --grace 1s "$1" >"$WORK/out" 2>"$WORK/err" || rc=$?
  elapsed=$((($(date +%s%N) - started) / 1000000))
  [ "$elapsed" -lt "$bound_ms" ] || fail "cancel of $1 took $elapsed ms (rc $rc): $(cat "$WORK/err")"
  echo "cancel of a paused task ($2): exit $rc in $elapsed ms"
}

# no_process_left ID: no process carries the task's BGTASK_ID (3 s to go).
no_process_left() {
  local left
  for _ in $(seq 60); do
    left=$(grep -lzx "BGTASK_ID=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | paste -sd, || true)
    [ -z "$left" ] && return 0
    sleep 0.05
  done
  fail "task $1 left processes: $(ps -o pid=,stat=,args= -p "$left" || true)"
}

# run_cases LABEL [START OPTIONS]
run_cases() {
  local label=$1 holder
  shift
  # 1. The supervisor alive.
  paused_task "$@"
  timed_cancel "$id" "$label, supervisor alive"
  [ "$rc" = 0 ] && [ "$(field "$id" .state)" = cancelled ] ||
    fail "$label: rc $rc, $(field "$id" .state): $(cat "$WORK/err")"
  no_process_left "$id"

  # 2. The supervisor stopped too: cancel stops the command itself.
  paused_task "$@"
  kill -STOP "$(field "$id" .owner.pid)"
  timed_cancel "$id" "$label, supervisor stopped"
  [ "$rc" = 76 ] || fail "$label, stopped supervisor: rc $rc: $(cat "$WORK/err")"
  no_process_left_but_supervisor "$id"
  kill -CONT "$(field "$id" .owner.pid)"
  bg wait --timeout 20s "$id" >/dev/null 2>&1 || true
  [ "$(field "$id" .state)" = cancelled ] || fail "$label: once continued the task is $(field "$id" .state)"
  no_process_left "$id"

  # 3. A stopped holder of the record's update lock.
  paused_task "$@"
  hold_update_lock_stopped "$D/$id.lock"
  timed_cancel "$id" "$label, a stopped lock holder"
  [ "$rc" = 11 ] && grep -F "pid $holder" "$WORK/err" >/dev/null ||
    fail "$label, stopped lock holder: rc $rc: $(cat "$WORK/err")"
  kill -CONT "$holder"
  kill "$holder"
  wait "$holder" 2>/dev/null || true
  timed_cancel "$id" "$label, the holder gone"
  [ "$rc" = 0 ] && [ "$(field "$id" .state)" = cancelled ] ||
    fail "$label, holder gone: rc $rc, $(field "$id" .state): $(cat "$WORK/err")"
  no_process_left "$id"
}

# no_process_left_but_supervisor ID: only the stopped supervisor is left.
no_process_left_but_supervisor() {
  local supervisor left
  supervisor=$(field "$1" .owner.pid)
  for _ in $(seq 60); do
    left=$(grep -lzx "BGTASK_ID=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 |
      grep -vx "$supervisor" | paste -sd, || true)
    [ -z "$left" ] && return 0
    sleep 0.05
  done
  fail "cancel past a stopped supervisor left: $(ps -o pid=,stat=,args= -p "$left" || true)"
}

run_cases "without a cgroup"
if ! reason=$(bg start --memory-max 64M -- true 2>&1 >/dev/null); then
  echo "no writable cgroup here: only the cases without one ran ($reason)"
  echo ok
  exit 0
fi
run_cases "with a cgroup" --memory-max 256M
echo ok
