#!/usr/bin/env bash
# Each signal Slurm sends a job reaches its command once, under the wrapper
# that writes the outcome file, as it did when the batch script exec'd the
# command: a command that counts the TERM and USR1 it receives gets
# - 1 TERM from `scancel` and 1 from the time limit (Slurm signals every
#   process of the job: the command has it from Slurm, not again from the
#   wrapper);
# - 1 USR1 from `scancel --full -s USR1` (every process, too), from
#   `scancel --batch -s USR1` and from `sbatch --signal=B:USR1@T` (the
#   batch shell alone: the wrapper passes it on);
# - none from `scancel -s USR1` (job steps only, never the batch step).
# About 70-100 s (a time limit is a whole minute).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
command -v perl >/dev/null || skip "perl (the node's wrapper) is not installed"
slurm_cluster 300 --cpus 8
cd "$WORK"

cat >"$WORK/counter" <<'SH'
#!/bin/bash
# counter FILE: writes a line to FILE for each TERM and USR1 it receives
# and runs until it is killed.
trap 'echo TERM >>"$1"' TERM
trap 'echo USR1 >>"$1"' USR1
echo ready >>"$1"
while :; do
  sleep 0.2 &
  wait $!
done
SH
chmod 755 "$WORK/counter"

# count CASE SIGNAL: how many SIGNAL the counter of CASE received.
count() { grep -cx "$2" "$WORK/$1.count" || true; }
# expect CASE SIGNAL N
expect() {
  local got
  got=$(count "$1" "$2")
  [ "$got" -eq "$3" ] || fail "$1: the command received $2 $got times, not $3 ($(paste -sd' ' "$WORK/$1.count"))"
  echo "$1: $2 $got" >&2
}

declare -A task job
start_case() {
  local name=$1
  shift
  task[$name]=$(bg start --executor slurm "$@" -- "$WORK/counter" "$WORK/$name.count")
}
start_case cancel
start_case usr1
start_case batch
start_case full
start_case limit --slurm-arg=--time=1
# Slurm looks for jobs to warn every 30 s or so: 50 s before a one-minute
# limit is 10 to 40 s into the job.
start_case warn --slurm-arg=--time=1 --slurm-arg=--signal=B:USR1@50
for name in "${!task[@]}"; do
  job[$name]=$(slurm_job "${task[$name]}")
  until_job "${job[$name]}" RUNNING 30
  deadline=$((SECONDS + 30))
  until grep -qx ready "$WORK/$name.count" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || fail "the counter of $name never started"
    sleep 0.1
  done
done

echo "-- scancel, and scancel -s USR1 with no flag, --batch and --full"
scancel "${job[cancel]}"
scancel -s USR1 "${job[usr1]}"
scancel --batch -s USR1 "${job[batch]}"
scancel --full -s USR1 "${job[full]}"
# The wrapper waits up to about 1 s before it passes a signal on, and the
# cluster's KillWait is 2 s: a second delivery would be here by then.
sleep 4
expect cancel TERM 1
expect usr1 USR1 0
expect batch USR1 1
expect full USR1 1
for name in usr1 batch full; do
  scancel "${job[$name]}"
done
sleep 4
for name in usr1 batch full; do
  expect "$name" TERM 1
done

echo "-- the time limit, and --signal=B:USR1 before it"
rc=0
timeout 200 "$BGTASK" --dir "$D" wait --timeout 150s "${task[limit]}" "${task[warn]}" \
  >/dev/null 2>&1 || rc=$?
[ "$(field "${task[limit]}" .state)" = timed_out ] ||
  fail "the job with a time limit ended $(field "${task[limit]}" .state) (wait exited $rc)"
sleep 3
expect limit TERM 1
expect warn USR1 1
expect warn TERM 1
echo "PASS"
