#!/usr/bin/env bash
# `bgtask top` as a person meets it, in tmux at 60, 80 and 120 columns: it
# shows a start, a progress update, a failure and a cancel as they happen
# (asserting content, never speed), it follows a resize, its keys cancel,
# pause, resume, filter, follow output and quit, the terminal is restored
# after q and after SIGTERM, and it does not spin while nothing changes.
source "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

export TMUX_TMPDIR="$WORK" BGTASK D WORK
on_exit 'tmux kill-server 2>/dev/null || true'
on_exit 'bg cancel --all --quiet --grace 100ms || true'

# Without a terminal, or on TERM=dumb, top refuses with exit 2 and says what to use.
rc=0
bg top </dev/null >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'events --follow --format text' "$WORK/err" ||
  fail "top into a pipe exited $rc: $(cat "$WORK/err")"
rc=0
TERM=dumb script -qec "$(printf '%q ' "$BGTASK" --dir "$D" top)" /dev/null </dev/null >"$WORK/out" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q 'TERM=dumb' "$WORK/out" || fail "TERM=dumb: exit $rc: $(cat "$WORK/out")"

# The pane runs top, then says how it ended and how the terminal was left.
cat >"$WORK/pane.sh" <<'SH'
#!/usr/bin/env bash
"$BGTASK" --dir "$D" top
echo "TOP-EXIT=$?"
stty -a >"$WORK/stty.$1"
sleep 300
SH
chmod +x "$WORK/pane.sh"

capture() { tmux capture-pane -p -t "$1" >"$WORK/pane.txt"; }
# Waits (up to 30 s, generous under load) until pane $1 shows a line matching $2.
shows() {
  for _ in $(seq 300); do
    capture "$1"
    grep -qE -- "$2" "$WORK/pane.txt" && return 0
    sleep 0.1
  done
  return 1
}
hides() {
  for _ in $(seq 300); do
    capture "$1"
    grep -qE -- "$2" "$WORK/pane.txt" || return 0
    sleep 0.1
  done
  return 1
}
pane() { cat "$WORK/pane.txt"; }
top_pid() { pgrep -P "$(tmux display -p -t "$1" '#{pane_pid}')" -x bgtask; }
restored() { # pane exit-code
  shows "$1" "^TOP-EXIT=$2\$" || fail "$1: top did not end with $2: $(pane)"
  [ "$(tmux display -p -t "$1" '#{alternate_on}')" = 0 ] || fail "$1: still on the alternate screen"
  for _ in $(seq 100); do [ -s "$WORK/stty.$1" ] && break; sleep 0.1; done
  grep -qw echo "$WORK/stty.$1" && grep -qw icanon "$WORK/stty.$1" ||
    fail "$1: the terminal was left without echo or icanon: $(cat "$WORK/stty.$1")"
}

for width in 60 80 120; do
  s=w$width
  tmux new-session -d -s "$s" -x "$width" -y 30 "$WORK/pane.sh $s"
  shows "$s" '^bgtask top' || fail "$s: top did not draw: $(pane)"
  [ "$(tmux display -p -t "$s" '#{alternate_on}')" = 1 ] || fail "$s: top is not on the alternate screen"
  grep -qE 'q.quit' "$WORK/pane.txt" || fail "$s: no keys in the footer: $(pane)"
  python3 - "$width" "$WORK/pane.txt" <<'PY' || fail "$s: a line is wider than the pane: $(pane)"
import sys
width = int(sys.argv[1])
assert all(len(l) <= width for l in open(sys.argv[2], encoding="utf-8").read().splitlines())
PY

  # A start, a progress update, a failure.
  slow=$(bg start --name "slow$width" -- sleep 300)
  shows "$s" "^$slow +running" || fail "$s: the start of $slow is not shown: $(pane)"
  bg progress "$slow" --percent 40 --message halfway
  shows "$s" "^$slow +running +(\[###\.+\] +)?40%" || fail "$s: the progress is not shown: $(pane)"
  bad=$(bg start --name "bad$width" -- sh -c 'exit 3')
  shows "$s" "^$bad +failed" || fail "$s: the failure of $bad is not shown: $(pane)"
  shows "$s" "task.exited $bad .*failed" || fail "$s: no task.exited event for $bad: $(pane)"

  # The selected row is the first running task: c asks, n keeps it, c y cancels it.
  tmux send-keys -t "$s" c
  shows "$s" "^cancel $slow\\? y" || fail "$s: c did not ask: $(pane)"
  tmux send-keys -t "$s" n
  shows "$s" "^$slow not cancelled" || fail "$s: n did not keep $slow: $(pane)"
  [ "$(field "$slow" .state)" = running ] || fail "$s: n left $slow $(field "$slow" .state)"
  tmux send-keys -t "$s" c y
  shows "$s" "^$slow +cancelled" || fail "$s: the cancel is not shown: $(pane)"
  [ "$(field "$slow" .state)" = cancelled ] || fail "$s: c left $slow $(field "$slow" .state)"

  # / filters by name: the other task's row goes, and comes back on Esc.
  alpha=$(bg start --name "alpha$width" -- sleep 300)
  beta=$(bg start --name "beta$width" -- sleep 300)
  shows "$s" "^$beta +running" || fail "$s: $beta is not shown: $(pane)"
  tmux send-keys -t "$s" / a l p h a Enter
  hides "$s" "^$beta " || fail "$s: the filter did not hide $beta: $(pane)"
  grep -qE "^$alpha +running" "$WORK/pane.txt" || fail "$s: the filter hid $alpha: $(pane)"
  tmux send-keys -t "$s" / Escape
  shows "$s" "^$beta +running" || fail "$s: clearing the filter did not bring $beta back: $(pane)"
  # s cycles the state filter: running hides the failed and cancelled rows.
  tmux send-keys -t "$s" s
  hides "$s" "^$bad " || fail "$s: the state filter did not hide $bad: $(pane)"
  tmux send-keys -t "$s" s s s s # back to all
  shows "$s" "^$bad +failed" || fail "$s: the state filter did not come back to all: $(pane)"
  bg cancel --quiet --grace 100ms "$alpha" "$beta"
  shows "$s" "^$beta +cancelled" || fail "$s: a cancel by the CLI is not shown: $(pane)"
done

# Each queue's slots in use, and a new slot count once an event of the queue comes.
bg queue q --slots 3 >/dev/null
q1=$(bg start --queue q -- sleep 300)
shows w120 'queues: .*q 1/3' || fail "the queue's slots are not shown: $(pane)"
bg queue q --slots 5 >/dev/null
q2=$(bg start --queue q -- sleep 300)
shows w120 'queues: .*q 2/5' || fail "the new slot count is not shown: $(pane)"
bg cancel --quiet --grace 100ms "$q1" "$q2"

# Colour: the failed row is red unless NO_COLOR or --color never; bold either way.
red='\[([0-9;]*;)?31m'
tmux new-session -d -s colour -x 80 -y 30 "$(printf '%q ' "$BGTASK" --dir "$D" top)"
tmux new-session -d -s plain -x 80 -y 30 -e NO_COLOR=1 "$(printf '%q ' "$BGTASK" --dir "$D" top)"
tmux new-session -d -s never -x 80 -y 30 "$(printf '%q ' "$BGTASK" --dir "$D" --color never top)"
for s in colour plain never; do
  shows "$s" "^$bad +failed" || fail "$s: no failed row: $(pane)"
  tmux capture-pane -p -e -t "$s" | grep -E "$bad +failed" >"$WORK/row.$s" || true
done
grep -qE "$red" "$WORK/row.colour" || fail "the failed row is not red: $(cat -v "$WORK/row.colour")"
for s in plain never; do
  ! grep -qE "$red" "$WORK/row.$s" || fail "$s: the failed row is red: $(cat -v "$WORK/row.$s")"
  grep -qE '\[([0-9;]*;)?1m' "$WORK/row.$s" || fail "$s: the failed row is not bold: $(cat -v "$WORK/row.$s")"
done
for s in colour plain never; do tmux send-keys -t "$s" q; done

# Resizing: 120 columns show QUEUE and INFO; at 60 they go and the keys shorten.
tmux resize-window -t w120 -x 60 -y 30
shows w120 'q:quit' || fail "w120 resized to 60: the footer did not shorten: $(pane)"
grep -q 'INFO' "$WORK/pane.txt" && fail "w120 resized to 60 still shows INFO: $(pane)"
tmux resize-window -t w60 -x 120 -y 40
shows w60 '^ID +STATE +PROGRESS +QUEUE +STARTED +NAME +INFO' ||
  fail "w60 resized to 120 did not widen: $(pane)"

# Pause and resume by key, then o follows the selected task's output until Ctrl-C.
talker=$(bg start --name talker -- sh -c 'while :; do echo "line $((i+=1))"; sleep 0.2; done')
shows w60 "^$talker +running" || fail "the talker is not shown: $(pane)"
tmux send-keys -t w60 p
for _ in $(seq 100); do [ "$(field "$talker" .pause.paused)" = true ] && break; sleep 0.1; done
[ "$(field "$talker" .pause.paused)" = true ] || fail "p did not pause $talker"
shows w60 "^$talker +paused" || fail "the pause is not shown: $(pane)"
tmux send-keys -t w60 r
for _ in $(seq 100); do [ "$(field "$talker" .pause.paused)" = false ] && break; sleep 0.1; done
[ "$(field "$talker" .pause.paused)" = false ] || fail "r did not resume $talker"
tmux send-keys -t w60 o
shows w60 "the output of $talker" || fail "o did not follow the output: $(pane)"
shows w60 '^line [0-9]+$' || fail "o shows no output line: $(pane)"
[ "$(tmux display -p -t w60 '#{alternate_on}')" = 0 ] || fail "o did not leave the alternate screen"
tmux send-keys -t w60 C-c
shows w60 '^bgtask top' || fail "Ctrl-C did not return to top: $(pane)"
[ "$(field "$talker" .state)" = running ] || fail "Ctrl-C in the output view ended $talker"

# Idle: with tasks running and nothing changing, top sleeps (utime+stime
# over 5 s, in clock ticks, well under 5% of the window).
pid=$(top_pid w60)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
before=$(ticks "$pid")
sleep 5
spent=$(($(ticks "$pid") - before))
hz=$(getconf CLK_TCK)
echo "top idle for 5 s: $spent ticks of CPU (of $((5 * hz)))"
[ "$spent" -lt $((5 * hz / 20)) ] || fail "top spent $spent ticks in 5 s idle"

# q restores the terminal (w60); Ctrl-C (w80) and SIGTERM (w120) too, with exit 5.
tmux send-keys -t w60 q
restored w60 0
tmux send-keys -t w80 C-c
restored w80 5
kill -TERM "$(top_pid w120)"
restored w120 5
[ "$(field "$talker" .state)" = running ] || fail "ending top ended $talker"
