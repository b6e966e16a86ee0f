#!/usr/bin/env bash
# `output` at a terminal (tmux) shows a task's output as `less -R` would:
# colours are drawn, a `\r` progress line redraws, and every other control
# (a title, OSC, clearing the screen, cursor moves) is shown escaped.
# Through a pipe the bytes are as the command wrote them.
source "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

id=$(bg start -- printf '\033[32mPASS\033[0m\n10%%\r50%%\n\033]0;evil title\007\033[2Jafter\n')
bg wait "$id" >/dev/null
[ "$(bg output "$id" | od -An -c | tr -s ' ')" = "$(printf '\033[32mPASS\033[0m\n10%%\r50%%\n\033]0;evil title\007\033[2Jafter\n' | od -An -c | tr -s ' ')" ] ||
  fail "output into a pipe changed the bytes"

export TMUX_TMPDIR="$WORK"
tmux new-session -d -s out -x 80 -y 10 "$(printf '%q ' "$BGTASK" --dir "$D" output "$id"); touch $WORK/done; sleep 30"
for _ in $(seq 100); do [ -e "$WORK/done" ] && break; sleep 0.1; done
tmux capture-pane -p -e -t out >"$WORK/coloured.txt" # -e: with the colours drawn
tmux capture-pane -p -t out >"$WORK/plain.txt"
tmux kill-server
esc=$'\e'
grep -q "^${esc}\[32mPASS" "$WORK/coloured.txt" || fail "PASS is not green: $(cat -v "$WORK/coloured.txt")"
grep -qx "PASS" "$WORK/plain.txt" || fail "the colour was not drawn: $(cat "$WORK/plain.txt")"
grep -qx "50%" "$WORK/plain.txt" || fail "the \\r did not redraw the line: $(cat "$WORK/plain.txt")"
grep -qF '\x1b]0;evil title\x07\x1b[2Jafter' "$WORK/plain.txt" ||
  fail "the title and the clear were not escaped: $(cat "$WORK/plain.txt")"
echo "output rendering: ok"
