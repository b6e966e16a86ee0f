#!/usr/bin/env bash
# The slurm executor when the controller forgets or fails: jobs purged from
# the controller (MinJobAge=2) are found again through `sacct -c` (as root)
# and by reading the jobcomp log (as a user who may not run `sacct -c`); a
# job nobody knows is lost; a job id reused by another job is not taken for
# the task's; with the controller stopped, records stay as they were, with a
# warning and no hang beyond the client timeout; once it is back, cancel
# works. About 70 s, most of it waiting for the controller's purge (every
# 60 s).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_lib.sh"
slurm_cluster 2
cd "$WORK"

# A task directory and a copy of the binary for an unprivileged user.
as_user=""
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
  as_user=nobody
  # Under $WORK, so that it goes with it; the user may only traverse $WORK.
  chmod 711 "$WORK"
  user_dir="$WORK/user"
  mkdir -m 755 "$user_dir"
  cp "$BGTASK" "$user_dir/bgtask"
  mkdir -m 700 "$user_dir/tasks"
  chown nobody "$user_dir/tasks"
  user_bg() { runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" timeout 60 "$user_dir/bgtask" --dir "$user_dir/tasks" "$@"; }
else
  echo "NOTE: no user nobody or no runuser: the unprivileged jobcomp test is left out" >&2
fi

echo "-- jobs that finish and are purged before bgtask looks at them"
done_ok=$(bg start --executor slurm -- true)
done_failed=$(bg start --executor slurm -- sh -c 'exit 3')
survivor=$(bg start --executor slurm -- sleep 300)
if [ -n "$as_user" ]; then
  user_task=$(user_bg start --executor slurm --cwd /tmp -- sh -c 'echo from a user; exit 5')
  user_job=$(runuser -u nobody -- jq -r .slurm.job_id "$user_dir/tasks/$user_task.status.json")
fi
# Not through bgtask, which would record the outcome before the purge.
until_job "$(slurm_job "$done_ok")" purged 150
until_job "$(slurm_job "$done_failed")" purged 30
[ -z "$as_user" ] || until_job "$user_job" purged 30

records=$(bg status --json "$done_ok" "$done_failed")
[ "$(jq -r '.[0].state + " " + (.[0].exit_code | tostring)' <<<"$records")" = "succeeded 0" ] ||
  fail "purged success: $records"
[ "$(jq -r '.[1].state + " " + (.[1].exit_code | tostring)' <<<"$records")" = "failed 3" ] ||
  fail "purged failure: $records"
if [ -n "$as_user" ]; then
  rc=0
  user_bg wait "$user_task" || rc=$?
  [ "$rc" -eq 5 ] || fail "the user's purged job: wait gave $rc"
fi

echo "-- a job neither the controller nor accounting knows is lost"
# Records pointing at a job id nobody has, and at a live job of another task.
bg start --executor slurm --slurm-arg=--hold -- true >/dev/null # any record to copy
forge() {
  local id=$1 job=$2 existing source
  existing=("$D"/*.status.json)
  source=${existing[0]##*/}
  jq -c --arg id "$id" --arg job "$job" '.id = $id | .slurm.job_id = $job | .state = "running"' \
    "$D/$source" >"$D/$id.status.json"
  chmod 600 "$D/$id.status.json"
  # Every task has its lock file; a record without one is a task being removed.
  install -m 600 /dev/null "$D/$id.lock"
}
forge 2aaaaaaaaaaa 424242
forge 2aaaaaaaaaab "$(slurm_job "$survivor")"
# Not at once: accounting may be briefly incomplete (a grace period).
export BGTASK_SLURM_LOST_AFTER=3s
records=$(bg status --json 2aaaaaaaaaaa 2aaaaaaaaaab "$survivor")
[ "$(jq -r '.[0].state + " " + .[1].state' <<<"$records")" = "running running" ] ||
  fail "lost within the grace period: $records"
[ "$(jq -r '.[0].slurm.missing_since' <<<"$records")" != null ] || fail "missing_since not noted: $records"
sleep 3
records=$(bg status --json 2aaaaaaaaaaa 2aaaaaaaaaab "$survivor")
unset BGTASK_SLURM_LOST_AFTER
[ "$(jq -r '.[0].state' <<<"$records")" = lost ] || fail "unknown job: $records"
grep -q "no longer knows job 424242" <<<"$(jq -r '.[0].error' <<<"$records")" || fail "reason: $records"
[ "$(jq -r '.[1].state' <<<"$records")" = lost ] || fail "a reused job id was taken for the task's: $records"
[ "$(jq -r '.[2].state' <<<"$records")" = running ] || fail "the live job: $records"

echo "-- the controller stops: records stay, a warning, no hang"
local_task=$(bg start -- true)
until_task "$survivor" running
stop_daemon slurmctld
export BGTASK_SLURM_TIMEOUT=2s
# scontrol alone would take about 18 s to give up: a 12 s bound shows
# bgtask's own deadline applies.
rc=0
listed=$(timeout 12 "$BGTASK" --dir "$D" list --json 2>"$WORK/list.err") || rc=$?
[ "$rc" -eq 0 ] || fail "list with the controller down exited $rc"
[ "$(jq -r --arg id "$survivor" '.[] | select(.id == $id) | .state' <<<"$listed")" = running ] ||
  fail "the Slurm task did not stay running: $listed"
[ "$(jq -r --arg id "$local_task" '.[] | select(.id == $id) | .state' <<<"$listed")" = succeeded ] ||
  fail "the local task: $listed"
grep -q "warning: the Slurm controller did not answer" "$WORK/list.err" || fail "no warning: $(cat "$WORK/list.err")"
[ "$(grep -c warning "$WORK/list.err")" -eq 1 ] || fail "repeated warnings: $(cat "$WORK/list.err")"
[ "$(field "$survivor" .state)" = running ] || fail "the record changed"
rc=0
timeout 12 "$BGTASK" --dir "$D" wait --timeout 1s "$survivor" 2>/dev/null || rc=$?
[ "$rc" -eq 4 ] || fail "wait --timeout with the controller down gave $rc"
rc=0
timeout 20 "$BGTASK" --dir "$D" cancel "$survivor" 2>"$WORK/cancel.err" || rc=$?
[ "$rc" -eq 1 ] || fail "cancel with the controller down gave $rc"
grep -q "cannot cancel Slurm job" "$WORK/cancel.err" || fail "cancel said: $(cat "$WORK/cancel.err")"
rc=0
timeout 12 "$BGTASK" --dir "$D" start --executor slurm -- true 2>"$WORK/start.err" || rc=$?
[ "$rc" -eq 1 ] || fail "start with the controller down gave $rc"
grep -q "nothing was submitted" "$WORK/start.err" || fail "start said: $(cat "$WORK/start.err")"

echo "-- the controller is back: the job is still there and can be cancelled"
/usr/sbin/slurmctld
unset BGTASK_SLURM_TIMEOUT
until_job "$(slurm_job "$survivor")" RUNNING 30
[ "$(bg cancel "$survivor")" = "$survivor cancelled" ] || fail "cancel after the restart"
echo "PASS"
