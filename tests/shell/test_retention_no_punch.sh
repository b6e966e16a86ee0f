#!/usr/bin/env bash
# Output retention where holes cannot be punched (ramfs, in a private mount
# namespace): the command writes ID.output itself, so a KILLed supervisor
# leaves it running and writing (before, it wrote to the supervisor's pipe
# and died of SIGPIPE); the record says `head_only`; the file is cut back to
# its head, which a finished task keeps byte for byte, and `output --follow`
# shows that head and nothing of what is cut away.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/invariants.sh"
command -v jq >/dev/null || skip "jq is missing"
in_private_mount_namespace

R="$WORK/ram"
mkdir -p "$R"
mount -t ramfs -o mode=0700 ramfs "$R" || skip "cannot mount a ramfs"
on_exit "umount -l '$R'"
head -c 65536 /dev/zero >"$R/probe"
! fallocate -p -o 4096 -l 4096 "$R/probe" 2>/dev/null || skip "this ramfs punches holes"
rm -f "$R/probe"
bgr() { timeout 60 "$BGTASK" --dir "$R" "$@"; }
rfield() { jq -r "$2" "$R/$1.status.json"; }
size() { stat -c %s "$R/$1.output"; }

# 1. A supervisor KILLed while its command writes past the bound.
id=$(bgr start --max-output 64K -- sh -c 'head -c 1048576 /dev/zero; while :; do echo tick; sleep 0.2; done')
bounded() { [ "$(size "$id")" -le $((64 * 1024 + 4096)) ] && [ "$(rfield "$id" .child.pid)" != null ]; }
wait_until 20 bounded || fail "the output stayed at $(size "$id") bytes"
command_pid=$(rfield "$id" .child.pid)
kill -KILL "$(rfield "$id" .owner.pid)"
before=$(size "$id")
sleep 1.5
kill -0 "$command_pid" 2>/dev/null || fail "the command of a KILLed supervisor died"
[ "$(size "$id")" -gt "$before" ] || fail "the command of a KILLed supervisor no longer writes"
[ "$(rfield "$id" .output.retention)" = head_only ] ||
  fail "the record says retention $(rfield "$id" .output.retention)"
bgr cancel "$id" >/dev/null || fail "cancel of the unsupervised task failed"

# 2. A finished task keeps exactly the head; the record counts what went.
id=$(bgr start --max-output 64K -- seq 1 200000)
bgr wait "$id" >/dev/null || fail "the task failed"
total=$(seq 1 200000 | wc -c)
seq 1 200000 >"$WORK/all"
cmp <(head -c 65536 "$WORK/all") "$R/$id.output" || fail "the kept output is not the head"
[ "$(rfield "$id" .output.truncated)" = true ] || fail "not marked truncated"
[ "$(rfield "$id" .output.dropped_at)" = 65536 ] || fail "dropped_at $(rfield "$id" .output.dropped_at)"
dropped=$(rfield "$id" .output.dropped_bytes)
[ "$dropped" -gt $((total - 65536 - 65536)) ] && [ "$dropped" -le $((total - 65536)) ] ||
  fail "dropped_bytes $dropped of $((total - 65536))"

# 3. Followed while it writes on: the head, nothing it is cut back from.
id=$(bgr start --max-output 64K -- sh -c 'seq 1 100000; sleep 1; seq 1 100000; sleep 1')
bgr output --follow "$id" >"$WORK/followed" || fail "output --follow failed"
cmp <(head -c 65536 "$WORK/all") "$WORK/followed" || fail "output --follow showed more than the head"
echo ok
