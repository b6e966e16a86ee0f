#!/usr/bin/env bash
# Output retention costs no inotify instance. HOST-CHANGING: creates (and
# removes) an unprivileged user; needs root. That user starts 135 tasks
# under --max-output, more than the 128 inotify instances a user has by
# default: every task gets the head-and-tail retention (the record says so),
# every output stays within its bound plus the stated overshoot, no process
# of the user holds an inotify instance, and a supervisor KILLed leaves its
# command running and writing (its output file is its own, not a pipe).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/invariants.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to create a user"
command -v useradd >/dev/null && command -v runuser >/dev/null || skip "no useradd/runuser"
command -v jq >/dev/null || skip "jq is missing"
probe="$D/.punch-probe"
head -c 65536 /dev/zero >"$probe"
fallocate -p -o 4096 -l 4096 "$probe" 2>/dev/null || skip "the file system of $D cannot punch holes"
rm -f "$probe"

U="bgtret$$"
remove_user() {
  pkill -KILL -u "$U" 2>/dev/null || true
  userdel "$U" 2>/dev/null || true
}
trap 'remove_user; cleanup_work' EXIT
chmod 755 "$WORK"
useradd -M -d "$WORK/$U" -s /bin/sh "$U" || skip "useradd $U failed"
mkdir -m 700 "$WORK/$U"
chown "$U:" "$WORK/$U"
share_binary "$U"
UD="$WORK/$U/tasks"
as() { timeout 120 runuser -u "$U" -- "$@"; }

# Each task writes 1 MiB through a 64 KiB bound, then sleeps; the last one
# goes on writing a line now and then.
n=135
as sh -c 'for i in $(seq "$(($1 - 1))"); do
  "$2" --dir "$3" start --max-output 64K -- sh -c "head -c 1048576 /dev/zero; exec sleep 300" || exit 1
done
"$2" --dir "$3" start --max-output 64K -- \
  sh -c "head -c 1048576 /dev/zero; while :; do echo tick; sleep 0.5; done"' sh "$n" "$BGTASK" "$UD" \
  >"$WORK/ids" || fail "a start failed"
mapfile -t ids <"$WORK/ids"
[ ${#ids[@]} -eq "$n" ] || fail "started ${#ids[@]} tasks, not $n"

# inotify_instances: the inotify descriptors the user's processes hold.
inotify_instances() {
  local pid count=0
  for pid in $(pgrep -u "$U"); do
    count=$((count + $(find "/proc/$pid/fd" -lname 'anon_inode:inotify' 2>/dev/null | wc -l)))
  done
  echo "$count"
}
# over_bound: how many outputs take more than 64 KiB plus a punch step
# (16 KiB here) plus a few blocks the command wrote since the last look.
over_bound() { du -k "$UD"/*.output | awk '$1 > 96' | wc -l; }
all_bounded() { [ "$(over_bound)" -eq 0 ]; }
wait_until 60 all_bounded || fail "$(over_bound) outputs stayed over their bound"
instances=$(inotify_instances)
[ "$instances" -eq 0 ] || fail "the user's processes hold $instances inotify instances"
modes=$(jq -r .output.retention "$UD"/*.status.json | sort | uniq -c | tr -s ' ')
[ "$modes" = " $n head_and_tail" ] || fail "retention modes: $modes"

# A supervisor KILLed: its command runs on and its output still grows.
victim=${ids[$((n - 1))]}
kill -KILL "$(jq -r .owner.pid "$UD/$victim.status.json")"
command_pid=$(jq -r .child.pid "$UD/$victim.status.json")
size=$(stat -c %s "$UD/$victim.output")
sleep 1.5
kill -0 "$command_pid" 2>/dev/null || fail "the command of a KILLed supervisor died"
[ "$(stat -c %s "$UD/$victim.output")" -gt "$size" ] || fail "the command of a KILLed supervisor no longer writes"

as "$BGTASK" --dir "$UD" cancel --all >/dev/null || fail "cancel --all failed"
echo "ok: $n tasks, $instances inotify instances, every output within its bound"
