#!/usr/bin/env bash
# Kill at every point: SIGKILLs `bgtask start` and the supervisor at each
# system call of their life (strace inject=SC:signal=KILL:when=K, K stepping
# until the process runs to its end untouched), then checks the invariants.
# Full scale also kills the supervisor together with the command's process
# before exec, and `cancel`, a reconciling `status` and `cleanup` at each call.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool strace jq pgrep

# CI scale skips calls that neither touch a file nor change a process: the
# dynamic loader's, memory management, signal masks and plain queries. A
# kill there is a kill between two neighbouring calls that are tried.
QUIET_CALLS=" mmap mprotect munmap madvise brk arch_prctl set_tid_address set_robust_list rseq"
QUIET_CALLS+=" prlimit64 futex access pread64 execve rt_sigaction rt_sigprocmask getpid gettid"
QUIET_CALLS+=" getrandom uname dup2 close_range geteuid getuid umask getcwd ioctl "
EXCLUDED=$(scaled "$QUIET_CALLS" " ")

# start_trial SC K: kills `start` alone at its K-th SC call; false once K is
# past its last SC call.
start_trial() {
  local sc=$1 k=$2 rc
  new_trial_dir
  rc=$(quietly timeout 60 strace -qq -o "$TRIAL_DIR.trace" -e trace="$sc" -e inject="$sc:signal=KILL:when=$k" \
    "$BGTASK" --dir "$TRIAL_DIR" start -- sleep 0.05 "$TRIAL_DIR.out" "$TRIAL_DIR.err")
  if ! grep -q 'killed by SIGKILL' "$TRIAL_DIR.trace"; then
    drop_trial
    return 1
  fi
  finish_trial "start killed at $sc #$k (rc $rc)" "$TRIAL_DIR.out"
}

# supervisor_trial SC K [-f]: kills the supervisor at its K-th SC call (with
# -f also the command's process before exec); false once K is past the end.
supervisor_trial() {
  local sc=$1 k=$2 follow=${3:-} label
  new_trial_dir
  label="supervisor${follow:+ and child} killed at $sc #$k"
  traced_start "$TRIAL_DIR" "$TRIAL_DIR.trace" -e trace="$sc" -e inject="$sc:signal=KILL:when=$k" \
    ${follow:+-f -b execve} -- -- sleep 0.05
  if ! grep -q 'killed by SIGKILL' "$TRIAL_DIR.trace"; then
    drop_trial
    return 1
  fi
  if [ "$START_RC" -eq 0 ] && [ ! -s "$TRIAL_DIR.out" ]; then
    trial_failed "$label" "start exited 0 without printing an ID"
  fi
  if [ "$START_RC" -ne 0 ] && ! grep -q '^bgtask: error: ' "$TRIAL_DIR.err"; then
    trial_failed "$label" "start exited $START_RC without an error message"
  fi
  finish_trial "$label (start rc $START_RC)" "$TRIAL_DIR.out"
}

setup_running() { TRIAL_ID=$(start_task "$TRIAL_DIR"); }
setup_dead() {
  TRIAL_ID=$(start_task "$TRIAL_DIR")
  kill_task "$TRIAL_DIR" "$TRIAL_ID"
}
setup_cleanable() {
  # A finished task, a stray temp and the files of a start that died early.
  local id
  id=$(start_task "$TRIAL_DIR" true)
  wait_until 10 dir_idle "$TRIAL_DIR" || true
  echo '{"partial' >"$TRIAL_DIR/.$id.status.json.0123456789abcdef.tmp"
  : >"$TRIAL_DIR/0000000000aa.lock"
  : >"$TRIAL_DIR/0000000000aa.output"
  TRIAL_ID=""
}

# command_trial SETUP SC K ARGS...: SETUP fills TRIAL_DIR (and may set
# TRIAL_ID), then `bgtask ARGS [TRIAL_ID]` is killed at its K-th SC call.
command_trial() {
  local setup=$1 sc=$2 k=$3 rc killed=0
  shift 3
  new_trial_dir
  TRIAL_ID=""
  "$setup"
  rc=$(quietly timeout 60 strace -qq -o "$TRIAL_DIR.trace" -e trace="$sc" -e inject="$sc:signal=KILL:when=$k" \
    "$BGTASK" --dir "$TRIAL_DIR" "$@" ${TRIAL_ID:+"$TRIAL_ID"} /dev/null /dev/null)
  grep -q 'killed by SIGKILL' "$TRIAL_DIR.trace" && killed=1
  [ -z "$TRIAL_ID" ] || timeout 60 "$BGTASK" --dir "$TRIAL_DIR" cancel --grace 0 "$TRIAL_ID" >/dev/null 2>&1 || true
  if [ "$killed" -eq 0 ]; then
    drop_trial
    return 1
  fi
  finish_trial "$* killed at $sc #$k (rc $rc)"
}

# sweep NAME COUNTS TRIAL...: runs TRIAL SC K for each system call SC in
# COUNTS and K = 1, 2, ... until the process runs to its end untouched.
sweep() {
  local name=$1 counts=$2 sc count k before=$TRIALS
  shift 2
  while read -r sc count; do
    [[ "$EXCLUDED" != *" $sc "* ]] || continue
    k=1
    while "$@" "$sc" "$k" && [ "$k" -le $((count * 2 + 5)) ]; do
      k=$((k + 1))
    done
  done <"$counts"
  echo "$name: $((TRIALS - before)) crash points"
}

# Reference runs: the calls each process makes when nothing goes wrong.
new_trial_dir
strace -qq -o "$WORK/ref-start.trace" "$BGTASK" --dir "$TRIAL_DIR" start -- sleep 0.05 >/dev/null
syscall_counts "$WORK/ref-start.trace" >"$WORK/start.counts"
drop_trial
new_trial_dir
traced_start "$TRIAL_DIR" "$WORK/ref-supervisor.trace" -- -- sleep 0.05
syscall_counts "$WORK/ref-supervisor.trace" >"$WORK/supervisor.counts"
[ -s "$WORK/supervisor.counts" ] || fail "empty supervisor trace"
drop_trial

sweep start "$WORK/start.counts" start_trial
sweep supervisor "$WORK/supervisor.counts" supervisor_trial

if [ "$CRASH_SCALE" = full ]; then
  follow_trial() { supervisor_trial "$1" "$2" -f; }
  sweep "supervisor+child" "$WORK/supervisor.counts" follow_trial
  for spec in "cancel:setup_running:cancel --grace 1s" "status:setup_dead:status" \
    "cleanup:setup_cleanable:cleanup"; do
    IFS=: read -r name setup args <<<"$spec"
    new_trial_dir
    TRIAL_ID=""
    "$setup"
    # shellcheck disable=SC2086
    strace -qq -o "$WORK/ref-$name.trace" "$BGTASK" --dir "$TRIAL_DIR" $args ${TRIAL_ID:+"$TRIAL_ID"} >/dev/null 2>&1 || true
    [ -z "$TRIAL_ID" ] || "$BGTASK" --dir "$TRIAL_DIR" cancel --grace 0 "$TRIAL_ID" >/dev/null 2>&1 || true
    drop_trial
    syscall_counts "$WORK/ref-$name.trace" >"$WORK/$name.counts"
    eval "trial_$name() { command_trial $setup \"\$1\" \"\$2\" $args; }"
    sweep "$name" "$WORK/$name.counts" "trial_$name"
  done
fi

crash_summary "crash_points=$TRIALS records_checked=$INV_RECORDS_CHECKED failures=$FAILURES"
[ "$FAILURES" -eq 0 ] || fail "$FAILURES of $TRIALS crash points broke an invariant"
