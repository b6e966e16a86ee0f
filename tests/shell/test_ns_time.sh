#!/usr/bin/env bash
# Time namespaces: `unshare --time` shifts CLOCK_MONOTONIC and CLOCK_BOOTTIME
# (here by ten days) for the processes inside. Durations come from the
# monotonic clock only when it is the clock the task started on (same boot,
# same time namespace, recorded in started_clock), so:
# - `list` inside the namespace shows the true elapsed time of a task
#   started outside it, and `status` outside that of one started inside;
# - a task started and finished inside gets its true duration;
# - a task started outside and found dead from inside is `lost` with a
#   duration from the wall clock, not ten days;
# - `wait --timeout` inside the namespace times out when it should.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (unshare --time)"
command -v unshare >/dev/null || skip "unshare is missing"
unshare --time --fork --boottime 864000 --monotonic 864000 true 2>/dev/null ||
  skip "unshare --time is not permitted here (Linux 5.6 or later)"

outside_running=$(bg start -- sleep 4)
outside_dead=$(bg start -- sleep 300)

cat >"$WORK/inner.sh" <<'EOF'
set -euo pipefail
D=$1 RUNNING=$2 DEAD=$3
bg() { timeout 20 "$BGTASK" --dir "$D" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
gone() { for _ in $(seq 200); do [ -e "/proc/$1" ] || return 0; sleep 0.02; done; return 1; }
awk '{ exit !($1 > 864000) }' /proc/uptime || fail "the boottime offset is not in effect"

# The running task of outside: elapsed well under a minute, not ten days.
line=$(bg list | grep -E "^$RUNNING ") || fail "list does not show $RUNNING"
# ELAPSED follows STARTED (`HH:MM:SS`, after a date unless today).
elapsed=$(awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/) { print $(i + 1); exit } }' <<<"$line")
grep -E '^[0-9]+(\.[0-9]+)?(ms|s)$' <<<"$elapsed" >/dev/null ||
  fail "elapsed time of a task started outside the namespace: '$elapsed' in: $line"

# Started and finished inside.
inside=$(bg start -- sleep 1)
bg wait "$inside" >/dev/null || fail "wait on the task started inside"
d=$(jq -r .duration_s "$D/$inside.status.json")
awk -v d="$d" 'BEGIN { exit !(d >= 0.9 && d < 60) }' || fail "duration_s of the task inside: $d"

# Killed outside's task, judged from inside.
sup=$(jq .owner.pid "$D/$DEAD.status.json")
pgid=$(jq .child.pgid "$D/$DEAD.status.json")
kill -KILL "$sup"; gone "$sup" || fail "supervisor $sup did not die"
kill -KILL -- "-$pgid"; gone "$pgid" || fail "command $pgid did not die"
rc=0; bg wait "$DEAD" >/dev/null 2>&1 || rc=$?
[ "$rc" = 75 ] || fail "wait on the dead task exited $rc, not 75"
d=$(jq -r .duration_s "$D/$DEAD.status.json")
awk -v d="$d" 'BEGIN { exit !(d >= 0 && d < 120) }' || fail "duration_s of the dead task: $d"

# A timeout inside the namespace.
long=$(bg start -- sleep 30)
start_ns=$(date +%s%N)
rc=0; bg wait --timeout 500ms "$long" >/dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "wait --timeout exited $rc, not 4"
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
[ "$elapsed_ms" -lt 10000 ] || fail "wait --timeout 500ms took $elapsed_ms ms"
bg cancel "$long" >/dev/null
echo "$inside"
EOF

inside=$(unshare --time --fork --boottime 864000 --monotonic 864000 \
  bash "$WORK/inner.sh" "$D" "$outside_running" "$outside_dead") || fail "see above"
bg wait "$outside_running" >/dev/null || fail "wait on the task started outside"
d=$(field "$outside_running" .duration_s)
awk -v d="$d" 'BEGIN { exit !(d >= 3.9 && d < 60) }' || fail "duration_s of the task outside: $d"
# The record of the task inside, seen from outside: the same true duration.
d=$(field "$inside" .duration_s)
awk -v d="$d" 'BEGIN { exit !(d >= 0.9 && d < 60) }' || fail "duration_s of the task inside, read outside: $d"
echo ok
