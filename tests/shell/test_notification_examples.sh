#!/usr/bin/env bash
# The recipes of docs/notifications.md, each run as the guide writes it
# (the test fails if the guide's line differs): desktop notifications
# through a stand-in notify-send, resumed from the cursor file after a
# restart; the cron line run twice, printing each failure once; an agent's
# monitor of one task until it is idle.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/invariants.sh" # wait_until
GUIDE="$(dirname "$0")/../../docs/notifications.md"
export BGTASK_DIR="$D" HOME="$WORK/home"
mkdir "$HOME" "$WORK/bin"
ln -s "$BGTASK" "$WORK/bin/bgtask"
printf '#!/bin/sh\necho "$*" >>"%s/notified"\n' "$WORK" >"$WORK/bin/notify-send"
chmod +x "$WORK/bin/notify-send"
export PATH="$WORK/bin:$PATH"
cd "$WORK"

# recipe TEXT: fails unless the guide holds TEXT as a line of its own.
recipe() {
  grep -qxF -- "$1" "$GUIDE" || fail "docs/notifications.md has no line: $1"
  printf '%s\n' "$1"
}
notified() { cat "$WORK/notified" 2>/dev/null || true; }

# --- Desktop notifications ---
desktop=$(recipe 'bgtask events --follow --since now --cursor-file ~/.bgtask-notify.cursor --type task.exited | jq --unbuffered -r '"'"'"\(.name // .task) \(.data.state) (exit \(.data.exit_code))"'"'"' | while IFS= read -r line; do notify-send bgtask "$line"; done')
old=$(bgtask start -- true)
bgtask wait "$old" >/dev/null
setsid bash -c "$desktop" &
notifier=$!
wait_until 10 test -s "$HOME/.bgtask-notify.cursor" || fail "the notifier kept no cursor"
bgtask start --name build -- sh -c 'exit 2' >/dev/null
wait_until 10 grep -q 'build failed' "$WORK/notified" || fail "no notification of the failed build: $(notified)"
[ "$(notified)" = "bgtask build failed (exit 2)" ] || fail "notified: $(notified)"
kill -- -"$notifier"
wait "$notifier" 2>/dev/null || true
# While no one listens, a task ends; the restarted notifier tells of it.
quiet=$(bgtask start -- sh -c 'exit 0')
bgtask wait "$quiet" >/dev/null
setsid bash -c "$desktop" &
notifier=$!
wait_until 10 grep -q "$quiet succeeded" "$WORK/notified" || fail "the restart missed $quiet: $(notified)"
kill -- -"$notifier"
wait "$notifier" 2>/dev/null || true
[ "$(wc -l <"$WORK/notified")" = 2 ] || fail "notified $(wc -l <"$WORK/notified") times for 2 tasks: $(notified)"
grep -q "$old" "$WORK/notified" && fail "a task that ended before the first run was notified"

# --- cron: the failures since the last run, each once ---
entry=$(recipe '*/10 * * * * bgtask events --since now --cursor-file "$HOME/.bgtask-failed.cursor" --type task.exited | jq -r '"'"'select(.data.state != "succeeded") | "\(.task) \(.data.state) \(.data.exit_code)"'"'")
read -r _ _ _ _ _ command <<<"$entry"
run_cron() { sh -c "$command" >"$WORK/cron$1" || fail "cron run $1 failed"; }
run_cron 1
[ ! -s "$WORK/cron1" ] || fail "the first run printed: $(cat "$WORK/cron1")"
f1=$(bgtask start -- sh -c 'exit 3')
ok=$(bgtask start -- true)
bgtask wait "$f1" "$ok" >/dev/null || true
run_cron 2
[ "$(cat "$WORK/cron2")" = "$f1 failed 3" ] || fail "run 2 printed: $(cat "$WORK/cron2")"
f2=$(bgtask start -- sh -c 'kill -9 $$')
bgtask wait "$f2" >/dev/null || true
run_cron 3
[ "$(cat "$WORK/cron3")" = "$f2 failed null" ] || fail "run 3 printed: $(cat "$WORK/cron3")"
run_cron 4
[ ! -s "$WORK/cron4" ] || fail "run 4 printed again: $(cat "$WORK/cron4")"

# --- An agent's monitor of one task until it is idle ---
monitor=$(recipe 'bgtask events --follow --until-idle --format text "$ID"')
ID=$(bgtask start --name tests -- sh -c 'sleep 0.5; exit 1')
export ID
rc=0
timeout 20 sh -c "$monitor" >"$WORK/monitor" || rc=$?
[ "$rc" = 0 ] || fail "the monitor exited $rc"
[ "$(awk '{ print $2 }' "$WORK/monitor" | tr '\n' ' ')" = "task.created task.started task.exited queue.drained " ] ||
  fail "the monitor printed: $(cat "$WORK/monitor")"
grep -q "task.exited $ID \[tests\] failed (exit 1)" "$WORK/monitor" || fail "no exit line: $(cat "$WORK/monitor")"
echo "ok"
