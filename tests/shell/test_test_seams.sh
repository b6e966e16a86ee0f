#!/usr/bin/env bash
# A binary built without test seams (the Release configuration) ignores
# every BGTASK_TEST_* variable: BGTASK_TEST_STOP_SUPERVISOR does not stop
# its supervisors, and BGTASK_TEST_BOOT_ID_FILE does not change what it
# takes for this boot. The seam-less binary is the same objects as $BGTASK
# with util/test_seams.cpp compiled without seams.
source "$(dirname "$0")/lib.sh"

if [ "${BGTASK_TEST_SEAMS_BUILT:-0}" = 0 ]; then
  release=$BGTASK # this build is itself without seams
else
  release=${BGTASK_WITHOUT_TEST_SEAMS:-}
fi
[ -n "$release" ] && [ -x "$release" ] || skip "no binary built without test seams"
rel() { timeout 20 "$release" --dir "$D" "$@"; }

# No seam name is even in the binary.
names=$(grep -c -a 'BGTASK_TEST_' "$release" || true)
[ "$names" -eq 0 ] || fail "the seam-less binary names BGTASK_TEST_* ($names matches)"

# A stopping seam left in the environment: start still returns at once and
# the supervisor is not stopped.
rc=0
id=$(BGTASK_TEST_STOP_SUPERVISOR=1 rel start -- sleep 30) || rc=$?
[ "$rc" -eq 0 ] || fail "start with BGTASK_TEST_STOP_SUPERVISOR=1: exit $rc (hung or failed)"
sup=$(field "$id" .owner.pid)
state=$(awk '{ print $3 }' "/proc/$sup/stat")
[ "$state" != T ] && [ "$state" != t ] || fail "the supervisor $sup is stopped (state $state)"
[ "$(field "$id" .state)" = running ] || fail "task not running: $(field "$id" .state)"

# A fake boot id does not make a task of this boot look like one of a past
# boot: with its supervisor killed, the command still runs, and only the boot
# id could make it `lost (host rebooted)`.
echo "1f0e6d5c-4b3a-4291-8877-665544332211" >"$WORK/other-boot-id"
kill -KILL "$sup"
for _ in $(seq 100); do [ -e "/proc/$sup" ] || break; sleep 0.05; done
state=$(BGTASK_TEST_BOOT_ID_FILE="$WORK/other-boot-id" rel status --json "$id" | jq -r ".[0].state")
[ "$state" = running ] || fail "with BGTASK_TEST_BOOT_ID_FILE set the task became '$state'"
rel cancel "$id" >/dev/null || true
[ "$(field "$id" .state)" = cancelled ] || fail "cancel: $(field "$id" .state)"

# The test build itself does read them (so the checks above are not vacuous).
if [ "${BGTASK_TEST_SEAMS_BUILT:-0}" = 1 ]; then
  id=$(bg start -- sleep 30)
  sup=$(field "$id" .owner.pid)
  kill -KILL "$sup"
  for _ in $(seq 100); do [ -e "/proc/$sup" ] || break; sleep 0.05; done
  state=$(BGTASK_TEST_BOOT_ID_FILE="$WORK/other-boot-id" bg status --json "$id" | jq -r ".[0].state")
  [ "$state" = lost ] || fail "the test build ignored BGTASK_TEST_BOOT_ID_FILE ('$state')"
  # Its command outlived the supervisor (the fake boot id made it `lost`).
  kill -KILL "$(field "$id" .child.pid)" 2>/dev/null || true
  rc=0
  BGTASK_TEST_STOP_SUPERVISOR=1 timeout 3 "$BGTASK" --dir "$D" start -- true >/dev/null || rc=$?
  [ "$rc" -eq 124 ] || fail "the test build ignored BGTASK_TEST_STOP_SUPERVISOR (exit $rc)"
  # The supervisor that stopped itself (timeout(1) ended only `start`).
  for pid in $(pgrep -f -- "--dir $D start -- true"); do
    kill -KILL "$pid" 2>/dev/null || true
  done
fi
echo ok
