#!/usr/bin/env bash
# A queued task (a record, no process) that cannot be ended while its disk
# is full stays queued, never `lost`, and nothing is lost: `cancel` says it
# failed, and a --after task whose dependency did not succeed is failed by
# the first hand-off once there is room. The directory lives on a tiny
# tmpfs in a private mount namespace.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"
in_private_mount_namespace

T="$WORK/tiny"
mkdir -p "$T"
mount -t tmpfs -o size=256k,mode=0700 tmpfs "$T" || skip "cannot mount a tmpfs"
on_exit "umount -l '$T'"
bgt() { timeout 60 "$BGTASK" --dir "$T" "$@"; }
state() { jq -r '[.state, .error // "none"] | @tsv' "$T/$1.status.json"; }
# fill_up: takes every free block of the tmpfs.
fill_up() { dd if=/dev/zero of="$T/ballast.$1" bs=4k 2>/dev/null || true; }

# 1. Cancelled while it waits for the queue's one slot.
blocker=$(bgt start --queue q --slots 1 -- sleep 300)
queued=$(bgt start --queue q -- true)
[ "$(jq -r .state "$T/$queued.status.json")" = queued ] || fail "the second task is not queued"
fill_up 1
rc=0
bgt cancel "$queued" >"$WORK/cancel.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "cancel on a full disk said it succeeded: $(cat "$WORK/cancel.out")"
[ "$(state "$queued")" = $'queued\tnone' ] || fail "a failed cancel left '$(state "$queued")'"
rm -f "$T"/ballast.*
bgt cancel "$queued" >/dev/null || fail "cancel failed once there was room"
got=$(state "$queued")
[ "$got" = $'cancelled\tcancelled on request while queued' ] || fail "the record says '$got'"
bgt cancel "$blocker" >/dev/null

# 2. Its dependency dies (supervisor and command KILLed: it turns `lost`)
# while the disk is full.
dep=$(bgt start -- sleep 300)
after=$(bgt start --after "$dep" -- true)
[ "$(jq -r .state "$T/$after.status.json")" = queued ] || fail "the dependent task is not queued"
fill_up 2
kill -KILL "$(jq -r .owner.pid "$T/$dep.status.json")" "$(jq -r .child.pid "$T/$dep.status.json")"
bgt list >/dev/null 2>&1 || true
[ "$(state "$after")" = $'queued\tnone' ] || fail "on a full disk the dependent task is '$(state "$after")'"
rm -f "$T"/ballast.*
rc=0
bgt wait --timeout 30s "$after" >/dev/null || rc=$?
got=$(state "$after")
[ "${got%%$'\t'*}" = failed ] && grep -q "dependency $dep did not succeed" <<<"$got" ||
  fail "dependency failed: the record says '$got' (wait exited $rc), want failed"
echo ok
