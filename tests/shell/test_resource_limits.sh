#!/usr/bin/env bash
# start --memory-max / --pids-max / --cpu-max: the task's whole tree runs in
# its own cgroup (v2, or the v1 controllers), created and removed by the
# supervisor. A tree that allocates past the memory limit ends `failed` with
# reason `oom` and its peak; a fork loop stops at the pids limit; the cpu
# quota throttles a busy loop; pause freezes through the cgroup. Skips where
# no cgroup can be written.
source "$(dirname "$0")/lib.sh"

if ! reason=$(bg start --memory-max 64M -- true 2>&1 >/dev/null); then
  rc=$?
  [ "$rc" = 78 ] || fail "start --memory-max failed with $rc, not 78: $reason"
  grep -F "cgroup" <<<"$reason" >/dev/null || fail "the refusal does not say why: $reason"
  skip "no writable cgroup here: $reason"
fi

# Memory: a pipeline that holds 200 MiB in `tail` against a 50 MiB limit.
# It waits for $WORK/go, so the running record is read while it runs.
id=$(bg start --memory-max 50M -c "until [ -e '$WORK/go' ]; do sleep 0.02; done
  head -c 200M /dev/zero | tail >/dev/null && echo survived")
cgroups=$(field "$id" .cgroup)
[ -n "$cgroups" ] && [ "$cgroups" != null ] || fail "the running record names no cgroup"
touch "$WORK/go"
rc=0; bg wait "$id" >/dev/null || rc=$?
[ "$rc" != 0 ] || fail "the task that allocated past its limit succeeded"
[ "$(field "$id" .state)" = failed ] || fail "state: $(field "$id" .state)"
[ "$(field "$id" .reason)" = oom ] || fail "reason: $(field "$id" .reason), error $(field "$id" .error)"
field "$id" .error | grep -F "memory limit" >/dev/null || fail "error: $(field "$id" .error)"
[ "$(field "$id" .options.limits.memory_max)" = 52428800 ] || fail "limit not recorded"
peak=$(field "$id" .memory_peak)
if [ "$peak" != null ]; then
  [ "$peak" -gt $((30 * 1024 * 1024)) ] && [ "$peak" -le $((52 * 1024 * 1024)) ] ||
    fail "peak $peak is not near the 50 MiB limit"
fi
grep -F survived "$D/$id.output" >/dev/null && fail "the command went on past the kill" || true
bg list | grep -F "$id" | grep -F "oom" >/dev/null || fail "list does not show oom: $(bg list)"
[ "$(field "$id" .cgroup)" = null ] || fail "the final record still names a cgroup"
IFS=';' read -ra dirs <<<"$cgroups"
for dir in "${dirs[@]}"; do
  [ ! -e "$dir" ] || fail "the supervisor left $dir behind"
done

# Under the limit the same kind of command succeeds.
id=$(bg start --memory-max 50M -c 'head -c 10M /dev/zero | tail >/dev/null')
bg wait "$id" >/dev/null || fail "a task under its memory limit failed: $(field "$id" .error)"
[ "$(field "$id" .reason)" = null ] || fail "reason of a task under its limit: $(field "$id" .reason)"

# Pids: a fork loop of 60 sleepers against a limit of 20. The inner shell
# dies at the first refused fork; the outer one then becomes a sleeper itself.
id=$(bg start --pids-max 20 -c "sh -c 'for i in \$(seq 60); do sleep 30 & done'; exec sleep 31")
for _ in $(seq 200); do
  grep -i "fork" "$D/$id.output" >/dev/null 2>&1 && break
  sleep 0.05
done
grep -i "fork" "$D/$id.output" >/dev/null || fail "no fork was refused: $(cat "$D/$id.output")"
sleep 0.3
current=0
for dir in $(field "$id" .cgroup | tr ';' ' '); do
  [ -f "$dir/pids.current" ] && current=$(cat "$dir/pids.current")
done
[ "$current" -gt 5 ] && [ "$current" -le 20 ] || fail "the task's cgroup holds $current processes; expected some, at most 20"
sleepers=$(pgrep -f "^sleep 30$" -g "$(field "$id" .child.pgid)" | wc -l || true)
[ "$sleepers" -gt 5 ] && [ "$sleepers" -le 20 ] || fail "$sleepers sleepers run; expected some, at most --pids-max 20"
bg cancel --grace 1s "$id" >/dev/null
[ "$(field "$id" .options.limits.pids_max)" = 20 ] || fail "pids limit not recorded"
jq -e '.events | any(.kind == "pids_limit")' "$D/$id.status.json" >/dev/null ||
  fail "no pids_limit event: $(field "$id" .events)"
left=$(pgrep -f "^sleep 30$" -g "$(field "$id" .child.pgid)" | wc -l || true)
[ "$left" = 0 ] || fail "$left sleepers outlived their task"

# CPU: a busy loop under a 0.2 CPU quota gets throttled by the kernel.
id=$(bg start --cpu-max 0.2 -c 'while :; do :; done')
for _ in $(seq 100); do
  [ "$(field "$id" .state)" = running ] && break
  sleep 0.05
done
sleep 1.5
throttled=0
for dir in $(field "$id" .cgroup | tr ';' ' '); do
  [ -f "$dir/cpu.stat" ] && throttled=$(awk '$1 == "nr_throttled" { print $2 }' "$dir/cpu.stat")
done
[ "$throttled" -gt 0 ] || fail "the cpu quota never throttled the busy loop"
# pause freezes the tree through the cgroup (or signals it), and cancel still works.
bg pause "$id" >/dev/null
for dir in $(field "$id" .cgroup | tr ';' ' '); do
  if [ -f "$dir/freezer.state" ]; then
    for _ in $(seq 100); do [ "$(cat "$dir/freezer.state")" = FROZEN ] && break; sleep 0.05; done
    [ "$(cat "$dir/freezer.state")" = FROZEN ] || fail "pause did not freeze $dir: $(cat "$dir/freezer.state")"
  elif [ -f "$dir/cgroup.freeze" ]; then
    [ "$(cat "$dir/cgroup.freeze")" = 1 ] || fail "pause did not freeze $dir"
  fi
done
usage1=$(awk '{ print $14 + $15 }' "/proc/$(field "$id" .child.pid)/stat")
sleep 1
usage2=$(awk '{ print $14 + $15 }' "/proc/$(field "$id" .child.pid)/stat")
[ "$usage1" = "$usage2" ] || fail "the frozen busy loop used CPU: $usage1 -> $usage2 ticks"
bg cancel --grace 1s "$id" >/dev/null
[ "$(field "$id" .state)" = cancelled ] || fail "cancel of a paused limited task: $(field "$id" .state)"

# Bad values.
for bad in "--memory-max x" "--memory-max 0" "--pids-max 0" "--cpu-max 0" "--cpu-max -1" "--cpu-max abc"; do
  rc=0; bg start $bad -- true 2>/dev/null || rc=$?
  [ "$rc" = 2 ] || fail "start $bad exited $rc, expected 2"
done
echo ok
