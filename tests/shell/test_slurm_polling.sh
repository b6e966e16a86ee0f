#!/usr/bin/env bash
# The slurm executor's polling budget: one `wait` on many tasks, some of
# them ending meanwhile (each end resets the backoff), makes at most 12
# Slurm client calls (squeue, sacct, scontrol) in a minute, counted with
# strace over a 55 s wait, and asks only about its own jobs. About 70 s.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
slurm_cluster 300
cd "$WORK"

# Another user's job, which the answers must not carry.
stranger=$(sbatch --parsable -J someone-else --hold -o /dev/null <<<$'#!/bin/sh\ntrue')
ids=()
# Held jobs: they stay queued for the whole wait without taking CPUs.
for _ in $(seq 1 30); do
  ids+=("$(bg start --executor slurm --slurm-arg=--hold -- true)")
done
# Short jobs, two at a time on two CPUs: they end one after another.
short=()
for _ in $(seq 1 6); do
  short+=("$(bg start --executor slurm -- sleep 3)")
done
ids+=("${short[@]}")

rc=0
timeout 120 strace -f -qq -s 65536 -e trace=execve -o "$WORK/trace" \
  "$BGTASK" --dir "$D" wait --timeout 55s "${ids[@]}" >/dev/null 2>"$WORK/wait.err" || rc=$?
[ "$rc" -eq 4 ] || fail "wait --timeout on held tasks exited $rc: $(cat "$WORK/wait.err")"
# Successful execs only: execvp tries each directory of $PATH in turn.
grep -E 'execve\("[^"]*/(squeue|sacct|scontrol)".* = 0$' "$WORK/trace" >"$WORK/calls" || true
calls=$(grep -c . "$WORK/calls" || true)
echo "Slurm client calls during a 55 s wait on ${#ids[@]} tasks: $calls" >&2
[ "$calls" -le 12 ] || fail "$calls Slurm calls in 55 s (budget: 12 a minute): $(cat "$WORK/calls")"
[ "$calls" -ge 2 ] || fail "wait asked Slurm only $calls times"
# Only about its own jobs, never every job of the cluster.
! grep -E '"scontrol", "show", "job"' "$WORK/calls" >/dev/null ||
  fail "asked for every job of the cluster"
asked=$(grep -oE '"-j", "[0-9,]+"' "$WORK/calls" | cut -d'"' -f4 | tr ',' '\n' | sort -u)
[ -n "$asked" ] || fail "squeue was not asked about particular jobs"
! grep -qx "$stranger" <<<"$asked" || fail "asked about a job that is not a waited task's"
# The polling still saw what happened.
for id in "${short[@]}"; do
  [ "$(field "$id" .state)" = succeeded ] || fail "short task $id: $(field "$id" .state)"
done
[ "$(field "${ids[0]}" .state)" = queued ] || fail "held task: $(field "${ids[0]}" .state)"
scancel "$stranger"
echo "PASS"
