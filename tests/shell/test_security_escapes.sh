#!/usr/bin/env bash
# Hostile output and names on a terminal (security guide H6): a task prints
# OSC 52 (clipboard), OSC 0 (title), CSI 2J, DCS, a one-byte C1 CSI (0x9b),
# its UTF-8 form (C2 9B), DEL, a bidi override, a bare CR overwrite and
# invalid UTF-8, and carries an escape sequence in its name and command.
# On a pseudo-terminal `output`, `status`, `list`, `--json` and error
# messages must show all of it escaped, but for the one thing `output` of a
# task passes as `less -R` does: a bare CR (SGR colours, which the payload
# has none of in 7-bit form); `--raw` and pipes pass bytes through.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"
command -v script >/dev/null || skip "script(1) is not installed"

payload=$(printf '\033]0;PWNED\007\033[2J\033]52;c;SGVsbG8=\007\302\23331m\233\0617m\rfake\n\177\342\200\256evil\n\377\376 bad utf8\n\033P1;2q\033\\ dcs\nend')
printf '%s' "$payload" >"$WORK/expected"
name=$(printf '\033[31mred\033]0;TITLE\007')
ID=$(bg start --name "$name" -- printf '%s' "$payload")
bg wait "$ID" >/dev/null

# on_tty COMMAND...: what a terminal receives from bgtask COMMAND (stdout and
# stderr both go to the pseudo-terminal).
on_tty() {
  local quoted
  printf -v quoted '%q ' "$BGTASK" --dir "$D" "$@"
  LC_ALL=C timeout -s KILL 20 script -qfec "$quoted" /dev/null </dev/null >"$WORK/tty" 2>&1 || true
}

# expect_inert WHAT: the terminal got no ESC, BEL, C1 (raw or UTF-8), DEL,
# bidi override, or CR other than the pty's own before a newline (with a
# second argument `cr`: a CR is allowed, as `output` passes it).
expect_inert() {
  local f="$WORK/tty"
  ! LC_ALL=C grep -q $'\e' "$f" || fail "$1: raw ESC reached the terminal: $(od -c "$f" | sed -n 1,20p)"
  ! LC_ALL=C grep -q $'\a' "$f" || fail "$1: raw BEL reached the terminal"
  ! LC_ALL=C grep -q $'\x7f' "$f" || fail "$1: raw DEL reached the terminal"
  ! LC_ALL=C grep -qP '[\x80-\x9f]' <(LC_ALL=C sed 's/[\xc0-\xff][\x80-\xbf]*//g' "$f") ||
    fail "$1: a raw C1 byte reached the terminal"
  ! LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$f" || fail "$1: a UTF-8 C1 control reached the terminal"
  ! LC_ALL=C grep -qP '\xe2\x80[\xaa-\xae]' "$f" || fail "$1: a bidi override reached the terminal"
  [ "${2:-}" = cr ] || ! LC_ALL=C grep -q $'\r' <(LC_ALL=C sed 's/\r$//' "$f") ||
    fail "$1: a bare CR reached the terminal"
}

expect_shown() {
  grep -qF -- "$1" "$WORK/tty" || fail "$2: '$1' is not shown escaped: $(head -c 600 "$WORK/tty")"
}

on_tty output "$ID"
expect_inert "output" cr
expect_shown '\x1b]0;PWNED\x07' "output"
expect_shown '\x1b]52;c;' "output"
expect_shown '\x9b' "output"
LC_ALL=C grep -q $'\rfake' "$WORK/tty" || fail "output: the bare CR was not passed as less -R does"
expect_shown '\xff\xfe bad utf8' "output"

on_tty output --tail 3 "$ID"
expect_inert "output --tail" cr

on_tty output --follow "$ID"
expect_inert "output --follow" cr

on_tty status "$ID"
expect_inert "status"
expect_shown '\x1b[31mred' "status (name)"

NO_COLOR=1 on_tty list
expect_inert "list"
expect_shown '\x1b[31mred' "list (name)"

# With colour on, the only escape sequences are bgtask's own SGR colours.
on_tty list
LC_ALL=C sed 's/\x1b\[[0-9;]*m//g' "$WORK/tty" >"$WORK/tty.plain"
mv "$WORK/tty.plain" "$WORK/tty"
expect_inert "list (coloured)"

on_tty status --json "$ID"
expect_inert "status --json"
expect_shown '\u001b]0;PWNED' "status --json"

on_tty list --json
expect_inert "list --json"

# Error messages echoing hostile input are escaped on a terminal too.
on_tty status "$(printf '\033]0;PWN\007')"
expect_inert "error for a hostile ID"
expect_shown '\x1b]0;PWN' "error for a hostile ID"
on_tty start --name x --env "$(printf 'BAD\033[2J')=v" -- true
expect_inert "error for a hostile --env name"

# --raw passes bytes through to a terminal; pipes get them unchanged.
on_tty output --raw "$ID"
LC_ALL=C grep -q $'\e]0;PWNED' "$WORK/tty" || fail "output --raw did not pass bytes through"
run output "$ID"
expect_rc 0 "output to a pipe"
bg output "$ID" >"$WORK/piped"
cmp -s "$WORK/piped" "$WORK/expected" || fail "output to a pipe changed the bytes"
[ "$(bg status --json "$ID" | jq -r '.[0].name')" = "$name" ] || fail "--name not stored as given"
echo ok
