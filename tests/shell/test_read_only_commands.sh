#!/usr/bin/env bash
# The commands that only read (list, status, wait, output, events) never
# create the task directory: a missing one has no tasks. (A `list` run as
# root with a user's HOME used to leave a root-owned ~/.local behind.)
source "$(dirname "$0")/lib.sh"

home="$WORK/home"
mkdir "$home"
missing="$WORK/missing/tasks"
# read_only ARGS...: runs bgtask with a HOME whose task directory does not
# exist, and with --dir naming one that does not; fails if either appears.
read_only() {
  local rc=0
  env -u BGTASK_DIR -u XDG_STATE_HOME HOME="$home" "$BGTASK" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
  [ ! -e "$home/.local" ] || fail "bgtask $* created $home/.local"
  "$BGTASK" --dir "$missing" "$@" >/dev/null 2>&1 || true
  [ ! -e "$WORK/missing" ] || fail "bgtask --dir $missing $* created it"
  return "$rc"
}

read_only list || fail "list in a missing directory exited $?"
[ "$(tr -s ' ' <"$WORK/out")" = "ID STATE EXIT STARTED ELAPSED NAME" ] || fail "list: $(cat "$WORK/out")"
read_only list --json && [ "$(cat "$WORK/out")" = "[]" ] || fail "list --json: $(cat "$WORK/out")"
read_only list --summary || fail "list --summary exited $?"
grep -q "total=0" "$WORK/out" || fail "list --summary: $(cat "$WORK/out")"
read_only events && [ ! -s "$WORK/out" ] || fail "events: $(cat "$WORK/out" "$WORK/err")"
for args in "status 2p5zaxsx3g5b" "status @last" "wait 2p5zaxsx3g5b" "wait --name build" "output 2p5zaxsx3g5b"; do
  rc=0
  read_only $args || rc=$?
  [ "$rc" -eq 2 ] && grep -q "no task in $home/.local/state/bgtask" "$WORK/err" ||
    fail "$args in a missing directory exited $rc: $(cat "$WORK/err")"
done
# A command that writes still creates it.
id=$(env -u BGTASK_DIR -u XDG_STATE_HOME HOME="$home" "$BGTASK" start -- true)
[ -d "$home/.local/state/bgtask" ] || fail "start did not create the task directory"
env -u BGTASK_DIR -u XDG_STATE_HOME HOME="$home" "$BGTASK" wait "$id" >/dev/null || fail "wait after start"
echo "read-only commands: ok"
