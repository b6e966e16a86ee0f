#!/usr/bin/env bash
# A reader that loaded a running record must never bring back a task that
# finished and was removed while it looked (issue: a `status`, `list` or
# `wait` that found `ID.lock` gone wrote a brand-new `lost` record). Made
# deterministic with strace: the reader is held just before it opens the
# task's lock, the task finishes, `cleanup` removes it, then the reader
# goes on. Afterwards the task must stay removed, and the reader must not
# have called a task that succeeded `lost`.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool strace jq

# lock_open_index CMD...: the number of the openat call with which
# `bgtask CMD` opens the lock of $ID (its position among all openat calls).
lock_open_index() {
  local trace="$WORK/index.trace"
  timeout 60 strace -qq -o "$trace" -e trace=openat "$BGTASK" --dir "$D" "$@" >/dev/null 2>&1 || true
  grep -n "\"$ID.lock\"" "$trace" | head -1 | cut -d: -f1
}

rounds=0
for reader in status list wait; do
  rm -f "$WORK/go"
  ID=$(bg start -- sh -c "while [ ! -e '$WORK/go' ]; do sleep 0.02; done; echo done")
  args=("$reader")
  [ "$reader" = list ] || args+=("$ID")
  if [ "$reader" = wait ]; then
    # wait only opens the lock once it has read the record: its first
    # round is the one to hold, and status opens it at the same point.
    k=$(lock_open_index status "$ID")
  else
    k=$(lock_open_index "${args[@]}")
  fi
  [ -n "$k" ] || fail "$reader: no openat of $ID.lock found"
  trace="$WORK/$reader.trace"
  timeout 60 strace -f -qq -o "$trace" -e trace=openat \
    -e inject=openat:delay_enter=4000000:when="$k" \
    "$BGTASK" --dir "$D" "${args[@]}" >"$WORK/$reader.out" 2>"$WORK/$reader.err" &
  held=$!
  # Held once the record was read and the lock's openat has not returned.
  wait_until 30 grep -qs "$ID.status.json" "$trace" || fail "$reader never read the record"
  sleep 0.3
  touch "$WORK/go"
  wait_until 30 bash -c "[ \"\$(jq -r .state '$D/$ID.status.json' 2>/dev/null)\" = succeeded ]" ||
    fail "$reader: the task did not succeed"
  bg cleanup --older-than 0 >/dev/null
  [ ! -e "$D/$ID.status.json" ] || fail "$reader: cleanup did not remove $ID"
  rc=0
  wait "$held" || rc=$?
  rounds=$((rounds + 1))
  if [ -e "$D/$ID.status.json" ]; then
    problem "$reader brought back removed task $ID as '$(jq -r .state "$D/$ID.status.json")' (exit $rc)"
    rm -f "$D/$ID.status.json"
  fi
  if grep -q lost "$WORK/$reader.out"; then
    problem "$reader called $ID lost: $(cat "$WORK/$reader.out")"
  fi
  [ "$rc" -ne 75 ] || problem "$reader exited 75 (lost) for a task that succeeded"
done
crash_summary "rounds=$rounds problems=$problems"
[ "$problems" -eq 0 ] || exit 1
echo "PASS: $rounds held readers, no removed task came back"
