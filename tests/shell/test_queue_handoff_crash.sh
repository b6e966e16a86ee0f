#!/usr/bin/env bash
# The hand-off survives a crash at each of its points. The supervisor of the
# task that frees the queue's one slot is SIGKILLed (test seam
# BGTASK_TEST_HANDOFF_KILL) before it claims the slot, after the claim and
# before it forks the next supervisor, or right after that fork; or the
# next task's own supervisor dies after its running record, before its
# command is released. The next invocation makes the lost hand-off, and
# afterwards every queued task has run exactly once (the one whose own
# supervisor died: never), never more than one at a time, and a --after
# task only once its dependency succeeded.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/invariants.sh"
source "$(dirname "$0")/queue_handoff_lib.sh"
[ "${BGTASK_TEST_SEAMS_BUILT:-0}" = 1 ] || skip "this build has no test seams"
command -v jq >/dev/null || skip "jq is missing"

for point in before_claim after_claim after_fork after_record; do
  D="$WORK/$point"
  mkdir -m 700 "$D"
  go="$WORK/go-$point"
  holder_env=() next_env=()
  if [ "$point" = after_record ]; then
    next_env=(env BGTASK_TEST_HANDOFF_KILL=$point)
  else
    holder_env=(env BGTASK_TEST_HANDOFF_KILL=$point)
  fi
  holder=$("${holder_env[@]}" timeout 60 "$BGTASK" --dir "$D" start --queue q --slots 1 \
    -c "while [ ! -e '$go' ]; do sleep 0.02; done")
  names=()
  first=$("${next_env[@]}" timeout 60 "$BGTASK" --dir "$D" start --queue q -c "$(logged_command "$point-0")")
  names+=("$point-0")
  ids=()
  for i in 1 2 3; do
    ids+=("$(bg start --queue q -c "$(logged_command "$point-$i")")")
    names+=("$point-$i")
  done
  dependent=$(bg start --after "${ids[1]}" -c "$(logged_command "$point-dep")")
  [ "$(field "$first" .state)" = queued ] || fail "$point: the first waiter is $(field "$first" .state)"

  touch "$go"
  # The holder's supervisor hands off, or dies trying; nothing else runs
  # bgtask until it is gone.
  sup=$(field "$holder" .owner.pid)
  for _ in $(seq 200); do [ -d "/proc/$sup" ] || break; sleep 0.02; done
  [ ! -d "/proc/$sup" ] || fail "$point: the holder's supervisor did not end"
  [ "$(field "$holder" .state)" = succeeded ] || fail "$point: the holder is $(field "$holder" .state)"

  rc=0
  bg wait --timeout 30s "${ids[@]}" "$dependent" >/dev/null || rc=$?
  [ "$rc" -eq 0 ] || fail "$point: the tasks behind did not all succeed (wait exited $rc): $(bg list)"
  if [ "$point" = after_record ]; then
    [ "$(bg status --json "$first" | jq -r ".[0].state")" = lost ] || fail "$point: the task whose supervisor died is $(field "$first" .state)"
    [ "$(runs_of "$point-0")" = 0 ] || fail "$point: the task whose supervisor died ran"
  else
    bg wait --timeout 10s "$first" >/dev/null || fail "$point: the first waiter did not succeed: $(field "$first" .state)"
    [ "$(runs_of "$point-0")" = 1 ] || fail "$point: the first waiter ran $(runs_of "$point-0") times"
  fi
  for i in 1 2 3 dep; do
    [ "$(runs_of "$point-$i")" = 1 ] || fail "$point: task $i ran $(runs_of "$point-$i") times"
  done
  most=$(most_at_once "${names[@]}")
  [ "$most" -le 1 ] || fail "$point: $most tasks of a one-slot queue ran at once"
  [ "$(first_of start "$point-dep")" -ge "$(first_of end "$point-2")" ] ||
    fail "$point: the --after task started before its dependency ended"
  [ -z "$(ls -A "$D/.parked" | grep -vxF .looked)" ] || fail "$point: .parked still holds $(ls -A "$D/.parked")"
  check_invariants "$D" || fail "$point: invariants"
done
echo ok
