#!/usr/bin/env bash
# `list` as a person meets it: in tmux at 60 columns every line fits (a task
# started today shows its time only, and when even that is too wide STARTED
# gets shorter), the INFO column says why a queued task waits and how far a
# running one is, `running*` has a legend at a terminal, and an empty list
# says on stderr which directory it read.
source "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
command -v script >/dev/null || skip "script(1) is not installed"

# Empty: at a terminal a line (on stderr) names the directory and no header
# is drawn; a pipe gets the header alone and nothing on stderr.
shown=$(script -qec "$(printf '%q ' "$BGTASK" --dir "$D" list) 2>$WORK/said" /dev/null </dev/null | tr -d '\r')
[ "$(cat "$WORK/said")" = "no tasks in $D" ] || fail "an empty list at a terminal said: '$(cat "$WORK/said")'"
[ -z "$shown" ] || fail "an empty list at a terminal drew: $shown"
[ -z "$(bg list 2>&1 >/dev/null)" ] || fail "an empty list into a pipe wrote on stderr"
[[ $(bg list) == "ID "* ]] || fail "an empty list into a pipe lost its header"

build=$(bg start --name build -- sh -c '"$BGTASK_BIN" progress --percent 45 --message linking; sleep 300')
on_exit 'bg cancel --all --quiet --grace 100ms'
bg queue q --slots 1 >/dev/null
first=$(bg start --queue q -- sleep 300)
second=$(bg start --queue q -- sleep 300)
after=$(bg start --after "$build" -- true)
orphan=$(bg start --name orphan -- sleep 300)
kill -KILL "$(field "$orphan" .owner.pid)"
for _ in $(seq 100); do [ "$(field "$build" '.progress.percent')" = 45 ] && break; sleep 0.1; done
# The widest cells there are: `cancelled` with `sig15`, a long name, a start
# on an earlier day (the record of a task from two days ago), and a command
# not found (exit 127).
long_name=$(printf 'nightly-backup-%.0s' 1 2 3 4 5)
old=$(bg start --name "$long_name" -- sleep 300)
bg cancel --quiet --grace 100ms "$old" >/dev/null
[ "$(field "$old" '.state + " " + (.signal | tostring)')" = "cancelled 15" ] ||
  fail "the cancelled task: $(field "$old" '[.state, .signal]')"
two_days_ago=$(date -u -d '-2 days' '+%Y-%m-%dT%H:%M:%S.000Z')
jq --arg t "$two_days_ago" '.created_at = $t | .started_at = $t' "$D/$old.status.json" >"$WORK/old.json"
mv "$WORK/old.json" "$D/$old.status.json"
missing=$(bg start -- bgtask-no-such-command 2>/dev/null || true)
[ "$(field "$missing" .exit_code)" = 127 ] || fail "not found: $(field "$missing" .exit_code)"

# Through a pipe, nothing is cut: the INFO cells in full.
piped=$(bg list)
[ "$(tr -s ' ' <<<"${piped%%$'\n'*}")" = "ID STATE EXIT STARTED ELAPSED NAME INFO" ] || fail "header: $piped"
grep -q "^$build .* 45% linking$" <<<"$piped" || fail "no progress in INFO: $piped"
grep -q "^$second .*queued.* slot in q$" <<<"$piped" || fail "no slot in INFO: $piped"
grep -q "^$after .*queued.* after $build$" <<<"$piped" || fail "no --after in INFO: $piped"
grep -q "^$orphan  *running\* " <<<"$piped" || fail "the orphaned task is not running*: $piped"
grep -q "^\*" <<<"$piped" && fail "a legend went into the pipe: $piped"
grep -qE "^$old +cancelled +sig15 +$(date -d '-2 days' '+%Y-%m-%d') [0-9:]{8} .* $long_name +-$" \
  <<<"$piped" || fail "the old task is not shown in full: $piped"
today=$(date '+%H:%M:%S')
grep -qE "^$build +running +- +[0-2][0-9]:[0-5][0-9]:[0-5][0-9] " <<<"$piped" ||
  fail "a task started today (at $today) does not show its time only: $piped"

# Where the table fits, the old task is shown as through a pipe.
[ "$(COLUMNS=200 bg list | grep "^$old ")" = "$(grep "^$old " <<<"$piped")" ] ||
  fail "at 200 columns: $(COLUMNS=200 bg list)"

# In tmux at 60 columns: every line fits, and `*` has its legend.
export TMUX_TMPDIR="$WORK"
tmux new-session -d -s narrow -x 60 -y 20 "$(printf '%q ' "$BGTASK" --dir "$D" list); touch $WORK/done; sleep 30"
for _ in $(seq 100); do [ -e "$WORK/done" ] && break; sleep 0.1; done
tmux capture-pane -p -J -t narrow >"$WORK/narrow.txt"
tmux kill-server
grep -q '^ID ' "$WORK/narrow.txt" || fail "list did not run in tmux: $(cat "$WORK/narrow.txt")"
python3 - "$WORK/narrow.txt" <<'PY' || fail "list does not fit 60 columns: $(cat "$WORK/narrow.txt")"
import sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if l.strip()]
assert len(lines) == 9, lines
assert all(len(l) <= 60 for l in lines), [len(l) for l in lines]
PY
grep -qE "^$old +cancelled +sig15 .* nig[^ ]*… " "$WORK/narrow.txt" ||
  fail "the long name is not cut: $(cat "$WORK/narrow.txt")"
grep -q '^\* its supervisor died' "$WORK/narrow.txt" || fail "no legend for *: $(cat "$WORK/narrow.txt")"
echo "list narrow: ok"
