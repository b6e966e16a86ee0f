#!/usr/bin/env bash
# `wait` and `output --follow` notice the death of a task's processes at
# once: a watcher that finds the process it should watch already gone (it
# died between the reconciliation and pidfd_open; held there with strace)
# polls instead of sleeping until the 5 s safety poll, and one whose
# supervisor is SIGKILLed while it watches moves on to the command. Each
# must return within BOUND_MS (generous: about 0.1 s is expected) of the
# last death, well before the safety poll would have woken it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool strace jq

BOUND_MS=2500
HOLD_US=500000 # how long the watcher's pidfd_open is held
checked=0

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# who WHAT: the processes WHAT ("both" or "supervisor") names.
who() { if [ "$1" = both ]; then echo "supervisor and command"; else echo "supervisor"; fi; }

# in_syscall NR PID...: one of the processes is in (or stopped at) system call NR.
in_syscall() {
  local nr=$1 pid call
  shift
  for pid in "$@"; do
    read -r call _ <"/proc/$pid/syscall" 2>/dev/null || continue
    [ "$call" = "$nr" ] && return 0
  done
  return 1
}

# in_poll PID: blocked in poll or ppoll, as a watching bgtask is.
in_poll() { in_syscall 7 "$1" || in_syscall 271 "$1"; }

# held_at_pidfd_open TRACER: a process traced by TRACER is held at pidfd_open's entry.
held_at_pidfd_open() {
  local pids
  mapfile -t pids < <(pgrep -P "$1" || true)
  [ ${#pids[@]} -gt 0 ] && in_syscall 434 "${pids[@]}"
}

# finish PID START_MS LABEL WANT: waits for PID (a background job), checks
# its exit status and that it ended within BOUND_MS after START_MS (plus
# EXTRA_MS, set by the caller).
finish() {
  local pid=$1 start=$2 label=$3 want=$4 rc=0 took
  wait "$pid" || rc=$?
  took=$(($(now_ms) - start))
  [ "$rc" -eq "$want" ] || problem "$label: exited $rc, want $want ($(head -c 300 "$WORK/err"))"
  [ "$took" -lt $((BOUND_MS + ${EXTRA_MS:-0})) ] ||
    problem "$label: returned $took ms after the death, bound $((BOUND_MS + ${EXTRA_MS:-0})) ms"
  echo "$label: returned $took ms after the death" >&2
  checked=$((checked + 1))
}

# gone_at_start CMD WHAT: CMD ("wait" or "output --follow") is held at its
# first pidfd_open (the watch); WHAT dies meanwhile ("both": supervisor and
# command, "supervisor": the supervisor only, the command a little later).
gone_at_start() {
  local cmd=$1 what=$2 id sup child tracer start label
  label="$cmd, $(who "$what") gone as the watch starts"
  id=$(bg start -- sleep 60)
  sup=$(field "$id" .owner.pid)
  child=$(field "$id" .child.pid)
  # shellcheck disable=SC2086
  strace -f -qq -o /dev/null -e trace=pidfd_open \
    -e inject=pidfd_open:delay_enter=$HOLD_US:when=1 \
    "$BGTASK" --dir "$D" $cmd "$id" >"$WORK/out" 2>"$WORK/err" &
  tracer=$!
  wait_until 30 held_at_pidfd_open "$tracer" || { problem "$label: pidfd_open was never held"; return; }
  kill -KILL "$sup"
  if [ "$what" = both ]; then
    kill -KILL "$child"
    start=$(now_ms)
    EXTRA_MS=$((HOLD_US / 1000)) finish "$tracer" "$start" "$label" 75
    return
  fi
  # The held call fails (the supervisor is gone); then the command ends.
  wait_until 30 eval '! held_at_pidfd_open $tracer' || true
  sleep 0.5
  kill -KILL "$child"
  start=$(now_ms)
  finish "$tracer" "$start" "$label" 75
}

# dies_while_watched CMD WHAT: CMD watches the task (blocked in poll) when
# WHAT dies ("both", or "supervisor" and then the command).
dies_while_watched() {
  local cmd=$1 what=$2 id sup child watcher start took label
  label="$cmd, $(who "$what") killed while watched"
  id=$(bg start -- sleep 60)
  sup=$(field "$id" .owner.pid)
  child=$(field "$id" .child.pid)
  # shellcheck disable=SC2086
  "$BGTASK" --dir "$D" $cmd "$id" >"$WORK/out" 2>"$WORK/err" &
  watcher=$!
  wait_until 30 in_poll "$watcher" || { problem "$label: never blocked in poll"; return; }
  kill -KILL "$sup"
  if [ "$what" = both ]; then
    kill -KILL "$child"
    start=$(now_ms)
    finish "$watcher" "$start" "$label" 75
    return
  fi
  # The watcher notices the supervisor's death at once and marks the task
  # unsupervised, then watches the command.
  start=$(now_ms)
  wait_until 30 eval "[ \"\$(field $id .unsupervised)\" = true ]" || true
  took=$(($(now_ms) - start))
  [ "$took" -lt "$BOUND_MS" ] || problem "$label: the task was marked unsupervised $took ms after the death"
  in_poll "$watcher" || wait_until 30 in_poll "$watcher" || true
  kill -KILL "$child"
  start=$(now_ms)
  finish "$watcher" "$start" "$label" 75
}

for cmd in "wait" "output --follow"; do
  for what in both supervisor; do
    gone_at_start "$cmd" "$what"
    dies_while_watched "$cmd" "$what"
  done
done

crash_summary "checked=$checked failures=$problems"
[ "$problems" -eq 0 ] || fail "$problems problems"
echo ok
