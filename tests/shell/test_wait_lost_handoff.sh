#!/usr/bin/env bash
# A `wait` already waiting for queued tasks makes a hand-off lost with a
# supervisor that died (SIGKILLed before it claimed the freed slot), with
# no other bgtask command running: the tasks start, one at a time, and the
# wait returns. While the queue's slot is taken, the wait does not read
# the queue's whole line again.
source "$(dirname "$0")/lib.sh"
[ "${BGTASK_TEST_SEAMS_BUILT:-0}" = 1 ] || skip "this build has no test seams"
command -v strace >/dev/null || skip "strace is missing"

go="$WORK/go"
holder=$(env BGTASK_TEST_HANDOFF_KILL=before_claim "$BGTASK" --dir "$D" start --queue q --slots 1 \
  -c "while [ ! -e '$go' ]; do sleep 0.02; done")
seq 300 | "$BGTASK" --dir "$D" start --queue q --each-line - --quiet -- true ||
  fail "start --each-line failed"
last=$(bg list --queue q --json | jq -r '.[-1].id')

strace -f -y -e trace=getdents64 -o "$WORK/wait.trace" \
  "$BGTASK" --dir "$D" wait --queue q --timeout 60s >/dev/null 2>"$WORK/wait.err" &
waiter=$!
sleep 3 # the wait's own looks, while the slot is taken
reads=$(grep -c '^[0-9]* *getdents64([0-9]*</[^>]*/\.parked>' "$WORK/wait.trace" || true)

touch "$go"
sup=$(field "$holder" .owner.pid)
for _ in $(seq 200); do [ -d "/proc/$sup" ] || break; sleep 0.02; done
[ ! -d "/proc/$sup" ] || fail "the holder's supervisor did not end"
rc=0
wait "$waiter" || rc=$?
[ "$rc" -eq 0 ] || fail "wait exited $rc: $(cat "$WORK/wait.err")"
[ "$(field "$last" .state)" = succeeded ] || fail "the last queued task is $(field "$last" .state)"
# The first look (at the wait's start) and perhaps one more; not one a second.
[ "$reads" -le 4 ] || fail "the wait read .parked in $reads calls in 3 s while the slot was taken"
echo "ok: .parked read in $reads calls while the slot was taken"
