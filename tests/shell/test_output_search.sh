#!/usr/bin/env bash
# Reading where a failure shows: `output --tail N --json` (a slice of the
# last lines, with a cursor that reads on) and `output --grep REGEX [-C N]
# [--max-matches N] [--json]` (numbered matching lines over all the kept
# output, across the retention gap, in one pass).
source "$(dirname "$0")/lib.sh"

# A failing build of 20,000 lines: its error is near the end.
ID=$(bg start -- sh -c 'seq 1 19990 | sed "s/^/compiling unit /"; echo "src/x.c:12: error: boom"; seq 1 9; exit 2')
bg wait "$ID" >/dev/null || true
answer=$(bg output "$ID" --tail 3 --json)
[ "$(jq -r .text <<<"$answer")" = "$(printf '7\n8\n9\n')" ] || fail "--tail 3 --json: $(jq -c .text <<<"$answer")"
[ "$(jq -r .complete <<<"$answer")" = true ] || fail "the tail does not reach the end"
[ "$(jq -r .state <<<"$answer")" = failed ] || fail "state $(jq -r .state <<<"$answer")"
# The tail of 20 lines, bounded to 100 bytes: the slice ends at the end, a cursor reads on.
answer=$(bg output "$ID" --tail 20 --max-bytes 100 --json)
[ "$(jq -r .bytes <<<"$answer")" -le 100 ] || fail "--tail --max-bytes 100 read $(jq -r .bytes <<<"$answer")"
[ "$(jq -r .complete <<<"$answer")" = true ] || fail "a bounded tail does not end at the end"
rest=$(bg output "$ID" --since "$(jq -r .cursor <<<"$answer")" --json)
[ "$(jq -r .bytes <<<"$rest")" -eq 0 ] || fail "the tail's cursor does not read on from the end"
bg output "$ID" --tail 3 --since "$(jq -r .cursor <<<"$answer")" --json 2>/dev/null && fail "--tail with --since was accepted"

# --grep: the line number and a cursor at the start of the line.
answer=$(bg output "$ID" --grep 'error:' --json)
[ "$(jq -r .total_matches <<<"$answer")" -eq 1 ] || fail "grep total $(jq -r .total_matches <<<"$answer")"
[ "$(jq -r '.matches[0].line' <<<"$answer")" -eq 19991 ] || fail "grep line $(jq -r '.matches[0].line' <<<"$answer")"
[ "$(jq -r '.matches[0].text' <<<"$answer")" = "src/x.c:12: error: boom" ] || fail "grep text"
from=$(bg output "$ID" --since "$(jq -r '.matches[0].cursor' <<<"$answer")" --max-bytes 23 --json)
[ "$(jq -r .text <<<"$from")" = "src/x.c:12: error: boom" ] || fail "a match's cursor does not read from its line"
# Text form, with context, as grep -n -C prints it.
bg output "$ID" --grep 'error:' -C 1 >"$WORK/shown"
printf '19990-compiling unit 19990\n19991:src/x.c:12: error: boom\n19992-1\n' | cmp - "$WORK/shown" ||
  fail "--grep -C 1 printed: $(cat "$WORK/shown")"
# --max-matches: the first N, every match counted.
answer=$(bg output "$ID" --grep '^compiling unit 1[0-9]*5$' --max-matches 2 --json)
[ "$(jq -r '.matches | length' <<<"$answer")" -eq 2 ] || fail "--max-matches 2"
[ "$(jq -r '[.matches[].line] | join(",")' <<<"$answer")" = "15,105" ] || fail "first matches $(jq -c '[.matches[].line]' <<<"$answer")"
[ "$(jq -r .truncated <<<"$answer")" = true ] || fail "not marked truncated"
[ "$(jq -r .total_matches <<<"$answer")" -eq 1110 ] || fail "total $(jq -r .total_matches <<<"$answer")"
# A line of 10 KB matched at its end, returned cut to 512 bytes.
LONG=$(bg start -- sh -c 'head -c 10000 /dev/zero | tr "\\0" a; echo NEEDLE; echo short')
bg wait "$LONG" >/dev/null
answer=$(bg output "$LONG" --grep 'NEEDLE$' --json)
[ "$(jq -r .total_matches <<<"$answer")" -eq 1 ] || fail "a match 10000 bytes into a line: $(jq -c .total_matches <<<"$answer")"
[ "$(jq -r '.matches[0].text | length' <<<"$answer")" -eq 512 ] || fail "a long line is not cut to 512 bytes"
# A regex that matches nothing: no lines, exit 0, a count of 0.
out=$(bg output "$ID" --grep 'no such line') || fail "a search without matches exited $?"
[ -z "$out" ] || fail "a search without matches printed: $out"
[ "$(bg output "$ID" --grep 'no such line' --json | jq -r '.total_matches, (.matches|length)' | tr '\n' ' ')" = "0 0 " ] ||
  fail "a search without matches in JSON"
# A bad regex is a usage error naming the option.
err=$(bg output "$ID" --grep '(' 2>&1 >/dev/null) && fail "a bad regex was accepted"
grep -q -- '--grep' <<<"$err" || fail "the error does not name --grep: $err"
bg output "$ID" -C 2 2>/dev/null && fail "-C without --grep was accepted"

# Across the retention gap: head and tail both searched; after the gap the
# lines are counted in the kept output and flagged.
probe="$D/.punch-probe"
head -c 65536 /dev/zero >"$probe"
if fallocate -p -o 4096 -l 4096 "$probe" 2>/dev/null; then
  rm -f "$probe"
  GAP=$(bg start --max-output 64K -- sh -c 'echo "first ERROR"; seq 1 100000; echo "last ERROR"; echo done')
  bg wait "$GAP" >/dev/null
  [ "$(bg status "$GAP" --json | jq -r ".[0].output.dropped_bytes")" -gt 0 ] || fail "nothing was dropped"
  answer=$(bg output "$GAP" --grep ERROR --json)
  [ "$(jq -r .total_matches <<<"$answer")" -eq 2 ] || fail "across the gap: $(jq -c . <<<"$answer")"
  [ "$(jq -r '.matches[0].line' <<<"$answer")" -eq 1 ] || fail "the head's line number"
  [ "$(jq -r '.matches[0].after_gap // false' <<<"$answer")" = false ] || fail "the head flagged after the gap"
  [ "$(jq -r '.matches[1].after_gap' <<<"$answer")" = true ] || fail "the tail not flagged after the gap"
  [ "$(jq -r '.matches[1].text' <<<"$answer")" = "last ERROR" ] || fail "the tail's match"
  [ "$(jq -r .dropped_bytes <<<"$answer")" -gt 0 ] || fail "dropped_bytes"
  bg output "$GAP" --grep ERROR >"$WORK/shown"
  grep -q '^\[bgtask: [0-9]* bytes of output dropped here' "$WORK/shown" || fail "no gap marker in the text form"
  grep -q '^~[0-9]*:last ERROR$' "$WORK/shown" || fail "the tail's match in the text form: $(cat "$WORK/shown")"
else
  rm -f "$probe"
  echo "the file system of $D cannot punch holes: the gap is not tested"
fi
echo ok
