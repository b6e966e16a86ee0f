#!/usr/bin/env bash
# bgtask on a terminal and through a pipe: names cannot forge rows, columns
# line up by display width, the table fits the terminal, one time convention,
# TERM=dumb has no colour, usage errors speak bgtask.
source "$(dirname "$0")/lib.sh"

forged=$(bg start --name $'evil\n2nk5t7f30b55  succeeded  0     2026-01-01 00:00:00  1s        fake' -- true)
tabbed=$(bg start --name $'tab\there' -- true)
cjk=$(bg start --name '日本語の名前' -- true)
emoji=$(bg start --name '🚀 launch' -- true)
long=$(bg start -- sh -c 'echo a command line long enough to need cutting on a narrow terminal window; sleep 0')
bg wait "$forged" "$tabbed" "$cjk" "$emoji" "$long" >/dev/null

# Through a pipe: one line per task, no raw newline or tab from a name.
piped=$(bg list)
[ "$(wc -l <<<"$piped")" -eq 6 ] || fail "list through a pipe has $(wc -l <<<"$piped") lines, not 6: $piped"
[ "$(grep -c '2nk5t7f30b55' <<<"$piped")" -eq 1 ] && grep -q 'evil\\x0a2nk5t7f30b55' <<<"$piped" ||
  fail "the forged row is not escaped: $piped"
grep -q 'tab\\x09here' <<<"$piped" || fail "the tab is not escaped: $piped"
! grep -qP '\t' <<<"$piped" || fail "a raw tab in list: $piped"

# Columns line up by display width: the NAME column starts at the same
# terminal column in every row (CJK and emoji count two).
python3 - "$piped" <<'PY' || fail "columns are not aligned by display width: $piped"
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = sys.argv[1].splitlines()
name_at = width(lines[0][:lines[0].index("NAME")])
for line in lines[1:]:
    # the cell before NAME (ELAPSED) ends with two spaces, then the name
    prefix, col = "", 0
    for ch in line:
        if col >= name_at:
            break
        prefix += ch
        col += width(ch)
    assert col == name_at and prefix.endswith("  ") and not line[len(prefix)] == " ", line
PY

# A narrow terminal (tmux, 70 columns): every line fits, cut with an ellipsis;
# --wide shows everything.
export TMUX_TMPDIR="$WORK"
list_cmd=$(printf '%q ' "$BGTASK" --dir "$D" list)
tmux new-session -d -s narrow -x 70 -y 20 "$list_cmd; $list_cmd --wide >$WORK/wide.txt; sleep 30"
for _ in $(seq 100); do [ -s "$WORK/wide.txt" ] && break; sleep 0.1; done
tmux capture-pane -p -J -t narrow >"$WORK/narrow.txt" # -J: a wrapped line comes back whole
tmux kill-server
grep -q '^ID ' "$WORK/narrow.txt" || fail "list did not run in tmux: $(cat "$WORK/narrow.txt")"
python3 - "$WORK/narrow.txt" <<'PY' || fail "list does not fit 70 columns: $(cat "$WORK/narrow.txt")"
import re, sys, unicodedata
def width(s):
    s = re.sub("\x1b\\[[0-9;]*m", "", s)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if l.strip()]
assert len(lines) == 6, lines
assert all(width(l) <= 70 for l in lines), [width(l) for l in lines]
assert any(l.endswith("\u2026") for l in lines)
PY
grep -q "need cutting on a narrow terminal window" "$WORK/wide.txt" || fail "--wide cut the command: $(cat "$WORK/wide.txt")"

# Colour: on a pty, yes; TERM=dumb or NO_COLOR, no.
esc=$'\033'
on_tty() { env "$@" script -qec "$(printf '%q ' "$BGTASK" --dir "$D" list)" /dev/null </dev/null; }
[[ $(on_tty TERM=xterm) == *"$esc["* ]] || fail "no colour on a terminal"
[[ $(on_tty TERM=dumb) != *"$esc["* ]] || fail "colour with TERM=dumb"
[[ $(on_tty TERM=xterm NO_COLOR=1) != *"$esc["* ]] || fail "colour with NO_COLOR"

# One time convention: list and status both show local time; status adds the offset.
started=$(jq -r .started_at "$D/$cjk.status.json")
# list shows the time alone for a task started today (local day), as here.
listed=$(TZ=Asia/Tokyo bg list | grep "$cjk" | awk '{print $4}')
shown=$(TZ=Asia/Tokyo bg status "$cjk" | sed -n 's/^Started  *//p')
expected=$(TZ=Asia/Tokyo date -d "$started" '+%Y-%m-%d %H:%M:%S')
if [ "$(TZ=Asia/Tokyo date '+%F')" = "${expected% *}" ]; then
  [ "$listed" = "${expected#* }" ] || fail "list shows '$listed', local time is '${expected#* }'"
fi
[ "$shown" = "$expected +09:00" ] || fail "status shows '$shown', not '$expected +09:00'"

# Usage errors speak bgtask.
rc=0
err=$(bg start sleep 10 2>&1) || rc=$?
[ "$rc" -eq 2 ] && grep -q 'put `--` before the command' <<<"$err" || fail "start without --: $err"
! grep -q "positional" <<<"$err" || fail "start without -- speaks Boost: $err"
rc=0
err=$(bg complete 2>&1) || rc=$?
[ "$rc" -eq 2 ] && ! grep -q "__complete" <<<"$err" || fail "a hidden command was suggested: $err"
# A shell command line given as one word after `--` fails (127) saying -c.
rc=0
err=$("$BGTASK" --dir "$WORK/hint" start -- 'make && make install' 2>&1) || rc=$?
[ "$rc" -eq 127 ] && grep -qF "use -c 'make && make install'" <<<"$err" || fail "no -c hint ($rc): $err"
err=$("$BGTASK" --dir "$WORK/hint" start -- no-such-command-here 2>&1) || true
! grep -q -- "use -c" <<<"$err" || fail "a -c hint for a plain missing command: $err"
err=$(bg stauts 2>&1) || true
grep -q "did you mean 'status'" <<<"$err" || fail "no suggestion for stauts: $err"
help=$("$BGTASK" start --help)
! grep -qE ' arg( |$)' <<<"$help" || fail "start --help shows 'arg': $help"
grep -q -- "--timeout DUR" <<<"$help" && grep -q -- "--max-output SIZE" <<<"$help" || fail "start --help: $help"
grep -q -- "--tail N" <<<"$("$BGTASK" status --help)" || fail "status --help has no --tail N"
grep -q "man bgtask" <<<"$("$BGTASK" wait --help)" || fail "wait --help does not point to the man page"
[ "$("$BGTASK" list --dir "$D" --json | jq length)" -eq 5 ] || fail "--dir after the command name was not used"
# cleanup with nothing to remove says so to a person, and nothing to cron.
[ -z "$(bg cleanup)" ] || fail "cleanup with nothing to remove printed into a pipe"
said=$(script -qec "$(printf '%q ' "$BGTASK" --dir "$D" cleanup)" /dev/null </dev/null | tr -d '\r')
[ "$said" = "nothing to remove in $D" ] || fail "cleanup at a terminal said: $said"
echo "terminal: ok"
