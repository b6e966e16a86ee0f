#!/usr/bin/env bash
# The event stream through power cuts (power_cut_lib.sh: ext4 on a loop
# file, FS_IOC_SHUTDOWN, remount, a new boot id). In each trial a follower
# (`events --follow --cursor-file`, the file on the same file system) reads
# a finished task's events; then a task that fails and one that is
# cancelled run, and the power is cut while the first task's life is held
# after its K-th `write` or `fdatasync` of the event log, for every K (the
# appends of its first events and of its final ones). After the reboot:
# - the records hold (pc_check: every ID printed, every final state that
#   `wait` or `cancel --json` printed before the cut);
# - every line a reader was handed before the cut is still in the log,
#   byte for byte: no sequence number went to another event;
# - each final state `wait` or `cancel` printed has exactly one task.exited;
# - from every cursor handed out before the cut, `events --since` is the
#   rest of the stream, in order, without a gap;
# - `events --cursor-file` with the follower's file goes on where it
#   stopped: with what it printed before the cut, every event once.
if [ -z "${BGTASK_POWER_CUT_NS:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
  BGTASK_POWER_CUT_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
source "$(dirname "$0")/power_cut_lib.sh"
pc_setup

CALLS=${BGTASK_POWER_CUT_CALLS-"write fdatasync"}
HOLD_US=4000000
CUT_POINTS=0
LINES_CHECKED=0
CURSORS_CHECKED=0

bgt() { timeout -s KILL 60 "$BGTASK" --dir "$DIR" "$@"; }

new_dir() {
  TRIALS=$((TRIALS + 1))
  DIR="$PC_MNT/t$TRIALS"
  BOOK="$WORK/t$TRIALS"
  CURSOR_FILE="$PC_MNT/t$TRIALS.cursor"
  mkdir -m 700 "$DIR"
  sync -f "$DIR"
  : >"$BOOK.printed"
  : >"$BOOK.reports"
}

# check_stream LABEL: the stream after the reboot against what readers were
# handed before the cut ($BOOK.live) and what was reported ($BOOK.reports).
check_stream() {
  local label=$1 full="$BOOK.full" id count cursor seq rc
  "$BGTASK" --dir "$DIR" events >"$full" 2>/dev/null || trial_failed "$label" "events failed after the reboot"
  awk 'NR > 1 && $1 <= last { exit 1 } { last = $1 }' <<<"$(jq -r .seq "$full")" ||
    trial_failed "$label" "sequence numbers out of order or repeated: $(jq -r .seq "$full" | tr '\n' ' ')"
  if grep -vxFf "$full" "$BOOK.live" >"$BOOK.vanished"; then
    trial_failed "$label" "lines a follower printed before the cut are not in the log after it: $(head -c 300 "$BOOK.vanished")"
  fi
  LINES_CHECKED=$((LINES_CHECKED + $(wc -l <"$BOOK.live")))
  while read -r id _; do
    [ -n "$id" ] || continue
    count=$(jq -r --arg id "$id" 'select(.type == "task.exited" and .task == $id) | .seq' "$full" | wc -l)
    [ "$count" = 1 ] || trial_failed "$label" "$id was reported final before the cut; the stream has $count task.exited for it"
  done <"$BOOK.reports"
  for cursor in $(jq -r .cursor "$BOOK.live") $(cat "$CURSOR_FILE" 2>/dev/null); do
    seq=${cursor##*.}
    rc=0
    "$BGTASK" --dir "$DIR" events --since "$cursor" >"$BOOK.since" 2>/dev/null || rc=$?
    [ "$rc" = 0 ] || trial_failed "$label" "events --since $cursor exited $rc"
    jq -c --argjson seq "$seq" 'select(.seq > $seq)' "$full" | cmp -s - <(jq -c . "$BOOK.since") ||
      trial_failed "$label" "events --since $cursor is not the rest of the stream"
    CURSORS_CHECKED=$((CURSORS_CHECKED + 1))
  done
  rc=0
  "$BGTASK" --dir "$DIR" events --cursor-file "$CURSOR_FILE" >"$BOOK.rerun" 2>/dev/null || rc=$?
  [ "$rc" = 0 ] || trial_failed "$label" "events --cursor-file exited $rc after the reboot"
  grep -vxFf "$BOOK.live" "$BOOK.rerun" | jq -r .seq >"$BOOK.new_seqs" || true
  [ -n "$(jq -r .seq "$BOOK.live" | sort -n - "$BOOK.new_seqs" | uniq -d)" ] &&
    trial_failed "$label" "a sequence number came twice with different lines across the cut"
  cat "$BOOK.live" "$BOOK.rerun" | sort -u | jq -r .seq | sort -n | cmp -s - <(jq -r .seq "$full") ||
    trial_failed "$label" "the follower and its rerun from the cursor file missed events"
}

# cut_point SC K: one trial, cut during the hold after the K-th SC call on
# the event log by `start` and the supervisor of the failing task. False
# if they made no K-th call.
cut_point() {
  local sc=$1 k=$2 label="cut after $1 #$2 on the event log" follower tracer observer segment p b
  new_dir
  p=$(bgt start -- true) && echo "$p" >>"$BOOK.printed"
  bgt wait "$p" >/dev/null
  b=$(bgt start -- sleep 60) && echo "$b" >>"$BOOK.printed"
  timeout -s KILL 60 "$BGTASK" --dir "$DIR" events --follow --cursor-file "$CURSOR_FILE" \
    >"$BOOK.live" 2>/dev/null &
  follower=$!
  wait_until 10 grep -qs task.started "$BOOK.live" || fail "the follower printed nothing"
  segment=$(ls "$DIR"/events/*.jsonl | tail -1)
  timeout 60 strace -f -qq -b execve -o "$BOOK.trace" -P "$segment" -e trace="$sc" \
    -e inject="$sc:delay_exit=$HOLD_US:when=$k" \
    "$BGTASK" --dir "$DIR" start -- sh -c 'sleep 0.3; exit 3' >"$BOOK.a" 2>"$BOOK.err" &
  tracer=$!
  (
    wait_until 30 test -s "$BOOK.a" || exit 0
    bgt cancel --json "$b" >"$BOOK.cancel" 2>/dev/null || true
    pc_note_states "$BOOK.cancel" cancel "$BOOK"
    bgt wait "$(cat "$BOOK.a")" >>"$BOOK.reports" 2>/dev/null
  ) &
  observer=$!
  until grep -qs '(DELAYED)' "$BOOK.trace" || ! kill -0 "$tracer" 2>/dev/null; do
    sleep 0.01
  done
  if ! grep -qs '(DELAYED)' "$BOOK.trace"; then
    wait "$observer" || true
    wait "$tracer" || true
    kill "$follower" 2>/dev/null || true
    wait "$follower" 2>/dev/null || true
    rm -rf "$DIR" "$CURSOR_FILE" "$BOOK".*
    TRIALS=$((TRIALS - 1))
    return 1
  fi
  sleep 0.3 # a waiter or follower woken by what the held call did reports now, or never
  cat "$BOOK.a" >>"$BOOK.printed"
  pc_cut "$BOOK.printed" "$BOOK.reports" "$BOOK.live"
  kill "$observer" "$follower" 2>/dev/null || true
  wait "$tracer" "$observer" "$follower" 2>/dev/null || true
  CUT_POINTS=$((CUT_POINTS + 1))
  local before=$FAILURES
  pc_check "$DIR" "$BOOK.printed" "$BOOK.reports" "$label" || true
  check_stream "$label"
  [ "$FAILURES" != "$before" ] || rm -rf "$DIR" "$CURSOR_FILE" "$BOOK".*
}

for sc in $CALLS; do
  k=1
  while cut_point "$sc" "$k"; do
    k=$((k + 1))
  done
  echo "cut after each of $((k - 1)) $sc calls on the event log" >&2
done

crash_summary "fs=$PC_FS cut_points=$CUT_POINTS lines_checked=$LINES_CHECKED" \
  "cursors_checked=$CURSORS_CHECKED $(pc_reports_summary) failures=$FAILURES"
[ "$CUT_POINTS" -gt 0 ] || fail "no cut point was reached"
[ "$FAILURES" -eq 0 ] || exit 1
echo "PASS: $CUT_POINTS cut points at the event log's appends, nothing lost or renumbered"
