#!/usr/bin/env bash
# A hook is part of its task's tree: whatever an --on-exit hook starts ends
# once the hook has (TERM, KILL after the task's grace), however it was
# started: backgrounded with &, in a new session (setsid), under nohup, or
# orphaned by a subshell. What the command itself left running is not
# stopped with the task, nor is a task the hook started with `bgtask start`.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/invariants.sh"
command -v jq >/dev/null || skip "jq is missing"
command -v setsid >/dev/null || skip "setsid is missing"
command -v nohup >/dev/null || skip "nohup is missing"

# A process the hook leaves behind writes its pid to $1 first; the hook
# waits for that, so it has surely started before the hook ends.
leftover() { printf "sh -c 'echo \$\$ >%s; exec sleep 300'" "$1"; }
wait_pid_file() { printf 'while [ ! -s %s ]; do sleep 0.05; done' "$1"; }

declare -A hooks
hooks[background]="$(leftover "$WORK/background.pid") & $(wait_pid_file "$WORK/background.pid")"
hooks[setsid]="setsid $(leftover "$WORK/setsid.pid") & $(wait_pid_file "$WORK/setsid.pid")"
hooks[nohup]="nohup $(leftover "$WORK/nohup.pid") >/dev/null 2>&1 & $(wait_pid_file "$WORK/nohup.pid")"
hooks[subshell]="( $(leftover "$WORK/subshell.pid") & ); $(wait_pid_file "$WORK/subshell.pid")"
hooks[task]="BGTASK_DIR= '$BGTASK' --dir '$D' start --name from-hook -- sleep 300 >'$WORK/task.id'"

declare -A ids
for shape in "${!hooks[@]}"; do
  ids[$shape]=$(bg start --grace 1s --on-exit "${hooks[$shape]}" -- true)
done
# The command's own daemon, in a task whose hook leaves one too.
mixed=$(bg start --grace 1s --on-exit "${hooks[background]/background.pid/mixed.pid}" -- \
  sh -c "sleep 300 >/dev/null 2>&1 & echo \$! >'$WORK/command.pid'")
on_exit "kill \$(cat '$WORK/command.pid') 2>/dev/null"
ids[mixed]=$mixed

hook_done() { jq -e '[.events[] | select(.kind == "on_exit")] | length == 1' "$D/$1.status.json" >/dev/null; }
gone() { ! kill -0 "$1" 2>/dev/null; }
for shape in "${!ids[@]}"; do
  wait_until 30 hook_done "${ids[$shape]}" || fail "$shape: the hook never ended"
done
outlived=()
for shape in background setsid nohup subshell mixed; do
  wait_until 10 gone "$(cat "$WORK/$shape.pid")" || outlived+=("$shape")
done
kill -0 "$(cat "$WORK/command.pid")" 2>/dev/null || fail "the command's own daemon was stopped with the task"
hook_task=$(cat "$WORK/task.id")
[ "$(field "$hook_task" .state)" = running ] || fail "the task the hook started is $(field "$hook_task" .state)"
bg cancel "$hook_task" >/dev/null
[ ${#outlived[@]} -eq 0 ] || fail "what these hooks started outlived them: ${outlived[*]}"
echo ok
