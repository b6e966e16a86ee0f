#!/usr/bin/env bash
# bgtask events under load: 1,000 tasks of `true` started by four group
# starts at once and ending within seconds, followed live by 10
# `events --follow` followers. Each follower prints every task.exited
# exactly once, in sequence order, and the same lines as a replay of the
# log. BGTASK_EVENTS_LOAD_TASKS sets the number of tasks (a multiple of 4).
source "$(dirname "$0")/lib.sh"

tasks=${BGTASK_EVENTS_LOAD_TASKS:-1000}
followers=10
deadline=$((SECONDS + 120))

for i in $(seq "$followers"); do
  timeout 180 "$BGTASK" --dir "$D" events --follow --type task.exited >"$WORK/follower$i" &
  echo $! >>"$WORK/follower_pids"
done
sleep 0.5 # they follow before the first task starts (a later one would replay)

started=$(date +%s%N)
for k in 1 2 3 4; do
  seq $((tasks / 4)) | bg start --each-line - -- true >"$WORK/ids$k" &
done
wait $(jobs -p | grep -vxFf "$WORK/follower_pids") || fail "a group start failed"
cat "$WORK"/ids? | sort >"$WORK/ids"
[ "$(wc -l <"$WORK/ids")" = "$tasks" ] || fail "started $(wc -l <"$WORK/ids") tasks, not $tasks"
bg wait $(cat "$WORK/ids") >/dev/null
ended=$(date +%s%N)

# Each follower has printed every exit once it has as many lines as tasks.
for i in $(seq "$followers"); do
  while [ "$(wc -l <"$WORK/follower$i")" -lt "$tasks" ] && [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.1
  done
done
caught_up=$(date +%s%N)
kill $(cat "$WORK/follower_pids") 2>/dev/null || true
wait || true

bg events --type task.exited >"$WORK/replay"
[ "$(wc -l <"$WORK/replay")" = "$tasks" ] || fail "the log holds $(wc -l <"$WORK/replay") exits"
for i in $(seq "$followers"); do
  out="$WORK/follower$i"
  [ "$(wc -l <"$out")" = "$tasks" ] || fail "follower $i printed $(wc -l <"$out") exits of $tasks"
  awk 'NR > 1 && $1 <= last { exit 1 } { last = $1 }' <<<"$(jq -r .seq "$out")" ||
    fail "follower $i: sequence numbers out of order or repeated"
  jq -r .task "$out" | sort | cmp -s - "$WORK/ids" || fail "follower $i: a task missed or seen twice"
  cmp -s "$out" "$WORK/replay" || fail "follower $i printed other lines than the log holds"
done
echo "$tasks tasks in $(((ended - started) / 1000000)) ms; $followers followers caught up" \
  "$(((caught_up - ended) / 1000000)) ms after the last wait returned"
echo "ok"
