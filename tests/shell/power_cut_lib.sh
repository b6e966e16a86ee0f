# shellcheck shell=bash
# Power cuts on one machine, for tests/shell/test_crash_power_cut.sh. Sourced
# after lib.sh and crash_lib.sh.
#
# A task directory lives on a file system in a loop-mounted file: journaled
# ext4 (commit=60, so only fsync and friends make anything durable during a
# test), or xfs when BGTASK_POWER_CUT_FS=xfs (its log is forced by fsync
# and every 30 s). A cut is FS_IOC_SHUTDOWN with FS_GOING_DOWN_NOLOGFLUSH
# (bgtask-fs-shutdown, built with the tests): from then on nothing reaches
# the device. Then every process of the directory is killed, the file system
# is unmounted and mounted again, and the next commands see another boot id
# (BGTASK_TEST_BOOT_ID_FILE), as after a real reboot.
#
# Book-keeping (what commands printed before the cut) is kept outside the
# file system, under $WORK.

PC_SHUTDOWN="${BGTASK_BUILD_DIR:-}/tests/bgtask-fs-shutdown"
PC_IMG="$WORK/fs.img"
PC_MNT="$WORK/mnt"
PC_FS=${BGTASK_POWER_CUT_FS:-ext4}
case "$PC_FS" in
  ext4) PC_MOUNT_OPTIONS=(-o commit=60) PC_SIZE=96M PC_MKFS_FORCE=-F ;;
  xfs) PC_MOUNT_OPTIONS=() PC_SIZE=320M PC_MKFS_FORCE=-f ;; # mkfs.xfs refuses less than 300 MB
  *)
    echo "BGTASK_POWER_CUT_FS: ext4 or xfs, not $PC_FS" >&2
    exit 2
    ;;
esac
# More options for mkfs (a test that needs more inodes sets them, and
# PC_SIZE, after sourcing this file).
PC_MKFS_OPTIONS=()

# pc_setup: makes and mounts the file system, or skips the test (exit 125).
pc_setup() {
  require_root
  require_tool "mkfs.$PC_FS" losetup strace jq
  [ -x "$PC_SHUTDOWN" ] || skip "no $PC_SHUTDOWN (build the tests, or set BGTASK_BUILD_DIR)"
  grep -qw "$PC_FS" /proc/filesystems || modprobe "$PC_FS" 2>/dev/null ||
    skip "this kernel has no $PC_FS"
  truncate -s "$PC_SIZE" "$PC_IMG"
  "mkfs.$PC_FS" -q "$PC_MKFS_FORCE" "${PC_MKFS_OPTIONS[@]}" "$PC_IMG" >"$WORK/mkfs.err" 2>&1 ||
    skip "mkfs.$PC_FS failed on $PC_IMG: $(head -1 "$WORK/mkfs.err")"
  mkdir -p "$PC_MNT"
  PC_LOOP=$(losetup -f --show "$PC_IMG" 2>"$WORK/mount.err") ||
    skip "loop devices are unavailable here (losetup: $(head -1 "$WORK/mount.err"))"
  mount "${PC_MOUNT_OPTIONS[@]}" "$PC_LOOP" "$PC_MNT" 2>"$WORK/mount.err" || {
    losetup -d "$PC_LOOP"
    skip "cannot mount a loop device here ($(head -1 "$WORK/mount.err"))"
  }
  at_exit 'pc_unmount'
  PC_BOOT=0
}

# pc_mount: mounts the image through a new loop device. A new one each time:
# a mount namespace made elsewhere meanwhile may still hold the old device's
# (shut down) file system, which mounting that device again would get back.
pc_mount() {
  losetup -d "$PC_LOOP" 2>/dev/null || true
  PC_LOOP=$(losetup -f --show "$PC_IMG") || fail "losetup failed after the cut"
  mount "${PC_MOUNT_OPTIONS[@]}" "$PC_LOOP" "$PC_MNT" || fail "cannot mount $PC_IMG again after the cut"
  touch "$PC_MNT/.alive" && rm "$PC_MNT/.alive" || fail "$PC_MNT is not usable after the remount"
}

# pc_kill_all: SIGKILLs every process that has a file open under the mount
# (supervisors, commands, CLIs, strace), and waits until none is left.
pc_kill_all() {
  local i pids
  for i in $(seq 50); do
    pids=$(pc_users)
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.05
  done
  echo "processes still using $PC_MNT: $(pc_users)" >&2
}

# pc_users: pids with a cwd, open file or argument under the mount.
pc_users() {
  local p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" != $$ ] || continue
    if [[ "$(ls -l "$p/cwd" "$p/fd" 2>/dev/null)" == *"$PC_MNT"* ]] ||
      [[ "$(tr '\0' ' ' 2>/dev/null <"$p/cmdline")" == *"$PC_MNT"* ]]; then
      echo "${p#/proc/}"
    fi
  done
}

pc_unmount() {
  pc_kill_all
  umount "$PC_MNT" 2>/dev/null || umount -l "$PC_MNT" 2>/dev/null || true
  losetup -d "$PC_LOOP" 2>/dev/null || true
}

# pc_cut [BOOK_FILE...]: the power cut, then what a reboot does: everything
# killed, the file system mounted again (the journal replayed), a new boot
# id. The processes live on for a moment after the shutdown, until killed:
# ext4 fails their fsyncs (EIO), so what they report then is checked too;
# xfs answers an fsync of a directory with success (its aborted log leaves
# nothing to force), which no process would hear after a real cut, so there
# each BOOK_FILE (what commands reported) is cut back to its size at the cut.
pc_cut() {
  local f sizes=()
  for f in "$@"; do
    sizes+=("$(stat -c %s "$f")")
  done
  "$PC_SHUTDOWN" "$PC_MNT" || fail "the shutdown ioctl failed on $PC_MNT"
  pc_reboot
  [ "$PC_FS" != ext4 ] || return 0
  for f in "$@"; do
    truncate -s "${sizes[0]}" "$f"
    sizes=("${sizes[@]:1}")
  done
}

# pc_reboot: what a reboot does after a cut made with $PC_SHUTDOWN.
pc_reboot() {
  pc_kill_all
  local i
  for i in $(seq 50); do
    umount "$PC_MNT" 2>/dev/null && break
    sleep 0.1
    pc_kill_all
  done
  mountpoint -q "$PC_MNT" && fail "cannot unmount $PC_MNT after the cut"
  pc_mount
  PC_BOOT=$((PC_BOOT + 1))
  cat /proc/sys/kernel/random/uuid >"$WORK/boot-id.$PC_BOOT"
  export BGTASK_TEST_BOOT_ID_FILE="$WORK/boot-id.$PC_BOOT"
}

RECORDS_LOST=0
REPORTED_THEN_LOST=0
OUTPUTS_SHORT=0
# Final states reported before a cut and checked after it, by who reported them.
declare -A PC_REPORTS=([wait]=0 [cancel]=0 [run]=0 [follow]=0)

# pc_reports_summary: those counts as KEY=N pairs for the CRASH-SUMMARY line.
pc_reports_summary() {
  echo "final_states_checked=$((PC_REPORTS[wait] + PC_REPORTS[cancel] + PC_REPORTS[run] + PC_REPORTS[follow]))" \
    "by_wait=${PC_REPORTS[wait]} by_cancel=${PC_REPORTS[cancel]} by_run=${PC_REPORTS[run]}" \
    "by_output_follow=${PC_REPORTS[follow]}"
}

# PC_EXIT_STATUS: jq, the exit status `wait`, `run` and `output --follow`
# return for a record (exit_status_of in core/exit_status.cpp), or
# "unfinished STATE".
PC_EXIT_STATUS='if .state == "succeeded" then 0
  elif .state == "failed" then
    (if (.exit_code // 0) != 0 then .exit_code elif .signal != null then 128 + .signal else 1 end)
  elif .state == "timed_out" then 124 elif .state == "cancelled" then 125
  elif .state == "lost" then 75 else "unfinished \(.state)" end'

# pc_note_exit ID RC ERR SOURCE BOOK: notes in BOOK.exits the exit status RC
# with which SOURCE (`run`, `output --follow`) reported task ID's final
# state, unless it did not end by itself (SIGKILLed at the cut: 137) or
# failed itself (an error in its stderr ERR, as when the file system went
# away under it): those reported nothing.
pc_note_exit() {
  [ -n "$1" ] && [ "$2" -ne 137 ] || return 0
  ! grep -q '^bgtask: error:' "$3" || return 0
  echo "$1 $2 $4" >>"$5.exits"
}

# pc_note_states JSON SOURCE BOOK: notes in BOOK.reports each final state
# in the JSON array of records JSON that SOURCE (`cancel --json`) printed.
pc_note_states() {
  jq -r --arg source "$2" '.[] | select(.state != "running" and .state != "queued")
    | "\(.id) \(.state) \($source)"' "$1" >>"$3.reports" 2>/dev/null || true
}

# pc_check DIR PRINTED REPORTS LABEL [EXITS]: after a cut, before anything
# else runs on DIR: every ID in PRINTED (what `start` printed) has a record;
# every "ID STATE" line of REPORTS (what `wait` or `cancel` printed) is
# still that final state; every "ID RC" line of EXITS (the exit status of a
# `run` or `output --follow` that returned) is still what the record says;
# every final record's output file holds the bytes the record counts. Then
# the invariants (check_invariants). Counts what it finds in RECORDS_LOST,
# REPORTED_THEN_LOST (REPORTS and EXITS), OUTPUTS_SHORT and fails the trial.
pc_check() {
  local dir=$1 printed=$2 reports=$3 label=$4 exits=${5:-/dev/null} id state now size bytes rc source ok=0
  while read -r id; do
    [ -n "$id" ] || continue
    if [ ! -e "$dir/$id.status.json" ]; then
      RECORDS_LOST=$((RECORDS_LOST + 1))
      trial_failed "$label" "start printed $id, and its record is gone after the cut"
      ok=1
    fi
  done <"$printed"
  while read -r id state source; do
    [ -n "$id" ] || continue
    [ "$source" = cancel ] || source=wait
    PC_REPORTS[$source]=$((PC_REPORTS[$source] + 1))
    now=$(jq -r .state "$dir/$id.status.json" 2>/dev/null || echo missing)
    if [ "$now" != "$state" ]; then
      REPORTED_THEN_LOST=$((REPORTED_THEN_LOST + 1))
      trial_failed "$label" "${source:-wait} reported $id $state before the cut; after it the record says $now"
      ok=1
    fi
  done <"$reports"
  while read -r id rc source; do
    [ -n "$id" ] || continue
    if [ "$source" = run ]; then
      PC_REPORTS[run]=$((PC_REPORTS[run] + 1))
    else
      PC_REPORTS[follow]=$((PC_REPORTS[follow] + 1))
    fi
    now=$(jq -r "$PC_EXIT_STATUS" "$dir/$id.status.json" 2>/dev/null || echo "no record")
    if [ "$now" != "$rc" ]; then
      REPORTED_THEN_LOST=$((REPORTED_THEN_LOST + 1))
      trial_failed "$label" "$source returned $rc for $id before the cut; after it the record gives $now"
      ok=1
    fi
  done <"$exits"
  for f in "$dir"/*.status.json; do
    [ -e "$f" ] || continue
    id=$(basename "$f" .status.json)
    state=$(jq -r .state "$f")
    case "$state" in running | queued) continue ;; esac
    bytes=$(jq -r .output.bytes "$f")
    size=$(stat -c %s "$dir/$id.output" 2>/dev/null || echo 0)
    if [ "$size" -lt "$bytes" ]; then
      OUTPUTS_SHORT=$((OUTPUTS_SHORT + 1))
      trial_failed "$label" "$id is $state with $bytes bytes of output, but $dir/$id.output has $size"
      ok=1
    fi
  done
  # `list`, twice (the first reconciles what the cut left unfinished), must
  # show what the records say.
  local listed recorded
  for _ in 1 2; do
    listed=$("$BGTASK" --dir "$dir" list 2>/dev/null | awk 'NR > 1 { print $1, $2 }' | sort)
    recorded=$(for f in "$dir"/*.status.json; do
      [ -e "$f" ] && { jq -r '"\(.id) \(.state)"' "$f" 2>/dev/null || echo "$(basename "$f" .status.json) corrupt"; }
    done | sort)
    if [ "$listed" != "$recorded" ]; then
      trial_failed "$label" "list disagrees with the records: $(diff <(echo "$listed") <(echo "$recorded") | sed -n 1,5p | tr '\n' ' ')"
      ok=1
      break
    fi
  done
  check_invariants "$dir" "$printed" || {
    trial_failed "$label" "invariants broken in $dir"
    ok=1
  }
  return "$ok"
}
