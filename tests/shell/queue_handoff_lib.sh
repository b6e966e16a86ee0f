# Helpers of the hand-off tests (sourced after lib.sh): tasks that log when
# their command starts and ends, and the checks of the queue invariants.

# logged_command NAME: a command line that appends "start NS" and "end NS"
# lines to $WORK/log/NAME (nanoseconds since the epoch) around a short
# sleep; a cancelled one writes its end line too.
mkdir -p "$WORK/log"
logged_command() {
  local log="'$WORK/log/$1'"
  echo "trap 'echo end \$(date +%s%N) >>$log; exit 143' TERM; echo start \$(date +%s%N) >>$log; sleep 0.05 & wait \$!; echo end \$(date +%s%N) >>$log"
}

# runs_of NAME: how many times the command of NAME started.
runs_of() { grep -c '^start' "$WORK/log/$1" 2>/dev/null || echo 0; }

# most_at_once NAMES...: the most commands among NAMES that ran at the same
# time, from their start and end lines.
most_at_once() {
  local name
  for name in "$@"; do
    [ -e "$WORK/log/$name" ] && cat "$WORK/log/$name"
  done | sort -k2,2n -k1,1r | awk '$1 == "start" { n++; if (n > m) m = n } $1 == "end" { n-- } END { print m + 0 }'
}

# first_of KIND NAME: the first start or end time of NAME.
first_of() { awk -v k="$1" '$1 == k { print $2; exit }' "$WORK/log/$2"; }

# check_storm_outcome SLOTS NAMES...: after a storm on one queue of SLOTS
# slots in $D, each command among NAMES ran at most once, no task is left
# queued or running, at most SLOTS ran at once and `.parked` is empty. Sets
# $most to the most that ran at once.
check_storm_outcome() {
  local slots=$1 name unfinished
  shift
  for name in "$@"; do
    [ "$(runs_of "$name")" -le 1 ] || fail "$name ran $(runs_of "$name") times"
  done
  unfinished=$(bg list --json | jq '[.[] | select(.state == "queued" or .state == "running")] | length')
  [ "$unfinished" -eq 0 ] || fail "$unfinished tasks never ended: $(bg list)"
  most=$(most_at_once "$@")
  [ "$most" -le "$slots" ] || fail "$most tasks of a $slots-slot queue ran at once"
  [ -z "$(ls -A "$D/.parked" | grep -vxF .looked)" ] || fail ".parked still holds $(ls -A "$D/.parked")"
}
