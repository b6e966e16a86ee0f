#!/usr/bin/env bash
# Waiting through a crash: `wait` (and `output --follow`) on a task whose
# supervisor and command are SIGKILLed returns `lost` (75) long before its
# --timeout, which stands for "it noticed the crash, not the clock"; also
# when the supervisor dies first and the command some time later, and also
# with inotify unavailable (fs.inotify.max_user_instances = 0, restored
# afterwards, also on failure). Prints how long each wait took.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool jq

waits=0
timings=""
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# crash_while_waiting MODE LABEL: MODE both = kill supervisor then command;
# staggered = kill the supervisor, later the command.
crash_while_waiting() {
  local mode=$1 label=$2 id sup pg waiter follower rc t0
  id=$(bg start -- sleep 120)
  sup=$(field "$id" .owner.pid)
  pg=$(field "$id" .child.pgid)
  timeout 60 "$BGTASK" --dir "$D" wait --timeout 40s "$id" >/dev/null &
  waiter=$!
  timeout 60 "$BGTASK" --dir "$D" output --follow "$id" >/dev/null &
  follower=$!
  sleep 0.5
  t0=$(now_ms)
  kill -KILL "$sup"
  if [ "$mode" = staggered ]; then
    sleep 1
    kill -0 "$waiter" 2>/dev/null || problem "$label: wait returned while the command still ran"
    t0=$(now_ms)
  fi
  kill -KILL -- "-$pg"
  rc=0
  wait "$waiter" || rc=$?
  timings="$timings $label=$(($(now_ms) - t0))ms"
  [ "$rc" -eq 75 ] || problem "$label: wait exited $rc, want 75 (lost); record: $(jq -c '[.state, .error]' "$D/$id.status.json")"
  rc=0
  wait "$follower" || rc=$?
  [ "$rc" -eq 75 ] || problem "$label: output --follow exited $rc, want 75 (lost)"
  [ "$(field "$id" .state)" = lost ] || problem "$label: task is $(field "$id" .state), not lost"
  waits=$((waits + 2))
}

crash_while_waiting both inotify
crash_while_waiting staggered inotify-staggered

limit=/proc/sys/fs/inotify/max_user_instances
if [ "$(id -u)" -eq 0 ] && [ -w "$limit" ]; then
  saved=$(cat "$limit")
  at_exit "echo $saved >$limit"
  echo 0 >"$limit"
  crash_while_waiting both no-inotify
  crash_while_waiting staggered no-inotify-staggered
  echo "$saved" >"$limit"
else
  echo "not root: the runs without inotify are skipped" >&2
fi

wait_until 10 dir_idle "$D" || problem "processes left"
check_invariants "$D" || problem "invariants broken"
echo "time from the last kill to wait's return:$timings"
crash_summary "waits=$waits records_checked=$INV_RECORDS_CHECKED failures=$problems"
[ "$problems" -eq 0 ] || fail "$problems problems waiting through a crash"
