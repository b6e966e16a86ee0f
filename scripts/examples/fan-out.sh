#!/usr/bin/env bash
# Runs COMMAND once per ITEM (as `COMMAND ARG... ITEM`), all at the same time as
# bgtask tasks, waits for every one of them and names the ones that failed.
# Exits 0 if every task succeeded, else with the status `bgtask wait` gives:
# the first failed task's exit code, 124 for a timeout, 130 if cancelled, 75 if lost.
#
#   scripts/examples/fan-out.sh gzip -k -- *.log
#   scripts/examples/fan-out.sh ./resize.sh --width 800 -- photos/*.jpg
#
# The tasks live in the usual task directory (set BGTASK_DIR to use another);
# `bgtask output ID` shows what a failed one printed.
set -euo pipefail

usage() {
  echo "usage: $0 COMMAND [ARG...] -- ITEM..." >&2
  exit 2
}

command=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  command+=("$1")
  shift
done
[ ${#command[@]} -gt 0 ] && [ $# -gt 1 ] || usage
shift

ids=()
for item in "$@"; do
  # `start` prints the ID even when the command cannot be run (it exits 126 or
  # 127 then); the task is recorded as failed and `wait` reports it below.
  id=$(bgtask start --name "fan-out:$item" -- "${command[@]}" "$item") || true
  if [ -z "$id" ]; then
    echo "fan-out: could not start a task for $item" >&2
    exit 1
  fi
  ids+=("$id")
done

status=0
results=$(bgtask wait "${ids[@]}") || status=$?
while read -r id state; do
  if [ "$state" != succeeded ]; then
    echo "fan-out: task $id $state; see: bgtask output $id" >&2
  fi
done <<<"$results"
exit "$status"
