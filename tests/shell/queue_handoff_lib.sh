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
