#!/usr/bin/env bash
# wait on more tasks than the process may open files: it holds as many
# reader locks as its descriptors allow, less some it keeps for reading the
# records, so it waits (here it gives up at --timeout, exit 4) instead of
# failing with "Too many open files" (which it did once the locks had taken
# every descriptor).
source "$(dirname "$0")/lib.sh"

bg queue q --slots 0 >/dev/null
seq 150 | bg start --each-line - --queue q -- true >/dev/null
rc=0
(
  ulimit -n 100
  exec timeout 60 "$BGTASK" --dir "$D" wait --queue q --timeout 1s
) >/dev/null 2>"$WORK/err" || rc=$?
[ "$rc" -eq 4 ] || fail "wait on 150 tasks with 100 descriptors exited $rc: $(cat "$WORK/err")"
echo ok
