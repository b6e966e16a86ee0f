#!/usr/bin/env bash
# bgtask runs under Valgrind (memcheck and callgrind). Valgrind stops a
# process at a clone that shares memory without being a thread, which is how the supervisor starts the command; there the
# command's process is a fork. Before, every start under Valgrind failed:
# "the supervisor of task ID exited before starting it".
source "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null || fail "valgrind is missing (scripts/deps.sh test installs it)"
if grep -q -E 'lib(asan|tsan)' <<<"$(ldd "$BGTASK" 2>/dev/null || true)"; then
  skip "a sanitizer build cannot run under Valgrind"
fi

id=$(valgrind -q --error-exitcode=99 "$BGTASK" --dir "$D" start -- sh -c 'echo under valgrind') ||
  fail "start under Valgrind failed"
"$BGTASK" --dir "$D" wait --timeout 60s "$id" >/dev/null || fail "task $id did not succeed: $(field "$id" .error)"
[ "$(field "$id" .state)" = succeeded ] || fail "task $id is $(field "$id" .state)"
[ "$(cat "$D/$id.output")" = "under valgrind" ] || fail "output of $id: $(cat "$D/$id.output")"
echo "ok: a task started under Valgrind ran and succeeded"
