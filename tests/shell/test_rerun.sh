#!/usr/bin/env bash
# `bgtask rerun ID` starts a new task with the original's command, directory,
# name and options; --env values are given again (--env K=V, --env NAME,
# --env-file) and stderr names the original's variables that were not.
source "$(dirname "$0")/lib.sh"

mkdir "$WORK/here"
orig=$(cd "$WORK/here" && bg start --name job --timeout 30s --grace 1s --max-output 1M \
  --env TOKEN=first --env MODE=a -c 'echo "run in $(pwd) token=$TOKEN mode=${MODE:-unset}"')
bg wait "$orig" >/dev/null || fail "the original task did not succeed"
grep -Fx "run in $WORK/here token=first mode=a" "$WORK/tasks/$orig.output" >/dev/null ||
  fail "original output: $(cat "$D/$orig.output")"

# From another directory, with only one of the two variables given again.
export TOKEN=second
again=$(cd / && bg rerun "$orig" --env TOKEN 2>"$WORK/err")
[ -n "$again" ] && [ "$again" != "$orig" ] || fail "rerun printed no new ID: '$again'"
grep -F "MODE" "$WORK/err" >/dev/null || fail "rerun did not name the missing MODE: $(cat "$WORK/err")"
if grep -F "TOKEN" "$WORK/err" | grep -F "not given" | grep -vF "was started" >/dev/null; then
  fail "rerun named TOKEN as missing: $(cat "$WORK/err")"
fi
grep -F "second" "$WORK/err" >/dev/null && fail "rerun printed a value on stderr"
bg wait "$again" >/dev/null || fail "the rerun did not succeed"
grep -Fx "run in $WORK/here token=second mode=unset" "$D/$again.output" >/dev/null ||
  fail "rerun output: $(cat "$D/$again.output")"
[ "$(field "$again" .name)" = job ] || fail "the rerun lost the name"
[ "$(field "$again" .cwd)" = "$WORK/here" ] || fail "the rerun lost the directory"
[ "$(field "$again" .timeout_s)" = 30 ] || fail "the rerun lost --timeout"
[ "$(field "$again" .grace_s)" = 1 ] || fail "the rerun lost --grace"
[ "$(field "$again" .options.max_output)" = 1048576 ] || fail "the rerun lost --max-output"
[ "$(field "$again" .rerun_of)" = "$orig" ] || fail "the rerun does not name its original"
[ "$(field "$again" '.env_names | join(",")')" = TOKEN ] || fail "env_names: $(field "$again" .env_names)"
grep -F second "$D/$again.status.json" >/dev/null && fail "an --env value was stored"

# --env-file, overridden by --env; every name given: nothing on stderr.
printf '# comment\n\nTOKEN=fromfile\nMODE=b\n' >"$WORK/env"
third=$(bg rerun "$orig" --env-file "$WORK/env" --env MODE=c 2>"$WORK/err")
[ ! -s "$WORK/err" ] || fail "rerun with every variable complained: $(cat "$WORK/err")"
bg wait "$third" >/dev/null
grep -Fx "run in $WORK/here token=fromfile mode=c" "$D/$third.output" >/dev/null ||
  fail "env-file rerun output: $(cat "$D/$third.output")"

# A failing argv command reruns as argv (not through a shell), with its exit status.
failing=$(bg start -- sh -c 'exit 3')
bg wait "$failing" >/dev/null && fail "the failing task succeeded"
rerun_failing=$(bg rerun "$failing")
rc=0; bg wait "$rerun_failing" >/dev/null || rc=$?
[ "$rc" = 3 ] || fail "the rerun of a failing task exited $rc, expected 3"
[ "$(field "$rerun_failing" '.command | join(" ")')" = "sh -c exit 3" ] || fail "argv changed"

# Bad input: an unknown ID, an unset --env NAME, an unreadable --env-file.
rc=0; bg rerun 0000000000zz 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "rerun of an unknown ID exited $rc, expected 2"
rc=0; env -u NOPE_UNSET "$BGTASK" --dir "$D" rerun "$orig" --env NOPE_UNSET 2>"$WORK/err" || rc=$?
[ "$rc" = 2 ] && grep -F "NOPE_UNSET is not set" "$WORK/err" >/dev/null || fail "unset --env NAME: rc $rc, $(cat "$WORK/err")"
rc=0; bg rerun "$orig" --env-file "$WORK/absent" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "missing --env-file exited $rc, expected 2"
echo ok
