#!/usr/bin/env bash
# Other users (issue: other users and namespaces). Two unprivileged users
# made by the test: the second one tries to read the first one's secrets
# (command lines, environments, records), to read or write its task
# directory, and to plant files and a forged record that make the first
# one's bgtask signal or follow something. Needs root (useradd, runuser).
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to create two users"
command -v useradd >/dev/null && command -v runuser >/dev/null || skip "no useradd/runuser"

U1="bgtu1$$"
U2="bgtu2$$"
remove_users() {
  local u
  for u in "$U1" "$U2"; do
    pkill -KILL -u "$u" 2>/dev/null || true
    userdel "$u" 2>/dev/null || true
  done
}
trap 'remove_users; cleanup_work' EXIT
chmod 755 "$WORK"
for u in "$U1" "$U2"; do
  useradd -M -d "$WORK/$u" -s /bin/sh "$u" || skip "useradd $u failed"
  mkdir -m 700 "$WORK/$u"
  chown "$u:" "$WORK/$u"
done
share_binary "$U1"
as() { local u=$1; shift; timeout 30 runuser -u "$u" -- "$@"; }
D1="$WORK/$U1/tasks"

# U1 starts a task with a secret passed three ways. The values are unique
# to this run (other runs on the machine may use fixed ones).
S=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
printf "FROM_FILE=s3cr3t-$S-file\n" >"$WORK/$U1/env"
chown "$U1:" "$WORK/$U1/env"
chmod 600 "$WORK/$U1/env"
id=$(as "$U1" env FROM_CALLER=s3cr3t-$S-caller "$BGTASK" --dir "$D1" start --env API_TOKEN=s3cr3t-$S-argv \
  --env FROM_CALLER --env-file "$WORK/$U1/env" -- sleep 30) || fail "U1's start failed"
rec="$D1/$id.status.json"
sup=$(jq -r .owner.pid "$rec")
child=$(jq -r .child.pid "$rec")

# U2 reads every command line on the machine, and ps: no value.
# (Read into files first: a grep running meanwhile has the value in its own
# command line.)
as "$U2" sh -c 'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" " "' >"$WORK/cmdlines"
as "$U2" ps -eo args >"$WORK/ps"
[ "$(wc -c <"$WORK/cmdlines")" -gt 0 ] || fail "U2 read no command line at all"
leaks=$(grep -c "s3cr3t-$S" "$WORK/cmdlines" || true)
[ "$leaks" -eq 0 ] || fail "U2 sees an --env value in a command line: $(grep -o ".\{60\}s3cr3t-$S.\{10\}" "$WORK/cmdlines")"
leaks=$(grep -c "s3cr3t-$S" "$WORK/ps" || true)
[ "$leaks" -eq 0 ] || fail "U2 sees an --env value in ps"
# ... and cannot read the environments of U1's supervisor or command.
for pid in "$sup" "$child"; do
  if as "$U2" cat "/proc/$pid/environ" >/dev/null 2>&1; then
    fail "U2 can read /proc/$pid/environ of U1's task"
  fi
done
# The command does have them (so the checks above test something).
tr '\0' '\n' <"/proc/$child/environ" >"$WORK/child-env"
for v in API_TOKEN=s3cr3t-$S-argv FROM_CALLER=s3cr3t-$S-caller FROM_FILE=s3cr3t-$S-file; do
  grep -cx "$v" "$WORK/child-env" >/dev/null || fail "the command lacks $v"
done

# U2 can neither list nor read nor write U1's task directory.
rc=0
as "$U2" "$BGTASK" --dir "$D1" list >/dev/null 2>"$WORK/u2.err" || rc=$?
[ "$rc" -ne 0 ] || fail "U2 listed U1's tasks"
as "$U2" cat "$rec" >/dev/null 2>&1 && fail "U2 read U1's record"
as "$U2" touch "$D1/planted" 2>/dev/null && fail "U2 wrote into U1's task directory"
# U2 making the directory its own view is refused: a directory of another
# user is not taken even when it is readable.
chmod 755 "$WORK/$U1" "$D1"
rc=0
as "$U2" "$BGTASK" --dir "$D1" list >/dev/null 2>"$WORK/u2.err" || rc=$?
[ "$rc" -eq 2 ] || fail "U2 used U1's (readable) task directory: exit $rc"
chmod 700 "$D1" "$WORK/$U1"

# U2 forges, in its own directory, a record that names U1's live
# supervisor and command as its own: U2's cancel must not signal them
# (they are not U2's), and U1's task keeps running.
D2="$WORK/$U2/tasks"
as "$U2" "$BGTASK" --dir "$D2" start -- true >/dev/null # makes D2, as a start does
jq --arg id "$id" '.' "$rec" >"$WORK/forged"
chown "$U2:" "$WORK/forged"
as "$U2" cp "$WORK/forged" "$D2/$id.status.json"
as "$U2" "$BGTASK" --dir "$D2" cancel "$id" >/dev/null 2>&1 || true
sleep 0.3
[ -e "/proc/$sup" ] || fail "U2's cancel of a forged record killed U1's supervisor"
[ -e "/proc/$child" ] || fail "U2's cancel of a forged record killed U1's command"
# A status or wait by U2 on the forged record does not hang, and never says
# it runs supervised by U2 (the lock is not U2's).
as "$U2" "$BGTASK" --dir "$D2" status "$id" >/dev/null 2>&1 || true
[ "$(jq -r .state "$rec")" = running ] || fail "U1's record changed: $(jq -r .state "$rec")"

# U1's own cancel still works.
as "$U1" "$BGTASK" --dir "$D1" cancel "$id" >/dev/null || fail "U1's cancel failed"
[ "$(jq -r .state "$rec")" = cancelled ] || fail "U1's task: $(jq -r .state "$rec")"
echo ok
