#!/usr/bin/env bash
# What tasks that already ended cost the commands that select them: `wait`
# takes the final records its selection read as they are, and holds no
# reader lock for them (a lock guards a record not yet read).
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is missing"

tasks=200
bg queue q --slots 1 >/dev/null
seq "$tasks" | "$BGTASK" --dir "$D" start --queue q --each-line - --quiet -- true ||
  fail "start --each-line failed"
bg wait --queue q >/dev/null || fail "the $tasks tasks did not all succeed"
running=$(bg start --queue q -- sleep 2) || fail "start of the running task failed"

strace -f -e trace=openat -o "$WORK/wait.trace" "$BGTASK" --dir "$D" wait --queue q \
  >"$WORK/wait.out" || fail "wait --queue failed"
[ "$(grep -c ' succeeded' "$WORK/wait.out")" -eq $((tasks + 1)) ] ||
  fail "wait did not report $((tasks + 1)) succeeded tasks: $(sed -n 1,5p "$WORK/wait.out")"
locks=$(grep -cE '"[0-9a-z]{12}\.lock"' "$WORK/wait.trace" || true)
other=$(grep -E '"[0-9a-z]{12}\.lock"' "$WORK/wait.trace" | grep -cv "\"$running\.lock\"" || true)
[ "$other" -eq 0 ] || fail "wait opened the lock files of $other finished tasks"
[ "$locks" -ge 1 ] || fail "wait held no lock of the running task"
echo "ok: wait over $tasks finished tasks and a running one opened $locks lock files, all the running task's"
