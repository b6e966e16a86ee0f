#!/usr/bin/env bash
# BGTASK_ON_EXIT is the --on-exit hook of every task started without one
# (a notification for every task, set once), with BGTASK_NAME among its
# variables; a task's own --on-exit replaces it, and an empty one is none.
source "$(dirname "$0")/lib.sh"

export BGTASK_ON_EXIT="echo \"\$BGTASK_ID \$BGTASK_STATE \$BGTASK_NAME\" >>'$WORK/hooks'"
named=$(bg start --name nightly -- true)
failing=$(bg start -- false)
own=$(bg start --on-exit "echo own >>'$WORK/own'" -- true)
none=$(BGTASK_ON_EXIT= bg start -- true)
bg wait "$named" "$own" "$none" >/dev/null || fail "the tasks did not succeed"
bg wait "$failing" >/dev/null && fail "false succeeded"
for _ in $(seq 100); do
  [ "$(wc -l <"$WORK/hooks" 2>/dev/null)" = 2 ] && [ -s "$WORK/own" ] && break
  sleep 0.1
done
grep -qx "$named succeeded nightly" "$WORK/hooks" || fail "no default hook for $named: $(cat "$WORK/hooks" 2>&1)"
grep -qx "$failing failed " "$WORK/hooks" || fail "no default hook for $failing: $(cat "$WORK/hooks" 2>&1)"
grep -q "$own\|$none" "$WORK/hooks" && fail "the default hook ran for a task with its own or none: $(cat "$WORK/hooks")"
[ "$(cat "$WORK/own")" = own ] || fail "the task's own hook did not run"
[ "$(field "$named" .on_exit)" != null ] || fail "the default hook is not in the record"
echo "default on-exit hook: ok"
