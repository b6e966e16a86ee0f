#!/usr/bin/env bash
# Racing reconcilers: 8 concurrent invocations (list, status, wait, cleanup)
# over DEAD tasks whose supervisor and command were killed, while LIVE tasks
# finish on their own. Each dead record must be rewritten exactly once
# (generation + 1, one `reconciled` event, state lost); no live task's final
# record may be touched by a reconciler.
# BGTASK_CRASH_RACE_TASKS / _ROUNDS override the size (default 100 dead
# tasks, 1 round; full scale 200 and 10).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool jq

DEAD=${BGTASK_CRASH_RACE_TASKS:-$(scaled 100 200)}
ROUNDS=${BGTASK_CRASH_RACE_ROUNDS:-$(scaled 1 10)}
LIVE=20
checked=0

for round in $(seq "$ROUNDS"); do
  dir="$WORK/round$round"
  mkdir -m 700 "$dir"
  seq "$DEAD" | xargs -P 4 -I{} timeout 60 "$BGTASK" --dir "$dir" start -- sleep 300 >"$dir.dead"
  mapfile -t dead <"$dir.dead"
  [ "${#dead[@]}" -eq "$DEAD" ] || problem "round $round: only ${#dead[@]} of $DEAD tasks started"
  # Kill every supervisor, then every command, all at once.
  mapfile -t sups < <(jq -r .owner.pid "$dir"/*.status.json)
  mapfile -t groups < <(jq -r '"-\(.child.pgid)"' "$dir"/*.status.json)
  kill -KILL "${sups[@]}" 2>/dev/null || true
  kill -KILL -- "${groups[@]}" 2>/dev/null || true
  wait_until 30 bash -c "! grep -qlzx 'BGTASK_DIR=$dir' /proc/[0-9]*/environ 2>/dev/null" ||
    problem "round $round: killed tasks still run"
  # Live tasks that end during the race (0.3 to 1.3 s from now).
  seq "$LIVE" | xargs -P 4 -I{} timeout 60 "$BGTASK" --dir "$dir" start -- sh -c 'sleep 0.$((3 + $$ % 10))' >"$dir.live"
  mapfile -t live <"$dir.live"
  # Eight reconcilers at once.
  pids=()
  for r in 1 2 3 4 5 6 7 8; do
    case $r in
      1 | 2 | 3 | 4) timeout 120 "$BGTASK" --dir "$dir" list >/dev/null 2>"$WORK/r$r.err" & ;;
      5 | 6) timeout 120 "$BGTASK" --dir "$dir" status "${dead[@]}" >/dev/null 2>"$WORK/r$r.err" & ;;
      7) timeout 120 "$BGTASK" --dir "$dir" wait "${dead[@]}" >/dev/null 2>"$WORK/r$r.err" & ;;
      8) timeout 120 "$BGTASK" --dir "$dir" cleanup >/dev/null 2>"$WORK/r$r.err" & ;;
    esac
    pids+=($!)
  done
  for r in 1 2 3 4 5 6 7 8; do
    rc=0
    wait "${pids[$((r - 1))]}" || rc=$?
    # wait exits 75 (lost); the others 0.
    if { [ "$r" -eq 7 ] && [ "$rc" -ne 75 ]; } || { [ "$r" -ne 7 ] && [ "$rc" -ne 0 ]; }; then
      problem "round $round: reconciler $r exited $rc: $(cat "$WORK/r$r.err")"
    fi
  done
  wait_until 60 dir_idle "$dir" || problem "round $round: live tasks did not finish"
  # One jq for all: "ID state generation reconciled-events".
  jq -r '[.id, .state, .generation, ([.events[] | select(.kind == "reconciled")] | length)] | @tsv' \
    "$dir"/*.status.json >"$dir.summary"
  while read -r id; do
    grep -qx "$id"$'\tlost\t2\t1' "$dir.summary" ||
      problem "dead task: $(grep "^$id" "$dir.summary" || echo "$id missing") (want lost, generation 2, 1 reconciled event)"
  done <"$dir.dead"
  while read -r id; do
    grep -qx "$id"$'\tsucceeded\t2\t0' "$dir.summary" ||
      problem "live task: $(grep "^$id" "$dir.summary" || echo "$id missing") (want succeeded, generation 2, no reconciled event)"
  done <"$dir.live"
  checked=$((checked + ${#dead[@]} + ${#live[@]}))
  if check_invariants "$dir"; then
    rm -rf "$dir"
  else
    problem "round $round: invariants broken"
  fi
done

crash_summary "rounds=$ROUNDS dead_tasks=$DEAD live_tasks=$LIVE records_checked=$checked failures=$problems"
[ "$problems" -eq 0 ] || fail "$problems problems with racing reconcilers"
