#!/usr/bin/env bash
# The slurm executor's job arrays, job names, --memory-max, --after,
# pending reasons and a node that dies, on two nodes with real accounting
# (scripts/slurm-up --accounting --nodes 2, MinJobAge=2, so finished jobs
# are looked up in sacct): `start --array` makes one job array and a task
# per element, spread over both nodes, each with its own outcome and output;
# cancelling one element (pending, running) and the whole array (--name);
# squeue shows a task's --name next to its ID; --memory-max becomes sbatch
# --mem; --after is Slurm's own afterok dependency (a failed dependency
# ends the dependent task failed; local dependencies are refused); Slurm's
# pending reasons (held, PartitionDown) in status, list's INFO and JSON; a
# job whose node is killed ends failed (NODE_FAIL), or queued again where
# Slurm may requeue it. About a minute.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
slurm_cluster 2 --accounting --nodes 2
cd "$WORK"

# states IDS...: each task's state (exit code or signal), one line each.
states() {
  local id
  for id in "$@"; do
    bg status --json "$id" | jq -r '.[0] | .state + " " + ((.exit_code // .signal // "-") | tostring)'
  done
}
# until_all STATE SECONDS IDS...: waits until every task is in STATE.
until_all() {
  local state=$1 deadline=$((SECONDS + $2)) seen
  shift 2
  while [ "$SECONDS" -lt "$deadline" ]; do
    seen=$(states "$@" | awk '{ print $1 }' | sort | uniq -c | paste -sd' ')
    [ "$seen" = "$(printf '%7d %s' $# "$state")" ] && return 0
    sleep 0.5
  done
  fail "not all of $* reached $state: $seen"
}

echo "-- refused: a local --array's %N, --memory-max with --mem"
rc=0
err=$(bg start --array 1-3%2 -- true 2>&1) || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--array's %N needs --executor slurm" <<<"$err" || fail "local --array %N: rc $rc: $err"
rc=0
err=$(bg start --executor slurm --memory-max 1G --slurm-arg=--mem=2G -- true 2>&1) || rc=$?
[ "$rc" -eq 2 ] && grep -q "bgtask sets --mem itself" <<<"$err" || fail "--memory-max with --mem: rc $rc: $err"
[ -z "$(ls "$D")" ] || fail "a refused start left files: $(ls "$D")"

echo "-- an array: one job, a task per element over both nodes, each its own outcome"
ids=$(bg start --executor slurm --array 1-6 --name sweep -- sh -c \
  'echo "index $BGTASK_ARRAY_INDEX $SLURM_ARRAY_TASK_ID $BGTASK_ID on $SLURMD_NODENAME"; sleep 1
   [ "$BGTASK_ARRAY_INDEX" != 4 ] || exit 3')
mapfile -t sweep <<<"$ids"
[ "${#sweep[@]}" -eq 6 ] || fail "start printed ${#sweep[@]} IDs: $ids"
[ "$(printf '%s\n' "${sweep[@]}" | sort)" = "$ids" ] || fail "IDs not in index order: $ids"
array=$(slurm_job "${sweep[0]}")
array=${array%_1}
for i in 1 2 3 4 5 6; do
  id=${sweep[$((i - 1))]}
  [ "$(slurm_job "$id")" = "${array}_$i" ] || fail "element $i has job $(slurm_job "$id"), not ${array}_$i"
  [ "$(field "$id" .slurm.array_index)" = "$i" ] || fail "element $i: array_index $(field "$id" .slurm.array_index)"
  [ "$(field "$id" .slurm.job_name)" = "sweep-bgtask-array-${sweep[0]}" ] ||
    fail "element $i: job name $(field "$id" .slurm.job_name)"
done
rc=0
bg wait --name sweep >/dev/null || rc=$?
[ "$rc" -ne 0 ] || fail "wait on the array exited 0 with a failed element"
[ "$(states "${sweep[@]}" | paste -sd,)" = \
  "succeeded 0,succeeded 0,succeeded 0,failed 3,succeeded 0,succeeded 0" ] ||
  fail "element outcomes: $(states "${sweep[@]}" | paste -sd,)"
nodes=""
for i in 1 2 3 4 5 6; do
  id=${sweep[$((i - 1))]}
  line=$(cat "$D/$id.output")
  [[ "$line" =~ ^"index $i $i $id on "(n[12])$ ]] || fail "element $i printed: $line"
  nodes+="${BASH_REMATCH[1]}"$'\n'
done
[ "$(printf "%s" "$nodes" | sort -u | paste -sd,)" = "n1,n2" ] || fail "elements ran only on: $nodes"
# One submission: the controller took one batch job (the array) for all six.
[ "$(grep -c _slurm_rpc_submit_batch_job "$CLUSTER/log/slurmctld.log")" -eq 1 ] ||
  fail "submissions: $(grep _slurm_rpc_submit_batch_job "$CLUSTER/log/slurmctld.log")"

echo "-- names: squeue shows the --name next to the bgtask ID"
named=$(bg start --executor slurm --name 'train run,v2' -- sleep 300)
until_task "$named" running
squeue_line=$(squeue --me -h -O JobID:20,Name:100 | grep -E "^$(slurm_job "$named") ")
[ "$(awk '{ print $2 }' <<<"$squeue_line")" = "train_run_v2-bgtask-$named" ] ||
  fail "squeue -O Name: $squeue_line"
# squeue's default NAME column is 8 characters: the name comes first.
[ "$(squeue --me | awk -v j="$(slurm_job "$named")" '$1 == j { print $3 }')" = train_ru ] ||
  fail "squeue --me: $(squeue --me)"

echo "-- cancel a pending and a running element, then the whole array by its name"
ids=$(bg start --executor slurm --array 1-4 --name held -- sleep 300)
mapfile -t held <<<"$ids"
held_array=$(slurm_job "${held[0]}")
held_array=${held_array%_1}
# One node runs `named`: one element runs, the others wait.
until_task "${held[0]}" running
until_job "$(slurm_job "${held[2]}")" PENDING
[ "$(bg cancel "${held[2]}")" = "${held[2]} cancelled" ] || fail "cancel of a pending element"
[ "$(states "${held[2]}")" = "cancelled -" ] || fail "pending element: $(states "${held[2]}")"
[ "$(states "${held[0]}" "${held[1]}" "${held[3]}" | awk '{ print $1 }' | paste -sd,)" = \
  "running,queued,queued" ] || fail "the other elements: $(states "${held[@]}" | paste -sd,)"
[ "$(squeue -h -r -j "$held_array" -O State:20 | grep -c PENDING)" -eq 2 ] ||
  fail "cancelling one pending element touched the others: $(squeue -h -r -t all -j "$held_array")"
[ "$(bg cancel "${held[0]}")" = "${held[0]} cancelled" ] || fail "cancel of a running element"
[ "$(states "${held[0]}")" = "cancelled 15" ] || fail "running element: $(states "${held[0]}")"
bg cancel --name held >/dev/null
[ "$(states "${held[@]}" | awk '{ print $1 }' | sort -u)" = cancelled ] ||
  fail "after cancelling the array: $(states "${held[@]}" | paste -sd,)"
[ "$(squeue -h -r -j "$held_array" -O State:20 | grep -cE 'PENDING|RUNNING')" -eq 0 ] ||
  fail "the array still has live elements: $(squeue -h -r -t all -j "$held_array")"
bg cancel "$named" >/dev/null

echo "-- --memory-max becomes sbatch --mem"
mem=$(bg start --executor slurm --memory-max 100M -- sleep 2)
grep -q 'MinMemoryNode=100M' <<<"$(scontrol show job -o "$(slurm_job "$mem")")" ||
  fail "no --mem=100M: $(scontrol show job -o "$(slurm_job "$mem")")"
[ "$(field "$mem" .options.limits.memory_max)" = 104857600 ] || fail "limit not recorded"
rc=0
big=$(bg start --executor slurm --memory-max 100G -- true 2>"$WORK/err") || rc=$?
[ "$rc" -eq 1 ] && [ "$(field "$big" .state)" = failed ] && grep -q "Memory specification" "$WORK/err" ||
  fail "--memory-max 100G: rc $rc, $(cat "$WORK/err")"
bg wait "$mem" >/dev/null || fail "the --memory-max task failed: $(states "$mem")"

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
grep -q "dependency.* did not succeed" <<<"$(field "$never" .error)" || fail "reason: $(field "$never" .error)"
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
hold=$(bg start --executor slurm --name held-one --slurm-arg=--hold -- true)
until_job "$(slurm_job "$hold")" PENDING
status=$(bg status "$hold")
grep -q "pending: JobHeldUser" <<<"$status" || fail "status does not show the hold: $status"
[ "$(bg status --json "$hold" | jq -r '.[0].slurm.pending_reason')" = JobHeldUser ] ||
  fail "JSON: $(bg status --json "$hold")"
grep -q "^$hold  queued .*slurm: JobHeldUser" <<<"$(bg list --wide)" || fail "list --wide: $(bg list --wide)"
grep -q "^$hold  queued  " <<<"$(bg list)" || fail "plain list: $(bg list)"
scontrol release "$(slurm_job "$hold")"
bg wait "$hold" >/dev/null || fail "the released task: wait exited $?"
[ "$(field "$hold" .slurm.pending_reason)" = null ] || fail "a finished task keeps a pending reason"

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

echo "-- nodes killed during tasks: failed (NODE_FAIL), or queued again where Slurm may requeue"
victim=$(bg start --executor slurm --slurm-arg=--nodelist=n2 --slurm-arg=--no-requeue -- sleep 300)
again=$(bg start --executor slurm --slurm-arg=--nodelist=n1 --slurm-arg=--requeue -- sleep 300)
until_task "$victim" running
until_task "$again" running
# Both nodes die: their slurmd are killed, and the controller declares them
# down (as it would after SlurmdTimeout).
for node in n1 n2; do
  kill -KILL "$(daemon_pid "slurmd-$node")"
  scontrol update nodename="$node" state=down reason="killed by the test"
done
until_task "$victim" failed 60
grep -q "NODE_FAIL: a node of the job (n2) failed" <<<"$(field "$victim" .error)" ||
  fail "victim's reason: $(field "$victim" .error)"
[ "$(field "$victim" .exit_code)" = null ] || fail "a node failure recorded an exit code"
rc=0
bg wait "$victim" >/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "wait on the node failure exited $rc"
# Requeued by Slurm: pending again (it holds requeued jobs back for a while), not running.
until_task "$again" queued 60
[ "$(bg status --json "$again" | jq -r '[.[0].events[].kind] | index("requeued") != null')" = true ] ||
  fail "no requeued event: $(bg status --json "$again" | jq -c '.[0].events')"
bg cancel "$again" >/dev/null
echo "OK"
