#!/usr/bin/env bash
# Outcome files on two nodes with real accounting (slurmdbd and MariaDB):
# N short jobs (BGTASK_OUTCOME_JOBS, default 50) spread over both nodes end
# within 10 s; `wait --timeout 60s` returns 0, every record is final, and
# the jobs ran on both nodes. About a minute.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
command -v perl >/dev/null || skip "perl (which writes the outcome files on the node) is not installed"
jobs=${BGTASK_OUTCOME_JOBS:-50}
slurm_cluster 300 --accounting --nodes 2 --cpus "$(((jobs + 1) / 2))"
cd "$WORK"

echo "-- $jobs jobs on two nodes ending within 10 s"
check_many_outcome_files "$jobs"
nodes=$(for id in "${OUTCOME_TASKS[@]}"; do jq -r .node "$D/$id.outcome.json"; done | sort -u |
  paste -sd' ')
[ "$nodes" = "n1 n2" ] || fail "the jobs ran on: $nodes (not n1 and n2)"
echo "PASS"
