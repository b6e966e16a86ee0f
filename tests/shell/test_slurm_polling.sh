#!/usr/bin/env bash
# The slurm executor's polling budget: one `wait` on many tasks, some of
# them ending meanwhile (each end resets the backoff), makes at most 12
# Slurm client calls (squeue, sacct, scontrol) in a minute, counted with
# strace over a 55 s wait, never lets more than 15 s pass without one while
# it waits (the budget is not spent in a burst), and asks only about its
# own jobs. The short jobs die of a signal, so their outcome files leave
# their end to the controller. About 70 s.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
slurm_cluster 300 --cpus 16
cd "$WORK"

# Another user's job, which the answers must not carry.
stranger=$(sbatch --parsable -J someone-else --hold -o /dev/null <<<$'#!/bin/sh\ntrue')
ids=()
# Held jobs: they stay queued for the whole wait without taking CPUs.
for _ in $(seq 1 30); do
  ids+=("$(bg start --executor slurm --slurm-arg=--hold -- true)")
done
# Short jobs that end one after another, every 3 s for half a minute, each
# a change that starts the backoff over.
short=()
for k in $(seq 1 10); do
  short+=("$(bg start --executor slurm -- sh -c "sleep $((3 * k)); kill -TERM \$\$")")
done
ids+=("${short[@]}")

rc=0
timeout 120 strace -f -qq -ttt -s 65536 -e trace=execve -o "$WORK/trace" \
  "$BGTASK" --dir "$D" wait --timeout 55s "${ids[@]}" >/dev/null 2>"$WORK/wait.err" || rc=$?
end=$(date +%s.%N)
[ "$rc" -eq 4 ] || fail "wait --timeout on held tasks exited $rc: $(cat "$WORK/wait.err")"
# Successful execs only: execvp tries each directory of $PATH in turn.
grep -E 'execve\("[^"]*/(squeue|sacct|scontrol)".* = 0$' "$WORK/trace" >"$WORK/calls" || true
calls=$(grep -c . "$WORK/calls" || true)
echo "Slurm client calls during a 55 s wait on ${#ids[@]} tasks: $calls" >&2
[ "$calls" -le 12 ] || fail "$calls Slurm calls in 55 s (budget: 12 a minute): $(cat "$WORK/calls")"
[ "$calls" -ge 2 ] || fail "wait asked Slurm only $calls times"
# No blind window: held tasks stay unfinished, so calls never stop for long.
gap=$(awk '{ if (NR > 1 && $2 - last > most) most = $2 - last; last = $2 } END { printf "%.1f", most }' \
  "$WORK/calls")
start=$(awk 'NR == 1 { print $2 }' "$WORK/trace")
first=$(awk 'NR == 1 { print $2 }' "$WORK/calls")
last=$(awk 'END { print $2 }' "$WORK/calls")
echo "longest gap between Slurm calls: $gap s; first call after $(awk -v a="$start" -v b="$first" \
  'BEGIN { printf "%.1f", b - a }') s; last one $(awk -v a="$last" -v b="$end" \
  'BEGIN { printf "%.1f", b - a }') s before the wait ended" >&2
awk -v g="$gap" 'BEGIN { exit !(g <= 16) }' || fail "$gap s without a Slurm call: $(cat "$WORK/calls")"
awk -v a="$last" -v b="$end" 'BEGIN { exit !(b - a <= 16) }' ||
  fail "no Slurm call in the last $(awk -v a="$last" -v b="$end" 'BEGIN { print b - a }') s"
# Only about its own jobs, never every job of the cluster.
! grep -E '"scontrol", "show", "job"' "$WORK/calls" >/dev/null ||
  fail "asked for every job of the cluster"
asked=$(grep -oE '"-j", "[0-9,]+"' "$WORK/calls" | cut -d'"' -f4 | tr ',' '\n' | sort -u)
[ -n "$asked" ] || fail "squeue was not asked about particular jobs"
! grep -qx "$stranger" <<<"$asked" || fail "asked about a job that is not a waited task's"
# The polling still saw what happened.
for id in "${short[@]}"; do
  [ "$(field "$id" .state)" = failed ] && [ "$(field "$id" .signal)" = 15 ] ||
    fail "short task $id: $(field "$id" .state), signal $(field "$id" .signal)"
done
[ "$(field "${ids[0]}" .state)" = queued ] || fail "held task: $(field "${ids[0]}" .state)"
scancel "$stranger"
echo "PASS"
