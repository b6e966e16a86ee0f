#!/usr/bin/env bash
# scripts/examples: fan-out.sh runs its items as tasks and exits with
# `bgtask wait`'s status; the crontab line runs as written; the systemd units
# pass `systemd-analyze verify` where systemd is available.
source "$(dirname "$0")/lib.sh"
EXAMPLES=$(cd "$(dirname "$0")/../../scripts/examples" && pwd)
export BGTASK_DIR="$D"
mkdir "$WORK/bin"
ln -s "$BGTASK" "$WORK/bin/bgtask"
export PATH="$WORK/bin:$PATH"

# --- fan-out.sh ---
fan_out() { timeout 60 "$EXAMPLES/fan-out.sh" "$@"; }
# `sh -c SCRIPT ITEM` sees the item as $0.
fan_out sh -c 'echo "done $0"' -- a b c 2>"$WORK/err" || fail "fan-out of good items failed: $(cat "$WORK/err")"
[ ! -s "$WORK/err" ] || fail "fan-out reported problems for good items: $(cat "$WORK/err")"
[ "$(bg list --state succeeded --format jsonl | wc -l)" -eq 3 ] || fail "fan-out did not run 3 tasks"
for item in a b c; do
  id=$(bg list --name "fan-out:$item" --format jsonl | jq -r .id)
  [ "$(bg output "$id")" = "done $item" ] || fail "task for $item printed: $(bg output "$id")"
done

rc=0
fan_out sh -c 'test "$0" != bad || exit 3' -- ok1 bad ok2 2>"$WORK/err" || rc=$?
[ "$rc" -eq 3 ] || fail "fan-out with a failing item exited $rc, expected the task's 3"
bad=$(bg list --name fan-out:bad --format jsonl | jq -r .id)
grep -q "task $bad failed" "$WORK/err" || fail "fan-out did not name the failed task: $(cat "$WORK/err")"
[ "$(grep -c "^fan-out:" "$WORK/err")" -eq 1 ] || fail "fan-out named more than the failed task"

rc=0
fan_out /nonexistent/command -- x 2>"$WORK/err" || rc=$?
[ "$rc" -eq 127 ] || fail "fan-out of a missing command exited $rc, expected 127"
rc=0
fan_out true 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "fan-out without items exited $rc, expected 2"

# --- cron-cleanup: one crontab entry, which runs as written ---
entries=$(grep -vE '^[[:space:]]*(#|$)' "$EXAMPLES/cron-cleanup")
[ "$(printf '%s\n' "$entries" | wc -l)" -eq 1 ] || fail "cron-cleanup has more than one entry"
read -r minute hour dom month dow command <<<"$entries"
for field in "$minute" "$hour" "$dom" "$month" "$dow"; do
  [[ $field =~ ^([0-9]+|\*)$ ]] || fail "bad crontab time field '$field'"
done
[[ $command == "bgtask cleanup "* ]] || fail "the crontab line does not run bgtask cleanup"
sh -c "$command" || fail "the crontab command failed"

# --- systemd user units ---
service="$EXAMPLES/bgtask-cleanup.service"
timer="$EXAMPLES/bgtask-cleanup.timer"
grep -q '^ExecStart=/usr/bin/bgtask cleanup ' "$service" || fail "the service does not run bgtask cleanup"
grep -q '^OnCalendar=' "$timer" || fail "the timer has no OnCalendar="
grep -q '^WantedBy=timers.target' "$timer" || fail "the timer is not wanted by timers.target"
if command -v systemd-analyze >/dev/null; then
  units="$WORK/units"
  mkdir "$units"
  # Verify against the binary under test: /usr/bin/bgtask may not exist here.
  sed "s|^ExecStart=/usr/bin/bgtask|ExecStart=$BGTASK|" "$service" >"$units/bgtask-cleanup.service"
  cp "$timer" "$units/"
  SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$units/bgtask-cleanup.timer" \
    "$units/bgtask-cleanup.service" >"$WORK/verify" 2>&1 || fail "systemd-analyze verify: $(cat "$WORK/verify")"
fi
echo ok
