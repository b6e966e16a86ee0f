#!/usr/bin/env bash
# start --retry: the supervisor runs a failing command again in the same
# task, records every attempt, sets BGTASK_ATTEMPT, applies --timeout per
# attempt, stops retrying on cancel, and leaves an honest record when it
# dies between attempts.
source "$(dirname "$0")/lib.sh"

# wait_for JQ_EXPR ID: until the record's field is true (at most ~30 s).
wait_for() {
  for _ in $(seq 600); do
    [ "$(field "$2" "$1")" = true ] && return 0
    sleep 0.05
  done
  fail "task $2: $1 never became true: $(cat "$D/$2.status.json")"
}

# A command that fails twice, then succeeds.
counter="$WORK/counter"
id=$(bg start --retry 3 --retry-delay 200ms -c \
  "n=\$(cat '$counter' 2>/dev/null || echo 0); n=\$((n+1)); echo \$n >'$counter'; echo attempt \$BGTASK_ATTEMPT; [ \$n -ge 3 ] || exit 7")
rc=0; bg wait "$id" >/dev/null || rc=$?
[ "$rc" = 0 ] || fail "the retried task exited $rc, expected 0"
[ "$(cat "$counter")" = 3 ] || fail "the command ran $(cat "$counter") times, expected 3"
[ "$(field "$id" '.attempts | length')" = 3 ] || fail "attempts: $(field "$id" .attempts)"
[ "$(field "$id" '[.attempts[].exit_code] | map(tostring) | join(",")')" = "7,7,0" ] ||
  fail "attempt exit codes: $(field "$id" .attempts)"
[ "$(field "$id" '[.attempts[].outcome] | join(",")')" = "failed,failed,succeeded" ] ||
  fail "attempt outcomes: $(field "$id" .attempts)"
[ "$(field "$id" '[.attempts[].number] | map(tostring) | join(",")')" = "1,2,3" ] ||
  fail "attempt numbers: $(field "$id" .attempts)"
[ "$(field "$id" '.attempts | all(.started_at != null and .finished_at != null)')" = true ] ||
  fail "attempt times missing"
[ "$(field "$id" '.attempts[1].started_at >= .attempts[0].finished_at')" = true ] ||
  fail "attempt 2 started before attempt 1 finished"
[ "$(printf '%s\n' "$(cat "$D/$id.output")")" = $'attempt 1\nattempt 2\nattempt 3' ] ||
  fail "output: $(cat "$D/$id.output")"
[ "$(field "$id" .state)" = succeeded ] && [ "$(field "$id" .retry_at)" = null ] || fail "final record"

# Retries run out: the task fails with the last attempt's status.
id=$(bg start --retry 2 -- sh -c 'exit 5')
rc=0; bg wait "$id" >/dev/null || rc=$?
[ "$rc" = 5 ] && [ "$(field "$id" '.attempts | length')" = 3 ] || fail "exhausted: rc $rc, $(field "$id" .attempts)"

# --retry-on: only the codes named.
id=$(bg start --retry 3 --retry-on 75 -- sh -c 'exit 3')
rc=0; bg wait "$id" >/dev/null || rc=$?
[ "$rc" = 3 ] && [ "$(field "$id" '.attempts | length')" = 1 ] || fail "--retry-on 75 retried exit 3"

# --timeout applies to each attempt; --retry-on timed_out retries it.
id=$(bg start --retry 1 --retry-on timed_out --timeout 1s --grace 1s -c \
  '[ "$BGTASK_ATTEMPT" = 1 ] && exec sleep 60; echo second')
rc=0; bg wait "$id" >/dev/null || rc=$?
[ "$rc" = 0 ] || fail "the timed-out-then-fine task exited $rc"
[ "$(field "$id" '[.attempts[].outcome] | join(",")')" = "timed_out,succeeded" ] ||
  fail "timeout attempts: $(field "$id" .attempts)"

# No --retry: one run, BGTASK_ATTEMPT=1, no attempts list.
id=$(bg start -c 'echo "a=$BGTASK_ATTEMPT"; exit 1')
bg wait "$id" >/dev/null || true
[ "$(cat "$D/$id.output")" = "a=1" ] && [ "$(field "$id" '.attempts | length')" = 0 ] ||
  fail "a task without --retry: $(cat "$D/$id.output") $(field "$id" .attempts)"

# cancel during the wait between attempts stops the retrying.
id=$(bg start --retry 5 --retry-delay 60s -- sh -c 'exit 1')
wait_for '.retry_at != null' "$id"
bg cancel "$id" >/dev/null
[ "$(field "$id" .state)" = cancelled ] || fail "cancel between attempts: $(field "$id" .state)"
[ "$(field "$id" '.attempts | length')" = 1 ] || fail "cancel: attempts $(field "$id" .attempts)"
[ "$(field "$id" .retry_at)" = null ] || fail "a cancelled task still names a retry time"

# cancel during an attempt: no further attempt.
id=$(bg start --retry 5 -- sleep 60)
wait_for '.state == "running"' "$id"
bg cancel --grace 1s "$id" >/dev/null
[ "$(field "$id" .state)" = cancelled ] && [ "$(field "$id" '.attempts | length')" = 1 ] ||
  fail "cancel during an attempt: $(field "$id" .state) $(field "$id" .attempts)"

# The supervisor dies between attempts: lost, with the attempts so far.
id=$(bg start --retry 2 --retry-delay 60s -- sh -c 'exit 4')
wait_for '.retry_at != null' "$id"
kill -KILL "$(field "$id" .owner.pid)"
for _ in $(seq 100); do
  kill -0 "$(field "$id" .owner.pid)" 2>/dev/null || break
  sleep 0.05
done
rc=0; bg wait "$id" >/dev/null || rc=$?
[ "$rc" = 75 ] || fail "wait after the supervisor died between attempts exited $rc, expected 75"
[ "$(field "$id" .state)" = lost ] || fail "state after the supervisor died: $(field "$id" .state)"
field "$id" .error | grep -F "between attempts (after attempt 1)" >/dev/null ||
  fail "error: $(field "$id" .error)"
[ "$(field "$id" '.attempts | length')" = 1 ] && [ "$(field "$id" '.attempts[0].exit_code')" = 4 ] ||
  fail "attempts after the supervisor died: $(field "$id" .attempts)"

# Bad input.
for bad in "--retry x" "--retry-delay 1s" "--retry 1 --retry-on 0" "--retry 1 --retry-on nope" "--retry 1001"; do
  rc=0; bg start $bad -- true 2>/dev/null || rc=$?
  [ "$rc" = 2 ] || fail "start $bad exited $rc, expected 2"
done
echo ok
