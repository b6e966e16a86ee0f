#!/usr/bin/env bash
# docs/bgtask.1: formats without warnings and documents every command with
# each option its --help shows, every global option, every exit code of
# error.hpp, every environment variable the code reads, and the task files.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PAGE="$ROOT/docs/bgtask.1"
[ -f "$PAGE" ] || fail "no man page at $PAGE"
command -v groff >/dev/null || skip "groff is not installed"

groff -man -Tutf8 -ww -z "$PAGE" 2>"$WORK/warnings" || fail "groff failed: $(cat "$WORK/warnings")"
[ ! -s "$WORK/warnings" ] || fail "groff warnings: $(cat "$WORK/warnings")"
if command -v man >/dev/null; then
  shown=$(MANWIDTH=80 man -l "$PAGE" 2>"$WORK/warnings") || fail "man -l failed: $(cat "$WORK/warnings")"
  grep -q "^NAME" <<<"$shown" || fail "man -l does not show the page"
fi

# The source with roff's \- turned into plain hyphens.
source_text=$(sed 's/\\-/-/g' "$PAGE")
# section TITLE_PATTERN: the lines from a .SS/.SH heading matching the pattern
# up to the next heading.
section() {
  printf '%s\n' "$source_text" | awk -v pat="$1" '
    /^\.S[HS] / { inside = ($0 ~ pat) ; if (inside) { print; next } }
    inside { print }'
}
# options CMD...: the long options of `bgtask CMD... --help`.
options() {
  "$BGTASK" "$@" --help | grep -oE '^ +(-[a-zA-Z] \[ )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'
}

commands=$("$BGTASK" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
[ -n "$commands" ] || fail "no commands in bgtask --help"
for c in $commands; do
  text=$(section "^\\.SS \"bgtask $c ")
  [ -n "$text" ] || fail "no section for command $c"
  # A section may say that the command takes every option of another one.
  also=$(printf '%s\n' "$text" | grep -A1 "every option of" | grep -oE '^\.BR? [a-z]+' | awk '{ print $2 }' || true)
  for other in $also; do
    text+=$'\n'$(section "^\\.SS \"bgtask $other ")
  done
  for o in $(options "$c"); do
    [ "$o" = "--help" ] && continue
    grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" <<<"$text" || fail "option $o of $c is not in its section"
  done
done

globals=$(section '^\.SH GLOBAL OPTIONS')
for o in $("$BGTASK" --help | sed -n '/^Global options:/,$p' | grep -oE '^ +--[a-z-]+'); do
  grep -q -- "$o" <<<"$globals" || fail "global option $o is not documented"
done

exit_status=$(section '^\.SH EXIT STATUS')
for code in $(grep -oE '= [0-9]+,' "$ROOT/lib/bgtask/util/error.hpp" | grep -oE '[0-9]+'); do
  grep -qE "^\.B $code(\\\\|$)" <<<"$exit_status" || fail "exit code $code is not documented"
done

environment=$(section '^\.SH ENVIRONMENT')
variables=$( (grep -rhoE 'getenv\("[A-Z_]+"\)' "$ROOT/lib" | grep -oE '[A-Z_]{2,}' | grep -v '^BGTASK_TEST_'
  echo BGTASK_DIR BGTASK_ID XDG_STATE_HOME HOME) | tr ' ' '\n' | sort -u)
for v in $variables; do
  grep -qx "\.B $v" <<<"$environment" || fail "environment variable $v is not documented"
done

files=$(section '^\.SH FILES')
for f in ID.status.json ID.output ID.lock; do
  grep -qF "$f" <<<"$files" || fail "file $f is not documented"
done
grep -q '^\.SS "bgtask __' "$PAGE" && fail "the page documents a hidden command"
# `output --name N` without --follow reads one task, the newest of that name.
grep -q 'newest task named' <<<"$(section '^\.SS "bgtask output ')" ||
  fail "the output section does not say which task output --name N reads"
echo ok
