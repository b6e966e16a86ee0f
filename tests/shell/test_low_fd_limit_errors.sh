#!/usr/bin/env bash
# Under a low open-file limit (ulimit -n 4 to 8) bgtask says what happened
# ("Too many open files"), never that a live supervisor is gone or that a
# sound record is corrupt, and records no request it could not deliver.
source "$(dirname "$0")/lib.sh"

id=$(bg start -- sleep 60)
on_exit "timeout 30 '$BGTASK' --dir '$D' cancel --grace 0s '$id' >/dev/null"

# limited N ARGS...: bgtask ARGS under `ulimit -n N`; output in $out, exit in $rc.
limited() {
  local n=$1
  shift
  set +e
  out=$( (ulimit -n "$n" && exec "$BGTASK" --dir "$D" "$@") 2>&1)
  rc=$?
  set -e
}
# loads N: whether a dynamically linked bgtask can start at all under `ulimit -n N`
# (the loader needs descriptors; whoever runs the test may pass some on).
loads() { limited "$1" --version && [ "$rc" -eq 0 ]; }

refused=0
for n in 4 5 6 7 8; do
  loads "$n" || continue
  limited "$n" pause "$id"
  [[ $out != *"supervisor is gone"* ]] || fail "ulimit -n $n: pause says the live supervisor is gone: $out"
  if [ "$rc" -ne 0 ]; then
    refused=$((refused + 1))
    [[ $out == *"Too many open files"* ]] || fail "ulimit -n $n: pause failed without saying why: $out"
    [ "$(field "$id" .pause.requested)" = false ] ||
      fail "ulimit -n $n: pause failed ($out) but left pause.requested in the record"
  else
    bg resume "$id" >/dev/null
  fi
  for command in "status $id" "list" "list --json" "output $id"; do
    # shellcheck disable=SC2086
    limited "$n" $command
    [[ $out != *corrupt* ]] || fail "ulimit -n $n: '$command' calls a sound record corrupt: $out"
  done
  limited "$n" start --memory-max 64M -- true
  [[ $out != *"no cgroup hierarchy"* ]] || [[ $(bg start --memory-max 64M -- true 2>&1) == *"no cgroup hierarchy"* ]] ||
    fail "ulimit -n $n: --memory-max says there is no cgroup hierarchy: $out"
done
[ "$refused" -gt 0 ] || skip "pause needed no more than 4 open files here"
[ "$(field "$id" .state)" = running ] || fail "the task is $(field "$id" .state)"
echo ok
