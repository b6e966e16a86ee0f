#!/usr/bin/env bash
# The slurm executor's --after (Slurm's own afterok dependency) and Slurm's
# pending reasons in status, list --wide and JSON, against a real
# single-node cluster. About 30 s.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
slurm_cluster 300
cd "$WORK"

expect_usage() {
  local rc=0
  bg "$@" >/dev/null 2>"$WORK/usage.err" || rc=$?
  [ "$rc" -eq 2 ] || fail "bgtask $* exited $rc, expected 2 ($(cat "$WORK/usage.err"))"
}

echo "-- --after: the dependent job waits in Slurm for its dependency's success"
first=$(bg start --executor slurm -c 'sleep 3; echo first done')
second=$(bg start --executor slurm --after "$first" -c 'echo second ran')
job=$(slurm_job "$second")
until_job "$job" PENDING
grep -q "Dependency=afterok:$(slurm_job "$first")" <<<"$(scontrol show job -o "$job")" ||
  fail "no afterok dependency on the job: $(scontrol show job -o "$job")"
[ "$(bg status --json "$second" | jq -r '.[0].state')" = queued ] || fail "the dependent task is not queued"
bg wait "$second" >/dev/null || fail "wait on the dependent task exited $?"
[ "$(field "$second" .state)" = succeeded ] || fail "dependent state $(field "$second" .state)"
first_end=$(bg status --json "$first" | jq -r '.[0].finished_at')
second_start=$(field "$second" .started_at)
[[ "$second_start" > "$first_end" || "$second_start" == "$first_end" ]] ||
  fail "the dependent task started ($second_start) before its dependency ended ($first_end)"
grep -qx "second ran" "$D/$second.output" || fail "dependent output: $(cat "$D/$second.output")"

echo "-- --after: a dependency that fails ends the dependent task, which never runs"
failing=$(bg start --executor slurm -c 'sleep 2; exit 3')
never=$(bg start --executor slurm --after "$failing" -c 'echo must not run')
rc=0
bg wait "$never" >/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "wait on a task whose dependency failed gave $rc"
[ "$(field "$never" .state)" = failed ] || fail "state $(field "$never" .state)"
grep -q "dependency did not succeed" <<<"$(field "$never" .error)" || fail "reason: $(field "$never" .error)"
[ "$(field "$never" .started_at)" = null ] || fail "a task whose dependency failed has a start time"
[ ! -s "$D/$never.output" ] || fail "the dependent command ran: $(cat "$D/$never.output")"
[ "$(bg status --json "$failing" | jq -r '.[0].exit_code')" = 3 ] || fail "the dependency: $(field "$failing" .exit_code)"

echo "-- --after an already failed task: failed at once, nothing submitted"
late=$(bg start --executor slurm --after "$failing" -- true)
[ "$(field "$late" .state)" = failed ] || fail "state $(field "$late" .state)"
[ "$(field "$late" .slurm)" = null ] || fail "a job was submitted: $(field "$late" .slurm)"
grep -q "dependency $failing did not succeed" <<<"$(field "$late" .error)" || fail "reason: $(field "$late" .error)"

echo "-- --after a local task, or a mix: refused (exit 2), nothing recorded"
local_task=$(bg start -- true)
before=$(ls "$D" | grep -c '\.status\.json$')
expect_usage start --executor slurm --after "$local_task" -- true
grep -q "runs locally" "$WORK/usage.err" || fail "message: $(cat "$WORK/usage.err")"
expect_usage start --executor slurm --after "$first,$local_task" -- true
expect_usage start --executor slurm --after "$first" --slurm-arg=--dependency=afterany:1 -- true
[ "$(ls "$D" | grep -c '\.status\.json$')" -eq "$before" ] || fail "a refused start left a record"

echo "-- pending reasons: held, then released"
held=$(bg start --executor slurm --name held-one --slurm-arg=--hold -- true)
until_job "$(slurm_job "$held")" PENDING
status=$(bg status "$held")
grep -q "pending: JobHeldUser" <<<"$status" || fail "status does not show the hold: $status"
[ "$(bg status --json "$held" | jq -r '.[0].slurm.pending_reason')" = JobHeldUser ] ||
  fail "JSON: $(bg status --json "$held")"
grep -q "^$held  queued (JobHeldUser)" <<<"$(bg list --wide)" || fail "list --wide: $(bg list --wide)"
grep -q "^$held  queued  " <<<"$(bg list)" || fail "plain list: $(bg list)"
scontrol release "$(slurm_job "$held")"
bg wait "$held" >/dev/null || fail "the released task: wait exited $?"
[ "$(field "$held" .slurm.pending_reason)" = null ] || fail "a finished task keeps a pending reason"

echo "-- pending reasons: the partition is down"
scontrol update PartitionName=debug State=DOWN
down=$(bg start --executor slurm -- true)
until_job "$(slurm_job "$down")" PENDING
deadline=$((SECONDS + 30))
while [ "$(bg status --json "$down" | jq -r '.[0].slurm.pending_reason')" != PartitionDown ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "no PartitionDown: $(scontrol show job -o "$(slurm_job "$down")")"
  sleep 0.5
done
scontrol update PartitionName=debug State=UP
bg wait "$down" >/dev/null || fail "the task after the partition came back: wait exited $?"

echo "PASS"
