#!/usr/bin/env bash
# While a queue drains, at most one of its supervisors watches the task
# directory at any moment: the waiter first in line. A waiter that takes a
# slot removes its watch before it forks the command (which inherits the
# instance until it closes the supervisor's descriptors) and before anyone
# behind it can see it leave the line, so no hand-off shows two.
source "$(dirname "$0")/lib.sh"

tasks=120
bg queue drain --slots 2 >/dev/null
# Samples every 2 ms, until the tasks are waited for, this directory's
# supervisors that watch it (tests/tools/queue_watchers.py).
python3 "$BGTASK_TEST_LIB_DIR/../tools/queue_watchers.py" "$D" "$WORK/drained" 0.002 >"$WORK/samples" &
sampler=$!
ids=$(for _ in $(seq "$tasks"); do bg start --queue drain -- sleep 0.05; done)
# shellcheck disable=SC2086
bg wait $ids >/dev/null || fail "the queued tasks did not all succeed"
touch "$WORK/drained"
wait "$sampler" || fail "the sampler failed"
most=$(awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m }' "$WORK/samples")
samples=$(wc -l <"$WORK/samples")
[ "$samples" -ge 20 ] || fail "only $samples samples were taken while the queue drained"
# Two slots for tasks of 50 ms: the starts outpace them, so a line forms.
[ "$most" -ge 1 ] || fail "no supervisor was seen waiting first in line: the check saw nothing"
[ "$most" -le 1 ] || fail "$most supervisors of one queue watched the directory at once: $(awk '$1 > 1' "$WORK/samples")"
echo "ok: at most $most watching supervisor in $samples samples of a $tasks-task drain"
