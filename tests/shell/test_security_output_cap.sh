#!/usr/bin/env bash
# Output size cap (security guide H7): `start --max-output SIZE` and
# $BGTASK_MAX_OUTPUT bound the disk space ID.output takes (its head and tail
# are kept, the middle punched out: test_output_retention.sh); past the bound the command
# keeps running to its end, its exit status is recorded, and the record says
# how much was dropped. Malformed sizes are refused before anything is written.
# Readers stay fast and bounded on huge output.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

# 50 MiB through a 1 MiB cap; the command's own exit status survives.
ID=$(bg start --max-output 1M -- sh -c 'yes | head -c 50M; echo done >&2; exit 3') # sigpipe-ok: sh, no pipefail
set +e
bg wait "$ID" >/dev/null
status=$?
set -e
[ "$status" -eq 3 ] || fail "wait: exit $status, expected the command's 3"
[ "$(du -k "$D/$ID.output" | cut -f1)" -le 1200 ] || fail "output file takes $(du -k "$D/$ID.output" | cut -f1) KiB"
[ "$(field "$ID" .exit_code)" = 3 ] || fail "exit code not recorded"
[ "$(field "$ID" .output.truncated)" = true ] || fail "record does not say truncated"
total=$((50 * 1048576 + 5))
dropped=$(field "$ID" .output.dropped_bytes)
[ "$dropped" -le $((total - 1048576)) ] && [ "$dropped" -ge $((total - 1048576 - 65536 - 4096)) ] ||
  fail "dropped_bytes is $dropped"
[ "$(field "$ID" .output.bytes)" -eq "$total" ] || fail "output.bytes is $(field "$ID" .output.bytes)"
shown=$(bg output "$ID" | grep -a -v '^\[bgtask:' | wc -c)
# (plus a newline before the marker line when the head ends inside a line)
[ "$shown" -ge $((total - dropped)) ] && [ "$shown" -le $((total - dropped + 1)) ] ||
  fail "output printed $shown bytes, not the kept ones"
[ "$(bg output "$ID" | tail -n 1)" = done ] || fail "output lost the tail"
grep -q '^Truncated .*dropped' <<<"$(bg status "$ID")" || fail "status does not say the output was truncated"
[ "$(stat -c %a "$D/$ID.output")" = 600 ] || fail "capped output file is not 0600"

# The default comes from the environment; `none` lifts it; small output is whole.
ID=$(BGTASK_MAX_OUTPUT=64K bg start -- sh -c 'head -c 100000 /dev/zero')
bg wait "$ID" >/dev/null
dropped=$(field "$ID" .output.dropped_bytes)
[ "$dropped" -gt 0 ] && [ $((100000 - dropped)) -le $((65536 + 8192)) ] ||
  fail "BGTASK_MAX_OUTPUT=64K dropped $dropped"
ID=$(BGTASK_MAX_OUTPUT=64K bg start --max-output none -- sh -c 'head -c 100000 /dev/zero')
bg wait "$ID" >/dev/null
[ "$(stat -c %s "$D/$ID.output")" -eq 100000 ] || fail "--max-output none still capped"
[ "$(du -k "$D/$ID.output" | cut -f1)" -ge 97 ] || fail "--max-output none: holes punched"
[ "$(field "$ID" .output.truncated)" = false ] || fail "--max-output none: record says truncated"
ID=$(bg start --max-output 1K -- echo small)
bg wait "$ID" >/dev/null
[ "$(cat "$D/$ID.output")" = small ] || fail "output under the cap is not kept whole"
[ "$(field "$ID" .output.truncated)" = false ] || fail "output under the cap marked truncated"

# A capped task still stops on time and on cancel.
ID=$(bg start --max-output 1K --timeout 1s -- sh -c 'while :; do echo spam; done')
set +e
bg wait "$ID" >/dev/null
status=$?
set -e
[ "$status" -eq 124 ] || fail "a capped chatty task did not time out (exit $status)"
[ "$(field "$ID" .output.truncated)" = true ] || fail "capped chatty task not marked truncated"

# Readers stay bounded whatever a task printed: a 64 MiB line without end
# is tailed quickly, with at most 1 MiB of it shown by `status`.
ID=$(bg start -- sh -c 'head -c 64M /dev/zero | tr "\0" x')
bg wait "$ID" >/dev/null
run status "$ID"
expect_rc 0 "status of a task with a 64 MiB line"
[ "${#out}" -le $((1048576 + 2000)) ] || fail "status printed ${#out} bytes of a 64 MiB line"
run output --tail 1 "$ID"
expect_rc 0 "output --tail 1 of a 64 MiB line"
[ "${#out}" -eq $((64 * 1048576)) ] || fail "output --tail 1 printed ${#out} bytes, not the whole last line"

# Malformed sizes: exit 2, one line naming the option, nothing written.
before=$(snapshot "$D")
for size in -1 10Q '' 1e3 1.5M 99999999999999999999 5GiBs; do
  run start --max-output "$size" -- true
  expect_rc 2 "--max-output '$size'"
  expect_error "--max-output" "--max-output '$size'"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "--max-output '$size': more than one line: $err"
  [ -n "$size" ] || continue # an empty BGTASK_MAX_OUTPUT means no cap
  set +e
  err=$(BGTASK_MAX_OUTPUT="$size" timeout -s KILL 10 "$BGTASK" --dir "$D" start -- true 2>&1 >/dev/null)
  rc=$?
  set -e
  expect_rc 2 "BGTASK_MAX_OUTPUT='$size'"
  expect_error "BGTASK_MAX_OUTPUT" "BGTASK_MAX_OUTPUT='$size'"
done
[ "$before" = "$(snapshot "$D")" ] || fail "a refused start wrote into the directory"
echo ok
