#!/usr/bin/env bash
# A power cut (power_cut_lib.sh: ext4 on a loop file, FS_IOC_SHUTDOWN,
# remount, a new boot id) in the middle of a `start --each-line` of many
# tasks into a queue without slots, once a random number of its groups of
# 1,024 were printed. After the reboot: every ID the start printed has a
# record; the tasks with a record are the first lines of the input, so that
# their count (`list --summary`) is where to resume; if the start lived to
# report the failure, its --resume is that count; the resumed start gives
# every line exactly one task; at full size, the invariants hold.
# CI size: 2,100 lines (cut in the second group, a full one: in a last group
# of a few lines the start could end before the cut), 1 cut, no invariants
# (their shell checks take a minute over a thousand tasks); full size
# (scripts/soak): 10,000 lines, 3 cuts.
if [ -z "${BGTASK_POWER_CUT_NS:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
  BGTASK_POWER_CUT_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
source "$(dirname "$0")/power_cut_lib.sh"
[ "$PC_FS" = ext4 ] || skip "this campaign runs on ext4"
PC_SIZE=400M
PC_MKFS_OPTIONS=(-N 160000) # 4 files a task, twice over
pc_setup

LINES=$(scaled 2100 10000)
CUTS=$(scaled 1 3)
seq "$LINES" | sed 's/^/item-/' >"$WORK/lines"
TRIALS=0
for _ in $(seq "$CUTS"); do
  TRIALS=$((TRIALS + 1))
  DIR="$PC_MNT/t$TRIALS" BOOK="$WORK/t$TRIALS"
  mkdir -m 700 "$DIR"
  "$BGTASK" --dir "$DIR" queue q --slots 0 >/dev/null
  sync -f "$DIR"
  # Cut once the start printed at least one ID of a random one of its
  # groups but the last two: in the middle of the next, a full one.
  groups=$((LINES / 1024))
  want=$(((RANDOM % (groups - 1)) * 1024 + 1))
  "$BGTASK" --dir "$DIR" start --each-line "$WORK/lines" --queue q -- echo {} >"$BOOK.printed" 2>"$BOOK.err" &
  starter=$!
  for _ in $(seq 15000); do
    [ "$(wc -l <"$BOOK.printed")" -lt "$want" ] || break
    sleep 0.002
  done
  pc_cut "$BOOK.printed"
  wait "$starter" 2>/dev/null || true
  printed=$(wc -l <"$BOOK.printed")
  [ "$printed" -lt "$LINES" ] || fail "cut $TRIALS: the start ended before the cut"

  while read -r id; do
    [ -e "$DIR/$id.status.json" ] || fail "cut $TRIALS: $id was printed and has no record after the cut"
  done <"$BOOK.printed"
  started=$("$BGTASK" --dir "$DIR" list --queue q --summary | sed -n 's/.*total=\([0-9]*\).*/\1/p')
  [ "$started" -ge "$printed" ] || fail "cut $TRIALS: $started records, $printed IDs printed"
  "$BGTASK" --dir "$DIR" list --queue q --json | jq -r '.[].command[1]' | sort -t- -k2n >"$BOOK.recorded"
  head -n "$started" "$WORK/lines" | cmp -s - "$BOOK.recorded" ||
    fail "cut $TRIALS: the $started tasks with a record are not the first lines"
  said=$(sed -n 's/.*go on with --resume \([0-9]*\).*/\1/p' "$BOOK.err")
  [ -z "$said" ] || [ "$said" -eq "$started" ] || fail "cut $TRIALS: the start said --resume $said, $started tasks have a record"

  "$BGTASK" --dir "$DIR" start --each-line "$WORK/lines" --resume "$started" --queue q -- echo {} >"$BOOK.resumed" ||
    fail "cut $TRIALS: the resumed start failed"
  "$BGTASK" --dir "$DIR" list --queue q --json | jq -r '.[].command[1]' | sort -t- -k2n >"$BOOK.all"
  cmp -s "$WORK/lines" "$BOOK.all" || fail "cut $TRIALS: after the resume, the lines and the tasks differ"
  cat "$BOOK.printed" "$BOOK.resumed" >"$BOOK.ids"
  [ "$CRASH_SCALE" = ci ] || check_invariants "$DIR" "$BOOK.ids" || fail "cut $TRIALS: invariants"
  echo "cut $TRIALS: after $printed printed IDs, $started records; resumed there" >&2
  rm -rf "$DIR"
done
crash_summary "cuts=$TRIALS lines=$LINES records_lost=0"
echo ok
