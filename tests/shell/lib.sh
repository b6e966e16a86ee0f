# Shared helpers for the shell test scripts under tests/shell/ (sourced).
# Each script runs as one ctest test: exit 0 = pass, 125 = skipped, else fail.
# ctest passes the binary in $BGTASK.
set -euo pipefail

: "${BGTASK:?BGTASK must point at the bgtask binary}"
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "/tmp/bgtask-${TEST_NAME}.XXXXXX")
D="$WORK/tasks"
mkdir -m 700 "$D"
# script(1) runs its command line through $SHELL; the tests quote that line
# with printf %q, whose $'...' form only bash reads back.
export SHELL="$BASH"

# Every process this test starts inherits this variable (tasks, supervisors,
# daemons, background jobs, whoever their parent is by now), so cleanup_work
# finds what is left by pid.
export BGTASK_TEST_WORK="$WORK"

# leftover_pids: processes other than this shell that carry this test's
# BGTASK_TEST_WORK, or name its work directory on their command line.
leftover_pids() {
  local environ pid
  for environ in $(grep -lzxF "BGTASK_TEST_WORK=$WORK" /proc/[0-9]*/environ 2>/dev/null || true); do
    pid=${environ#/proc/}
    echo "${pid%/environ}"
  done
  pgrep -f -- "$WORK" 2>/dev/null || true
}

# kill_leftovers: KILLs the test's leftover processes until none is left (a
# loop that forks gets a few rounds); says on stderr how many it found and
# which, and leaves their number in LEFTOVERS_KILLED. A process on its way out
# (a supervisor that has just written its final record) gets 2 s to exit
# first.
LEFTOVERS_KILLED=0
kill_leftovers() {
  local pid pids killed=0 live
  for _ in $(seq 20); do
    live=no
    for pid in $(leftover_pids | sort -un); do
      [ "$pid" != $$ ] && [ -d "/proc/$pid" ] && live=yes && break
    done
    [ "$live" = yes ] || return 0
    sleep 0.1
  done
  for _ in 1 2 3 4 5; do
    pids=()
    # (The subshell and grep that listed them are gone by now.)
    for pid in $(leftover_pids | sort -un); do
      [ "$pid" != $$ ] && [ -d "/proc/$pid" ] && pids+=("$pid")
    done
    [ ${#pids[@]} -gt 0 ] || break
    for pid in "${pids[@]}"; do
      echo "$TEST_NAME: left running: $pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" >&2
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
    killed=$((killed + ${#pids[@]}))
    sleep 0.1
  done
  [ "$killed" -eq 0 ] || echo "$TEST_NAME: killed $killed processes it had left running" >&2
  LEFTOVERS_KILLED=$killed
}

# check_records: validates every task directory the test left under $WORK
# (each directory holding an ID.status.json) against docs/record.schema.json:
# the record files, and `list --json` and `status --json` on them
# (tests/tools/check_records.py). Fails if any record violates the schema.
check_records() {
  local dirs=()
  mapfile -t dirs < <(find "$WORK" -xdev -name '*.status.json' -printf '%h\n' 2>/dev/null | sort -u)
  [ ${#dirs[@]} -gt 0 ] || return 0
  /usr/bin/python3 "$BGTASK_TEST_LIB_DIR/../tools/check_records.py" --bgtask "$BGTASK" "${dirs[@]}"
}
BGTASK_TEST_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# on_exit COMMAND: runs COMMAND (eval'd, its failure ignored) when the test
# exits, before its leftover processes are looked for: how a test stops what
# it left running on purpose, also when it fails or skips early.
EXIT_HOOKS=()
on_exit() { EXIT_HOOKS+=("$1"); }

# hold_update_lock_stopped LOCKFILE: starts a process that takes a task's
# update lock (an OFD lock on byte 1 of its ID.lock), then stops it; $holder
# is its pid, continued and ended when the test exits.
hold_update_lock_stopped() {
  rm -f "$WORK/holder.out"
  python3 -c '
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, 37, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 1, 1, 0))  # F_OFD_SETLK
print("locked", flush=True)
time.sleep(300)' "$1" >"$WORK/holder.out" &
  holder=$!
  on_exit "kill -CONT $holder; kill $holder"
  for _ in $(seq 200); do [ -s "$WORK/holder.out" ] && break; sleep 0.05; done
  kill -STOP "$holder"
}

cleanup_work() {
  local rc=$? hook
  for hook in "${EXIT_HOOKS[@]}"; do
    eval "$hook" >/dev/null 2>&1 || true
  done
  # Kill whatever this test left running (a test that left any fails: a
  # leak), then check the records it left (a passing test fails if one
  # violates the schema), then remove the work directory unless the test
  # failed (kept for inspection).
  kill_leftovers
  local must_fail=no checked=0
  if [ "$LEFTOVERS_KILLED" -gt 0 ] && { [ "$rc" -eq 0 ] || [ "$rc" -eq 125 ]; }; then
    echo "FAIL: $TEST_NAME left $LEFTOVERS_KILLED processes running (above)" >&2
    rc=1 must_fail=yes
  fi
  if [ "$rc" -eq 0 ]; then
    check_records || checked=$?
    case $checked in
    0) ;;
    1) echo "FAIL: $TEST_NAME left records that violate docs/record.schema.json" >&2 ;;
    *) echo "FAIL: $TEST_NAME: its records could not be checked (exit $checked)" >&2 ;;
    esac
    [ "$checked" -eq 0 ] || rc=1 must_fail=yes
  fi
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 125 ]; then
    rm -rf "$WORK"
  else
    echo "kept $WORK for inspection" >&2
  fi
  # (An EXIT trap keeps the script's status unless it exits itself.)
  [ "$must_fail" = no ] || exit 1
}
trap cleanup_work EXIT

# bg ARGS...: bgtask on this test's directory, never hanging longer than 60 s.
bg() { timeout 60 "$BGTASK" --dir "$D" "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 125; }
# require_unshare FLAG...: skips unless this test may run `unshare FLAG...`
# (root, the program, and a kernel and sandbox that permit it).
require_unshare() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (unshare $*)"
  command -v unshare >/dev/null || skip "unshare is missing"
  unshare "$@" true 2>/dev/null || skip "unshare $* is not permitted here"
}

# in_private_mount_namespace [SECONDS]: runs this test again in a mount
# namespace of its own (for at most SECONDS, default 120) and exits with its
# status; in there, it returns. This outer shell only removes $WORK.
in_private_mount_namespace() {
  [ -z "${BGTASK_IN_MOUNT_NS:-}" ] || return 0
  require_unshare --mount --propagation private
  local rc=0
  BGTASK_IN_MOUNT_NS=1 timeout "${1:-120}" unshare --mount --propagation private bash "$0" || rc=$?
  exit "$rc"
}

# share_binary USER: makes $BGTASK runnable by USER, and the working
# directory one USER may enter ($WORK: ctest's directory may be out of
# reach). A build USER cannot reach (a clone under root's home, mode 700, as
# on a fresh machine) is copied into $WORK/bin; call it after
# `chmod 755 "$WORK"`.
share_binary() {
  cd "$WORK" || fail "cannot enter $WORK"
  runuser -u "$1" -- test -x "$BGTASK" && return 0
  mkdir -p -m 755 "$WORK/bin"
  install -m 755 "$BGTASK" "$WORK/bin/bgtask"
  BGTASK="$WORK/bin/bgtask"
  runuser -u "$1" -- test -x "$BGTASK" || skip "user $1 cannot run $BGTASK, even copied into $WORK/bin"
}

# bg_traced NAME ARGS...: bgtask ARGS on this test's directory, its openat
# calls traced (strace) into $WORK/NAME.trace; its exit status.
bg_traced() {
  local name=$1
  shift
  strace -f -e trace=openat -o "$WORK/$name.trace" "$BGTASK" --dir "$D" "$@"
}

# opens_in NAME SUFFIX [IDS_FILE]: how many times the trace NAME opened a
# task's file ID.SUFFIX (status.json, lock, output), of the tasks whose IDs
# IDS_FILE lists, or of any task.
opens_in() {
  local files
  files=$(grep -oE "\"[0-9a-z]{12}\.${2//./\\.}\"" "$WORK/$1.trace" || true)
  [ -z "${3:-}" ] || files=$(grep -Ff "$3" <<<"$files" || true)
  grep -c . <<<"$files" || true
}

# field ID JQ_PATH: one field of a task's record, read from the file.
field() { jq -r "$2" "$D/$1.status.json"; }
