#!/usr/bin/env bash
# What waiting tasks cost the commands that look at them: a parked task
# (queued, no process) is read once by `list` and opens no lock file, and
# `wait` over parked tasks reads each record once while nothing changes,
# instead of all of them at every wake.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is missing"

tasks=200
bg queue held --slots 0 >/dev/null
seq "$tasks" | "$BGTASK" --dir "$D" start --queue held --each-line - --quiet -- true ||
  fail "start --each-line failed"

bg_traced list list >/dev/null
locks=$(opens_in list lock)
listed=$(opens_in list status.json)
[ "$locks" -eq 0 ] || fail "list opened $locks lock files of $tasks parked tasks"
# (and the lost hand-off look reads the first of the queue's line)
[ "$listed" -le $((tasks + 2)) ] || fail "list read $listed records of $tasks tasks"

status=0
bg_traced wait wait --queue held --timeout 4s >/dev/null 2>&1 || status=$?
[ "$status" -eq 4 ] || fail "wait --timeout exited $status, not 4"
records=$(opens_in wait status.json)
# The selection reads each once (the first look takes what it read); the
# lost hand-off look once a second reads the first of the queue's line.
[ "$records" -le $((tasks + 10)) ] ||
  fail "wait read $records records of $tasks parked tasks in 4 s"
echo "ok: list read $listed records and no lock; wait read $records"

# The safety poll (every 5 s) re-reads parked records 1,000 at a time, in
# turn, not all of them: over 2,500 parked tasks, a 9 s wait reads each
# once, then at most 1,000 at each of its safety polls (one, maybe two).
many=2500
bg queue many --slots 0 >/dev/null
seq "$many" | "$BGTASK" --dir "$D" start --queue many --each-line - --quiet -- true ||
  fail "start --each-line of $many failed"
status=0
bg_traced wait-many wait --queue many --timeout 9s >/dev/null 2>&1 || status=$?
[ "$status" -eq 4 ] || fail "wait --timeout over $many exited $status, not 4"
reads=$(opens_in wait-many status.json)
[ "$reads" -le $((many + 2 * 1000 + 20)) ] ||
  fail "wait read $reads records of $many parked tasks in 9 s"
echo "ok: a 9 s wait over $many parked tasks read $reads records"
