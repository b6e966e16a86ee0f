#!/usr/bin/env bash
# `start --pty` and `run --pty`: the command's stdout and stderr are a
# pseudo-terminal, so a program that block-buffers a file prints each line
# at once, and its output is kept in ID.output as usual (as written, bounded
# by --max-output). What a killed supervisor leaves is checked too.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

# Python buffers a file in blocks: without --pty its ready line stays in its
# buffer (and wait says the output may be buffered); with --pty it is there.
ready='import sys, time; print("ready", flush=False); time.sleep(60)'
plain=$(env -u PYTHONUNBUFFERED "$BGTASK" --dir "$D" start -- python3 -c "$ready")
rc=0
bg wait "$plain" --until-output ready --timeout 3s >/dev/null 2>"$WORK/plain.err" || rc=$?
[ "$rc" -eq 4 ] || fail "wait --until-output on a buffering task without --pty exited $rc, not 4"
grep -q "buffer" "$WORK/plain.err" || fail "no buffering hint without --pty: $(cat "$WORK/plain.err")"
grep -q -- "--pty" "$WORK/plain.err" || fail "the buffering hint does not name --pty: $(cat "$WORK/plain.err")"
tty_task=$(env -u PYTHONUNBUFFERED "$BGTASK" --dir "$D" start --pty -- python3 -c "$ready")
rc=0
bg wait "$tty_task" --until-output '^ready$' --timeout 30s >/dev/null 2>"$WORK/pty.err" || rc=$?
[ "$rc" -eq 0 ] || fail "wait --until-output on a --pty task exited $rc: $(cat "$WORK/pty.err")"
[ "$(field "$tty_task" .options.pty)" = true ] || fail "the record does not say --pty"
[ "$(field "$plain" .options.pty)" = false ] || fail "a task without --pty is recorded with it"
bg cancel --grace 1s "$plain" "$tty_task" >/dev/null

# stdout and stderr are a terminal of 80x24, stdin is /dev/null, and the
# output is kept as written: no \r before \n.
id=$(bg start --pty -c 'test -t 1 && echo tty; test -t 2 && echo tty2 >&2; test -t 0 || echo stdin-not-tty
python3 -c "import os; s = os.get_terminal_size(1); print(s.columns, s.lines)"')
bg wait "$id" >/dev/null || fail "the --pty task failed: $(bg output "$id")"
printf 'tty\ntty2\nstdin-not-tty\n80 24\n' | cmp -s - "$D/$id.output" ||
  fail "a --pty task wrote: $(od -c "$D/$id.output" | sed -n 1,6p)"

# --max-output bounds what the supervisor copies, head and tail kept.
id=$(bg start --pty --max-output 8K -c 'i=0; while [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done; echo end')
bg wait "$id" >/dev/null || fail "the bounded --pty task failed"
[ "$(field "$id" .output.truncated)" = true ] || fail "a --pty output past --max-output is not truncated"
[ "$(stat -c %b "$D/$id.output")" -le 64 ] || fail "the bounded output takes $(stat -c %b "$D/$id.output") blocks"
[ "$(bg output "$id" | tail -1)" = end ] || fail "the tail of a bounded --pty output is lost: $(bg output "$id" | tail -2)"
grep -q "^line 0$" <<<"$(bg output "$id")" || fail "the head of a bounded --pty output is lost"

# run --pty: the same terminal, its output streamed into a pipe.
"$BGTASK" --dir "$D" run --pty -- sh -c 'test -t 1 && echo tty' | cat >"$WORK/run.out"
[ "$(cat "$WORK/run.out")" = tty ] || fail "run --pty printed: $(cat "$WORK/run.out")"
# A Slurm task cannot have one.
rc=0
bg start --pty --executor slurm -- true 2>"$WORK/slurm.err" || rc=$?
[ "$rc" -eq 2 ] || fail "--pty with --executor slurm exited $rc: $(cat "$WORK/slurm.err")"

# The supervisor KILLed: the master goes with it. The command runs on (it
# is not hung up: the terminal is nobody's controlling terminal), what it
# prints is lost, and reconciliation and cancel end it as any task whose
# supervisor died, leaving no process behind.
id=$(bg start --pty -c 'while :; do echo tick; sleep 0.1; done')
bg wait "$id" --until-output tick --timeout 30s >/dev/null || fail "the ticking --pty task printed nothing"
child=$(field "$id" .child.pid)
kill -KILL "$(field "$id" .owner.pid)"
sleep 1
kill -0 "$child" 2>/dev/null || fail "the command of a --pty task died with its supervisor"
size=$(stat -c %s "$D/$id.output")
sleep 0.5
[ "$(stat -c %s "$D/$id.output")" -eq "$size" ] || fail "the output grew without its supervisor"
[ "$(bg status --json "$id" | jq -r '.[0].state')" = running ] || fail "the task is not running after its supervisor died"
bg cancel --grace 1s "$id" >/dev/null || true
for _ in $(seq 50); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$child" 2>/dev/null || fail "cancel left the command of a --pty task running"
echo "pty: ok"
