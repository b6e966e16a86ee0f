#!/usr/bin/env bash
# A read-only task directory (a read-only bind mount, in a private mount
# namespace) still answers `list`, `status` and `wait` while records are
# unfinished: a running task is waited for until it ends, a task whose
# supervisor and command were killed is reported `lost` (and `wait` exits
# 75), and nothing in the directory is written.
source "$(dirname "$0")/lib.sh"
require_unshare --mount

cat >"$WORK/inner.sh" <<'EOF'
set -euo pipefail
D=$1 RO=$2
bg() { timeout 20 "$BGTASK" --dir "$RO" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
gone() { for _ in $(seq 200); do [ -e "/proc/$1" ] || return 0; sleep 0.02; done; return 1; }

running=$("$BGTASK" --dir "$D" start -- sh -c 'sleep 5; exit 5')
dead=$("$BGTASK" --dir "$D" start -- sleep 300)
done_id=$("$BGTASK" --dir "$D" start -- true)
"$BGTASK" --dir "$D" wait "$done_id" >/dev/null
sup=$(jq .owner.pid "$D/$dead.status.json")
pgid=$(jq .child.pgid "$D/$dead.status.json")
kill -KILL "$sup"; gone "$sup" || fail "supervisor $sup did not die"
kill -KILL -- "-$pgid"; gone "$pgid" || fail "command $pgid did not die"

mkdir -p "$RO"
mount --bind "$D" "$RO"
mount -o remount,ro,bind "$RO"
touch "$RO/probe" 2>/dev/null && fail "the bind mount is writable"
dead_before=$(sha256sum <"$D/$dead.status.json")

rc=0; out=$(bg list 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "list exited $rc: $out"
grep -E "^$dead +lost" <<<"$out" >/dev/null || fail "list does not report the dead task lost: $out"
grep -E "^$running +running" <<<"$out" >/dev/null || fail "list does not show the running task: $out"

rc=0; out=$(bg status "$dead" 2>&1) || rc=$?
grep -F "lost" <<<"$out" >/dev/null || fail "status of the dead task (exit $rc): $out"
rc=0; out=$(bg status "$running" 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "status of the running task exited $rc: $out"

rc=0; bg wait "$dead" >/dev/null 2>&1 || rc=$?
[ "$rc" = 75 ] || fail "wait on the dead task exited $rc, not 75 (lost)"
rc=0; out=$(bg wait "$running" 2>&1) || rc=$?
[ "$rc" = 5 ] || fail "wait on the running task exited $rc, not 5: $out"
rc=0; bg wait "$done_id" >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "wait on the finished task exited $rc"
rc=0; out=$(bg output "$dead" 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "output of the dead task exited $rc: $out"
# What must write says why it cannot.
rc=0; out=$(bg cleanup --older-than 0 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -F "Read-only file system" <<<"$out" >/dev/null ||
  fail "cleanup on the read-only directory exited $rc: $out"

# Nothing written: the dead task's record is as the supervisor left it.
[ "$(sha256sum <"$D/$dead.status.json")" = "$dead_before" ] || fail "the dead task's record changed"
grep -F .tmp <<<"$(ls -A "$D")" && fail "a temp file appeared"
umount "$RO"
echo ok
EOF

unshare --mount bash "$WORK/inner.sh" "$D" "$WORK/ro" || fail "see above"
echo ok
