#!/usr/bin/env bash
# A program that block-buffers stdout into a file (Python, most servers)
# shows nothing until it exits: `wait --idle` and a `wait --until-output`
# that gives up say that the still-empty output may be buffered, and say
# nothing of it for a task that did print.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

buffered=$(env -u PYTHONUNBUFFERED "$BGTASK" --dir "$D" start -- python3 -c 'import time; print("Serving HTTP"); time.sleep(300)')
printed=$(bg start -- sh -c 'echo ready; sleep 300')
on_exit 'bg cancel --all --quiet --grace 100ms'

rc=0
bg wait --idle 1s "$buffered" >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -eq 7 ] || fail "wait --idle exited $rc, not 7: $(cat "$WORK/err")"
grep -q "output is still empty: the command may buffer" "$WORK/err" || fail "no buffering hint: $(cat "$WORK/err")"
rc=0
bg wait --until-output 'Serving HTTP' --timeout 1s "$buffered" >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -eq 4 ] && grep -q "may buffer" "$WORK/err" || fail "until-output gave up ($rc) without the hint: $(cat "$WORK/err")"
rc=0
bg wait --idle 1s "$printed" >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -eq 7 ] && ! grep -q "may buffer" "$WORK/err" || fail "a task that printed got the hint ($rc): $(cat "$WORK/err")"
echo "buffered output hint: ok"
