#!/usr/bin/env bash
# A Slurm job the OOM killer ends, on a cluster that enforces memory
# (task/cgroup with cgroup v1): the task is `failed` with reason `oom`,
# killed by signal 9, and `wait` exits 137, as Slurm's accounting says
# (the outcome file the wrapper writes says only "signal 9" and leaves it
# to Slurm). Skipped where this host has no writable cgroup v1 memory
# hierarchy. About 20 s.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
command -v perl >/dev/null || skip "perl (the command that fills memory) is not installed"
memory=/sys/fs/cgroup/memory
probe="$memory/bgtask-probe-$$"
[ "$(stat -fc %T "$memory" 2>/dev/null)" = cgroupfs ] && mkdir "$probe" 2>/dev/null && rmdir "$probe" ||
  skip "no writable cgroup v1 memory hierarchy at $memory, so Slurm cannot enforce memory here"
slurm_cluster 300 --cgroup
cd "$WORK"

echo "-- a job past its --memory-max"
oom=$(bg start --executor slurm --memory-max 50M -- perl -e '$x .= "x" x 1e6 while 1')
rc=0
bg wait --timeout 50s "$oom" >/dev/null 2>&1 || rc=$?
[ "$(field "$oom" .state)" = failed ] && [ "$(field "$oom" .reason)" = oom ] ||
  fail "the job past its memory: $(field "$oom" .state), reason $(field "$oom" .reason)"
[ "$(field "$oom" .signal)" = 9 ] || fail "signal $(field "$oom" .signal), not 9"
[ "$rc" -eq 137 ] || fail "wait exited $rc, not 137"
jq -e '.signal == 9' "$D/$oom.outcome.json" >/dev/null ||
  fail "the outcome file: $(cat "$D/$oom.outcome.json" 2>&1)"
echo "PASS"
