#!/usr/bin/env bash
# Records from elsewhere (security guide H5): huge, deeply nested, invalid,
# wrongly typed, foreign-owned, misnamed and forged records. Every command
# reports them as corrupt with a reason (forged pids 0 and -1 too; pid 1 is
# judged without signalling anything), returns promptly, never crashes, and
# `cleanup` never deletes them. Invalid UTF-8 that bgtask itself receives
# (argv, --name) is stored so the record still parses.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

have_strace=yes
strace -f -qq -e trace=kill -o /dev/null true 2>/dev/null || have_strace=no

# signals_sent ARGS...: runs bgtask ARGS under strace; prints every signal
# (not the existence probe, signal 0) it sent.
signals_sent() {
  [ "$have_strace" = yes ] || return 0
  timeout -s KILL 20 strace -f -qq -e trace=kill,tkill,tgkill,pidfd_send_signal,rt_sigqueueinfo \
    -o "$WORK/strace" "$BGTASK" --dir "$D" "$@" >/dev/null 2>&1 || true
  grep -E '(kill|pidfd_send_signal|rt_sigqueueinfo)\(' "$WORK/strace" | grep -vE ', 0\)' || true
}

TEMPLATE=$(finished_task -- echo hello)
template="$WORK/template.json"
cp "$D/$TEMPLATE.status.json" "$template"

# check_corrupt ID REASON WHAT: every command reports ID's record as
# corrupt (giving REASON), cleanup keeps it, and cancel sends no signal.
check_corrupt() {
  local id=$1 reason=$2 what=$3
  run list
  expect_rc 0 "list ($what)"
  grep -q "^$id  *corrupt" <<<"$out" || fail "list ($what): not corrupt: $out"
  grep -F "$id" <<<"$out" | grep -iF -- "$reason" >/dev/null || fail "list ($what): reason missing: $out"
  run list --json
  [ "$(printf '%s' "$out" | jq -r --arg id "$id" '.[] | select(.id == $id) | .state')" = corrupt ] ||
    fail "list --json ($what): $out"
  run status "$id"
  expect_rc 1 "status ($what)"
  expect_error "$reason" "status ($what)"
  for command in "wait $id" "cancel $id" "output $id" "progress $id --percent 1"; do
    # shellcheck disable=SC2086
    run $command
    expect_rc 1 "$command ($what)"
    expect_error "$id" "$command ($what)"
    expect_error "$reason" "$command ($what)"
  done
  run cleanup --older-than 0s
  expect_rc 0 "cleanup ($what)"
  [ -e "$D/$id.status.json" ] || fail "cleanup deleted a corrupt record ($what)"
  local sent
  sent=$(signals_sent cancel "$id")
  [ -z "$sent" ] || fail "cancel ($what) sent signals: $sent"
}

# install ID: installs $WORK/case as ID's record (with an output file).
new_id() { finished_task -- true; }
install() {
  mv "$WORK/case" "$D/$1.status.json"
  chmod 600 "$D/$1.status.json"
}

id=$(new_id)
{ printf '{"schema":1,"pad":"'; head -c $((10 * 1024 * 1024)) /dev/zero | tr '\0' a; printf '"}'; } >"$WORK/case"
install "$id"
check_corrupt "$id" "larger than 1 MiB" "10 MiB record"

id=$(new_id)
head -c $((1024 * 1024)) /dev/zero | tr '\0' b >"$WORK/pad"
jq -c --rawfile pad "$WORK/pad" --arg id "$id" '.id = $id | .name = $pad' "$template" >"$WORK/case"
install "$id"
check_corrupt "$id" "larger than 1 MiB" "record just over 1 MiB"

id=$(new_id)
{ printf '%.0s[' $(seq 10000); printf '%.0s]' $(seq 10000); } >"$WORK/case"
install "$id"
check_corrupt "$id" "invalid JSON" "10000-deep nesting"

id=$(new_id)
{ printf '{"a":'; printf '%.0s{"a":' $(seq 40); printf '1'; printf '%.0s}' $(seq 41); } >"$WORK/case"
install "$id"
check_corrupt "$id" "invalid JSON" "41-deep objects"

id=$(new_id)
head -c 3000 /dev/urandom >"$WORK/case"
install "$id"
check_corrupt "$id" "invalid JSON" "random bytes"

id=$(new_id)
head -c 100 "$template" >"$WORK/case"
install "$id"
check_corrupt "$id" "invalid JSON" "truncated record"

id=$(new_id)
: >"$WORK/case"
install "$id"
check_corrupt "$id" "empty" "empty record"

id=$(new_id)
sed 's/"name":null/"name":"caf\xe9"/' "$template" >"$WORK/case"
grep -q 'caf' "$WORK/case" || fail "could not plant invalid UTF-8"
install "$id"
check_corrupt "$id" "invalid JSON" "invalid UTF-8 inside the record"

for change in '.schema = 2' '.state = 5' '.state = "exploded"' '.command = "ls"' '.owner.pid = "1"' \
  '.events = {}' '.output.bytes = -1' '.created_at = "yesterday"' '.exit_code = 1e12' \
  '.owner = []' '.child.pgid = 1.5' '.unsupervised = "no"' '.progress = 7'; do
  id=$(new_id)
  jq -c --arg id "$id" ".id = \$id | $change" "$template" >"$WORK/case"
  install "$id"
  check_corrupt "$id" "" "$change"
done

id=$(new_id)
jq -c '.' "$template" >"$WORK/case" # names $TEMPLATE, not $id
install "$id"
check_corrupt "$id" "names another task" "record of another task"

if [ "$(id -u)" -eq 0 ]; then
  id=$(new_id)
  chown 65534 "$D/$id.status.json"
  check_corrupt "$id" "owned by uid 65534" "foreign-owned record"
fi

# Forged running records: pids 0, -1 and 1 (and pid 1's true start time, so
# it even looks alive) must never lead to a signal.
init_start=$(awk '{print $22}' /proc/1/stat)
for pid in 0 -1 1; do
  id=$(new_id)
  jq -c --arg id "$id" --argjson pid "$pid" --argjson st "$init_start" \
    '.id = $id | .state = "running" | .exit_code = null | .finished_at = null | .duration_s = null
     | .owner.pid = $pid | .owner.start_time = $st
     | .child = {pid: $pid, pgid: $pid, start_time: $st}' "$template" >"$WORK/case"
  install "$id"
  for command in "list" "status $id" "wait --timeout 1s $id" "cancel --grace 0s $id" "cleanup"; do
    # shellcheck disable=SC2086
    sent=$(signals_sent $command)
    [ -z "$sent" ] || fail "$command on a record forged with pid $pid sent signals: $sent"
    # shellcheck disable=SC2086
    run $command
    [ "$rc" -ne 137 ] || fail "$command on a record forged with pid $pid hung"
  done
  [ "$pid" -eq 1 ] || check_corrupt "$id" "not a process ID" "pid $pid"
done
kill -0 1 || fail "init is gone?"

# Invalid UTF-8 that bgtask receives itself is stored readably.
id=$(bg start --name "$(printf 'caf\351 \033[2J')" -- printf '%s' "$(printf 'caf\351')")
bg wait "$id" >/dev/null
jq -e . "$D/$id.status.json" >/dev/null || fail "a Latin-1 argument left an unparseable record"
run status "$id"
expect_rc 0 "status of a task with a Latin-1 name and argument"
[ "$(cat "$D/$id.output")" = "$(printf 'caf\351')" ] || fail "the argument did not reach the command unchanged"
echo ok
