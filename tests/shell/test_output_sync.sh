#!/usr/bin/env bash
# A task's output is durable before the final record that counts its bytes:
# the supervisor fdatasyncs ID.output first. An empty output counts nothing
# and is not synced (the call would only flush the disk's cache).
source "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || fail "strace is missing (scripts/deps.sh installs it)"

# traced_start NAME CMD...: a real start under strace -f, which returns once
# the task's supervisor has written the final record and exited; prints the ID.
traced_start() {
  local name=$1
  shift
  timeout 60 strace -f -qq -y -e trace=fdatasync -o "$WORK/$name.trace" \
    "$BGTASK" --dir "$D" start -- "$@" || fail "start of $* under strace failed"
}

empty=$(traced_start empty true)
[ "$(field "$empty" .state)" = succeeded ] || fail "$empty did not succeed"
[ "$(field "$empty" .output.bytes)" = 0 ] || fail "$empty counts output it did not write"
! grep -q "$empty.output" "$WORK/empty.trace" ||
  fail "the empty output of $empty was fdatasynced: $(cat "$WORK/empty.trace")"

full=$(traced_start full echo hello)
[ "$(field "$full" .state)" = succeeded ] || fail "$full did not succeed"
[ "$(field "$full" .output.bytes)" = 6 ] || fail "$full does not count its 6 bytes of output"
[ "$(grep -c "fdatasync([0-9]*<[^>]*$full.output>) = 0" "$WORK/full.trace")" = 1 ] ||
  fail "the output of $full was not fdatasynced once: $(cat "$WORK/full.trace")"
echo "ok: an output of 6 bytes fdatasynced once, an empty one not at all"
