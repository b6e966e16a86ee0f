#!/usr/bin/env bash
# `cancel --all` ends the tasks waiting `--after` a running one cancelled,
# not failed for their dependency: they are cancelled too, every round.
source "$(dirname "$0")/lib.sh"

for round in 1 2 3; do
  first=$(bg start -- sleep 300)
  second=$(bg start --after "$first" -- true)
  third=$(bg start --after "$second" -- true)
  bg cancel --all --quiet --grace 1s || fail "round $round: cancel --all exited $?"
  for id in "$first" "$second" "$third"; do
    [ "$(field "$id" .state)" = cancelled ] ||
      fail "round $round: $id ended $(field "$id" .state) ($(field "$id" .reason)), not cancelled"
  done
done
echo "cancel --all with dependents: ok"
