#!/usr/bin/env bash
# `output --since CURSOR [--max-bytes N] --json`: reading a task's output
# piece by piece with opaque cursors, as an agent does between turns:
# nothing lost or repeated, at most N bytes a call, valid UTF-8 text with
# terminal controls applied, clear errors for bad cursors.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

# slice ID CURSOR MAX: one JSON answer (CURSOR empty: from the start).
slice() {
  if [ -n "$2" ]; then
    bg output "$1" --since "$2" --max-bytes "$3" --json
  else
    bg output "$1" --max-bytes "$3" --json
  fi
}

# read_to_end ID MAX OUT: reads by cursor until `complete`, appending the
# text to OUT; prints "calls dropped" at the end.
read_to_end() {
  local cursor="" answer calls=0 dropped=0
  : >"$3"
  while :; do
    answer=$(slice "$1" "$cursor" "$2")
    calls=$((calls + 1))
    [ "$(jq -r .bytes <<<"$answer")" -le "$2" ] || fail "a slice holds more than --max-bytes $2"
    jq -j .text <<<"$answer" >>"$3"
    dropped=$((dropped + $(jq -r .dropped_bytes <<<"$answer")))
    cursor=$(jq -r .cursor <<<"$answer")
    [ "$(jq -r .complete <<<"$answer")" = true ] && break
    [ "$calls" -lt 100000 ] || fail "read_to_end does not end"
  done
  echo "$calls $dropped"
}

# A task that writes while it is read: reading by cursor from the start
# while it runs, then to the end, gives exactly its output.
ID=$(bg start -- sh -c 'for i in $(seq 1 300); do echo "line $i"; [ $((i % 50)) -eq 0 ] && sleep 0.2; done')
read -r calls dropped < <(read_to_end "$ID" 100 "$WORK/read")
seq 1 300 | sed 's/^/line /' >"$WORK/expected"
cmp "$WORK/read" "$WORK/expected" || fail "reading by cursor lost or repeated output"
[ "$dropped" -eq 0 ] || fail "dropped $dropped bytes of a small output"
[ "$calls" -ge $(($(wc -c <"$WORK/expected") / 100)) ] || fail "only $calls calls of at most 100 bytes"

# The last cursor of a complete read gives nothing new, and stays complete.
answer=$(bg output "$ID" --json)
last=$(jq -r .cursor <<<"$answer")
answer=$(bg output "$ID" --since "$last" --json)
[ "$(jq -r '.text + "|" + (.complete|tostring) + "|" + (.bytes|tostring)' <<<"$answer")" = "|true|0" ] ||
  fail "reading at the end: $answer"
[ "$(jq -r .cursor <<<"$answer")" = "$last" ] || fail "the cursor moved at the end"

# Without --json: the bytes on stdout, the next cursor on stderr.
run output "$ID" --since "$last"
expect_rc 0 "output --since at the end"
[ -z "$out" ] || fail "output --since at the end printed: $out"
grep -q "^bgtask: cursor $last (complete)$" <<<"$err" || fail "no cursor on stderr: $err"
run output "$ID" --max-bytes 7 --since "$(jq -r .cursor <<<"$(slice "$ID" "" 5)")"
[ "$out" = $'1\nline ' ] || fail "output --since --max-bytes 7 printed '$out'"

# Bad cursors: exit 2 with one clear line; a cursor of another task is refused.
OTHER=$(bg start -- echo other)
bg wait "$OTHER" >/dev/null
for cursor in garbage 12 "5.00000000" "-1.abcdef12" "" "$(jq -r .cursor <<<"$(slice "$OTHER" "" 2)")"; do
  run output "$ID" --since "$cursor" --json
  expect_rc 2 "cursor '$cursor'"
  expect_error "invalid cursor" "cursor '$cursor'"
  [ -z "$out" ] || fail "cursor '$cursor': printed $out"
done
run output "$ID" --since "$last" --follow
expect_rc 2 "--since with --follow"
run output "$ID" --max-bytes 10
expect_rc 2 "--max-bytes without --since"
run output "$ID" --json --max-bytes 0
expect_rc 2 "--max-bytes 0"

# UTF-8: a slice never ends inside a character; invalid bytes become U+FFFD
# and are counted.
ID=$(bg start -- sh -c 'printf "a\303\251b\377c\n"; sleep 30')
sleep 0.5
answer=$(slice "$ID" "" 2)
[ "$(jq -r .text <<<"$answer")" = a ] || fail "a slice split a character: $answer"
answer=$(slice "$ID" "$(jq -r .cursor <<<"$answer")" 100)
# é, b, U+FFFD, c as UTF-8 bytes: $'\u...' needs a UTF-8 locale, which a fresh
# machine may not have.
[ "$(jq -r .text <<<"$answer")" = $'\xc3\xa9b\xef\xbf\xbdc' ] || fail "UTF-8 text: $answer"
[ "$(jq -r .replaced_bytes <<<"$answer")" = 1 ] || fail "replaced_bytes: $answer"
[ "$(jq -r .complete <<<"$answer")" = false ] || fail "a running task's output is complete"
bg cancel "$ID" >/dev/null

# Terminal controls: colours and other escape sequences go, a bare \r keeps
# the last state of a redrawn line, \r\n is a newline, \t stays; --raw keeps
# them all (JSON-escaped).
ID=$(bg start -- printf '\033[1;31mred\033[0m\tok\r\n 10%%\r 50%%\r100%%\n\033]0;title\007end\n')
bg wait "$ID" >/dev/null
answer=$(bg output "$ID" --json)
[ "$(jq -r .text <<<"$answer")" = $'red\tok\n100%\nend' ] || fail "controls not applied: $answer"
[ "$(jq -r .removed_bytes <<<"$answer")" -gt 0 ] || fail "removed_bytes: $answer"
answer=$(bg output "$ID" --json --raw)
[ "$(jq -r .text <<<"$answer")" = "$(cat "$D/$ID.output")" ] || fail "--raw --json changed the text"
grep -c '\\u001b' <<<"$answer" >/dev/null || fail "--raw --json: ESC not escaped: $answer"

# An escape sequence cut by --max-bytes is held back, not half-stripped.
ID=$(bg start -- sh -c 'printf "ab\033[31"; sleep 1; printf "mred\n"')
sleep 0.5
answer=$(slice "$ID" "" 100)
[ "$(jq -r .text <<<"$answer")" = ab ] || fail "unfinished escape sequence: $answer"
bg wait "$ID" >/dev/null
answer=$(slice "$ID" "$(jq -r .cursor <<<"$answer")" 100)
[ "$(jq -r .text <<<"$answer")" = red ] || fail "escape sequence after the wait: $answer"
echo ok
