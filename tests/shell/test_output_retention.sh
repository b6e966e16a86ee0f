#!/usr/bin/env bash
# Retention that keeps the head and the tail: `--max-output SIZE` keeps the
# first and the last SIZE/2 bytes, punches out the rest while the command
# runs (disk use stays bounded), and readers show head, one marker line with
# the dropped byte count, and tail; cursors step over the gap; the record
# says what was dropped. A default bound applies without the option.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

probe="$D/.punch-probe"
head -c 65536 /dev/zero >"$probe"
if ! fallocate -p -o 4096 -l 4096 "$probe" 2>/dev/null; then
  skip "the file system of $D cannot punch holes"
fi
rm -f "$probe"

# About 1 GB of numbered lines through a 1 MiB bound. Disk use is sampled
# while it runs: bounded by the limit plus what the command writes between
# two wake-ups of the supervisor (generous bound: 128 MiB).
last=120000000
ID=$(bg start --max-output 1M -- seq 1 "$last")
max_kib=0
while [ "$(field "$ID" .state)" = running ]; do
  kib=$(du -k "$D/$ID.output" | cut -f1)
  [ "$kib" -le "$max_kib" ] || max_kib=$kib
  sleep 0.05
done
echo "largest disk use seen: $max_kib KiB"
[ "$max_kib" -le $((128 * 1024)) ] || fail "disk use reached $max_kib KiB"
[ "$(field "$ID" .state)" = succeeded ] || fail "the task did not succeed"
final_kib=$(du -k "$D/$ID.output" | cut -f1)
[ "$final_kib" -le 1200 ] || fail "the finished output takes $final_kib KiB"
total=$(seq 1 "$last" | wc -c)
[ "$(field "$ID" .output.bytes)" -eq "$total" ] || fail "output.bytes $(field "$ID" .output.bytes), expected $total"
[ "$(field "$ID" .output.truncated)" = true ] || fail "not marked truncated"
dropped=$(field "$ID" .output.dropped_bytes)
at=$(field "$ID" .output.dropped_at)
[ "$at" -ge 524288 ] && [ "$at" -lt $((524288 + 65536)) ] || fail "dropped_at $at"
[ "$dropped" -gt $((total - 1048576 - 200000)) ] && [ "$dropped" -le $((total - 1048576)) ] ||
  fail "dropped_bytes $dropped of $total"

# `output`: the head (lines 1, 2, ...), one marker line, the tail (up to the last line).
bg output "$ID" >"$WORK/shown"
[ "$(grep -c '^\[bgtask: [0-9]* bytes of output dropped here' "$WORK/shown")" -eq 1 ] ||
  fail "not exactly one marker line"
grep -q "^\[bgtask: $dropped bytes of output dropped here" "$WORK/shown" || fail "marker without the count"
[ "$(wc -c <"$WORK/shown")" -lt $((1048576 + 200000)) ] || fail "output printed $(wc -c <"$WORK/shown") bytes"
marker=$(grep -n '^\[bgtask:' "$WORK/shown" | cut -d: -f1)
head -n $((marker - 2)) "$WORK/shown" >"$WORK/head"   # the line before the marker may be cut
seq 1 "$(wc -l <"$WORK/head")" | cmp - "$WORK/head" || fail "the head is not lines 1.."
tail -n +$((marker + 2)) "$WORK/shown" >"$WORK/tail"   # the line after it may be cut
n=$(wc -l <"$WORK/tail")
seq $((last - n + 1)) "$last" | cmp - "$WORK/tail" || fail "the tail is not the last $n lines"
[ "$(bg output --tail 2 "$ID")" = "$(printf '%s\n' $((last - 1)) "$last")" ] || fail "output --tail 2"
grep -q "^Truncated $dropped bytes" <<<"$(bg status "$ID")" || fail "status does not say what was dropped"

# Cursors across the gap: reading in 64 KiB slices gives head + tail once,
# the dropped bytes reported once, in the slice that steps over them.
cursor="" parts=0 seen_dropped=0 bytes=0
while :; do
  if [ -n "$cursor" ]; then
    answer=$(bg output "$ID" --since "$cursor" --json)
  else
    answer=$(bg output "$ID" --json)
  fi
  d=$(jq -r .dropped_bytes <<<"$answer")
  if [ "$d" -gt 0 ]; then
    seen_dropped=$((seen_dropped + d))
    parts=$((parts + 1))
  fi
  bytes=$((bytes + $(jq -r .bytes <<<"$answer")))
  cursor=$(jq -r .cursor <<<"$answer")
  [ "$(jq -r .complete <<<"$answer")" = true ] && break
done
[ "$parts" -eq 1 ] && [ "$seen_dropped" -eq "$dropped" ] || fail "cursors reported $seen_dropped dropped in $parts slices"
[ $((bytes + dropped)) -eq "$total" ] || fail "cursors read $bytes bytes + $dropped dropped of $total"

# A cursor past the head, taken before the gap existed, still works once
# the bytes after it are punched out.
ID=$(bg start --max-output 256K -- sh -c 'seq 1 40000; sleep 1; seq 40001 400000; sleep 30')
until [ "$(bg output "$ID" | tail -n 1)" = 40000 ]; do sleep 0.1; done
early=$(jq -r .cursor <<<"$(bg output "$ID" --json --max-bytes 150000)")
until [ "$(bg output "$ID" | tail -n 1)" = 400000 ]; do sleep 0.2; done
# The supervisor looks at the file within 1 s of a quiet spell.
for _ in $(seq 30); do
  answer=$(bg output "$ID" --since "$early" --json --max-bytes 1000000)
  [ "$(jq -r .dropped_bytes <<<"$answer")" -eq 0 ] || break
  sleep 0.1
done
[ "$(jq -r .dropped_bytes <<<"$answer")" -gt 0 ] ||
  fail "no gap reported after an early cursor: $(jq -c 'del(.text)' <<<"$answer")"
[ "$(jq -j .text <<<"$answer" | tail -n 1)" = 400000 ] || fail "the tail after an early cursor"
bg cancel "$ID" >/dev/null

# output --follow while the gap grows: whatever it could not read in time
# is one marker line per gap it stepped over; every other line follows its
# predecessor, up to the last one.
ID=$(bg start --max-output 128K -- sh -c 'sleep 0.5; seq 1 3000000')
bg output --follow "$ID" >"$WORK/followed"
# The lines next to a marker may be cut; all others are whole.
awk 'NR == FNR { if (/^\[bgtask: /) { mark[FNR] = 1 }; next }
     mark[FNR] { gap = 1; next }
     mark[FNR - 1] || mark[FNR + 1] { next }
     { n = $0 + 0; if (!(n == prev + 1 || (gap && n > prev))) { bad = FNR }; gap = 0; prev = n }
     END { if (bad) { print "line " bad " out of order"; exit 1 } }' "$WORK/followed" "$WORK/followed" ||
  fail "output --follow repeated or lost lines outside a gap"
[ "$(tail -n 1 "$WORK/followed")" = 3000000 ] || fail "output --follow missed the tail"

# The default bound (64M) without --max-output and $BGTASK_MAX_OUTPUT; none lifts it.
ID=$(env -u BGTASK_MAX_OUTPUT "$BGTASK" --dir "$D" start -- sh -c 'head -c 80M /dev/zero | tr "\0" y')
bg wait "$ID" >/dev/null
[ "$(field "$ID" .output.dropped_bytes)" -ge $((16 * 1048576 - 65536)) ] || fail "the default bound dropped $(field "$ID" .output.dropped_bytes)"
[ "$(du -k "$D/$ID.output" | cut -f1)" -le $((65 * 1024)) ] || fail "the default bound kept $(du -k "$D/$ID.output" | cut -f1) KiB"
rm -f "$D/$ID.output"
ID=$(BGTASK_MAX_OUTPUT=none bg start -- sh -c 'head -c 70M /dev/zero')
bg wait "$ID" >/dev/null
[ "$(field "$ID" .output.truncated)" = false ] || fail "BGTASK_MAX_OUTPUT=none still bounded"
[ "$(du -k "$D/$ID.output" | cut -f1)" -ge $((70 * 1024)) ] || fail "BGTASK_MAX_OUTPUT=none: file is sparse"
echo ok
