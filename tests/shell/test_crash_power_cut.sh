#!/usr/bin/env bash
# Power cuts (power_cut_lib.sh): ext4 on a loop file (xfs with
# BGTASK_POWER_CUT_FS=xfs: test_crash_power_cut_xfs.sh), FS_IOC_SHUTDOWN,
# remount, a new boot id. Two campaigns:
# - cut points: one task's life (`start`, its supervisor, a `wait` on it) is
#   held right after its K-th call of one system call (strace delay_exit),
#   and the power is cut during the hold; for every K up to the last call;
# - random cuts under load: tasks start and finish while `wait`s and `list`s
#   run, and the power goes at a random moment.
# After each cut: every ID `start` printed has a record, every final state
# reported before the cut is still that state (printed by `wait` or
# `cancel --json`, or returned as the exit status of `run` or
# `output --follow`), every final record's output is all there, and the
# invariants hold (invariants.sh).
# CI size: the calls that make things durable (fsync, fdatasync, renameat) and
# 3 random cuts; full size (scripts/soak): every file system call and 30 cuts.
# BGTASK_POWER_CUT_CALLS (system call names) and BGTASK_POWER_CUTS override
# either size.
# In a mount namespace of its own, so that no namespace made elsewhere holds
# on to the file system between cuts.
if [ -z "${BGTASK_POWER_CUT_NS:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
  BGTASK_POWER_CUT_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
source "$(dirname "$0")/power_cut_lib.sh"
pc_setup

CI_CALLS="fsync fdatasync renameat" CI_CUTS=3 CI_TASKS=12
# The second file system's CI round is one random cut under a lighter load
# (each cut point costs seconds); scripts/soak runs it at full size.
[ "$PC_FS" = ext4 ] || CI_CALLS="" CI_CUTS=1 CI_TASKS=8
CALLS=${BGTASK_POWER_CUT_CALLS-$(scaled "$CI_CALLS" "openat write pwrite64 fsync fdatasync renameat unlinkat ftruncate fallocate")}
RANDOM_CUTS=${BGTASK_POWER_CUTS:-$(scaled "$CI_CUTS" 30)}
LOAD_TASKS=$(scaled "$CI_TASKS" 30)
HOLD_US=4000000
# Output big enough to be in the page cache only, unless fsynced.
TASK_CMD='head -c 60000 /dev/zero | tr "\0" x; echo; echo end'

CUT_POINTS=0
TASKS=0

# new_dir: a fresh, durable task directory on the file system in DIR, and
# BOOK, the prefix of its book-keeping files outside it.
new_dir() {
  TRIALS=$((TRIALS + 1))
  DIR="$PC_MNT/t$TRIALS"
  BOOK="$WORK/t$TRIALS"
  mkdir -m 700 "$DIR"
  sync -f "$DIR"
  : >"$BOOK.printed"
  : >"$BOOK.reports"
  : >"$BOOK.exits"
}

# observe HOW: waits for the task `start` prints into $BOOK.printed, then
# for its end (run in the background), with `wait` (HOW=wait: what it
# prints goes to $BOOK.reports) or `output --follow` (its exit status goes to
# $BOOK.exits).
observe() {
  local id rc=0
  wait_until 30 test -s "$BOOK.printed" || return 0
  id=$(head -1 "$BOOK.printed")
  if [ "$1" = wait ]; then
    timeout -s KILL 60 "$BGTASK" --dir "$DIR" wait "$id" >>"$BOOK.reports" 2>/dev/null
    return
  fi
  timeout -s KILL 60 "$BGTASK" --dir "$DIR" output --follow "$id" >/dev/null 2>"$BOOK.follow.err" || rc=$?
  pc_note_exit "$id" "$rc" "$BOOK.follow.err" "output --follow" "$BOOK"
}

# cut_point SC K: one task's life, held after its K-th SC call (in any of
# its processes) and cut there, observed by `wait` (odd K) or
# `output --follow` (even K). False if no process made a K-th call.
cut_point() {
  local sc=$1 k=$2 tracer observer how=wait
  new_dir
  timeout 60 strace -f -qq -b execve -o "$BOOK.trace" -e trace="$sc" \
    -e inject="$sc:delay_exit=$HOLD_US:when=$k" \
    "$BGTASK" --dir "$DIR" start -- sh -c "$TASK_CMD" >"$BOOK.printed" 2>"$BOOK.err" &
  tracer=$!
  [ $((k % 2)) -eq 1 ] || how=follow
  observe "$how" &
  observer=$!
  until grep -qs '(DELAYED)' "$BOOK.trace" || ! kill -0 "$tracer" 2>/dev/null; do
    sleep 0.01
  done
  if ! grep -qs '(DELAYED)' "$BOOK.trace"; then
    wait "$observer" || true
    wait "$tracer" || true
    rm -rf "$DIR" "$BOOK".*
    TRIALS=$((TRIALS - 1))
    return 1
  fi
  sleep 0.2 # a waiter woken by what the held call did reports now, or never
  pc_cut "$BOOK.printed" "$BOOK.reports" "$BOOK.exits"
  kill "$observer" 2>/dev/null || true
  wait "$tracer" "$observer" 2>/dev/null || true
  CUT_POINTS=$((CUT_POINTS + 1))
  TASKS=$((TASKS + 1))
  if pc_check "$DIR" "$BOOK.printed" "$BOOK.reports" "cut after $sc #$k" "$BOOK.exits"; then
    rm -rf "$DIR" "$BOOK".*
  else
    cp "$BOOK.trace" "$WORK/failed-t$TRIALS.trace" 2>/dev/null || true
  fi
}

# one_task I: one task, and the command that reports its final state, by I
# modulo 4: `start` then `wait` (what it prints: $BOOK.reports), `start`
# then `output --follow` (its exit status: $BOOK.exits), `run` (its exit
# status), `start` then `cancel --json` a moment later (the states it
# prints). Each ID `start` prints goes to $BOOK.printed.
one_task() {
  local i=$1 id rc=0 out="$BOOK.$1.out" err="$BOOK.$1.err"
  local cmd="echo task $i; sleep 0.$((RANDOM % 8)); head -c $((RANDOM * 2)) /dev/zero | tr '\0' y; exit $((RANDOM % 2 * 9))"
  local bgt=(timeout -s KILL 60 "$BGTASK" --dir "$DIR")
  if [ $((i % 4)) -eq 2 ]; then
    "${bgt[@]}" run --detach-after never -- sh -c "echo \"id \$BGTASK_ID\"; $cmd" >"$out" 2>"$err" || rc=$?
    pc_note_exit "$(sed -n '1s/^id //p' "$out")" "$rc" "$err" run "$BOOK"
    return
  fi
  id=$("${bgt[@]}" start -- sh -c "$cmd") || return 0
  echo "$id" >>"$BOOK.printed"
  case $((i % 4)) in
    0) "${bgt[@]}" wait "$id" >>"$BOOK.reports" 2>/dev/null || true ;;
    1)
      "${bgt[@]}" output --follow "$id" >/dev/null 2>"$err" || rc=$?
      pc_note_exit "$id" "$rc" "$err" "output --follow" "$BOOK"
      ;;
    3)
      sleep 0.$((RANDOM % 6))
      "${bgt[@]}" cancel --json "$id" >"$out" 2>/dev/null || true
      pc_note_states "$out" cancel "$BOOK"
      ;;
  esac
}

# random_cut: LOAD_TASKS tasks started over about a second, two `list` loops,
# and a cut at a random moment.
random_cut() {
  local pids=() i
  new_dir
  for i in 1 2; do
    (while :; do timeout 60 "$BGTASK" --dir "$DIR" list >/dev/null 2>&1; done) &
    pids+=($!)
  done
  for i in $(seq "$LOAD_TASKS"); do
    one_task "$i" &
    pids+=($!)
    sleep 0.0$((RANDOM % 10))
  done
  sleep "$((RANDOM % 2)).$((RANDOM % 10))"
  pc_cut "$BOOK.printed" "$BOOK.reports" "$BOOK.exits"
  kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  TASKS=$((TASKS + LOAD_TASKS))
  if pc_check "$DIR" "$BOOK.printed" "$BOOK.reports" "random cut $TRIALS" "$BOOK.exits"; then
    rm -rf "$DIR" "$BOOK".*
  fi
}

# start_outlives_cut: the power goes while the supervisor's publication of
# the running record (its first renameat) is held, and `start` lives on to
# see the failure, as it would when the file system fails under it (unlike
# cut_point, which kills everything at the cut). It must not print an ID:
# no durable record would answer for it.
start_outlives_cut() {
  local tracer rc=0
  new_dir
  strace -f -qq -b execve -o "$BOOK.trace" -e trace=renameat \
    -e inject=renameat:delay_exit=1000000:when=1 \
    "$BGTASK" --dir "$DIR" start -- true >"$BOOK.printed" 2>"$BOOK.err" &
  tracer=$!
  wait_until 30 grep -qs '(DELAYED)' "$BOOK.trace" || fail "start's renameat was never held"
  "$PC_SHUTDOWN" "$PC_MNT" || fail "the shutdown ioctl failed on $PC_MNT"
  wait "$tracer" || rc=$?
  [ "$rc" -ne 0 ] || trial_failed "start during a cut" "start exited 0 although its record could not be made durable"
  if [ -s "$BOOK.printed" ]; then
    trial_failed "start during a cut" "start printed $(head -1 "$BOOK.printed") with no durable record ($(head -1 "$BOOK.err"))"
  fi
  grep -qs 'cannot start the task' "$BOOK.err" ||
    trial_failed "start during a cut" "start did not say the task could not start: $(head -1 "$BOOK.err")"
  pc_reboot
  CUT_POINTS=$((CUT_POINTS + 1))
  TASKS=$((TASKS + 1))
  pc_check "$DIR" "$BOOK.printed" "$BOOK.reports" "start during a cut" || true
}

# xfs answers an fsync of a directory with success once it has shut down
# (pc_cut), so a process that outlives the cut is told its rename is
# durable: this trial holds on ext4, which reports EIO.
[ "$PC_FS" != ext4 ] || start_outlives_cut
for sc in $CALLS; do
  k=1
  while cut_point "$sc" "$k"; do
    k=$((k + 1))
  done
  echo "cut after each of $((k - 1)) $sc calls" >&2
done
for _ in $(seq "$RANDOM_CUTS"); do
  random_cut
done

crash_summary "fs=$PC_FS cut_points=$CUT_POINTS random_cuts=$RANDOM_CUTS tasks=$TASKS" \
  "records_lost=$RECORDS_LOST reported_then_lost=$REPORTED_THEN_LOST" \
  "outputs_short=$OUTPUTS_SHORT $(pc_reports_summary)" \
  "records_checked=$INV_RECORDS_CHECKED failures=$FAILURES"
[ "$FAILURES" -eq 0 ] || exit 1
echo "PASS: $CUT_POINTS cut points and $RANDOM_CUTS random cuts on $PC_FS, nothing lost"
