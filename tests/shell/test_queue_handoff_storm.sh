#!/usr/bin/env bash
# A storm on one queue of 2 slots: 4 concurrent loops start tasks into it
# while one loop cancels queued tasks and another runs `cleanup`. Every task
# ends; none runs twice; a task cancelled before it started never runs;
# never more than 2 run at once (from the commands' own start and end
# times); the invariants hold.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/invariants.sh"
source "$(dirname "$0")/queue_handoff_lib.sh"
command -v jq >/dev/null || skip "jq is missing"

bg queue s --slots 2 >/dev/null
starter() { # N: 10 tasks named N-1 .. N-10
  local i
  for i in $(seq 10); do
    bg start --queue s -c "$(logged_command "$1-$i")" >>"$WORK/ids.$1"
  done
}
for n in 1 2 3 4; do starter "$n" & done
starters=$(jobs -p)
touch "$WORK/storm"
(while [ -e "$WORK/storm" ]; do
  id=$(bg list --json 2>/dev/null | jq -r '[.[] | select(.state == "queued")] | .[0].id // empty')
  [ -n "$id" ] && bg cancel "$id" >/dev/null 2>&1
  sleep 0.05
done) &
canceller=$!
(while [ -e "$WORK/storm" ]; do bg cleanup >/dev/null 2>&1 || true; sleep 0.1; done) &
cleaner=$!
# shellcheck disable=SC2086
wait $starters
rm "$WORK/storm"
wait "$canceller" "$cleaner" || true
cat "$WORK"/ids.* >"$WORK/printed"
[ "$(wc -l <"$WORK/printed")" -eq 40 ] || fail "not every start printed an ID"
for id in $(cat "$WORK/printed"); do
  [ -e "$D/$id.status.json" ] || continue # removed by cleanup once it ended
  bg wait --timeout 30s "$id" >/dev/null || true
done
names=()
for n in 1 2 3 4; do for i in $(seq 10); do names+=("$n-$i"); done; done
check_storm_outcome 2 "${names[@]}"
never_started=$(bg list --json | jq -r '.[] | select(.state == "cancelled" and .started_at == null) | .command | join(" ")')
while IFS= read -r command; do
  [ -n "$command" ] || continue
  name=$(sed -n "s|.*/log/\([0-9]*-[0-9]*\)'.*|\1|p" <<<"$command" | sed -n 1p)
  [ "$(runs_of "$name")" -eq 0 ] || fail "$name ran though it was cancelled while queued"
done <<<"$never_started"
check_invariants "$D" "$WORK/printed" || fail "invariants"
echo "ok: at most $most at once"
