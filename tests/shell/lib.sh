# Shared helpers for the shell test scripts under tests/shell/ (sourced).
# Each script runs as one ctest test: exit 0 = pass, 125 = skipped, else fail.
# ctest passes the binary in $BGTASK.
set -euo pipefail

: "${BGTASK:?BGTASK must point at the bgtask binary}"
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "/tmp/bgtask-${TEST_NAME}.XXXXXX")
D="$WORK/tasks"
mkdir -m 700 "$D"
# script(1) runs its command line through $SHELL; the tests quote that line
# with printf %q, whose $'...' form only bash reads back.
export SHELL="$BASH"

cleanup_work() {
  local rc=$?
  # Kill whatever tasks of this test are still running, then remove the
  # work directory unless the test failed (kept for inspection).
  pkill -KILL -f "$WORK" 2>/dev/null || true
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 125 ]; then
    rm -rf "$WORK"
  else
    echo "kept $WORK for inspection" >&2
  fi
}
trap cleanup_work EXIT

# bg ARGS...: bgtask on this test's directory, never hanging longer than 60 s.
bg() { timeout 60 "$BGTASK" --dir "$D" "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 125; }

# field ID JQ_PATH: one field of a task's record, read from the file.
field() { jq -r "$2" "$D/$1.status.json"; }
