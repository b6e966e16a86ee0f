#!/usr/bin/env bash
# A reader that loaded a running record must never bring back a task that
# finished and was removed while it looked (issue: a `status`, `list` or
# `wait` that found `ID.lock` gone wrote a brand-new `lost` record). Made
# deterministic with strace: the reader is held just before it opens the
# task's lock, the task finishes, `cleanup` removes it, then the reader
# goes on. Afterwards the task must stay removed, and the reader must not
# have called a task that succeeded `lost`. A `wait` that holds the task's
# reader lock keeps cleanup from removing it and reports `succeeded`; one
# held before it took that lock exits 8 (removed).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool strace jq

# lock_open_index_nth N CMD...: the number of the openat call with which
# `bgtask CMD` opens the lock of $ID for the N-th time.
lock_open_index_nth() {
  local n=$1 trace="$WORK/index.trace"
  shift
  timeout 60 strace -qq -o "$trace" -e trace=openat "$BGTASK" --dir "$D" "$@" >/dev/null 2>&1 || true
  grep -n "\"$ID.lock\"" "$trace" | sed -n "${n}p" | cut -d: -f1
}

rounds=0
# Readers, and where each is held: status and list at their only open of
# the lock (reconciliation); wait at its second (reconciliation, once it
# holds the task's reader lock) and, as wait-early, at its first (taking
# the reader lock, so cleanup may remove the task first).
for reader in status list wait wait-early; do
  rm -f "$WORK/go"
  ID=$(bg start -- sh -c "while [ ! -e '$WORK/go' ]; do sleep 0.02; done; echo done")
  args=("${reader%-early}")
  [ "$reader" = list ] || args+=("$ID")
  case $reader in
    wait) k=$(lock_open_index_nth 2 wait --timeout 0.3 "$ID") ;;
    wait-early) k=$(lock_open_index_nth 1 wait --timeout 0.3 "$ID") ;;
    *) k=$(lock_open_index_nth 1 "${args[@]}") ;;
  esac
  [ -n "$k" ] || fail "$reader: no openat of $ID.lock found"
  trace="$WORK/$reader.trace"
  timeout 60 strace -f -qq -o "$trace" -e trace=openat \
    -e inject=openat:delay_enter=4000000:when="$k" \
    "$BGTASK" --dir "$D" "${args[@]}" >"$WORK/$reader.out" 2>"$WORK/$reader.err" &
  held=$!
  # Held once the record was read (wait-early: once the held openat of the
  # lock began) and the lock's openat has not returned.
  seen="$ID.status.json"
  [ "$reader" != wait-early ] || seen="$ID.lock"
  wait_until 30 grep -qs "$seen" "$trace" || fail "$reader never got to the held call"
  sleep 0.3
  touch "$WORK/go"
  wait_until 30 bash -c "[ \"\$(jq -r .state '$D/$ID.status.json' 2>/dev/null)\" = succeeded ]" ||
    fail "$reader: the task did not succeed"
  bg cleanup --older-than 0 >/dev/null
  if [ "$reader" = wait ]; then
    # The held wait holds the task's reader lock: cleanup must leave it.
    [ -e "$D/$ID.status.json" ] || problem "cleanup removed $ID while a wait held it"
  else
    [ ! -e "$D/$ID.status.json" ] || fail "$reader: cleanup did not remove $ID"
  fi
  rc=0
  wait "$held" || rc=$?
  rounds=$((rounds + 1))
  case $reader in
    wait)
      [ "$rc" -eq 0 ] && grep -qx "$ID succeeded" "$WORK/$reader.out" ||
        problem "wait on $ID: exit $rc, '$(cat "$WORK/$reader.out" "$WORK/$reader.err")', not succeeded"
      bg cleanup --older-than 0 >/dev/null
      [ ! -e "$D/$ID.status.json" ] || problem "cleanup did not remove $ID once the wait ended"
      ;;
    wait-early)
      [ "$rc" -eq 8 ] || problem "wait on a task removed before it held it: exit $rc, not 8"
      ;;
  esac
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
