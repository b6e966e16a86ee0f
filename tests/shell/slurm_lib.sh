# Helpers for the Slurm end-to-end scripts (tests/shell/test_slurm_*.sh),
# sourced after lib.sh. `slurm_cluster MIN_JOB_AGE [SLURM_UP_OPTION...]`
# starts a private cluster (scripts/slurm-up: single-node, or e.g.
# `--accounting --nodes 2`) and stops it when the script exits, whatever the
# outcome. Without root, or without the Slurm packages (scripts/deps.sh
# slurm, and slurm-accounting for --accounting), the test is skipped with a
# message saying why; as root with the packages installed, a cluster that
# does not start fails the test, with the daemons' logs.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER=""

# Every Slurm client the scripts call directly has a deadline, as bgtask's
# own calls have: a controller that hangs fails the test instead of stalling it.
for client in sbatch sacct sacctmgr scancel scontrol sinfo squeue; do
  eval "$client() { timeout 30 $client \"\$@\"; }"
done

stop_cluster() {
  local rc=$?
  if [ -n "$CLUSTER" ]; then
    "$ROOT/scripts/slurm-down" "$CLUSTER"
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 125 ]; then
      rm -rf "$CLUSTER"
    else
      echo "kept the cluster's logs in $CLUSTER/log" >&2
    fi
  fi
  # cleanup_work reads the status from $?; under `set -e` a failing
  # `(exit "$rc")` would end the trap before it ran.
  set +e
  (exit "$rc")
  cleanup_work
}

# missing_slurm_programs [--accounting]: the programs a cluster needs that
# are not installed, one a line.
missing_slurm_programs() {
  local program programs=(/usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd sbatch sinfo
    scontrol squeue sacct scancel)
  if [ "${1:-}" = --accounting ]; then
    programs+=(/usr/sbin/slurmdbd mariadbd mariadb-install-db mariadb-admin mariadb sacctmgr)
  fi
  for program in "${programs[@]}"; do
    command -v "$program" >/dev/null || echo "$program"
  done
}

slurm_cluster() {
  [ "$(id -u)" -eq 0 ] || skip "Slurm tests need root to start munged, slurmctld and slurmd"
  local missing accounting="" option
  for option in "$@"; do
    [ "$option" != --accounting ] || accounting=--accounting
  done
  missing=$(missing_slurm_programs $accounting | paste -sd' ')
  [ -z "$missing" ] || skip "the Slurm packages are not installed (missing: $missing;" \
    "scripts/deps.sh slurm${accounting:+ and scripts/deps.sh slurm-accounting})"
  CLUSTER=$(mktemp -d /tmp/bgtask-slurm-cluster.XXXXXX)
  trap stop_cluster EXIT
  local conf log
  if ! conf=$(timeout 120 "$ROOT/scripts/slurm-up" "$CLUSTER" "$@" 2>"$WORK/slurm-up.log"); then
    cat "$WORK/slurm-up.log" >&2
    for log in "$CLUSTER"/log/*; do
      [ -s "$log" ] || continue
      echo "--- the end of $log:" >&2
      tail -n 30 "$log" >&2
    done
    fail "could not start a local Slurm cluster as root with the packages installed (see above)"
  fi
  eval "$conf"
  echo "Slurm cluster up: $SLURM_CONF" >&2
}

# slurm_job TASK_ID: the Slurm job id in a task's record.
slurm_job() { field "$1" .slurm.job_id; }

# job_state JOB_ID: the controller's state of a job, or `purged`.
job_state() {
  local line
  if line=$(timeout 30 scontrol show job -o "$1" 2>&1); then
    grep -o 'JobState=[A-Z_]*' <<<"$line" | cut -d= -f2
  elif grep -q "Invalid job id" <<<"$line"; then
    echo purged
  else
    echo "unknown: $line"
  fi
}

# until_job JOB_ID STATE [SECONDS]: waits for the controller to report STATE.
until_job() {
  local deadline=$((SECONDS + ${3:-60})) state
  while [ "$SECONDS" -lt "$deadline" ]; do
    state=$(job_state "$1")
    [ "$state" = "$2" ] && return 0
    sleep 0.2
  done
  fail "Slurm job $1 never reached $2 (last: $state)"
}

# until_task TASK_ID STATE [SECONDS]: waits for bgtask to report STATE.
until_task() {
  local deadline=$((SECONDS + ${3:-60})) state
  while [ "$SECONDS" -lt "$deadline" ]; do
    state=$(bg status --json "$1" | jq -r '.[0].state')
    [ "$state" = "$2" ] && return 0
    sleep 0.2
  done
  fail "task $1 never reached $2 (last: $state)"
}

# daemon_pid NAME: the pid of one of the cluster's daemons (slurmdbd, mariadbd, ...).
daemon_pid() { cat "$CLUSTER/run/$1.pid"; }

# stop_daemon NAME: stops a daemon of the cluster by its pid, waiting up to 30 s.
stop_daemon() {
  local pid deadline=$((SECONDS + 30))
  pid=$(daemon_pid "$1")
  kill "$pid"
  while kill -0 "$pid" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || fail "$1 (pid $pid) did not stop in 30 s"
    sleep 0.1
  done
}

# slurm_calls TRACE: the successful execs of Slurm's clients in an strace.
slurm_calls() {
  grep -cE 'execve\("[^"]*/(squeue|sacct|scontrol|sinfo|sbatch|scancel)".* = 0$' "$1" || true
}

# check_many_outcome_files N: starts N short jobs ending 2 to 11 s after
# they start, all at once; `wait --timeout 60s` on them must return 0 with
# every task succeeded and its outcome file written, making at most 12
# Slurm calls. Prints how soon after the last file the wait returned, and
# leaves the task ids in OUTCOME_TASKS.
check_many_outcome_files() {
  local k rc=0 returned latest=0 written delay calls id
  OUTCOME_TASKS=()
  for k in $(seq 1 "$1"); do
    OUTCOME_TASKS+=("$(bg start --executor slurm -- sleep "$((2 + k % 9)).$((k % 10))")")
  done
  timeout 90 strace -f -qq -ttt -e trace=execve -o "$WORK/wait.trace" \
    "$BGTASK" --dir "$D" wait --timeout 60s "${OUTCOME_TASKS[@]}" >/dev/null 2>"$WORK/wait.err" ||
    rc=$?
  returned=$(date +%s.%N)
  [ "$rc" -eq 0 ] || fail "wait exited $rc: $(cat "$WORK/wait.err")"
  for id in "${OUTCOME_TASKS[@]}"; do
    [ "$(field "$id" .state)" = succeeded ] || fail "task $id: $(field "$id" .state)"
    [ -f "$D/$id.outcome.json" ] || fail "task $id wrote no outcome file"
    written=$(stat -c %.9Y "$D/$id.outcome.json")
    latest=$(awk -v a="$latest" -v b="$written" 'BEGIN { print (b > a ? b : a) }')
  done
  delay=$(awk -v r="$returned" -v w="$latest" 'BEGIN { printf "%.2f", r - w }')
  echo "wait returned ${delay} s after the last outcome file was written" >&2
  calls=$(slurm_calls "$WORK/wait.trace")
  echo "Slurm client calls during the wait: $calls" >&2
  [ "$calls" -le 12 ] || fail "$calls Slurm calls for $1 jobs that wrote their outcome"
}
