#!/usr/bin/env bash
# output --follow of several tasks (IDs, --name, --queue) interleaves their
# lines with a `NAME| ` or `ID| ` prefix and ends when all have ended, with
# wait's exit status; wait --queue waits for every task of a queue; list
# --summary counts per state.
source "$(dirname "$0")/lib.sh"

go="$WORK/go"
a=$(bg start --name alpha --queue batch --slots 3 -c "while [ ! -e '$go' ]; do sleep 0.05; done; echo one; echo two")
b=$(bg start --name beta --queue batch -c "while [ ! -e '$go' ]; do sleep 0.05; done; printf 'x\ny'; exit 3")
c=$(bg start --queue batch -c "while [ ! -e '$go' ]; do sleep 0.05; done; echo three")
bg output --follow "$a" "$b" "$c" >"$WORK/out" 2>"$WORK/err" &
follower=$!
sleep 1
kill -0 "$follower" 2>/dev/null || fail "follow ended before the tasks: $(cat "$WORK/out" "$WORK/err")"
touch "$go"
rc=0; wait "$follower" || rc=$?
[ "$rc" = 3 ] || fail "follow of three tasks exited $rc, expected 3 (beta's status)"
sort "$WORK/out" >"$WORK/sorted"
printf '%s\n' "$c| three" "alpha| one" "alpha| two" "beta| x" "beta| y" | sort >"$WORK/expected"
diff "$WORK/expected" "$WORK/sorted" >&2 || fail "follow output: $(cat "$WORK/out")"
grep -n "" "$WORK/out" | grep -F "alpha| one" >/dev/null || true
[ "$(grep -n 'alpha| ' "$WORK/out" | sed -n 1p | cut -d: -f2-)" = "alpha| one" ] || fail "alpha's lines out of order"

# --queue and --name select the same tasks; finished tasks replay whole.
rc=0; bg output --follow --queue batch >"$WORK/out2" || rc=$?
[ "$rc" = 3 ] && [ "$(sort "$WORK/out2")" = "$(cat "$WORK/expected")" ] || fail "--queue: rc $rc $(cat "$WORK/out2")"
# A selection of one task is followed as `output --follow ID`: no prefix.
rc=0; bg output --follow --name alpha >"$WORK/out3" || rc=$?
[ "$rc" = 0 ] && [ "$(cat "$WORK/out3")" = $'one\ntwo' ] || fail "--name: rc $rc $(cat "$WORK/out3")"

# Several IDs without --follow, an empty queue: usage errors.
rc=0; bg output "$a" "$b" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "output of two tasks without --follow exited $rc"
rc=0; bg output --follow --queue nothing 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "follow of an empty queue exited $rc"

# wait --queue: every task of the queue, with wait's exit status.
hold="$WORK/hold"
q1=$(bg start --queue w --slots 2 -c "while [ ! -e '$hold' ]; do sleep 0.05; done")
q2=$(bg start --queue w -c "while [ ! -e '$hold' ]; do sleep 0.05; done; exit 4")
q3=$(bg start --queue w -- true) # waits for a slot
rc=0; bg wait --queue w --timeout 1s >/dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "wait --queue returned before its tasks ended: $rc"
summary=$(bg list --summary --queue w)
[ "$summary" = "queued=1 running=2 succeeded=0 failed=0 cancelled=0 timed_out=0 lost=0 corrupt=0 paused=0 total=3" ] ||
  fail "summary while running: $summary"
touch "$hold"
rc=0; bg wait --queue w >"$WORK/wait" || rc=$?
[ "$rc" = 4 ] || fail "wait --queue exited $rc, expected 4"
[ "$(wc -l <"$WORK/wait")" = 3 ] || fail "wait --queue printed: $(cat "$WORK/wait")"
for id in "$q1" "$q2" "$q3"; do
  grep -F "$id" "$WORK/wait" >/dev/null || fail "wait --queue left out $id"
done
rc=0; bg wait --queue nothing 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "wait on an empty queue exited $rc, expected 2"

summary=$(bg list --summary)
[ "$summary" = "queued=0 running=0 succeeded=4 failed=2 cancelled=0 timed_out=0 lost=0 corrupt=0 paused=0 total=6" ] ||
  fail "summary: $summary"
[ "$(bg list --summary --json | jq -c '[.succeeded, .failed, .total]')" = "[4,2,6]" ] ||
  fail "summary JSON: $(bg list --summary --json)"
[ "$(bg list --summary --state failed)" = "queued=0 running=0 succeeded=0 failed=2 cancelled=0 timed_out=0 lost=0 corrupt=0 paused=0 total=2" ] ||
  fail "summary with --state: $(bg list --summary --state failed)"
echo ok
