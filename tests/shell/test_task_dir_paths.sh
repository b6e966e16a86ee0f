#!/usr/bin/env bash
# The task directory as cron and scripts name it: `~` and relative values of
# BGTASK_DIR are refused with a message naming the variable (nothing is
# created), a HOME that does not exist is named with the path it implies,
# and --dir/--cwd are normalised so `--cwd ..` and its absolute form are one
# task for --dedupe.
source "$(dirname "$0")/lib.sh"

mkdir "$WORK/here"
cd "$WORK/here"
for value in '~/tasks' '~' tasks ./tasks; do
  rc=0
  err=$(env BGTASK_DIR="$value" "$BGTASK" list 2>&1) || rc=$?
  [ "$rc" -eq 2 ] || fail "BGTASK_DIR='$value': exit $rc, not 2"
  grep -q "set BGTASK_DIR to an absolute path" <<<"$err" || fail "BGTASK_DIR='$value' said: $err"
done
[ -z "$(ls -A "$WORK/here")" ] || fail "a refused BGTASK_DIR created $(ls -A "$WORK/here")"

rc=0
err=$(env -u BGTASK_DIR -u XDG_STATE_HOME HOME=/nonexistent "$BGTASK" list 2>&1) || rc=$?
[ "$rc" -eq 2 ] || fail "HOME=/nonexistent: exit $rc"
grep -q "/nonexistent/.local/state/bgtask" <<<"$err" && grep -q "set BGTASK_DIR" <<<"$err" ||
  fail "HOME=/nonexistent said: $err"

# --dir spelled three ways is one directory; --cwd .. and its absolute form one task.
a=$("$BGTASK" --dir "$D/" start --dedupe --cwd .. -- sleep 30)
b=$("$BGTASK" --dir "$D/./" start --dedupe --cwd "$WORK" -- sleep 30)
c=$("$BGTASK" --dir "$WORK/here/../tasks" start --dedupe --cwd "$WORK/here/../" -- sleep 30)
[ "$a" = "$b" ] && [ "$b" = "$c" ] || fail "--cwd .. and $WORK started different tasks: $a $b $c"
[ "$(jq -r .cwd "$D/$a.status.json")" = "$WORK" ] || fail "cwd recorded as $(jq -r .cwd "$D/$a.status.json")"
bg cancel --quiet --all
echo "task dir paths: ok"
