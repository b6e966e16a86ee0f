#!/usr/bin/env bash
# The command's process starts on a stack of its own in the supervisor's
# memory (64 KiB above a 4 KiB guard page) and shares that memory until its
# exec. Once it has exec'd, the supervisor gives the stack back at its
# first memory trim, so a long-running task's supervisor does not keep it
# (what the command wrote there counted as the supervisor's memory).
# Checked in the supervisor's /proc/PID/maps while a real task runs; in a
# sanitizer build the command's process is a fork and there is no such
# stack at all.
source "$(dirname "$0")/lib.sh"

# stack_mappings PID: the anonymous 4 KiB ---p guard directly below a 64 KiB
# rw-p mapping, one line each. The file is read whole, in order: `read` from
# it directly seeks back after each line, and a /proc file read again from an
# offset after the process mapped or unmapped memory starts mid-line.
stack_mappings() {
  local maps range perm rest start end prev_perm="" prev_size=0 prev_end=0
  maps=$(<"/proc/$1/maps")
  while read -r range perm _ _ _ rest; do
    start=$((16#${range%-*})) end=$((16#${range#*-}))
    if [ -z "$rest" ] && [ "$prev_perm" = "---p" ] && [ "$prev_size" = 4096 ] &&
      [ "$start" = "$prev_end" ] && [ $((end - start)) = 65536 ] && [ "$perm" = "rw-p" ]; then
      echo "$range"
    fi
    if [ -z "$rest" ]; then prev_perm=$perm; else prev_perm=""; fi
    prev_size=$((end - start)) prev_end=$end
  done <<<"$maps"
}

id=$("$BGTASK" --dir "$D" start -- sleep 30) || fail "start failed"
supervisor=$(field "$id" .owner.pid)
[ -r "/proc/$supervisor/maps" ] || fail "supervisor $supervisor of $id is not running"
# The first trim comes 50 ms after the start; allow far more.
for _ in $(seq 100); do
  [ -z "$(stack_mappings "$supervisor")" ] && break
  sleep 0.05
done
left=$(stack_mappings "$supervisor")
"$BGTASK" --dir "$D" cancel "$id" >/dev/null
[ -z "$left" ] || fail "the supervisor of $id still maps the command's stack 5 s after the start: $left"
echo "ok: the command's stack is gone from its supervisor while the command runs"
