#!/usr/bin/env bash
# `start --dedupe` where renameat2(RENAME_NOREPLACE) is refused with EINVAL
# (NFS, FUSE): the key is published with link(2) instead, just as atomic.
# Checked on a real FUSE file system (bindfs, which refuses rename flags),
# and through the test seam BGTASK_TEST_RENAME_NOREPLACE_EINVAL on a local
# directory. A key that cannot be made at all is an error naming the errno.
source "$(dirname "$0")/lib.sh"

# dedupes DIR: two identical --dedupe starts print one ID; the key is in place.
dedupes() {
  local dir=$1 first second
  first=$(timeout 20 "$BGTASK" --dir "$dir" start --dedupe -- sleep 300) || fail "$dir: first start failed"
  second=$(timeout 20 "$BGTASK" --dir "$dir" start --dedupe -- sleep 300) || fail "$dir: second start failed"
  [ "$first" = "$second" ] || fail "$dir: --dedupe started a second task ($first, $second)"
  [ "$(stat -c %s "$dir/fingerprint.key")" = 32 ] || fail "$dir: no 32-byte key"
  grep -F .tmp <<<"$(ls -A "$dir")" && fail "$dir: a temp file was left"
  timeout 20 "$BGTASK" --dir "$dir" cancel "$first" >/dev/null || fail "$dir: cancel failed"
}

checked=0
if [ "${BGTASK_TEST_SEAMS_BUILT:-0}" = 1 ]; then
  mkdir -m 700 "$WORK/seam"
  BGTASK_TEST_RENAME_NOREPLACE_EINVAL=1 dedupes "$WORK/seam"
  checked=$((checked + 1))
fi

if [ "$(id -u)" -eq 0 ] && command -v bindfs >/dev/null && [ -e /dev/fuse ]; then
  mkdir -m 700 "$WORK/real" "$WORK/fuse"
  if bindfs "$WORK/real" "$WORK/fuse" 2>/dev/null; then
    trap 'fusermount -u "$WORK/fuse" 2>/dev/null || umount -l "$WORK/fuse"; cleanup_work' EXIT
    chmod 700 "$WORK/fuse"
    dedupes "$WORK/fuse"
    checked=$((checked + 1))
  fi
fi

# No key can be made on a read-only directory: the error says why.
if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
  mkdir -m 700 "$WORK/ro"
  rc=0
  out=$(unshare --mount sh -c 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" &&
        timeout 20 "$2" --dir "$1" start --dedupe -- true' sh "$WORK/ro" "$BGTASK" 2>&1) || rc=$?
  [ "$rc" = 1 ] || fail "--dedupe on a read-only directory exited $rc: $out"
  grep -F "Read-only file system" <<<"$out" >/dev/null || fail "the error does not name the errno: $out"
  checked=$((checked + 1))
fi

[ "$checked" -gt 0 ] || skip "neither test seams, nor root with bindfs and /dev/fuse"
echo ok
