#!/usr/bin/env bash
# Outcome files on a private cluster: the jobs write ID.outcome.json when
# their command ends, and bgtask takes their end from it.
# - N short jobs (BGTASK_OUTCOME_JOBS, default 50) ending within 10 s:
#   `wait --timeout 60s` returns 0 and every record is final (how soon
#   after the last file is printed here and measured by scripts/bench);
# - a file another user wrote, and a truncated one: refused, and the
#   task is settled by the controller all the same;
# - the controller hanging while a waiter waits: the files still end the
#   wait, which does not wait for its call to the controller;
# - the controller down while outcome files arrive: records become final
#   from the files alone, with no Slurm client call (strace).
# About a minute.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
command -v perl >/dev/null || skip "perl (which writes the outcome files on the node) is not installed"
jobs=${BGTASK_OUTCOME_JOBS:-50}
slurm_cluster 300 --cpus "$jobs"
cd "$WORK"
# Another user writes a claim below, in a folder of their own.
chmod 755 "$WORK"
mkdir -m 1777 "$WORK/shared"

echo "-- $jobs jobs ending within 10 s"
check_many_outcome_files "$jobs"

echo "-- an outcome file planted by another user is refused"
planted=$(bg start --executor slurm -- sh -c 'sleep 4; exit 3')
job=$(slurm_job "$planted")
until_job "$job" RUNNING 30
now=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
claim="{\"schema\":1,\"task\":\"$planted\",\"job_id\":\"$job\",\"job_name\":\"bgtask-$planted\",\
\"exit_code\":0,\"signal\":null,\"signals_received\":[],\"started_at\":\"$now\",\
\"finished_at\":\"$now\",\"node\":\"localhost\"}"
# bgtask refuses a task directory others can write, so the claim gets in
# the way a file system, an ACL or an administrator could put it there:
# moved in, keeping its owner.
runuser -u nobody -- sh -c "umask 077; printf '%s\n' '$claim' >'$WORK/shared/claim'"
mv "$WORK/shared/claim" "$D/$planted.outcome.json"
[ "$(stat -c %U "$D/$planted.outcome.json")" = nobody ] || fail "could not plant as nobody"
state=$(bg status --json "$planted" 2>"$WORK/planted.err" | jq -r '.[0].state')
[ "$state" = running ] || fail "a planted outcome file made the task $state"
grep -q "refused .*$planted.outcome.json (owned by uid" "$WORK/planted.err" ||
  fail "no word of the refused file: $(cat "$WORK/planted.err")"
rc=0
bg wait --timeout 30s "$planted" 2>/dev/null || rc=$?
[ "$rc" -eq 3 ] || fail "wait on the task with the planted file exited $rc"
[ "$(field "$planted" .state)" = failed ] && [ "$(field "$planted" .exit_code)" = 3 ] ||
  fail "planted: $(field "$planted" .state) / $(field "$planted" .exit_code)"

echo "-- a truncated outcome file is refused"
cut=$(bg start --executor slurm -- sh -c 'sleep 4; exit 4')
job=$(slurm_job "$cut")
until_job "$job" RUNNING 30
printf '%s' "${claim:0:60}" | sed "s/$planted/$cut/" >"$D/$cut.outcome.json"
chmod 600 "$D/$cut.outcome.json"
state=$(bg status --json "$cut" 2>"$WORK/cut.err" | jq -r '.[0].state')
[ "$state" = running ] || fail "a truncated outcome file made the task $state"
grep -q "refused .*$cut.outcome.json (not a complete JSON object)" "$WORK/cut.err" ||
  fail "no word of the truncated file: $(cat "$WORK/cut.err")"
rc=0
bg wait --timeout 30s "$cut" 2>/dev/null || rc=$?
[ "$rc" -eq 4 ] && [ "$(field "$cut" .state)" = failed ] ||
  fail "truncated: wait exited $rc, $(field "$cut" .state) / $(field "$cut" .exit_code)"

echo "-- the controller hangs while a waiter waits: the files still end the wait"
# The jobs end when told to, once the waiter's call to the stopped
# controller is under way. With BGTASK_SLURM_TIMEOUT far off, that call
# outlives the wait, which must not wait for it.
hung=()
for _ in 1 2 3; do
  hung+=("$(bg start --executor slurm -- sh -c "until [ -e '$WORK/go' ]; do sleep 0.1; done; exit 3")")
done
for id in "${hung[@]}"; do
  until_job "$(slurm_job "$id")" RUNNING 30
done
BGTASK_SLURM_TIMEOUT=600s timeout 120 "$BGTASK" --dir "$D" wait --timeout 100s "${hung[@]}" \
  >/dev/null 2>"$WORK/hung.err" &
waiter=$!
controller=$(daemon_pid slurmctld)
kill -STOP "$controller"
on_exit "kill -CONT $controller"
# squeue_of_waiter: the pid of a Slurm client the waiter runs, if any.
squeue_of_waiter() {
  local bgtask pid
  for bgtask in $(pgrep -P "$waiter"); do
    for pid in $(pgrep -P "$bgtask"); do
      case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
        squeue | sacct | scontrol) echo "$pid"; return 0 ;;
      esac
    done
  done
  return 1
}
# A call still running 2 s on is one the stopped controller holds up.
deadline=$((SECONDS + 60))
client=""
until [ -n "$client" ] && sleep 2 && kill -0 "$client" 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the waiter never called the stopped controller"
  client=$(squeue_of_waiter) || sleep 0.1
done
touch "$WORK/go"
rc=0
wait "$waiter" || rc=$?
alive=no
kill -0 "$client" 2>/dev/null && alive=yes
kill -CONT "$controller"
[ "$rc" -eq 3 ] || fail "the waiter exited $rc: $(cat "$WORK/hung.err")"
for id in "${hung[@]}"; do
  [ "$(field "$id" .state)" = failed ] && [ "$(field "$id" .exit_code)" = 3 ] ||
    fail "task $id: $(field "$id" .state) / $(field "$id" .exit_code), not failed / 3"
done
[ "$alive" = yes ] || fail "the waiter returned only after its call to the stopped controller ended"

echo "-- the controller down while outcome files arrive"
down=()
for k in 1 2 3 4 5; do
  down+=("$(bg start --executor slurm -- sh -c "sleep 3; exit $((k % 2))")")
done
for id in "${down[@]}"; do
  until_job "$(slurm_job "$id")" RUNNING 30
done
bg list >/dev/null # every record says running
stop_daemon slurmctld
for id in "${down[@]}"; do
  deadline=$((SECONDS + 30))
  until [ -f "$D/$id.outcome.json" ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "task $id wrote no outcome file with the controller down"
    sleep 0.2
  done
done
rc=0
timeout 60 strace -f -qq -e trace=execve -o "$WORK/down.trace" \
  "$BGTASK" --dir "$D" wait --timeout 20s "${down[@]}" >/dev/null 2>"$WORK/down.err" || rc=$?
[ "$rc" -eq 1 ] || fail "wait with the controller down exited $rc: $(cat "$WORK/down.err")"
calls=$(slurm_calls "$WORK/down.trace")
[ "$calls" -eq 0 ] || fail "$calls Slurm calls with every outcome written"
for k in 1 2 3 4 5; do
  id=${down[$((k - 1))]}
  want=$([ $((k % 2)) -eq 0 ] && echo succeeded || echo failed)
  [ "$(field "$id" .state)" = "$want" ] || fail "task $id: $(field "$id" .state), not $want"
done
echo "PASS"
