#!/usr/bin/env bash
# The slurm executor on a cluster with real accounting (MariaDB + slurmdbd,
# scripts/slurm-up --accounting) and two nodes, the controller forgetting
# finished jobs after MinJobAge=2: outcomes come from `sacct`; a job that
# ends while slurmdbd is down, or while MariaDB is down, gets its real
# outcome once they are back instead of `lost`; after the controller's
# state is wiped and its job ids are reused by other jobs, the tasks' own
# jobs (finished, running and pending then) are still found (`sacct
# --duplicates`, by name); tasks spread over
# both nodes; a task whose --after dependency failed ends failed even when
# only accounting knows its job (which keeps no DependencyNeverSatisfied);
# a timed-out task's reason names Slurm's limit from accounting too. One
# cluster for all cases; about 2 minutes, most of it waiting for the
# controller's purge and for the time limit (at least a minute).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
slurm_cluster 2 --accounting --nodes 2
cd "$WORK"
[ "$(scontrol show config | awk '$1 == "AccountingStorageType" { print $3 }')" = \
  accounting_storage/slurmdbd ] || fail "the cluster has no slurmdbd accounting"

# outcome ID: state and exit code (or signal) as bgtask reports them now.
outcome() {
  bg status --json "$1" 2>/dev/null |
    jq -r '.[0] | .state + " " + ((.exit_code // "-") | tostring) + " " + ((.signal // "-") | tostring)'
}
# until_outcome ID "STATE CODE SIGNAL" SECONDS: waits for bgtask to report it.
until_outcome() {
  local deadline=$((SECONDS + $3)) seen
  while [ "$SECONDS" -lt "$deadline" ]; do
    seen=$(outcome "$1")
    [ "$seen" = "$2" ] && return 0
    case "$seen" in lost*) fail "task $1 became lost while waiting for '$2'" ;; esac
    sleep 1
  done
  fail "task $1 never reached '$2' (last: $seen)"
}

# until_ended JOB [SECONDS]: waits for the job to end (or to be purged
# already: MinJobAge=2).
until_ended() {
  local deadline=$((SECONDS + ${2:-60})) state
  while [ "$SECONDS" -lt "$deadline" ]; do
    state=$(job_state "$1")
    case "$state" in COMPLETED | FAILED | CANCELLED | TIMEOUT | purged) return 0 ;; esac
    sleep 0.2
  done
  fail "Slurm job $1 never ended (last: $state)"
}

echo "-- tasks on both nodes; plain outcomes once the controller has forgotten them"
ok=$(bg start --executor slurm -c 'sleep 2; hostname >/dev/null')
three=$(bg start --executor slurm -c 'sleep 2; exit 3')
# Runs into Slurm's time limit (--timeout 5s becomes 1 minute, enforced within
# 30 s more) meanwhile, on the first node the two above leave; nothing asks
# about it until the controller has forgotten it, so that accounting answers.
limited=$(bg start --executor slurm --timeout 5s -- sleep 300)
killed=$(bg start --executor slurm -c 'sleep 2; kill -KILL $$')
# Cancelled by Slurm once its dependency fails (--kill-on-invalid-dep), never run.
failing=$(bg start --executor slurm -c 'sleep 2; exit 3')
never=$(bg start --executor slurm --after "$failing" -c 'echo must not run')
until_ended "$(slurm_job "$killed")"
deadline=$((SECONDS + 60))
until [ "$(sacct -n -X -P -j "$(slurm_job "$ok"),$(slurm_job "$three")" -o NodeList 2>/dev/null |
  sort -u | paste -sd,)" = "n1,n2" ]; do
  [ "$SECONDS" -lt "$deadline" ] ||
    fail "the tasks did not spread over both nodes: $(sacct -X -j "$(slurm_job "$ok"),$(slurm_job "$three")")"
  sleep 0.5
done

echo "-- a job that ends while slurmdbd is down"
during_dbd=$(bg start --executor slurm -c 'sleep 3; exit 4')
until_task "$during_dbd" running 60
stop_daemon slurmdbd
until_ended "$(slurm_job "$during_dbd")"
# As for a node without perl: no outcome file, so that only accounting tells.
rm "$D/$during_dbd.outcome.json"

echo "-- the controller forgets them all (MinJobAge=2, purged within a minute or so)"
for task in "$ok" "$three" "$killed" "$during_dbd" "$failing" "$never"; do
  until_job "$(slurm_job "$task")" purged 150
done
# Accounting is unreachable: records stay as they were, nothing is lost.
rc=0
BGTASK_SLURM_TIMEOUT=5s bg status --json "$during_dbd" >"$WORK/down.json" 2>"$WORK/down.err" || rc=$?
[ "$rc" -eq 0 ] || fail "status with slurmdbd down exited $rc"
[ "$(jq -r '.[0].state' "$WORK/down.json")" = running ] || fail "with slurmdbd down: $(cat "$WORK/down.json")"
grep -q "accounting did not answer" "$WORK/down.err" || fail "no warning: $(cat "$WORK/down.err")"
/usr/sbin/slurmdbd
# Right after its return accounting may not have the job yet: not lost.
first=$(outcome "$during_dbd")
case "$first" in lost*) fail "lost right after slurmdbd came back: $first" ;; esac
until_outcome "$during_dbd" "failed 4 -" 90
until_outcome "$ok" "succeeded 0 -" 30
until_outcome "$three" "failed 3 -" 30
until_outcome "$killed" "failed - 9" 30
# Accounting says CANCELLED (reason `Dependency`) for the job that never ran:
# the dependency's record, not yet reconciled, tells why.
until_outcome "$never" "failed - -" 30
grep -q "dependency $failing did not succeed" <<<"$(field "$never" .error)" ||
  fail "reason: $(field "$never" .error)"
[ "$(field "$never" .started_at)" = null ] || fail "a task whose dependency failed has a start time"
[ ! -s "$D/$never.output" ] || fail "the dependent command ran: $(cat "$D/$never.output")"
[ "$(field "$failing" .state) $(field "$failing" .exit_code)" = "failed 3" ] ||
  fail "the dependency: $(outcome "$failing")"

echo "-- a job that ends while MariaDB is down"
during_db=$(bg start --executor slurm -c 'sleep 3; exit 6')
until_task "$during_db" running 60
stop_daemon mariadbd
until_ended "$(slurm_job "$during_db")"
until_job "$(slurm_job "$during_db")" purged 150
"$CLUSTER/etc/start-mariadbd"
deadline=$((SECONDS + 30))
until timeout 10 mariadb-admin --no-defaults --socket="$CLUSTER/run/mysql.sock" ping >/dev/null 2>&1; do
  [ "$SECONDS" -lt "$deadline" ] || fail "MariaDB did not come back"
  sleep 0.2
done
until_outcome "$during_db" "failed 6 -" 120

echo "-- job ids reused after the controller's state is wiped"
# The time-limited job ends first, so that the wipe forgets it as well.
until_ended "$(slurm_job "$limited")" 150
running=$(bg start --executor slurm -- sleep 300)
pending=$(bg start --executor slurm --slurm-arg=--hold -- true)
finished=$(bg start --executor slurm -c 'exit 9')
until_task "$running" running 60
until_ended "$(slurm_job "$finished")"
reused_id=$(slurm_job "$finished")
# As at a site: accounting has the jobs' records before the controller's state goes.
# accounted TASK: the job's row in accounting, by the task's job name.
accounted() {
  sacct -n -X -P -D -j "$(slurm_job "$1")" -o JobName,State,ExitCode 2>/dev/null | grep "^bgtask-$1|" || true
}
deadline=$((SECONDS + 60))
until [ "$(accounted "$finished")" = "bgtask-$finished|FAILED|9:0" ] &&
  [ "$(accounted "$limited")" = "bgtask-$limited|TIMEOUT|0:0" ] &&
  [ "$(accounted "$running")" = "bgtask-$running|RUNNING|0:0" ] &&
  [ "$(accounted "$pending")" = "bgtask-$pending|PENDING|0:0" ]; do
  [ "$SECONDS" -lt "$deadline" ] ||
    fail "accounting never recorded the jobs: $(sacct -D -X -j "$(slurm_job "$running"),$(slurm_job "$pending"),$reused_id,$(slurm_job "$limited")")"
  sleep 0.5
done
stop_daemon slurmctld
rm -rf "$CLUSTER/state"/*
/usr/sbin/slurmctld
deadline=$((SECONDS + 60))
while [ "$(sinfo -h -N -o %T 2>/dev/null | grep -cx idle)" -ne 2 ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the nodes did not come back after the wipe: $(sinfo -N)"
  sleep 0.5
done
# Other jobs take the ids again, from 1, up to the tasks'.
newest=0
deadline=$((SECONDS + 60))
while [ "$newest" -lt "$reused_id" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "job ids did not reach $reused_id in 60 s (last: $newest)"
  newest=$(sbatch --parsable -J someone-else -o /dev/null <<<$'#!/bin/sh\ntrue') ||
    fail "sbatch failed after the wipe"
done
[ "$newest" -eq "$reused_id" ] || fail "job id $reused_id was not reused (got $newest)"
until_ended "$reused_id"
until_outcome "$finished" "failed 9 -" 60
# Found in accounting by its name (another job has its id now), with
# Slurm's own limit in the reason.
until_outcome "$limited" "timed_out - 15" 60
grep -q "TimeLimit=00:01:00" <<<"$(field "$limited" .error)" || fail "reason: $(field "$limited" .error)"
# The controller that lost them tells accounting that the running and the
# pending job were cancelled: their tasks say so, not lost.
until_outcome "$running" "cancelled - 15" 60
until_outcome "$pending" "cancelled - -" 60
echo "PASS"
