#!/usr/bin/env bash
# `run` keeps the task's stderr apart from its stdout when its caller does,
# as a command in the foreground would: `run ... 2>/dev/null | cat` prints
# only the stdout, and `2>FILE` gets the errors. With `2>&1`, one terminal
# for both, or stderr a pipe, they stay merged in the output as before.
source "$(dirname "$0")/lib.sh"

script='echo out; echo err >&2; echo out2'

# stderr thrown away, stdout into a real pipe.
"$BGTASK" --dir "$D" run --name quiet -c "$script" 2>/dev/null | cat >"$WORK/quiet.out"
[ "$(cat "$WORK/quiet.out")" = "$(printf 'out\nout2')" ] ||
  fail "run 2>/dev/null | cat printed: $(cat "$WORK/quiet.out")"

# stderr into a file: the error reaches it, and only it.
"$BGTASK" --dir "$D" run --name apart -c "$script" 2>"$WORK/apart.err" | cat >"$WORK/apart.out"
[ "$(cat "$WORK/apart.out")" = "$(printf 'out\nout2')" ] || fail "run 2>FILE | cat printed: $(cat "$WORK/apart.out")"
[ "$(cat "$WORK/apart.err")" = err ] || fail "the caller's stderr got: $(cat "$WORK/apart.err")"
id=$(bg list --name apart --json | jq -r '.[0].id')
[ "$(field "$id" .options.stderr_apart)" = true ] || fail "the record does not say stderr was apart"
[ "$(bg output "$id")" = "$(printf 'out\nout2')" ] || fail "the output file holds: $(bg output "$id")"

# A command that exits with an error message: the status and the message
# both reach the caller, the pipe gets nothing.
rc=0
"$BGTASK" --dir "$D" run -c 'echo "no such host" >&2; exit 6' 2>"$WORK/fail.err" | cat >"$WORK/fail.out" || rc=$?
[ "$rc" -eq 6 ] || fail "a failing run exited $rc, not 6"
[ ! -s "$WORK/fail.out" ] || fail "the pipe got the error: $(cat "$WORK/fail.out")"
[ "$(cat "$WORK/fail.err")" = "no such host" ] || fail "the caller's stderr got: $(cat "$WORK/fail.err")"

# 2>&1: one stream, merged in the output as the command wrote it.
"$BGTASK" --dir "$D" run --name merged -c "$script" 2>&1 | cat >"$WORK/merged.out"
[ "$(cat "$WORK/merged.out")" = "$(printf 'out\nerr\nout2')" ] || fail "run 2>&1 | cat printed: $(cat "$WORK/merged.out")"
id=$(bg list --name merged --json | jq -r '.[0].id')
[ "$(field "$id" .options.stderr_apart)" = false ] || fail "a merged run's record says stderr was apart"
[ "$(bg output "$id")" = "$(printf 'out\nerr\nout2')" ] || fail "the merged output file holds: $(bg output "$id")"

# stderr a pipe (a program that reads stdout and stderr apart): merged, since
# a task outliving a detached run would hold the pipe open.
"$BGTASK" --dir "$D" run --name piped -c "$script" 2> >(cat >"$WORK/piped.err") | cat >"$WORK/piped.out"
[ "$(cat "$WORK/piped.out")" = "$(printf 'out\nerr\nout2')" ] || fail "run 2>PIPE | cat printed: $(cat "$WORK/piped.out")"
id=$(bg list --name piped --json | jq -r '.[0].id')
[ "$(field "$id" .options.stderr_apart)" = false ] || fail "a run with stderr a pipe kept it apart"

# Each attempt of a retried task writes its errors to the caller too.
"$BGTASK" --dir "$D" run --retry 1 -c 'echo "attempt $BGTASK_ATTEMPT" >&2; exit 1' 2>"$WORK/retry.err" |
  cat >/dev/null || true
[ "$(cat "$WORK/retry.err")" = "$(printf 'attempt 1\nattempt 2')" ] || fail "retries wrote: $(cat "$WORK/retry.err")"
echo "run stderr: ok"
