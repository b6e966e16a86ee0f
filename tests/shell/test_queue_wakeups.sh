#!/usr/bin/env bash
# A queue's waiters do not all wake for every change in the task directory:
# only the first in line watches the directory (one inotify instance for the
# queue); the others sleep until the waiter ahead of them leaves the line.
# Then the queue drains in order once the slot frees.
source "$(dirname "$0")/lib.sh"

waiters=30
renames=40
go="$WORK/go"
holder=$(bg start --queue q -c "while [ ! -e '$go' ]; do sleep 0.05; done")
for _ in $(seq 100); do
  [ "$(field "$holder" .state)" = running ] && break
  sleep 0.05
done
[ "$(field "$holder" .state)" = running ] || fail "the first task of the queue did not start"
ids=()
for _ in $(seq "$waiters"); do
  ids+=("$(bg start --queue q -- true)")
done
pids=()
for id in "${ids[@]}"; do
  [ "$(field "$id" .state)" = queued ] || fail "$id is not queued"
  pids+=("$(field "$id" .owner.pid)")
done

# Voluntary context switches of every waiting supervisor, summed.
switches() {
  local p total=0
  for p in "${pids[@]}"; do
    total=$((total + $(awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$p/status")))
  done
  echo "$total"
}
# inotify instances held by the waiting supervisors.
instances() {
  local p total=0
  for p in "${pids[@]}"; do
    total=$((total + $(find "/proc/$p/fd" -lname 'anon_inode:inotify' 2>/dev/null | wc -l)))
  done
  echo "$total"
}
sleep 0.5 # the last waiters settle behind the ones ahead
[ "$(instances)" -le 1 ] || fail "the $waiters waiters hold $(instances) inotify instances (at most 1 expected)"

# A waiter that starts behind others never opens an inotify instance, not
# even for its first look at the queue (each queued start used to open one
# and close it again, so a burst of starts held many at once).
command -v strace >/dev/null || fail "strace is missing (scripts/deps.sh installs it)"
strace -I1 -f -qq -e trace=inotify_init1 -o "$WORK/late.trace" \
  "$BGTASK" --dir "$D" start --queue q -- true >"$WORK/late.id" &
tracer=$!
for _ in $(seq 100); do
  [ -s "$WORK/late.id" ] && break
  sleep 0.05
done
late=$(cat "$WORK/late.id")
[ -n "$late" ] || fail "the traced queued start printed no ID"
sleep 0.5 # its supervisor has looked at the queue and settled behind
kill "$tracer" # -I1: it detaches, and the waiter goes on
wait "$tracer" 2>/dev/null || true
[ "$(field "$late" .state)" = queued ] || fail "$late is not queued"
! grep -q 'inotify_init1(' "$WORK/late.trace" ||
  fail "a waiter behind others opened an inotify instance: $(cat "$WORK/late.trace")"
ids+=("$late")
pids+=("$(field "$late" .owner.pid)")

# Records renamed in the same directory: tasks of no queue, each written
# three times (queued? no: running, then final), and progress updates.
before=$(switches)
for _ in $(seq $((renames / 2))); do
  bg start -- true >/dev/null
done
bg wait --timeout 30s $(bg list --state running --json | jq -r --arg h "$holder" '.[] | select(.id != $h) | .id') \
  >/dev/null 2>&1 || true
after=$(switches)
woken=$((after - before))
# Each rename used to wake all 30 waiters (about 2 x 40 x 30 switches); now
# the first one alone wakes for them. Generous bound: 5 per rename.
[ "$woken" -le $((renames * 5)) ] ||
  fail "$renames renames woke the waiters $woken times (the first waiter alone should wake)"

touch "$go"
bg wait "${ids[@]}" >/dev/null || fail "the queued tasks did not all succeed"
# First come, first served: each started after the one before it.
previous=""
for id in "${ids[@]}"; do
  started=$(field "$id" .started_at)
  [ -z "$previous" ] || [[ ! $started < $previous ]] || fail "$id started before the task queued ahead of it"
  previous=$started
done
echo "ok: $woken wake-ups of $waiters waiters for $renames renames"
