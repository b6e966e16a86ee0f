#!/usr/bin/env bash
# The man page the build made (docs/bgtask.1.scd with the options of the
# command table, through scdoc): formats without warnings, man -l shows it,
# each command's section lists exactly the options its --help lists, and it
# documents the global options, every exit code of error.hpp, every
# environment variable the code reads and the task files.
source "$(dirname "$0")/lib.sh"
: "${BGTASK_BUILD_DIR:?BGTASK_BUILD_DIR must name the build directory}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PAGE="$BGTASK_BUILD_DIR/man/bgtask.1"
[ -f "$PAGE" ] || fail "no man page at $PAGE (the build makes it)"
[ ! "$PAGE" -ot "$ROOT/docs/bgtask.1.scd" ] || skip "the man page is older than its source; build it first"
command -v groff >/dev/null || skip "groff is not installed"

groff -man -Tutf8 -ww -z "$PAGE" 2>"$WORK/warnings" || fail "groff failed: $(cat "$WORK/warnings")"
[ ! -s "$WORK/warnings" ] || fail "groff warnings: $(cat "$WORK/warnings")"
if command -v man >/dev/null; then
  shown=$(MANWIDTH=80 man -l "$PAGE" 2>"$WORK/warnings") || fail "man -l failed: $(cat "$WORK/warnings")"
  grep -q "^NAME" <<<"$shown" || fail "man -l does not show the page"
fi

source_text=$(cat "$PAGE")
# section TITLE_PATTERN: the lines from a .SS/.SH heading matching the
# pattern up to the next heading.
section() {
  printf '%s\n' "$source_text" | awk -v pat="$1" '
    /^\.S[HS] / { inside = ($0 ~ pat) ; if (inside) { print; next } }
    inside { print }'
}
# entries: the long options of the option entries read from stdin (a line
# of bold names that an indented block, `.RS 4`, follows).
entries() {
  awk '/^\.RS 4$/ { print previous } { previous = $0 }' |
    grep -oE '^\\fB(-[a-zA-Z]\\fR, \\fB)?--[a-z0-9-]+\\fR' | grep -oE -- '--[a-z0-9-]+'
}

commands=$("$BGTASK" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
[ -n "$commands" ] || fail "no commands in bgtask --help"
for c in $commands; do
  text=$(section "^\\.SS bgtask $c ")
  [ -n "$text" ] || fail "no section for command $c"
  listed=$(entries <<<"$text" || true)
  helped=$("$BGTASK" "$c" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z0-9-]+' |
    grep -oE -- '--[a-z0-9-]+' | grep -vx -- --help || true)
  [ "$listed" = "$helped" ] || fail "the options of $c differ from its --help:
$(diff <(echo "$helped") <(echo "$listed"))"
done
grep -q '^\.SS bgtask __' "$PAGE" && fail "the page documents a hidden command"

globals=$(section '^\.SH GLOBAL OPTIONS' | entries)
for o in $("$BGTASK" --help | sed -n '/^Global options:/,$p' | grep -oE '^ +--[a-z-]+'); do
  grep -qx -- "$o" <<<"$globals" || fail "global option $o is not documented"
done

exit_status=$(section '^\.SH EXIT STATUS')
for code in $(grep -oE '= [0-9]+,' "$ROOT/lib/bgtask/util/error.hpp" | grep -oE '[0-9]+'); do
  grep -qE "^\\\\fB$code\\\\fR(,|$)" <<<"$exit_status" || fail "exit code $code is not documented"
done

environment=$(section '^\.SH ENVIRONMENT')
variables=$( (grep -rhoE 'getenv\("[A-Z_]+"\)' "$ROOT/lib" | grep -oE '[A-Z_]{2,}' | grep -v '^BGTASK_TEST_'
  echo BGTASK_DIR BGTASK_ID XDG_STATE_HOME HOME) | tr ' ' '\n' | sort -u)
for v in $variables; do
  grep -qx "\\\\fB$v\\\\fR" <<<"$environment" || fail "environment variable $v is not documented"
done

files=$(section '^\.SH FILES')
for f in ID.status.json ID.output ID.lock; do
  grep -qF "$f" <<<"$(sed 's/\\&//g' <<<"$files")" || fail "file $f is not documented"
done
# `output --name N` without --follow reads one task, the newest of that name.
grep -q 'newest task named' <<<"$(section '^\.SS bgtask output ')" ||
  fail "the output section does not say which task output --name N reads"
echo ok
