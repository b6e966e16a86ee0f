#!/usr/bin/env bash
# `list`: --format table|json|jsonl, --wide, and colour: the state is coloured
# on a terminal (run under script(1) for a pty) unless NO_COLOR is set and not
# empty, never when piped; colour does not move the columns; cells stay escaped.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "script(1) is not installed"

long_arg=$(printf 'x%.0s' $(seq 1 80))
good=$(bg start --name good -- true)
bad=$(bg start -- sh -c 'exit 3' "$long_arg")
evil=$(bg start --name $'evil\e[31mred' -- true)
bg wait "$good" "$bad" "$evil" >/dev/null || true

# --- formats ---
[ "$(bg list --format json | jq -S .)" = "$(bg list --json | jq -S .)" ] || fail "--format json differs from --json"
[ "$(bg list --format jsonl | wc -l)" -eq 3 ] || fail "--format jsonl is not one line per task"
[ "$(bg list --format jsonl | jq -s -S .)" = "$(bg list --json | jq -S .)" ] ||
  fail "--format jsonl holds other records than --json"
[ "$(bg list --format jsonl --state failed | jq -r .id)" = "$bad" ] || fail "--format jsonl ignores filters"
[ -z "$(bg list --format jsonl --state lost)" ] || fail "--format jsonl printed something for no tasks"
bg list --format json --json >/dev/null || fail "--format json --json was refused"
for args in "--format xml" "--format table --json" "--format"; do
  rc=0
  bg list $args >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "list $args exited $rc, expected 2"
done

# --- columns ---
table=$(bg list --format table)
[ "$table" = "$(bg list)" ] || fail "--format table differs from the default"
[ "$(tr -s ' ' <<<"${table%%$'\n'*}")" = "ID STATE EXIT STARTED ELAPSED NAME" ] || fail "header: $table"
row=$(echo "$table" | grep "^$bad")
[[ $row == *"sh -c 'exit 3' xxx"*"..." ]] || fail "an unnamed task's long command is not shortened: $row"
[[ $row != *"$long_arg"* ]] || fail "the default view shows the whole long command: $row"
wide=$(bg list --wide)
[ "$(tr -s ' ' <<<"${wide%%$'\n'*}")" = "ID STATE EXIT STARTED ELAPSED NAME CWD COMMAND" ] ||
  fail "--wide header: $wide"
row=$(echo "$wide" | grep "^$bad")
[[ $row == *" - "*" $PWD "*"sh -c 'exit 3' $long_arg" ]] || fail "--wide row of the unnamed task: $row"
row=$(echo "$wide" | grep "^$good")
[[ $row == *" good "*" $PWD "*" true" ]] || fail "--wide row of the named task: $row"

# --- colour ---
# on_tty [ENV...]: `bgtask list` on a pseudo-terminal of a terminal that
# has colours (whatever TERM this test inherited, dumb on a console),
# carriage returns dropped.
on_tty() {
  env TERM=xterm-256color env "$@" script -qec "$(printf '%q ' "$BGTASK" --dir "$D" list)" /dev/null </dev/null |
    tr -d '\r'
}
esc=$'\e'
coloured=$(on_tty -u NO_COLOR)
[[ $coloured == *"$esc[32msucceeded$esc[0m"* ]] || fail "no green succeeded on a terminal: $coloured"
[[ $coloured == *"$esc[31mfailed$esc[0m"* ]] || fail "no red failed on a terminal: $coloured"
[ "$(on_tty NO_COLOR=)" = "$coloured" ] || fail "an empty NO_COLOR turned colour off"
plain=$(on_tty NO_COLOR=1)
[[ $plain != *"$esc"* ]] || fail "colour despite NO_COLOR=1: $plain"
[ "$(echo "$coloured" | sed "s/$esc\[[0-9;]*m//g")" = "$plain" ] || fail "colour moved the columns"
[[ $(on_tty -u NO_COLOR TERM=dumb) != *"$esc["* ]] || fail "colour on TERM=dumb"
# --color=always|never overrides the terminal, TERM and NO_COLOR, before or
# after the command name (`watch --color bgtask list --color=always`).
[[ $(bg list --color=always) == *"$esc[32msucceeded$esc[0m"* ]] || fail "no colour into a pipe with --color=always"
[[ $(NO_COLOR=1 TERM=dumb bg --color always list) == *"$esc[31mfailed"* ]] || fail "--color always lost to NO_COLOR"
[[ $(env TERM=xterm-256color script -qec "$(printf '%q ' "$BGTASK" --dir "$D" list --color=never)" /dev/null </dev/null) != *"$esc["* ]] ||
  fail "colour on a terminal with --color=never"
rc=0
bg list --color=sometimes >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "--color=sometimes exited $rc, not 2"
[[ $plain == *'evil\x1b[31mred'* ]] || fail "a name's escape sequence was not escaped on a terminal: $plain"
[[ $(bg list) != *"$esc[32m"* ]] || fail "colour in a pipe"
[[ $(env -u NO_COLOR TERM=xterm-256color script -qec "$(printf '%q ' "$BGTASK" --dir "$D" list --json)" /dev/null </dev/null) != *"$esc["* ]] ||
  fail "colour in --json output"
echo ok
