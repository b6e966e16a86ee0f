#!/usr/bin/env bash
# Stopping a tree after pids wrap around. A supervisor finds its command's
# processes by walking parent links in /proc, in pid order; once pids wrap,
# a child's pid is below its parent's and the scan reads it first. If the
# parent exits before the scan reaches it, the child named a parent that is
# gone: the scan must still find it (under its new parent, the supervisor).
# Missed in the last round of a stop, it outlived its finished task.
# 1. bgtask-descendant-scan makes that interleaving happen (a parent with a
#    pid near pid_max, children wrapped below fillers, the parent KILLed
#    while scans run back to back) and checks every scan.
# 2. Tasks started right below pid_max, whose command ignores TERM and keeps
#    starting `setsid` children: after a timeout, none is left.
# Both run in a pid namespace of their own, whose last pid they set.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool pgrep setsid jq
require_unshare --pid --fork --mount-proc
SCAN="${BGTASK_BUILD_DIR:?}/tests/bgtask-descendant-scan"
[ -x "$SCAN" ] || fail "$SCAN is missing (it is built with the tests)"

# 1. The scan, until a run shows the interleaving (the parent exited while
#    a scan ran); a miss fails at once.
shown=no
for attempt in 1 2 3 4 5; do
  rc=0
  out=$(timeout 120 unshare --pid --fork --mount-proc "$SCAN" 8 500 64) || rc=$?
  echo "attempt $attempt: $out (exit $rc)"
  case $rc in
    0) shown=yes && break ;;
    3) continue ;;
    1) fail "a scan missed children whose parent exited during it: $out" ;;
    *) fail "bgtask-descendant-scan exited $rc" ;;
  esac
done
[ "$shown" = yes ] || fail "in 5 runs the parent never exited during a scan"

# 2. The supervisor stops such a tree. The namespace's init is the shell
#    below, so whatever survives is counted before it ends. This part checks
#    the promise end to end; it does not make the race happen on demand
#    (part 1 does).
export -f wait_until
inner='
set -u
none_left() { ! pgrep -f "999\\.$1\$" >/dev/null; }
top=$(cat /proc/sys/kernel/pid_max)
for round in 1 2 3; do
  mark="$$$round"
  echo $((top - 30)) >/proc/sys/kernel/ns_last_pid
  id=$("$BGTASK" --dir "$D" start --timeout 1s --grace 1s -- \
    sh -c "trap \"\" TERM; while :; do setsid sleep 999.${mark} & sleep 0.002; done")
  rc=0
  timeout 60 "$BGTASK" --dir "$D" wait "$id" >/dev/null || rc=$?
  # Killed processes vanish right after the final record; allow a moment.
  wait_until 5 none_left "$mark" || true
  left=$(pgrep -fc "999\\.${mark}\$" || true)
  leader=$(jq -r .child.pid "$D/$id.status.json")
  echo "round $round: task $id (leader pid $leader) wait exit $rc, survivors $left"
done
'
out=$(BGTASK="$BGTASK" D="$D" timeout 300 unshare --pid --fork --mount-proc bash -c "$inner") ||
  fail "the namespace's rounds failed: $out"
echo "$out"
[ "$(grep -c 'wait exit 124, survivors 0$' <<<"$out")" -eq 3 ] ||
  fail "a timed-out task left processes, or wait did not say timed out"
