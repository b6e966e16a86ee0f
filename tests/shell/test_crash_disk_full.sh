#!/usr/bin/env bash
# Disk full: the task directory lives on a tiny tmpfs, on a small
# loop-mounted ext4, and on an ext4 without free inodes. A task that fills
# the disk with output must run to its own end (bgtask does not kill it),
# its final record must still be written (exit status and all), `start` on a
# full disk must fail cleanly and leave nothing behind, reading commands
# keep working, and nothing is ever corrupt. Runs in a private mount
# namespace so no mount outlives the test; unmounts in a trap anyway.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_root
require_tool unshare mount umount mkfs.ext4 jq dd
in_private_mount_namespace 500

checked=0
MOUNTS=()
at_exit 'for m in "${MOUNTS[@]}"; do [ -n "$m" ] && kill_dir_processes "$m" && umount -l "$m" 2>/dev/null; done'
PC_SHUTDOWN="${BGTASK_BUILD_DIR:-}/tests/bgtask-fs-shutdown"

# A command that writes ~4 MiB, ignoring write errors, then exits 7.
FILLER='line=$(printf "%01023d" 0); i=0; while [ $i -lt 4000 ]; do echo "$line" 2>/dev/null; i=$((i + 1)); done; exit 7'

# fill_up DIR: takes every free block of DIR's file system.
fill_up() { dd if=/dev/zero of="$1/ballast.fill" bs=4k 2>/dev/null || true; }

# scenario NAME DIR: the checks on a mounted, empty task directory DIR.
scenario() {
  local name=$1 dir=$2 id rc out
  bgd() { timeout 120 "$BGTASK" --dir "$dir" "$@"; }

  # 1. A task fills the disk with its output.
  id=$(bgd start -- sh -c "$FILLER") || { problem "$name: start on an empty disk failed"; return; }
  rc=0
  bgd wait "$id" >/dev/null || rc=$?
  [ "$rc" -eq 7 ] || problem "$name: wait says $rc, the command exited 7 ($(jq -c '[.state, .error]' "$dir/$id.status.json"))"
  out=$(jq -r '[.state, .exit_code, .signal // "none"] | @tsv' "$dir/$id.status.json" 2>/dev/null || echo unreadable)
  [ "$out" = $'failed\t7\tnone' ] || problem "$name: final record says '$out', want failed 7 (not killed)"
  [ "$(jq .output.bytes "$dir/$id.status.json")" -lt $((4000 * 1024)) ] || problem "$name: the disk did not fill up"
  checked=$((checked + 1))

  # 2. On the full disk: reading works, start fails cleanly.
  fill_up "$dir"
  bgd list >/dev/null || problem "$name: list fails on a full disk"
  bgd status "$id" >/dev/null || problem "$name: status fails on a full disk"
  bgd output "$id" >/dev/null || problem "$name: output fails on a full disk"
  rc=0
  out=$(bgd start -- true 2>&1) || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "$out" >"$dir.printed"
  elif ! grep -q '^bgtask: error: ' <<<"$out"; then
    problem "$name: start on a full disk exited $rc without a message: $out"
  fi
  wait_until 30 dir_idle "$dir" || problem "$name: processes left on a full disk"
  check_invariants "$dir" "$dir.printed" || problem "$name: invariants broken on a full disk"
  rm -f "$dir/ballast.fill"
  bgd cleanup --older-than 0s >/dev/null || problem "$name: cleanup failed"
}

# A running task whose disk fills up under it (here: no inode left for the
# final record's temp file); the outcome must be written or explained.
inode_scenario() {
  local dir=$1 id rc n out
  bgd() { timeout 120 "$BGTASK" --dir "$dir" "$@"; }
  # The command leaves a descendant behind, still running when the
  # supervisor gives up: the outcome counts all the same. (It lets go of the
  # output: one that held it would still be the task's, which runs on.)
  id=$(bgd start -- sh -c 'sleep 60 >/dev/null 2>&1 & while [ ! -e "$BGTASK_DIR/go" ]; do sleep 0.05; done; exit 3') ||
    { problem "inodes: start failed"; return; }
  n=0
  while touch "$dir/inode.$n" 2>/dev/null; do n=$((n + 1)); done
  mv "$dir/inode.0" "$dir/go" # the last free inode is taken again below
  touch "$dir/inode.0" 2>/dev/null || true
  # No inode for the final record's temp file: the supervisor leaves the
  # outcome in its lock file and the next reconciliation reports it.
  rc=0
  bgd wait --timeout 60s "$id" >/dev/null || rc=$?
  [ "$rc" -eq 3 ] || problem "inodes: wait exited $rc, the command exited 3 ($(jq -c '[.state, .error]' "$dir/$id.status.json"))"
  rc=0
  out=$(bgd start -- true 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || problem "inodes: start succeeded with no free inode?"
  grep -q '^bgtask: error: ' <<<"$out" || problem "inodes: start failed without a message: $out"
  bgd list >/dev/null || problem "inodes: list fails without free inodes"
  # With inodes free again the recovered record is written for good.
  rm -f "$dir"/inode.* "$dir/go"
  kill_dir_processes "$dir" # the descendant
  bgd list >/dev/null || problem "inodes: list failed"
  out=$(jq -r '[.state, .exit_code] | @tsv' "$dir/$id.status.json")
  [ "$out" = $'failed\t3' ] || problem "inodes: record says '$out' once inodes are free again, want failed 3"
  check_invariants "$dir" || problem "inodes: invariants broken"
  checked=$((checked + 1))
}

# The outcome note outlives a reboot: a task whose final record could not be
# written (no inode left) keeps its outcome in its lock file's note; after a
# power cut (FS_IOC_SHUTDOWN, when its helper is built) and a reboot (the
# file system mounted again, a new boot id) every command reports its real
# exit status, never `lost (host rebooted)`.
note_reboot_scenario() {
  local img=$1 dir=$2 id rc n out
  bgd() { timeout 120 "$BGTASK" --dir "$dir" "$@"; }
  id=$(bgd start -- sh -c 'while [ ! -e "$BGTASK_DIR/go" ]; do sleep 0.05; done; exit 3') ||
    { problem "note reboot: start failed"; return; }
  n=0
  while touch "$dir/inode.$n" 2>/dev/null; do n=$((n + 1)); done
  mv "$dir/inode.0" "$dir/go"
  touch "$dir/inode.0" 2>/dev/null || true
  rc=0
  bgd wait --timeout 60s "$id" >/dev/null || rc=$?
  [ "$rc" -eq 3 ] || problem "note reboot: wait exited $rc before the reboot, the command exited 3"
  out=$(jq -r .state "$dir/$id.status.json")
  [ "$out" = running ] || problem "note reboot: the record says '$out' on disk: the note was not needed"
  [ -s "$dir/$id.lock" ] || problem "note reboot: no outcome note in $id.lock"
  # The cut, then what a reboot does: every process gone, the file system
  # mounted again, another boot id.
  if [ -x "$PC_SHUTDOWN" ]; then
    "$PC_SHUTDOWN" "$dir" || problem "note reboot: the shutdown ioctl failed"
  else
    echo "no $PC_SHUTDOWN: the note is checked after a reboot without a power cut" >&2
  fi
  for _ in $(seq 50); do
    kill_dir_processes "$dir"
    umount "$dir" 2>/dev/null && break
    sleep 0.1
  done
  ! mountpoint -q "$dir" || { problem "note reboot: cannot unmount $dir"; return; }
  MOUNTS=("${MOUNTS[@]/$dir/}")
  mkmount "$dir" -o loop,commit=60 "$img" || { problem "note reboot: cannot mount $img again"; return; }
  cat /proc/sys/kernel/random/uuid >"$WORK/boot-id.after-cut"
  export BGTASK_TEST_BOOT_ID_FILE="$WORK/boot-id.after-cut"
  # Free inodes or not (the cut may have undone the test's own files), the
  # outcome is the note's.
  out=$(bgd status --json "$id" | jq -r '.[0] | [.state, .exit_code, .error // "none"] | @tsv')
  [ "$out" = $'failed\t3\texited with status 3' ] || problem "note reboot: status says '$out' after the reboot, want failed 3"
  rc=0
  bgd wait "$id" >/dev/null || rc=$?
  [ "$rc" -eq 3 ] || problem "note reboot: wait exited $rc after the reboot, the command exited 3"
  rm -f "$dir"/inode.* "$dir/go"
  bgd list >/dev/null || problem "note reboot: list failed"
  out=$(jq -r '[.state, .exit_code, .error // "none"] | @tsv' "$dir/$id.status.json")
  [ "$out" = $'failed\t3\texited with status 3' ] || problem "note reboot: the record says '$out' once written, want failed 3"
  jq -e '[.events[] | select(.message == "final record recovered from the supervisor'"'"'s note")] | length == 1' \
    "$dir/$id.status.json" >/dev/null || problem "note reboot: no event says the record came from the note"
  check_invariants "$dir" || problem "note reboot: invariants broken"
  unset BGTASK_TEST_BOOT_ID_FILE
  checked=$((checked + 1))
}

mkmount() {
  local dir=$1
  shift
  mkdir -p "$dir"
  mount "$@" "$dir" || return 1
  chmod 700 "$dir"
  MOUNTS+=("$dir")
}

if mkmount "$WORK/tmpfs" -t tmpfs -o size=256k,mode=0700 tmpfs; then
  scenario tmpfs "$WORK/tmpfs"
else
  problem "cannot mount a tmpfs"
fi

truncate -s 2M "$WORK/ext4.img"
mkfs.ext4 -q -F -m 0 "$WORK/ext4.img"
if mkmount "$WORK/ext4" -o loop "$WORK/ext4.img"; then
  rmdir "$WORK/ext4/lost+found"
  scenario ext4 "$WORK/ext4"
else
  echo "no loop device: ext4 scenarios skipped" >&2
fi

truncate -s 8M "$WORK/inodes.img"
mkfs.ext4 -q -F -m 0 -N 32 "$WORK/inodes.img"
if mkmount "$WORK/inodes" -o loop "$WORK/inodes.img"; then
  rmdir "$WORK/inodes/lost+found"
  inode_scenario "$WORK/inodes"
fi

if [ "${BGTASK_TEST_SEAMS_BUILT:-1}" != 1 ]; then
  echo "built without test seams: the reboot after an outcome note is not tried" >&2
else
  truncate -s 8M "$WORK/note.img"
  mkfs.ext4 -q -F -m 0 -N 32 "$WORK/note.img"
  if mkmount "$WORK/note" -o loop,commit=60 "$WORK/note.img"; then
    rmdir "$WORK/note/lost+found"
    note_reboot_scenario "$WORK/note.img" "$WORK/note"
  fi
fi

for m in "${MOUNTS[@]}"; do
  [ -n "$m" ] || continue
  kill_dir_processes "$m"
  umount "$m" || problem "cannot unmount $m"
done
MOUNTS=()
crash_summary "scenarios=$checked failures=$problems records_checked=$INV_RECORDS_CHECKED"
[ "$problems" -eq 0 ] || fail "$problems problems on a full disk"
