#!/usr/bin/env bash
# Only verifiably the task's processes count and get signals (issue: a task
# is its processes). Two unprivileged users made by the test: the second
# one's leaderless process group takes the group id a dead task recorded,
# and its process carries the task's BGTASK_ID. Neither keeps the task
# "running (unsupervised)", and neither is signalled by cancel, whether the
# task's user is root (who may signal anyone) or the first user (whose
# signal to the stranger's group fails with EPERM). Members must be in the
# task's session and owned by its user. Needs root (useradd, runuser).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/crash_lib.sh"
require_tool jq setsid

[ "$(id -u)" -eq 0 ] || skip "needs root to create two users"
command -v useradd >/dev/null && command -v runuser >/dev/null || skip "no useradd/runuser"

U1="bgpu1$$"
U2="bgpu2$$"
remove_users() {
  local u
  for u in "$U1" "$U2"; do
    pkill -KILL -u "$u" 2>/dev/null || true
    userdel "$u" 2>/dev/null || true
  done
}
at_exit remove_users
chmod 755 "$WORK"
for u in "$U1" "$U2"; do
  useradd -M -d "$WORK/$u" -s /bin/sh "$u" || skip "useradd $u failed"
  mkdir -m 700 "$WORK/$u"
  chown "$u:" "$WORK/$u"
done
share_binary "$U1"
as() { local u=$1; shift; timeout 30 runuser -u "$u" -- "$@"; }
D1="$WORK/$U1/tasks"
as "$U1" mkdir -m 700 "$D1"

# alive PID: the process exists and is not a zombie (a killed orphan stays
# one until init reaps it).
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
  [ -n "$state" ] && [ "$state" != Z ]
}
dead() { ! alive "$1"; }

# dead_task USER DIR: a task of USER in DIR whose supervisor and command
# were killed (SIGKILL) before anything reconciled it; prints its ID.
dead_task() {
  local user=$1 dir=$2 id sup cmd pgid
  if [ "$user" = root ]; then
    id=$(timeout 30 "$BGTASK" --dir "$dir" start -- sleep 100)
  else
    id=$(as "$user" "$BGTASK" --dir "$dir" start -- sleep 100)
  fi
  sup=$(jq -r .owner.pid "$dir/$id.status.json")
  cmd=$(jq -r .child.pid "$dir/$id.status.json")
  pgid=$(jq -r .child.pgid "$dir/$id.status.json")
  kill -KILL "$sup"
  wait_until 10 dead "$sup" || problem "supervisor $sup of $id did not die"
  kill -KILL -- "-$pgid"
  wait_until 10 dead "$cmd" || problem "command $cmd of $id did not die"
  echo "$id"
}

# take_pgid DIR ID PGID: the record now names PGID as its command's group
# (and leader), as when the dead command's number was handed out again.
take_pgid() {
  local rec="$1/$2.status.json" owner
  owner=$(stat -c %U "$rec")
  jq -c --argjson g "$3" '.child.pgid = $g | .child.pid = $g' "$rec" >"$rec.forged"
  chown "$owner:" "$rec.forged"
  mv "$rec.forged" "$rec"
}

# U2's leaderless group: `sh` leads a new session and group, leaves a sleep
# in it and exits. Prints "PGID SLEEP_PID".
leaderless_group() {
  local mark=$1 out="$WORK/$U2/group.$1"
  as "$U2" setsid sh -c "sleep 60.$mark & echo \$\$ \$! >'$out'"
  cat "$out"
}
new_group() {
  read -r pgid member < <(leaderless_group "$1")
  dead "$pgid" || problem "the group's leader $pgid still runs"
  [ "$(ps -o pgid= -p "$member" | tr -d ' ')" = "$pgid" ] || problem "U2's sleep is not in group $pgid"
}

# 1. Root's dead task, its group id now U2's leaderless group.
new_group 1
id=$(dead_task root "$D")
take_pgid "$D" "$id" "$pgid"
out=$(bg status "$id" 2>&1) || true
[ "$(field "$id" .state)" = lost ] || problem "root: a dead task whose pgid another user's group took is $(field "$id" .state)$(jq -r 'if .unsupervised then " (unsupervised)" else "" end' "$D/$id.status.json"), not lost"
new_group 2
id=$(dead_task root "$D")
take_pgid "$D" "$id" "$pgid"
bg cancel --grace 0 "$id" >/dev/null 2>&1 || true
sleep 0.3
alive "$member" || problem "root's cancel of a dead task killed U2's process $member (its group took the task's pgid)"

# 2. U1's dead task, the same group: U1's probe of it fails with EPERM,
#    which is not "it exists".
new_group 3
id=$(dead_task "$U1" "$D1")
take_pgid "$D1" "$id" "$pgid"
as "$U1" "$BGTASK" --dir "$D1" status "$id" >/dev/null 2>&1 || true
state=$(jq -r .state "$D1/$id.status.json")
[ "$state" = lost ] || problem "U1: a dead task whose pgid U2's group took is $state$(jq -r 'if .unsupervised then " (unsupervised)" else "" end' "$D1/$id.status.json"), not lost"
alive "$member" || problem "U1's status killed U2's process"

# 3. A process of U2 carrying the dead task's BGTASK_ID, and one of root in
#    a session of its own carrying it: neither is the task's.
id=$(dead_task root "$D")
as "$U2" sh -c "BGTASK_ID=$id setsid sleep 60.5 >/dev/null 2>&1 & echo \$! >'$WORK/$U2/env.pid'"
foreign=$(cat "$WORK/$U2/env.pid")
BGTASK_ID=$id setsid sleep 60.4 >/dev/null 2>&1 &
own=$!
wait_until 5 bash -c "tr '\\0' '\\n' </proc/$foreign/environ | grep -cx 'BGTASK_ID=$id' >/dev/null" ||
  problem "U2's process does not carry BGTASK_ID=$id"
bg cancel --grace 0 "$id" >/dev/null 2>&1 || true
sleep 0.3
alive "$foreign" || problem "root's cancel killed U2's process that carried BGTASK_ID=$id"
alive "$own" || problem "root's cancel killed a process of another session that carried BGTASK_ID=$id"
[ "$(field "$id" .state)" = lost ] || problem "a dead task with strangers carrying its BGTASK_ID is $(field "$id" .state), not lost"
kill -KILL "$own" "$foreign" 2>/dev/null || true
wait "$own" 2>/dev/null || true

# 4. What is the task's still is: a supervisor killed while its command runs
#    leaves the task unsupervised, and cancel stops the command (in the
#    task's session, owned by its user).
id=$(bg start -- sh -c 'sleep 100; true')
sup=$(field "$id" .owner.pid)
cmd=$(field "$id" .child.pid)
kill -KILL "$sup"
wait_until 10 dead "$sup" || problem "supervisor $sup did not die"
bg status "$id" >/dev/null 2>&1 || true
[ "$(jq -r .unsupervised "$D/$id.status.json")" = true ] || problem "a task whose command runs on is not unsupervised: $(field "$id" .state)"
out=$(bg cancel --grace 1s "$id") || problem "cancel of an unsupervised task exited $?"
[ "$(field "$id" .state)" = cancelled ] || problem "unsupervised task: $(field "$id" .state) after cancel"
wait_until 5 dead "$cmd" || problem "cancel left the unsupervised command $cmd running"

[ "$problems" -eq 0 ] || fail "$problems checks failed"
echo ok
