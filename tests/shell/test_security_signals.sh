#!/usr/bin/env bash
# Signals only where they belong (security guide §8): once a task's
# supervisor and command are gone, a process that now has their pid (a
# reused pid: same number, another start time) must never be signalled by
# list, status, wait, cancel or cleanup.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

ID=$(bg start --timeout 60s -- sleep 300)
owner=$(field "$ID" .owner.pid)
child=$(field "$ID" .child.pid)
kill -KILL "$owner" "$child"
for _ in $(seq 100); do
  kill -0 "$owner" 2>/dev/null || kill -0 "$child" 2>/dev/null || break
  sleep 0.05
done

# The victim: an unrelated process leading its own group, standing in for
# whatever got the task's pid after a reuse.
setsid sleep 120 &
victim=$!
for _ in $(seq 100); do
  [ "$(cat "/proc/$victim/comm" 2>/dev/null)" = sleep ] && break
  sleep 0.05
done
[ "$(awk '{print $5}' "/proc/$victim/stat")" = "$victim" ] || skip "could not start a group leader"
victim_start=$(awk '{print $22}' "/proc/$victim/stat")
jq -c --argjson v "$victim" --argjson st "$((victim_start + 7))" \
  '.owner.pid = $v | .owner.start_time = $st | .child = {pid: $v, pgid: $v, start_time: $st}' \
  "$D/$ID.status.json" >"$WORK/record"
mv "$WORK/record" "$D/$ID.status.json"

have_strace=yes
strace -f -qq -e trace=kill -o /dev/null true 2>/dev/null || have_strace=no
for command in "list" "status $ID" "wait --timeout 2s $ID" "cancel --grace 0s $ID" "status $ID" \
  "cleanup --older-than 0s"; do
  if [ "$have_strace" = yes ]; then
    # shellcheck disable=SC2086
    timeout -s KILL 20 strace -f -qq -e trace=kill,tkill,tgkill,pidfd_send_signal \
      -o "$WORK/strace" "$BGTASK" --dir "$D" $command >/dev/null 2>&1 || true
    ! grep -E "kill\(-?$victim, SIG|pidfd_send_signal\(" "$WORK/strace" ||
      fail "$command signalled the process that reused the task's pid"
  else
    # shellcheck disable=SC2086
    run $command
  fi
  kill -0 "$victim" || fail "$command killed the process that reused the task's pid"
  if [ "$command" = "status $ID" ]; then
    [ "$(field "$ID" .state)" = lost ] || fail "the task was not judged lost: $(cat "$D/$ID.status.json")"
  fi
done
kill "$victim"
echo ok
