#!/usr/bin/env bash
# bgtask under a real cron daemon, as root and as an unprivileged user: the
# crontab line of the README (`start --dedupe` every minute) starts one task
# however many identical lines fire, and writes nothing on stderr (cron mails
# whatever a job writes there). One real minute at most: cron only runs jobs
# on minute boundaries.
#
# The test starts its own cron daemon, in a mount namespace of its own where
# /etc/cron.d, /etc/crontab, the users' crontabs and /run (cron's pid file)
# are directories of the test: that daemon runs only this test's crontab, and
# no other cron daemon (the system's, another test run's) can see it.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (a private cron daemon and a second user)"
command -v cron >/dev/null || skip "cron is not installed (Debian package cron)"
command -v useradd >/dev/null && command -v runuser >/dev/null || skip "needs useradd and runuser"
unshare --mount true 2>/dev/null || skip "cannot make a mount namespace (unshare --mount) for a private cron"
[ -d /etc/cron.d ] && [ -f /etc/crontab ] && [ -d /var/spool/cron/crontabs ] ||
  skip "cron's directories are not where Debian's cron keeps them"

user="bgtcron$$"
cron_pid=""
finish() {
  local rc=$?
  if [ -n "$cron_pid" ]; then
    kill "$cron_pid" 2>/dev/null || true
    wait "$cron_pid" 2>/dev/null || true
  fi
  # The tasks cron started (sleep 300) are ours to stop.
  for f in "$WORK"/root/tasks/*.status.json; do
    [ -e "$f" ] && "$BGTASK" --dir "$WORK/root/tasks" cancel --quiet --grace 100ms "$(basename "$f" .status.json)"
  done
  for f in "$WORK"/user/tasks/*.status.json; do
    [ -e "$f" ] && runuser -u "$user" -- "$BGTASK" --dir "$WORK/user/tasks" cancel --quiet --grace 100ms \
      "$(basename "$f" .status.json)"
  done
  id "$user" >/dev/null 2>&1 && userdel "$user" 2>/dev/null
  return "$rc"
}
trap 'finish; cleanup_work' EXIT

chmod 755 "$WORK"
useradd -M -d "$WORK/user" -s /bin/sh "$user"
mkdir -m 700 "$WORK/user" "$WORK/root"
chown "$user:" "$WORK/user"
share_binary "$user"

# Not in the last seconds of a minute: a daemon started then might only run
# the crontab the minute after.
while [ "$(date +%S)" -ge 55 ]; do sleep 1; done

# Three identical lines per user: two fire at the same instant, the third a
# moment later, when the task already runs.
line() { # line USER BASE N [DELAY]: job N writes BASE/N.out and BASE/N.err
  printf '* * * * * %s %sBGTASK_DIR=%s %s start --dedupe --name backup -- sleep 300 >>%s 2>>%s\n' \
    "$1" "${4:+sleep $4; }" "$2/tasks" "$BGTASK" "$2/$3.out" "$2/$3.err"
}
mkdir -m 755 "$WORK/cron.d" "$WORK/run"
mkdir -m 1730 "$WORK/crontabs"
: >"$WORK/system-crontab"
{
  echo 'SHELL=/bin/sh'
  echo 'PATH=/usr/bin:/bin'
  echo 'MAILTO=""'
  line root "$WORK/root" 1
  line root "$WORK/root" 2
  line root "$WORK/root" 3 3
  line "$user" "$WORK/user" 1
  line "$user" "$WORK/user" 2
  line "$user" "$WORK/user" 3 3
} >"$WORK/crontab"
install -m 644 -o root -g root "$WORK/crontab" "$WORK/cron.d/bgtask-test"

# The daemon: unshare and sh exec into cron, so $! is cron's pid. The mounts
# are private to its namespace (unshare's default propagation).
unshare --mount --propagation private -- sh -c '
  mount --bind "$1" /etc/cron.d && mount --bind "$2" /etc/crontab &&
    mount --bind "$3" /var/spool/cron/crontabs && mount --bind "$4" /run && exec cron -f' \
  sh "$WORK/cron.d" "$WORK/system-crontab" "$WORK/crontabs" "$WORK/run" &
cron_pid=$!
# It is ours once it runs cron in another mount namespace and holds the pid
# file in the test's /run.
for _ in $(seq 100); do
  [ "$(cat "$WORK/run/crond.pid" 2>/dev/null)" = "$cron_pid" ] && break
  kill -0 "$cron_pid" 2>/dev/null || fail "the private cron daemon exited at once"
  sleep 0.1
done
[ "$(cat "$WORK/run/crond.pid" 2>/dev/null)" = "$cron_pid" ] ||
  fail "cron ($cron_pid) did not write its pid to the test's /run: $(cat "$WORK/run/crond.pid" 2>/dev/null)"
[ "$(cat "/proc/$cron_pid/comm")" = cron ] || fail "process $cron_pid is $(cat "/proc/$cron_pid/comm"), not cron"
[ "$(readlink "/proc/$cron_pid/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] ||
  fail "the cron daemon shares the test's mount namespace"

for _ in $(seq 150); do
  done_lines=0
  for f in "$WORK"/{root,user}/{1,2,3}.out; do [ -s "$f" ] && done_lines=$((done_lines + 1)); done
  [ "$done_lines" -eq 6 ] && break
  sleep 0.5
done
rm -f "$WORK/cron.d/bgtask-test" # one minute's firing is all the test needs
[ "$done_lines" -eq 6 ] || fail "after 75 s only $done_lines of 6 cron jobs printed an ID: $(cat "$WORK"/*/*.err 2>/dev/null)"

for who in root user; do
  ids=$(sort -u "$WORK/$who"/{1,2,3}.out)
  [ "$(wc -l <<<"$ids")" -eq 1 ] || fail "$who: the cron jobs printed different IDs: $ids"
  for n in 1 2 3; do
    [ ! -s "$WORK/$who/$n.err" ] || fail "$who: job $n wrote on stderr: $(cat "$WORK/$who/$n.err")"
  done
  [ "$(find "$WORK/$who/tasks" -name '*.status.json' | wc -l)" -eq 1 ] || fail "$who: not one task: $(ls "$WORK/$who/tasks")"
done
root_id=$(cat "$WORK/root/1.out")
user_id=$(cat "$WORK/user/1.out")
[ "$(jq -r .state "$WORK/root/tasks/$root_id.status.json")" = running ] || fail "root's task is not running"
[ "$(stat -c %U "$WORK/user/tasks/$user_id.status.json")" = "$user" ] || fail "the user's record is not the user's"
state=$(runuser -u "$user" -- "$BGTASK" --dir "$WORK/user/tasks" status --json "$user_id" | jq -r '.[0].state')
[ "$state" = running ] || fail "the user's task is $state"
# The user's task runs as the user, not as root.
pid=$(jq -r .child.pid "$WORK/user/tasks/$user_id.status.json")
[ "$(stat -c %U "/proc/$pid")" = "$user" ] || fail "the user's task runs as $(stat -c %U "/proc/$pid")"
kill -0 "$cron_pid" 2>/dev/null || fail "the private cron daemon died during the test"
echo "cron: ok"
