#!/usr/bin/env bash
# A requeued job runs again under the same job id: its first run's outcome
# file must not settle the task while the second runs. The first run exits
# 5 and writes its file; `scontrol requeue` puts the job back; the second
# run removes that file before it starts the command, bgtask says the task
# runs, and the second run's own file (restart_count 1) settles it.
# About 2.5 minutes: Slurm holds a requeued job back for two.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
command -v perl >/dev/null || skip "perl (which writes the outcome files on the node) is not installed"
slurm_cluster 300
cd "$WORK"

echo "-- a requeued job: the first run's outcome file does not settle the second"
requeued=$(bg start --executor slurm --slurm-arg=--requeue -- sh -c \
  "[ \"\${SLURM_RESTART_COUNT:-0}\" -gt 0 ] || exit 5; until [ -e '$WORK/again' ]; do sleep 0.1; done")
job=$(slurm_job "$requeued")
until_job "$job" FAILED 60
[ -f "$D/$requeued.outcome.json" ] || fail "the first run wrote no outcome file"
scontrol requeue "$job"
# Slurm holds a requeued job back until the first run's credential
# expires (two minutes; BeginTime).
until_job "$job" RUNNING 240
deadline=$((SECONDS + 30))
while [ -f "$D/$requeued.outcome.json" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the second run left the first run's outcome file"
  sleep 0.1
done
state=$(bg status --json "$requeued" | jq -r '.[0].state')
[ "$state" = running ] || fail "the requeued task is $state while its second run runs"
touch "$WORK/again"
rc=0
bg wait --timeout 30s "$requeued" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 0 ] && [ "$(field "$requeued" .state)" = succeeded ] ||
  fail "requeued: wait exited $rc, $(field "$requeued" .state)"
grep -q '"restart_count":1,' "$D/$requeued.outcome.json" ||
  fail "the second run's file: $(cat "$D/$requeued.outcome.json")"
echo "PASS"
