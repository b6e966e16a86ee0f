#!/usr/bin/env bash
# The task's environment: --env K=V, --env K (the caller's value),
# --env-file FILE; --env PATH=... is the PATH the command is looked up in;
# no --env value stays in the command line of `start` or of the supervisor
# (/proc/PID/cmdline is readable by every user).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

# --env PATH: the command is found in the task's PATH, not the caller's.
mkdir "$WORK/bin"
printf '#!/bin/sh\necho found-in-task-path\n' >"$WORK/bin/onlyhere"
chmod +x "$WORK/bin/onlyhere"
id=$(bg start --env "PATH=$WORK/bin:/usr/bin:/bin" -- onlyhere) || fail "start with --env PATH failed"
bg wait "$id" >/dev/null || fail "onlyhere: $(field "$id" .error)"
[ "$(cat "$D/$id.output")" = found-in-task-path ] || fail "output: $(cat "$D/$id.output")"
# ... and a PATH without it means 127, even though the caller's PATH has it.
rc=0
PATH="$WORK/bin:$PATH" bg start --env PATH=/usr/bin:/bin -- onlyhere >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 127 ] || fail "a command outside the task's PATH: exit $rc, want 127"

# --env NAME passes the caller's value on; unset is an error naming it.
id=$(TOKEN_FROM_CALLER=v-from-caller bg start --env TOKEN_FROM_CALLER -- sh -c 'printf %s "$TOKEN_FROM_CALLER"')
bg wait "$id" >/dev/null
[ "$(cat "$D/$id.output")" = v-from-caller ] || fail "--env NAME: $(cat "$D/$id.output")"
[ "$(field "$id" '.env_names | join(",")')" = TOKEN_FROM_CALLER ] || fail "env_names: $(field "$id" .env_names)"
unset NOT_SET_ANYWHERE
run start --env NOT_SET_ANYWHERE -- true
expect_rc 2 "--env of an unset name"
expect_error "NOT_SET_ANYWHERE is not set" "--env of an unset name"

# --env-file: NAME=VALUE lines (verbatim values), comments, blank lines;
# --env given as well wins.
printf '# secrets\nFILE_A=a b  c\n\nFILE_B=x=y\nFILE_C=from-file\n' >"$WORK/env"
id=$(bg start --env-file "$WORK/env" --env FILE_C=from-option -- sh -c 'printf "%s|%s|%s" "$FILE_A" "$FILE_B" "$FILE_C"')
bg wait "$id" >/dev/null
[ "$(cat "$D/$id.output")" = "a b  c|x=y|from-option" ] || fail "--env-file: $(cat "$D/$id.output")"
printf 'GOOD=1\nnot a line s3cr3t-line\n' >"$WORK/bad-env"
run start --env-file "$WORK/bad-env" -- true
expect_rc 2 "a malformed env file"
expect_error "line 2" "a malformed env file"
case "$err" in *s3cr3t*) fail "the env-file error shows the line: $err" ;; esac
run start --env-file "$WORK/missing-env" -- true
expect_rc 2 "a missing env file"

# No --env value in the supervisor's command line (it is a fork of start,
# whose argument memory it shares the contents of), nor in ps.
id=$(bg start --env API_TOKEN=s3cr3t-argv --env=OTHER=s3cr3t-eq -- sleep 30)
sup=$(field "$id" .owner.pid)
tr '\0' ' ' <"/proc/$sup/cmdline" >"$WORK/cmdline"
grep -c s3cr3t "$WORK/cmdline" >/dev/null && fail "the supervisor's cmdline shows a value: $(cat "$WORK/cmdline")"
grep -c 'API_TOKEN=' "$WORK/cmdline" >/dev/null || fail "the supervisor's cmdline lost the name: $(cat "$WORK/cmdline")"
ps -eo args >"$WORK/ps"
grep -c s3cr3t "$WORK/ps" >/dev/null && fail "ps shows a value: $(grep s3cr3t "$WORK/ps")"
# The command itself has it in its environment.
child=$(field "$id" .child.pid)
tr '\0' '\n' <"/proc/$child/environ" | grep -cx API_TOKEN=s3cr3t-argv >/dev/null || fail "the command lacks API_TOKEN"
bg cancel "$id" >/dev/null
echo ok
