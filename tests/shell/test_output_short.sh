#!/usr/bin/env bash
# A finished task's ID.output that holds fewer bytes than its final record
# counts (lost in a power cut, cut off or removed by hand): `status` and
# `output` say so on stderr, naming the task and the bytes there and
# expected, and exit 1 (documented); `output --follow` warns and exits as
# `wait` would. A whole output gives no warning.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

# expect_warning HAVE WANT WHAT: the last run's stderr names the shortfall.
expect_warning() {
  grep -qF "bgtask: warning: output of task $ID is shorter than its record says ($1 of $2 bytes)" <<<"$err" ||
    fail "$3: no warning naming the shortfall ($1 of $2 bytes): $err"
}

ID=$(bg start -- sh -c 'seq 1 2000; exit 0')
OTHER=$(bg start -- echo whole)
bg wait "$ID" "$OTHER" >/dev/null
BYTES=$(field "$ID" .output.bytes)
[ "$BYTES" -eq "$(seq 1 2000 | wc -c)" ] || fail "the record counts $BYTES bytes"

# Whole: silent, exit 0.
for cmd in "status $ID" "output $ID" "output $ID --tail 3" "output $ID --json" "output $ID --follow"; do
  # shellcheck disable=SC2086
  run $cmd
  expect_rc 0 "$cmd on a whole output"
  [ -z "$err" ] || fail "$cmd on a whole output printed on stderr: $err"
done

# Shorter than the record says.
truncate -s 100 "$D/$ID.output"
run status "$ID"
expect_rc 1 "status on a short output"
expect_warning 100 "$BYTES" "status"
grep -Eq '^State +succeeded' <<<"$out" || fail "status no longer shows the record: $out"
run status "$ID" --json
expect_rc 1 "status --json on a short output"
expect_warning 100 "$BYTES" "status --json"
[ "$(jq -r '.[0].state' <<<"$out")" = succeeded ] || fail "status --json: $out"
run output "$ID"
expect_rc 1 "output on a short output"
expect_warning 100 "$BYTES" "output"
[ "$out" = "$(head -c 100 "$D/$ID.output")" ] || fail "output did not print what is there"
run output "$ID" --tail 2
expect_rc 1 "output --tail on a short output"
expect_warning 100 "$BYTES" "output --tail"
run output "$ID" --json
expect_rc 1 "output --json on a short output"
expect_warning 100 "$BYTES" "output --json"
[ "$(jq -r '.bytes' <<<"$out")" = 100 ] || fail "output --json: $out"
run output "$ID" --since "$(jq -r .cursor <<<"$out")"
expect_rc 1 "output --since on a short output"
expect_warning 100 "$BYTES" "output --since"
# --follow exits with the task's status, as wait does, and warns.
run output "$ID" --follow
expect_rc 0 "output --follow on a short output"
expect_warning 100 "$BYTES" "output --follow"
run output --follow "$ID" "$OTHER"
expect_rc 0 "output --follow of several tasks, one short"
expect_warning 100 "$BYTES" "output --follow of several tasks"
[ "$(grep -c 'bgtask: warning' <<<"$err")" -eq 1 ] || fail "output --follow of several tasks warned about a whole output: $err"

# Empty, then gone altogether.
truncate -s 0 "$D/$ID.output"
run status "$ID"
expect_rc 1 "status on an empty output"
expect_warning 0 "$BYTES" "status on an empty output"
rm "$D/$ID.output"
run status "$ID"
expect_rc 1 "status without an output file"
expect_warning 0 "$BYTES" "status without an output file"
run output "$ID"
expect_rc 1 "output without an output file"
grep -q "bgtask: error: task $ID has no output file" <<<"$err" || fail "output without an output file: $err"

# A task that `cleanup` removes while `status` reads it (held at the open of
# its output file, after it read the record) is not short of anything.
if command -v strace >/dev/null; then
  ID=$(bg start -- seq 1 100)
  bg wait "$ID" >/dev/null
  # (-P with the name as status opens it, relative to the directory.)
  (cd / && strace -f -qq -o /dev/null -P "$ID.output" -e trace=openat \
    -e inject=openat:delay_enter=1000000:when=1 "$BGTASK" --dir "$D" status "$ID" \
    >"$WORK/held.out" 2>"$WORK/held.err") &
  held=$!
  sleep 0.5
  bg cleanup --quiet "$ID"
  rc=0
  wait "$held" || rc=$?
  [ "$rc" -eq 0 ] || fail "status of a task removed while it read it: exit $rc ($(cat "$WORK/held.err"))"
  [ ! -s "$WORK/held.err" ] || fail "status of a task removed while it read it warned: $(cat "$WORK/held.err")"
fi

# A task that printed nothing has nothing missing.
ID=$(bg start -- true)
bg wait "$ID" >/dev/null
rm "$D/$ID.output"
run status "$ID"
expect_rc 0 "status of a task without output, its empty file removed"
echo ok
