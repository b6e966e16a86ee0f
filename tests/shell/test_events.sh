#!/usr/bin/env bash
# bgtask events: the outcome in task.exited, task.ready on a wait
# --until-output match, --cursor-file across runs, start or a supervisor
# killed at each append point
# (nothing twice, nothing missed), the stream.gap line and exit 10, a torn
# last line ignored and cut, a supervisor killed at its final append
# (backfilled once), a killed supervisor seen live as task.lost, and
# replays from every cursor that are suffixes of one ordered stream, a
# follower from the end of a log not begun yet.
source "$(dirname "$0")/lib.sh"

seqs() { jq -r .seq; }
exited_ids() { jq -r 'select(.type == "task.exited") | .task' | sort; }

# The outcome of a failed task.
A=$(bg start -- sh -c 'echo first; echo last; exit 3')
bg wait "$A" >/dev/null || true
line=$(bg events --type task.exited "$A")
[ "$(jq -r '.data.state, .data.exit_code, .data.wait_status' <<<"$line" | tr '\n' ' ')" = "failed 3 3 " ] ||
  fail "task.exited: $line"
[ "$(jq -r .data.output_tail <<<"$line")" = $'first\nlast' ] || fail "output tail: $line"
[ "$(jq -r .data.output_bytes <<<"$line")" = 11 ] || fail "output bytes: $line"

# --cursor-file: each run prints what came since the last one.
F="$WORK/cursor"
bg events --cursor-file "$F" >"$WORK/run1"
[ -s "$F" ] || fail "no cursor file written"
B=$(bg start -- true)
C=$(bg start -- false)
bg wait "$B" "$C" >/dev/null || true
bg events --cursor-file "$F" >"$WORK/run2"
bg events --cursor-file "$F" >"$WORK/run3"
[ ! -s "$WORK/run3" ] || fail "a third run printed again: $(cat "$WORK/run3")"
cat "$WORK/run1" "$WORK/run2" | seqs >"$WORK/seen"
bg events | seqs >"$WORK/all"
diff "$WORK/seen" "$WORK/all" >/dev/null || fail "runs missed or repeated events: $(diff "$WORK/seen" "$WORK/all")"
[ "$(exited_ids <"$WORK/run2")" = "$(printf '%s\n' "$B" "$C" | sort)" ] || fail "run 2: $(cat "$WORK/run2")"

# A torn last line is never read, and the next writer cuts it off.
segment=$(ls "$D"/events/*.jsonl | tail -1)
printf '{"seq":999,"cursor":"e1.0.999","ty' >>"$segment"
[ "$(bg events | seqs)" = "$(cat "$WORK/all")" ] || fail "a torn line was read"
E=$(bg start -- true)
bg wait "$E" >/dev/null
jq -e . "$segment" >/dev/null || fail "the torn line was not cut: $(tail -c 200 "$segment")"
bg events | seqs >"$WORK/all"
[ "$(sort -n "$WORK/all")" = "$(seq "$(head -1 "$WORK/all")" "$(tail -1 "$WORK/all")")" ] ||
  fail "sequence numbers not contiguous: $(tr '\n' ' ' <"$WORK/all")"

# The supervisor killed as it appends the final events: `wait` reports the
# state, `events` backfills the event once.
if command -v strace >/dev/null; then
  strace -f -qq -o /dev/null -P "$segment" -e trace=write -e inject=write:signal=KILL:when=2 \
    "$BGTASK" --dir "$D" start -- sh -c 'exit 4' >"$WORK/killed_id" || true
  K=$(cat "$WORK/killed_id")
  [ -n "$K" ] || fail "start printed no ID"
  [ "$(bg wait "$K")" = "$K failed (exit 4)" ] || fail "wait: $(bg wait "$K")"
  ! grep -q "$K" <<<"$(grep -h "\"task.exited\"" "$D"/events/*.jsonl)" ||
    fail "the supervisor was not killed before its final append"
  [ "$(bg events --type task.exited "$K" | wc -l)" = 1 ] || fail "final event not backfilled once"
  [ "$(bg events --type task.exited "$K" | wc -l)" = 1 ] || fail "backfilled twice"
  # Killed at every append point: the K-th write or fdatasync of the log by
  # start or the supervisor. Whatever was killed, each final record has one
  # task.exited (the state wait reports), and the numbers stay contiguous.
  kills=0
  for sc in write fdatasync; do
    for k in 1 2 3; do
      : >"$WORK/killed_id"
      strace -f -qq -o "$WORK/kill.trace" -P "$segment" -e trace="$sc" -e inject="$sc:signal=KILL:when=$k" \
        "$BGTASK" --dir "$D" start -- sh -c 'echo x; exit 5' >"$WORK/killed_id" 2>/dev/null || true
      K=$(cat "$WORK/killed_id")
      [ -z "$K" ] || bg wait "$K" >/dev/null 2>&1 || true
      grep -q 'killed by SIGKILL' "$WORK/kill.trace" || break
      kills=$((kills + 1))
      for f in "$D"/*.status.json; do
        id=$(basename "$f" .status.json)
        state=$(bg status "$id" --json | jq -r 'if type == "array" then .[0].state else .state end')
        case "$state" in running | queued) continue ;; esac
        [ "$(bg events --type task.exited "$id" | jq -r .data.state)" = "$state" ] ||
          fail "killed at $sc #$k: $id is $state; its task.exited: $(bg events --type task.exited "$id")"
      done
    done
  done
  [ "$kills" -ge 3 ] || fail "only $kills append points were reached"
  echo "killed at $kills append points"
  bg events | seqs >"$WORK/all"
  [ "$(cat "$WORK/all")" = "$(seq "$(head -1 "$WORK/all")" "$(tail -1 "$WORK/all")")" ] ||
    fail "after the kills, sequence numbers are not contiguous: $(tr '\n' ' ' <"$WORK/all")"
fi

# Every replay, from any cursor, is the suffix of the whole stream.
bg events >"$WORK/stream"
n=$(wc -l <"$WORK/stream")
exited_ids <"$WORK/stream" >"$WORK/ids"
[ "$(uniq -d <"$WORK/ids")" = "" ] || fail "a task has two task.exited events"
for k in $(seq 1 "$n"); do
  cursor=$(sed -n "${k}p" "$WORK/stream" | jq -r .cursor)
  bg events --since "$cursor" >"$WORK/suffix"
  tail -n +$((k + 1)) "$WORK/stream" | cmp -s - "$WORK/suffix" || fail "replay after event $k differs"
done
[ "$(bg events --since -2 | wc -l)" = 2 ] || fail "--since -2"
[ "$(bg events --since now | wc -l)" = 0 ] || fail "--since now"

# A wait --until-output that matches is a task.ready event, with the line.
R=$(bg start -- sh -c 'echo booting; echo "listening on 8080"; sleep 30')
bg wait "$R" --until-output 'listening on \d+' >/dev/null
ready=$(bg events --type task.ready "$R")
[ "$(jq -r '.data.until, .data.line' <<<"$ready" | tr '\n' ' ')" = "output listening on 8080 " ] ||
  fail "task.ready: $ready"
[ "$(bg output "$R" --cursor "$(jq -r .data.output_cursor <<<"$ready")")" = "" ] ||
  fail "the ready event's output cursor is not after the line"
bg cancel --grace 0 "$R" >/dev/null

# Live: a follower sees a task end and a killed supervisor's task as lost.
S=$(bg start -- sleep 0.5)
L=$(bg start -- sleep 100)
timeout 20 "$BGTASK" --dir "$D" events --follow --until-idle --since now --format text >"$WORK/live" &
follower=$!
sleep 0.3
kill -9 "$(field "$L" .owner.pid)"
kill -9 "$(field "$L" .child.pid)" 2>/dev/null || true
wait "$follower" || fail "the follower exited $?: $(cat "$WORK/live")"
grep -q "task.exited $S succeeded" "$WORK/live" || fail "follower missed $S: $(cat "$WORK/live")"
grep -q "task.lost $L" "$WORK/live" || fail "follower missed the loss of $L: $(cat "$WORK/live")"
grep -q "queue.drained" <<<"$(tail -1 "$WORK/live")" || fail "no queue.drained at the end"

# A follower that begins at the end of a log not begun yet reads the first
# events when they come (it once jumped to the end of the new log instead).
F2="$WORK/fresh"
mkdir -m 700 "$F2"
timeout 20 "$BGTASK" --dir "$F2" events --follow --since now >"$WORK/fresh.out" &
follower=$!
sleep 0.3
N=$("$BGTASK" --dir "$F2" start -- true)
for _ in $(seq 100); do grep -q task.exited "$WORK/fresh.out" && break; sleep 0.05; done
kill "$follower"
wait "$follower" || true
[ "$(jq -r .type "$WORK/fresh.out" | tr '\n' ' ')" = "task.created task.started task.exited " ] ||
  fail "a follower from the end of an empty log: $(cat "$WORK/fresh.out")"

# A cursor of a log no longer kept: the gap line, exit 10, then go on.
old=$(bg events --since -1 | jq -r .cursor)
rm -r "$D/events"
G=$(bg start -- true)
bg wait "$G" >/dev/null
echo "$old" >"$F"
rc=0
bg events --cursor-file "$F" >"$WORK/gap" || rc=$?
[ "$rc" = 10 ] || fail "gap: exit $rc"
[ "$(jq -r .type "$WORK/gap")" = stream.gap ] || fail "no gap line: $(cat "$WORK/gap")"
grep -qx "$G" <<<"$(bg events --cursor-file "$F" | exited_ids)" || fail "after the gap, $G was not read"

# A group start: one event of each kind per task.
if grep -q -- --each-line <<<"$(bg start --help)"; then
  seq 1 20 | bg start --each-line - -- true >"$WORK/group"
  mapfile -t group <"$WORK/group"
  bg wait "${group[@]}" >/dev/null
  for type in task.created task.exited; do
    count=$(bg events --type "$type" "${group[@]}" | wc -l)
    [ "$count" = 20 ] || fail "group start: $count $type events for 20 tasks"
  done
fi

# Bad input.
rc=0
bg events --since bogus 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "--since bogus: exit $rc"
rc=0
bg events --type task.nope 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "--type task.nope: exit $rc"
echo "ok"
