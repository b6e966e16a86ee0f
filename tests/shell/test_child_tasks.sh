#!/usr/bin/env bash
# Tasks started by a task are tasks of their own: timing out or cancelling a
# task that ran `bgtask start` (scripts/examples/fan-out.sh) stops that task's
# own processes, never the child tasks' supervisors or commands, which run
# to their end and record it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool jq

EXAMPLES=$(cd "$(dirname "$0")/../../scripts/examples" && pwd)
mkdir "$WORK/bin"
ln -s "$(realpath "$(command -v "$BGTASK")")" "$WORK/bin/bgtask"
export PATH="$WORK/bin:$PATH" BGTASK_DIR="$D"

# children_of NAME_PREFIX: the IDs of the tasks whose name starts so.
children() { bg list --json | jq -r --arg p "$1" '.[] | select((.name // "") | startswith($p)) | .id'; }
running_children() {
  [ "$(bg list --json | jq --arg p "$1" '[.[] | select((.name // "") | startswith($p)) | select(.state == "running")] | length')" -eq "$2" ]
}

# Each way of stopping the parent: its fan-out starts two tasks of 3 s.
# Each round's tasks have names of their own (fan-out:3.10x, then 3.20x).
tag=0
for how in timeout cancel; do
  tag=$((tag + 10))
  if [ "$how" = timeout ]; then
    parent=$(bg start --timeout 1s --grace 1s -- "$EXAMPLES/fan-out.sh" sleep -- "3.${tag}1" "3.${tag}2")
  else
    parent=$(bg start --grace 1s -- "$EXAMPLES/fan-out.sh" sleep -- "3.${tag}1" "3.${tag}2")
  fi
  wait_until 10 running_children "fan-out:3.${tag}" 2 || problem "$how: the child tasks never ran"
  if [ "$how" = timeout ]; then
    rc=0
    bg wait "$parent" >/dev/null || rc=$?
    [ "$rc" -eq 124 ] || problem "timeout: wait on the parent exited $rc, not 124"
  else
    bg cancel "$parent" >/dev/null || problem "cancel of the parent exited $?"
  fi
  mapfile -t kids < <(children "fan-out:3.${tag}")
  [ "${#kids[@]}" -eq 2 ] || problem "$how: ${#kids[@]} child tasks, not 2"
  for kid in "${kids[@]}"; do
    sup=$(field "$kid" .owner.pid)
    [ -e "/proc/$sup" ] || problem "$how: the supervisor of child task $kid died with its parent"
  done
  rc=0
  out=$(bg wait "${kids[@]}") || rc=$?
  [ "$rc" -eq 0 ] || problem "$how: the child tasks ended: $(echo "$out" | tr '\n' ' ') (wait exited $rc)"
  for kid in "${kids[@]}"; do
    [ "$(field "$kid" .state)" = succeeded ] || problem "$how: child $kid is $(field "$kid" .state): $(field "$kid" .reason)"
  done
done

wait_until 10 dir_idle "$D" || problem "supervisors still run"
[ "$problems" -eq 0 ] || fail "$problems checks failed"
echo ok
