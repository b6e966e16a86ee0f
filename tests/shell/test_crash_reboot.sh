#!/usr/bin/env bash
# Reboot: a running record written during another boot becomes `lost`
# ("host rebooted") on the next reconciliation, without any signal sent,
# even though its recorded pids and start times now belong to live,
# unrelated processes (a plain one as the supervisor, a group leader as the
# command). Two ways to get there: the record names another boot id, or the
# kernel's boot id changes (BGTASK_TEST_BOOT_ID_FILE, a test-only override).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool strace jq setsid

SIGNAL_CALLS=kill,tgkill,tkill,pidfd_send_signal,rt_sigqueueinfo,rt_tgsigqueueinfo
field22() { awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$1/stat"; }

# traced_bg LOG ARGS...: bgtask on $D with every signal-sending call logged.
traced_bg() {
  local log=$1
  shift
  timeout 60 strace -f -qq -o "$log" -e trace="$SIGNAL_CALLS" "$BGTASK" --dir "$D" "$@"
}

# signals_sent LOG: the logged calls that send a signal (signal 0 only probes).
signals_sent() { grep -Ev '^[0-9]+ +kill\(-?[0-9]+, 0\)' "$1" | grep -E '\(' || true; }

# stale_record HOW: sets ID to a running record of a task whose processes
# are gone, naming two live strangers (STRANGERS) as supervisor and command. HOW=record gives it
# another boot id; HOW=kernel leaves it and changes the kernel's instead.
stale_record() {
  local how=$1 id stranger leader
  id=$(bg start -- sleep 100)
  ID=$id
  kill_task "$D" "$id"
  sleep 100 >/dev/null 2>&1 &
  stranger=$!
  setsid sleep 100 >/dev/null 2>&1 &
  leader=$!
  wait_until 5 bash -c "[ \"\$(awk '{ sub(/.*\\) /, \"\"); print \$4 }' /proc/$leader/stat)\" = $leader ]" || true
  STRANGERS="$stranger $leader"
  local filter
  filter=".owner.pid = $stranger | .owner.start_time = $(field22 "$stranger")
    | .child.pid = $leader | .child.pgid = $leader | .child.start_time = $(field22 "$leader")"
  [ "$how" = kernel ] || filter="$filter | .owner.boot_id = \"00000000-0000-4000-8000-000000000000\""
  jq -c "$filter" "$D/$id.status.json" >"$D/.forge.tmp"
  mv "$D/.forge.tmp" "$D/$id.status.json"
}

[ "${BGTASK_TEST_SEAMS_BUILT:-1}" = 1 ] ||
  skip "this binary was built without test seams (configure with -DBGTASK_TEST_SEAMS=ON)"
echo "1f0e6d5c-4b3a-4291-8877-665544332211" >"$WORK/other-boot-id"
at_exit 'kill $STRANGERS 2>/dev/null'
records=0
for how in record kernel; do
  STRANGERS=""
  stale_record "$how"
  id=$ID
  log="$WORK/$how.signals"
  [ "$how" = record ] || export BGTASK_TEST_BOOT_ID_FILE="$WORK/other-boot-id"
  traced_bg "$log.status" status "$id" >/dev/null || true
  state=$(jq -r .state "$D/$id.status.json")
  error=$(jq -r .error "$D/$id.status.json")
  reconciled=$(jq '[.events[] | select(.kind == "reconciled")] | length' "$D/$id.status.json")
  [ "$state" = lost ] || problem "$how: state '$state' after a reboot, not lost"
  [ "$error" = "host rebooted" ] || problem "$how: error '$error', not 'host rebooted'"
  [ "$reconciled" = 1 ] || problem "$how: $reconciled reconciled events"
  rc=0
  traced_bg "$log.cancel" cancel --grace 0 "$id" >/dev/null || rc=$?
  [ "$rc" -eq 0 ] || problem "$how: cancel of a lost task exited $rc"
  rc=0
  traced_bg "$log.wait" wait "$id" >/dev/null || rc=$?
  [ "$rc" -eq 75 ] || problem "$how: wait on a lost task exited $rc, not 75"
  for f in "$log".*; do
    sent=$(signals_sent "$f")
    [ -z "$sent" ] || problem "$how: signals were sent: $sent"
  done
  for pid in $STRANGERS; do
    kill -0 "$pid" 2>/dev/null || problem "$how: unrelated process $pid was killed"
  done
  unset BGTASK_TEST_BOOT_ID_FILE
  kill $STRANGERS 2>/dev/null || true
  records=$((records + 1))
done
check_invariants "$D" || problem "invariants broken"

crash_summary "records_checked=$records failures=$problems"
[ "$problems" -eq 0 ] || fail "$problems problems after a simulated reboot"
