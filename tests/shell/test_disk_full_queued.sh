#!/usr/bin/env bash
# A queued task that ends without running while its disk is full: cancelled
# while it waits for a slot, or failed because its --after dependency did
# not succeed. Its final record goes through the same write as every other
# final record (the room reserved in its lock file is given back for it), so
# it ends `cancelled` or `failed`, never `lost`. The directory lives on a
# tiny tmpfs in a private mount namespace.
source "$(dirname "$0")/lib.sh"
require_unshare --mount --propagation private
command -v jq >/dev/null || skip "jq is missing"
if [ -z "${BGTASK_IN_MOUNT_NS:-}" ]; then
  rc=0
  BGTASK_IN_MOUNT_NS=1 timeout 120 unshare --mount --propagation private bash "$0" || rc=$?
  exit "$rc"
fi

T="$WORK/tiny"
mkdir -p "$T"
mount -t tmpfs -o size=256k,mode=0700 tmpfs "$T" || skip "cannot mount a tmpfs"
on_exit "umount -l '$T'"
bgt() { timeout 60 "$BGTASK" --dir "$T" "$@"; }
state() { jq -r '[.state, .error // "none"] | @tsv' "$T/$1.status.json"; }
# fill_up: takes every free block of the tmpfs.
fill_up() { dd if=/dev/zero of="$T/ballast.$1" bs=4k 2>/dev/null || true; }

# 1. Cancelled while it waits for the queue's one slot. (`cancel` itself
# needs room to record its request: the TERM it then sends to the
# supervisor is sent here directly, as after a request recorded just before
# the disk filled up.)
blocker=$(bgt start --queue q --slots 1 -- sleep 300)
queued=$(bgt start --queue q -- true)
[ "$(jq -r .state "$T/$queued.status.json")" = queued ] || fail "the second task is not queued"
fill_up 1
kill -TERM "$(jq -r .owner.pid "$T/$queued.status.json")"
rc=0
bgt wait --timeout 30s "$queued" >/dev/null || rc=$?
got=$(state "$queued")
[ "$got" = $'cancelled\tcancelled on request while queued' ] ||
  fail "cancelled on a full disk: the record says '$got' (wait exited $rc), want cancelled"
rm -f "$T"/ballast.*
bgt cancel "$blocker" >/dev/null

# 2. Its dependency dies (supervisor and command KILLed: it turns `lost`)
# while the disk is full.
dep=$(bgt start -- sleep 300)
after=$(bgt start --after "$dep" -- true)
[ "$(jq -r .state "$T/$after.status.json")" = queued ] || fail "the dependent task is not queued"
fill_up 2
kill -KILL "$(jq -r .owner.pid "$T/$dep.status.json")" "$(jq -r .child.pid "$T/$dep.status.json")"
rc=0
bgt wait --timeout 30s "$after" >/dev/null || rc=$?
got=$(state "$after")
[ "${got%%$'\t'*}" = failed ] && grep -q "dependency $dep did not succeed" <<<"$got" ||
  fail "dependency failed on a full disk: the record says '$got' (wait exited $rc), want failed"
rm -f "$T"/ballast.*
bgt list >/dev/null
echo ok
