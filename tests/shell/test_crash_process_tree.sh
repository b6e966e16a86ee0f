#!/usr/bin/env bash
# Escaping process trees: a command that starts a `setsid` grandchild, a
# child that ignores TERM, a child with an emptied environment and a
# TERM-ignoring `setsid` loop that keeps forking new sessions. `cancel` and `--timeout`
# must leave no survivor, and the final state must say which one it was.
# BGTASK_CRASH_TREE_ROUNDS overrides the rounds per way of stopping
# (default 2; full scale 10).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool setsid pgrep jq

ROUNDS=${BGTASK_CRASH_TREE_ROUNDS:-$(scaled 2 10)}
rounds=0

# tree MARK: a shell command whose every process runs `sleep 999.MARK<n>`
# (MARK is digits, so that is a valid duration).
tree() {
  local m=$1
  echo "setsid sleep 999.${m}1 & (trap '' TERM; exec sleep 999.${m}2) &" \
    "env -i sleep 999.${m}3 & setsid sh -c 'trap \"\" TERM; while :; do setsid sleep 999.${m}4 & sleep 0.002; done' &" \
    "sleep 999.${m}5"
}
# tree_size MARK: how many processes of the tree run (the loop's sh included).
tree_size() { pgrep -fc "999\.$1[1-5]" || true; }
at_exit 'pkill -KILL -f "999\.$(printf %07d $$)" 2>/dev/null'

for round in $(seq "$ROUNDS"); do
  for how in cancel timeout; do
    mark=$(printf '%07d%03d%d' $$ "$round" "$([ "$how" = cancel ] && echo 0 || echo 1)")
    if [ "$how" = cancel ]; then
      id=$(bg start --grace 1s -- sh -c "$(tree "$mark")")
    else
      id=$(bg start --timeout 1s --grace 1s -- sh -c "$(tree "$mark")")
    fi
    # Let the tree grow, including a few generations of the setsid loop.
    wait_until 10 bash -c "[ \$(pgrep -fc '999\\.${mark}[1-5]') -ge 7 ]" || problem "$how: the tree never grew"
    rc=0
    if [ "$how" = cancel ]; then
      bg cancel "$id" >/dev/null || rc=$?
      [ "$rc" -eq 0 ] || problem "cancel exited $rc"
      want=cancelled
    else
      bg wait "$id" >/dev/null || rc=$?
      [ "$rc" -eq 124 ] || problem "wait on a timed-out task exited $rc, not 124"
      want=timed_out
    fi
    state=$(field "$id" .state)
    [ "$state" = "$want" ] || problem "$how: state $state, not $want"
    # Killed processes vanish right after the final record; allow a moment.
    wait_until 5 bash -c "! pgrep -f '999\\.${mark}[1-5]' >/dev/null" ||
      problem "$how: survivors: $(pgrep -af "999\.${mark}[1-5]" | sed -n 1,5p | tr '\n' ';')"
    rounds=$((rounds + 1))
  done
done
wait_until 10 dir_idle "$D" || problem "supervisors still run"
check_invariants "$D" || problem "invariants broken"

crash_summary "trees_stopped=$rounds records_checked=$INV_RECORDS_CHECKED failures=$problems"
[ "$problems" -eq 0 ] || fail "$problems processes or states wrong after stopping a tree"
