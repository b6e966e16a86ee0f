#!/usr/bin/env bash
# Slots that name resources: `queue gpu --slots g0,g1,g2 --slot-env
# CUDA_VISIBLE_DEVICES` gives each running task its slot's name in
# BGTASK_SLOT, in CUDA_VISIBLE_DEVICES and in its record's `slot`. Tasks
# that run at the same time never share a name (each holds a directory
# named after its slot while it runs: a second mkdir would fail), and a
# slot is free again once its task ends.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"

bg queue gpu --slots g0,g1,g2 --slot-env CUDA_VISIBLE_DEVICES >/dev/null || fail "queue --slots NAMES failed"
task="echo \"\$BGTASK_SLOT \$CUDA_VISIBLE_DEVICES\"
mkdir '$WORK/held.'\"\$BGTASK_SLOT\" || echo \"\$BGTASK_SLOT\" >>'$WORK/shared'
sleep 0.2
rmdir '$WORK/held.'\"\$BGTASK_SLOT\""
ids=()
for _ in $(seq 9); do ids+=("$(bg start --queue gpu -c "$task")"); done
bg wait "${ids[@]}" >/dev/null || fail "the tasks did not all succeed"
[ ! -e "$WORK/shared" ] || fail "slots shared by running tasks: $(cat "$WORK/shared")"
seen=""
for id in "${ids[@]}"; do
  read -r slot cuda <<<"$(bg output "$id")"
  case "$slot" in g0 | g1 | g2) ;; *) fail "$id saw BGTASK_SLOT '$slot'" ;; esac
  [ "$cuda" = "$slot" ] || fail "$id saw CUDA_VISIBLE_DEVICES '$cuda', slot '$slot'"
  [ "$(field "$id" .slot)" = "$slot" ] || fail "$id's record says slot $(field "$id" .slot), it saw $slot"
  seen="$seen $slot"
done
for name in g0 g1 g2; do
  grep -qw "$name" <<<"$seen" || fail "slot $name was never used: $seen"
done
# Every slot is free again: three more tasks run at once.
more=()
for _ in 1 2 3; do more+=("$(bg start --queue gpu -c "while [ ! -e '$WORK/go' ]; do sleep 0.02; done")"); done
for id in "${more[@]}"; do
  for _ in $(seq 250); do [ "$(field "$id" .state)" = running ] && break; sleep 0.02; done
  [ "$(field "$id" .state)" = running ] || fail "slot not free again: $id is $(field "$id" .state)"
done
touch "$WORK/go"
bg wait "${more[@]}" >/dev/null || fail "the last tasks failed"
bg queue gpu --slots a,a >/dev/null 2>&1 && fail "a slot named twice was taken"
bg queue gpu --slot-env 1X >/dev/null 2>&1 && fail "an invalid --slot-env was taken"
echo ok
