# shellcheck shell=bash
# Helpers for the crash, fault and concurrency tests (tests/shell/test_crash_*.sh).
# Sourced after lib.sh; sources invariants.sh.
#
# Scale: BGTASK_CRASH_SCALE=ci (default, sized for scripts/test) or full
# (scripts/soak). Each test prints one CRASH-SUMMARY line with its counts.

source "$(dirname "${BASH_SOURCE[0]}")/invariants.sh"

CRASH_SCALE=${BGTASK_CRASH_SCALE:-ci}
case "$CRASH_SCALE" in
  ci | full) ;;
  *) echo "BGTASK_CRASH_SCALE must be ci or full" >&2; exit 2 ;;
esac

# scaled CI_VALUE FULL_VALUE: the value for the current scale.
scaled() { if [ "$CRASH_SCALE" = full ]; then echo "$2"; else echo "$1"; fi; }

# require_root: skips the test unless it runs as root.
require_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }

# require_tool NAME...: skips the test if a tool is missing.
require_tool() {
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 || skip "$t is not installed (scripts/test installs it)"
  done
}

# problem MESSAGE: reports one failed check and counts it in $problems; the
# test fails at its end if any was counted.
problems=0
problem() {
  echo "FAIL: $*" >&2
  problems=$((problems + 1))
}

# crash_summary KEY=VALUE...: the line scripts/soak collects.
crash_summary() { echo "CRASH-SUMMARY test=$TEST_NAME scale=$CRASH_SCALE $*"; }

# quietly CMD... OUT ERR: runs CMD with stdout to OUT and stderr to ERR and
# prints its exit status, without the shell's notice when a signal killed it.
quietly() {
  local n=$# out err
  err=${!n}
  n=$((n - 1))
  out=${!n}
  (
    "${@:1:$#-2}" >"$out" 2>"$err"
    echo $?
  ) 2>/dev/null
}

# dir_idle DIR: no supervisor, command or invocation of DIR runs.
dir_idle() {
  ! pgrep -f -- "--dir $1 " >/dev/null && ! grep -qlzx "BGTASK_DIR=$1" /proc/[0-9]*/environ 2>/dev/null
}

# syscall_counts TRACE: "NAME COUNT" per system call of a one-process trace.
syscall_counts() {
  sed -n 's/^\([a-z0-9_]*\)(.*/\1/p' "$1" | sort | uniq -c | awk '{ print $2, $1 }'
}

# first_index_after TRACE PATTERN: "NAME K" per system call, K being the
# number of its calls before the first line matching PATTERN, plus one.
first_index_after() {
  awk -v pat="$2" '
    !seen && index($0, pat) { seen = 1 }
    { name = $0; sub(/\(.*/, "", name); if (name !~ /^[a-z0-9_]+$/) next
      if (!seen) before[name]++; else if (!(name in first)) first[name] = before[name] + 1 }
    END { for (n in first) print n, first[n] }' "$1"
}

TRIALS=0
FAILURES=0
TRIAL_DIR=""

# new_trial_dir: a fresh task directory for one trial, in TRIAL_DIR.
new_trial_dir() {
  TRIALS=$((TRIALS + 1))
  TRIAL_DIR="$WORK/t$TRIALS"
  mkdir -m 700 "$TRIAL_DIR"
}

# drop_trial: forgets the last trial (it turned out not to test anything).
drop_trial() {
  wait_until 30 dir_idle "$TRIAL_DIR" || kill_dir_processes "$TRIAL_DIR"
  rm -rf "$TRIAL_DIR" "$TRIAL_DIR".*
  TRIALS=$((TRIALS - 1))
}

# trial_failed LABEL MESSAGE: counts a failure and keeps the trial directory.
trial_failed() {
  echo "FAIL [$1]: $2" >&2
  FAILURES=$((FAILURES + 1))
}

# finish_trial LABEL [PRINTED]: waits for the trial directory to go idle,
# checks the invariants and removes it if they hold.
finish_trial() {
  local label=$1 printed=${2:-}
  if ! wait_until 30 dir_idle "$TRIAL_DIR"; then
    trial_failed "$label" "processes of $TRIAL_DIR still run 30 s later"
    kill_dir_processes "$TRIAL_DIR"
    return
  fi
  if check_invariants "$TRIAL_DIR" "$printed"; then
    rm -rf "$TRIAL_DIR" "$TRIAL_DIR".*
  else
    trial_failed "$label" "invariants broken in $TRIAL_DIR"
  fi
}

# find_stopped_supervisor DIR: pid of DIR's supervisor, stopped by the test
# seam BGTASK_TEST_STOP_SUPERVISOR.
find_stopped_supervisor() {
  local pid
  for pid in $(pgrep -r T -f -- "--dir $1 "); do
    echo "$pid"
    return 0
  done
  return 1
}

traced() { [ "$(awk '/^TracerPid/ { print $2 }' "/proc/$1/status" 2>/dev/null)" != 0 ]; }

# traced_start DIR TRACE STRACE_OPTION... -- START_ARGS...: runs
# `bgtask --dir DIR start START_ARGS` with its supervisor alone traced by
# `strace -qq -o TRACE STRACE_OPTIONS`. Leaves start's output in DIR.out and
# DIR.err and its exit status in START_RC.
# shellcheck disable=SC2034 # START_RC is for the caller
traced_start() {
  local dir=$1 trace=$2 opts=() cli sup tracer
  shift 2
  while [ "$1" != -- ]; do
    opts+=("$1")
    shift
  done
  shift
  [ "${BGTASK_TEST_SEAMS_BUILT:-1}" = 1 ] ||
    skip "this binary was built without test seams (configure with -DBGTASK_TEST_SEAMS=ON)"
  BGTASK_TEST_STOP_SUPERVISOR=1 timeout 60 "$BGTASK" --dir "$dir" start "$@" >"$dir.out" 2>"$dir.err" &
  cli=$!
  wait_until 20 find_stopped_supervisor "$dir" >/dev/null || fail "the supervisor of $dir never stopped for the tracer"
  sup=$(find_stopped_supervisor "$dir")
  timeout 120 strace -qq -o "$trace" "${opts[@]}" -p "$sup" &
  tracer=$!
  wait_until 20 traced "$sup" || fail "could not attach to supervisor $sup"
  kill -CONT "$sup"
  wait "$tracer" 2>/dev/null || true
  START_RC=0
  wait "$cli" 2>/dev/null || START_RC=$?
}

# start_task DIR [CMD...]: starts CMD (default sleep 30) in DIR, prints the ID.
start_task() {
  local dir=$1
  shift
  [ "$#" -gt 0 ] || set -- sleep 30
  timeout 60 "$BGTASK" --dir "$dir" start -- "$@"
}

# kill_task DIR ID: SIGKILLs a task's supervisor and command, leaving a
# running record with nobody behind it.
kill_task() {
  local dir=$1 id=$2 sup pg
  sup=$(jq .owner.pid "$dir/$id.status.json")
  pg=$(jq .child.pgid "$dir/$id.status.json")
  kill -KILL "$sup" 2>/dev/null || true
  kill -KILL -- "-$pg" 2>/dev/null || true
  wait_until 10 bash -c "! kill -0 $sup 2>/dev/null && ! kill -0 -- -$pg 2>/dev/null" || true
}

# at_exit CMD: runs CMD (a string) when the test exits, before lib.sh cleans up.
CRASH_EXIT_HOOKS=()
at_exit() { CRASH_EXIT_HOOKS+=("$1"); }
crash_exit() {
  local rc=$? hook
  for hook in "${CRASH_EXIT_HOOKS[@]}"; do
    eval "$hook" || true
  done
  local dir
  for dir in "$D" "$WORK"/t*; do
    [ -d "$dir" ] && kill_dir_processes "$dir"
  done
  (exit "$rc")
  cleanup_work
}
trap crash_exit EXIT
