#!/usr/bin/env bash
# `output --follow A B` starts each line with the task's name: the name is
# escaped like any other text bgtask shows. On a pseudo-terminal an OSC 52
# name must not write the clipboard, and in a pipe a newline in a name must
# not forge a line.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "script(1) is not installed"

osc52=$(printf 'clip\033]52;c;Zm9yZ2Vk\007')
forger=$(printf 'nl\nforged| line')
A=$(bg start --name "$osc52" -- echo from-a)
B=$(bg start --name "$forger" -- echo from-b)
bg wait "$A" "$B" >/dev/null

printf -v quoted '%q ' "$BGTASK" --dir "$D" output --follow "$A" "$B"
LC_ALL=C timeout -s KILL 20 script -qfec "$quoted" /dev/null </dev/null >"$WORK/tty" 2>&1 || true
grep -q 'from-a' "$WORK/tty" || fail "output --follow printed no line of A: $(od -c "$WORK/tty" | sed -n 1,10p)"
! LC_ALL=C grep -q $'\e' "$WORK/tty" || fail "a raw ESC reached the terminal: $(od -c "$WORK/tty" | sed -n 1,10p)"
! LC_ALL=C grep -q $'\a' "$WORK/tty" || fail "a raw BEL reached the terminal"
grep -qF 'clip\x1b]52;c;Zm9yZ2Vk\x07| from-a' "$WORK/tty" ||
  fail "the name is not shown escaped: $(head -c 400 "$WORK/tty")"

# In a pipe: one line per line the tasks printed, each with its own prefix.
bg output --follow "$A" "$B" >"$WORK/piped"
[ "$(wc -l <"$WORK/piped")" -eq 2 ] || fail "the pipe got forged lines: $(od -c "$WORK/piped" | sed -n 1,10p)"
! grep -q '^forged' "$WORK/piped" || fail "a name's newline forged a line"
grep -qF 'nl\x0aforged| line| from-b' "$WORK/piped" || fail "B's prefix is not escaped: $(cat "$WORK/piped")"
echo ok
