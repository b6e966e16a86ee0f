#!/usr/bin/env bash
# Finding a task without its ID: the README's first session run as written,
# @ and @last, --name, cancel --all, IDs in either case, status with an
# unknown ID, cleanup of named tasks, output --name through a pipe.
source "$(dirname "$0")/lib.sh"

# `bgtask` and a stand-in `make` on PATH, as the README assumes.
mkdir "$WORK/bin" "$WORK/project"
printf '#!/bin/sh\nexec %q "$@"\n' "$BGTASK" >"$WORK/bin/bgtask"
printf '#!/bin/sh\necho "make $*"; sleep 1; echo built\n' >"$WORK/bin/make"
chmod +x "$WORK/bin/bgtask" "$WORK/bin/make"
export PATH="$WORK/bin:$PATH" BGTASK_DIR="$D"

# The README's first session, each `$ ` line as it is written there.
sed -n '/^## A first session/,/^```$/p' "$(dirname "$0")/../../README.md" | sed -n 's/^\$ //p' >"$WORK/session.sh"
[ "$(wc -l <"$WORK/session.sh")" -ge 6 ] || fail "the README's first session was not found"
(cd "$WORK/project" && bash -e "$WORK/session.sh") >"$WORK/session.out" 2>"$WORK/session.err" ||
  fail "the README's first session failed: $(cat "$WORK/session.out" "$WORK/session.err")"
grep -q "^built$" "$WORK/session.out" || fail "output --follow @ did not follow the build: $(cat "$WORK/session.out")"
grep -qx 0 "$WORK/session.out" || fail "wait --name build did not exit 0: $(cat "$WORK/session.out")"
[ "$(bgtask list --json | jq '[.[] | select(.state == "running" or .state == "queued")] | length')" -eq 0 ] ||
  fail "cancel --all left tasks running"

# @ is the newest task started from the current directory; @last the newest anywhere.
here=$(cd "$WORK/project" && bgtask start --name here -- sleep 60)
there=$(cd / && bgtask start --name there -- sleep 60)
[ "$(cd "$WORK/project" && bgtask status --json @ | jq -r '.[0].id')" = "$here" ] || fail "@ in the project is not $here"
[ "$(cd / && bgtask status --json @ | jq -r '.[0].id')" = "$there" ] || fail "@ in / is not $there"
[ "$(cd "$WORK/project" && bgtask status --json @last | jq -r '.[0].id')" = "$there" ] || fail "@last is not $there"
rc=0
(cd "$WORK/bin" && bgtask status @) >/dev/null 2>"$WORK/at.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "no task started from" "$WORK/at.err" || fail "@ with no task here: rc $rc, $(cat "$WORK/at.err")"

# IDs in either case; --name as a selector.
upper=$(tr a-z A-Z <<<"$here")
[ "$(bgtask status --json "$upper" | jq -r '.[0].id')" = "$here" ] || fail "an upper-case ID was not found"
[ "$(bgtask status --json "${upper:0:9}" | jq -r '.[0].id')" = "$here" ] || fail "an upper-case prefix was not found"
[ "$(bgtask status --json --name there | jq -r '.[0].id')" = "$there" ] || fail "status --name"

# status with an unknown ID: the known record, the unknown reported, exit 2.
rc=0
bgtask status --json "$here" 2nk5t7f30b55 >"$WORK/status.json" 2>"$WORK/status.err" || rc=$?
[ "$rc" -eq 2 ] || fail "status with an unknown ID exited $rc, not 2"
[ "$(jq -r '.[0].id' "$WORK/status.json")" = "$here" ] || fail "status did not print the known record: $(cat "$WORK/status.json")"
grep -q "no task 2nk5t7f30b55" "$WORK/status.err" || fail "status did not report the unknown ID: $(cat "$WORK/status.err")"

# cancel --name, then cleanup of named tasks: finished ones go, a running one stays.
bgtask cancel --quiet --grace 100ms --name there
[ "$(jq -r .state "$D/$there.status.json")" = cancelled ] || fail "cancel --name did not cancel $there"
bgtask cleanup "$there" "$here" >"$WORK/cleanup.out" 2>"$WORK/cleanup.err" || fail "cleanup of named tasks failed"
[ ! -e "$D/$there.status.json" ] || fail "cleanup ID did not remove the finished task"
[ -e "$D/$here.status.json" ] || fail "cleanup ID removed a running task"
grep -q "$here is running; not removed" "$WORK/cleanup.err" || fail "cleanup said: $(cat "$WORK/cleanup.err")"
bgtask cancel --quiet --all

# --name N is the newest task of that name: yesterday's failed build does
# not fail today's `wait --name build`; --all-named N still means all.
old=$(bgtask start --name rebuild -c 'exit 1')
bgtask wait --quiet "$old" || true
new=$(bgtask start --name rebuild -- true)
rc=0
bgtask wait --quiet --name rebuild || rc=$?
[ "$rc" -eq 0 ] || fail "wait --name rebuild counted an older task: exit $rc"
[ "$(bgtask status --json --name rebuild | jq -r '[.[].id] | join(" ")')" = "$new" ] ||
  fail "status --name did not select only the newest task"
rc=0
bgtask wait --quiet --all-named rebuild || rc=$?
[ "$rc" -eq 1 ] || fail "wait --all-named rebuild exited $rc, not the older task's 1"
[ "$(bgtask status --json --all-named rebuild | jq length)" -eq 2 ] || fail "status --all-named"

# output --name N, read through a pipe: the newest task of that name, byte
# for byte as `output ID` prints it (no prefix; --tail and --json too).
first=$(bgtask start --name nightly -c 'echo first run')
bgtask wait --quiet "$first"
rc=0
bgtask output --follow --name nightly | cat >"$WORK/one.out" || rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$WORK/one.out")" = "first run" ] ||
  fail "output --follow --name of one task: rc $rc, $(cat -A "$WORK/one.out")"
second=$(bgtask start --name nightly -c 'echo second run; printf "no newline"; exit 3')
bgtask wait --quiet "$second" || true
bgtask output --name nightly | cat >"$WORK/by-name.out"
bgtask output "$second" | cat >"$WORK/by-id.out"
printf 'second run\nno newline' | cmp -s - "$WORK/by-name.out" ||
  fail "output --name printed $(od -c "$WORK/by-name.out")"
cmp -s "$WORK/by-id.out" "$WORK/by-name.out" || fail "output --name and output ID differ"
[ "$(bgtask output --name nightly --tail 1 | cat)" = "no newline" ] || fail "output --name --tail 1"
[ "$(bgtask output --name nightly --json | jq -r .id)" = "$second" ] || fail "output --name --json is not the newest task"
# --follow --all-named takes every task of the name; each line after its ID
# (they share the name), and the exit status of the one that failed.
rc=0
bgtask output --follow --all-named nightly | cat >"$WORK/both.out" || rc=$?
[ "$rc" -eq 3 ] || fail "output --follow --all-named of two tasks exited $rc, not 3"
printf '%s\n' "$first| first run" "$second| second run" "$second| no newline" | cmp -s - "$WORK/both.out" ||
  fail "output --follow --all-named of two tasks printed: $(cat "$WORK/both.out")"
# One running task followed by --name streams as output --follow ID does.
live=$(bgtask start --name live -c 'echo a; sleep 0.5; echo b')
rc=0
bgtask output --follow --name live | cat >"$WORK/live.out" || rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$WORK/live.out")" = $'a\nb' ] ||
  fail "output --follow --name of a running task: rc $rc, $(cat -A "$WORK/live.out")"
[ "$(jq -r .state "$D/$live.status.json")" = succeeded ] || fail "the followed task did not end"
# Usage errors: no such name; a name and an ID, or a queue, without --follow.
for args in "--name nosuch" "--name nightly $first" "--queue q"; do
  rc=0
  # shellcheck disable=SC2086 # the words of args
  bgtask output $args >/dev/null 2>"$WORK/usage.err" || rc=$?
  [ "$rc" -eq 2 ] || fail "output $args exited $rc, not 2: $(cat "$WORK/usage.err")"
done
grep -q "need --follow" "$WORK/usage.err" || fail "output --queue without --follow said: $(cat "$WORK/usage.err")"
echo "finding: ok"
