#!/usr/bin/env bash
# What tasks cost the commands that select them: `wait` takes the final
# records its selection read as they are, and holds no reader lock for them
# (a lock guards a record not yet read); `cancel` of queued tasks reads each
# record once to select it and once under its lock, and what it wrote is
# not read again.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is missing"

tasks=200
bg queue q --slots 1 >/dev/null
seq "$tasks" | "$BGTASK" --dir "$D" start --queue q --each-line - --quiet -- true ||
  fail "start --each-line failed"
bg wait --queue q >/dev/null || fail "the $tasks tasks did not all succeed"
running=$(bg start --queue q -- sleep 2) || fail "start of the running task failed"

bg_traced wait wait --queue q >"$WORK/wait.out" || fail "wait --queue failed"
[ "$(grep -c ' succeeded' "$WORK/wait.out")" -eq $((tasks + 1)) ] ||
  fail "wait did not report $((tasks + 1)) succeeded tasks: $(sed -n 1,5p "$WORK/wait.out")"
locks=$(opens_in wait lock)
other=$((locks - $(opens_in wait lock <(echo "$running"))))
[ "$other" -eq 0 ] || fail "wait opened the lock files of $other finished tasks"
[ "$locks" -ge 1 ] || fail "wait held no lock of the running task"

bg queue c --slots 0 >/dev/null
seq "$tasks" | "$BGTASK" --dir "$D" start --queue c --each-line - -- true >"$WORK/c.ids" ||
  fail "start --each-line into queue c failed"
bg_traced cancel cancel --queue c --quiet || fail "cancel --queue failed"
cancelled=$(bg list --queue c --state cancelled --json | jq length)
[ "$cancelled" -eq "$tasks" ] || fail "$cancelled of $tasks queued tasks were cancelled"
reads=$(opens_in cancel status.json "$WORK/c.ids")
lock_opens=$(opens_in cancel lock "$WORK/c.ids")
outputs=$(opens_in cancel output "$WORK/c.ids")
# (and the lost hand-off look, at most once a second, reads the first of the line)
[ "$reads" -le $((2 * tasks + 2)) ] || fail "cancel read $reads records of $tasks queued tasks"
[ "$lock_opens" -le $((tasks + 2)) ] || fail "cancel opened $lock_opens lock files of $tasks queued tasks"
[ "$outputs" -eq 0 ] || fail "cancel opened the output files of $outputs tasks that never ran"
exited=$(bg events --queue c --type task.exited | jq -s '[.[] | select(.data.output_tail == "")] | length')
[ "$exited" -eq "$tasks" ] || fail "$exited of $tasks cancelled tasks have a task.exited event with no output"

echo "ok: wait opened $locks lock files, all the running task's; cancel read $reads records of $tasks and no output"
