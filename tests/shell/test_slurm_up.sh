#!/usr/bin/env bash
# scripts/slurm-up when a daemon fails, at once or after it started: exits 1
# with a message naming the daemon and showing its log, and stops the daemons
# it had already started (munged, slurmctld). The failing slurmd is a stand-in
# next to the real munged and slurmctld (SLURM_UP_SBIN). A Slurm test whose
# cluster does not start (as root, the packages installed) fails, showing
# the daemons' logs, instead of being skipped.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || skip "slurm-up needs root to start munged and slurmctld"
for daemon in munged slurmctld; do
  [ -x "/usr/sbin/$daemon" ] || skip "/usr/sbin/$daemon is not installed (scripts/deps.sh slurm)"
done

# alive_of CLUSTER: pids of processes that belong to that cluster (munged
# names its directory on its command line; slurmctld has its SLURM_CONF).
alive_of() {
  pgrep -f -- "--socket=$1/" || true
  grep -lzxF "SLURM_CONF=$1/etc/slurm.conf" /proc/[0-9]*/environ 2>/dev/null |
    sed 's|^/proc/\([0-9]*\)/environ$|\1|' || true
}

# The stand-ins read the paths slurm-up configured from $SLURM_CONF.
# munged wants every directory above its socket to be traversable.
chmod 711 "$WORK"
declare -A fake expect
fake[exits]='echo "slurmd: cannot bind its port (stand-in)" >&2
exit 1'
expect[exits]="slurmd did not start (exit status 1)"
fake[dies]='log=$(sed -n "s/^SlurmdLogFile=//p" "$SLURM_CONF")
pidfile=$(sed -n "s/^SlurmdPidFile=//p" "$SLURM_CONF")
echo "slurmd: fatal: lost its node (stand-in)" >>"$log"
sleep 1 </dev/null >/dev/null 2>&1 &
echo $! >"$pidfile"'
expect[dies]="slurmd exited after it started"

for how in exits dies; do
  sbin="$WORK/sbin-$how"
  mkdir "$sbin"
  ln -s /usr/sbin/munged /usr/sbin/slurmctld "$sbin/"
  printf '#!/bin/sh\n%s\n' "${fake[$how]}" >"$sbin/slurmd"
  chmod +x "$sbin/slurmd"
  cluster="$WORK/cluster-$how"
  rc=0
  SLURM_UP_SBIN="$sbin" timeout 120 "$ROOT/scripts/slurm-up" "$cluster" 60 \
    >"$WORK/$how.out" 2>"$WORK/$how.err" || rc=$?
  err=$(cat "$WORK/$how.err")
  [ "$rc" -eq 1 ] || fail "slurmd that $how: slurm-up exited $rc: $err"
  [ ! -s "$WORK/$how.out" ] || fail "slurmd that $how: slurm-up printed $(cat "$WORK/$how.out")"
  grep -qF "${expect[$how]}" <<<"$err" || fail "slurmd that $how: no '${expect[$how]}' in: $err"
  grep -qF "(stand-in)" <<<"$err" || fail "slurmd that $how: the message lacks slurmd's log: $err"
  left=$(alive_of "$cluster")
  [ -z "$left" ] || fail "slurmd that $how: still running: $(ps -o pid=,args= -p "${left//$'\n'/,}")"
done
# A test script whose cluster cannot start: slurm_cluster fails it (exit 1, not the skip 125).
cat >"$WORK/test_cluster_fails.sh" <<SCRIPT
source "$ROOT/tests/shell/lib.sh"
source "$ROOT/tests/shell/slurm_lib.sh"
slurm_cluster 60
echo "the test went on without a cluster"
SCRIPT
rc=0
SLURM_UP_SBIN="$WORK/sbin-exits" timeout 180 bash "$WORK/test_cluster_fails.sh" \
  >"$WORK/cluster_fails.out" 2>&1 || rc=$?
out=$(cat "$WORK/cluster_fails.out")
# It keeps the failed cluster's logs and its work directory for inspection: not these.
for kept in $(sed -n -e 's|^kept the cluster.s logs in \(/tmp/bgtask-slurm-cluster\.[A-Za-z0-9]*\)/log$|\1|p' \
  -e 's|^kept \(/tmp/bgtask-test_cluster_fails\.[A-Za-z0-9]*\) for inspection$|\1|p' <<<"$out"); do
  rm -rf "$kept"
done
[ "$rc" -eq 1 ] || fail "a test whose cluster did not start exited $rc: $out"
grep -qF "could not start a local Slurm cluster" <<<"$out" || fail "no failure message: $out"
grep -qF "(stand-in)" <<<"$out" || fail "the daemon's log was not shown: $out"
! grep -q "went on" <<<"$out" || fail "the test went on: $out"
echo ok
