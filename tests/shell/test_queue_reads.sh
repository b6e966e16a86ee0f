#!/usr/bin/env bash
# A selection by queue costs the tasks of that queue, not those waiting in
# another's line: `list --queue`, `wait --queue` and `cancel --queue` read
# no record of a task parked in another queue, and still select every task
# of their own, a task waiting for its --after tasks included.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is missing"

others=300
bg queue big --slots 0 >/dev/null
seq "$others" | "$BGTASK" --dir "$D" start --queue big --each-line - -- true >"$WORK/big.ids" ||
  fail "start --each-line into queue big failed"
bg queue small --slots 0 >/dev/null
seq 3 | "$BGTASK" --dir "$D" start --queue small --each-line - -- true >"$WORK/small.ids" ||
  fail "start --each-line into queue small failed"
# parked under its ID alone: its file does not name its queue
after=$(bg start --queue small --after "$(head -1 "$WORK/big.ids")" -- true) ||
  fail "start --after failed"

# big_reads NAME: the records of queue big that the trace NAME opened, but
# for the one the --after task waits for (looking at it is its admission)
sed 1d "$WORK/big.ids" >"$WORK/big.others"
big_reads() { opens_in "$1" status.json "$WORK/big.others"; }

bg_traced list list --queue small --json >"$WORK/list.json" || fail "list --queue failed"
[ "$(jq length "$WORK/list.json")" -eq 4 ] ||
  fail "list --queue small showed $(jq length "$WORK/list.json") tasks, not 4"
jq -e --arg a "$after" 'any(.[]; .id == $a and .state == "queued")' "$WORK/list.json" >/dev/null ||
  fail "list --queue small left out the task waiting for its --after task"
[ "$(big_reads list)" -eq 0 ] || fail "list --queue small read $(big_reads list) records of queue big"

set +e
bg_traced wait wait --queue small --timeout 0.2s >"$WORK/wait.out" 2>"$WORK/wait.err"
rc=$?
set -e
[ "$rc" -eq 4 ] || fail "wait --queue small exited $rc, not 4 (gave up): $(cat "$WORK/wait.err")"
[ "$(grep -c ' queued' "$WORK/wait.out")" -eq 4 ] ||
  fail "wait --queue small did not report its 4 queued tasks: $(cat "$WORK/wait.out")"
[ "$(big_reads wait)" -eq 0 ] || fail "wait --queue small read $(big_reads wait) records of queue big"

bg_traced cancel cancel --queue small --quiet || fail "cancel --queue small failed"
[ "$(bg list --queue small --state cancelled --json | jq length)" -eq 4 ] ||
  fail "cancel --queue small did not cancel its 4 tasks"
[ "$(big_reads cancel)" -eq 0 ] || fail "cancel --queue small read $(big_reads cancel) records of queue big"
[ "$(bg list --queue big --state queued --json | jq length)" -eq "$others" ] ||
  fail "cancel --queue small ended tasks of queue big"

echo "ok: list, wait and cancel of queue small read no record of the $others tasks of queue big"
