#!/usr/bin/env bash
# `run` under a shell's job control, typed at a real terminal (tmux, an
# interactive bash): Ctrl-Z pauses the task and gives the prompt back, `fg`
# resumes the task and `run` follows it again to its end.
source "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
export TMUX_TMPDIR="$WORK" # a private tmux server, gone with the work directory
on_exit "tmux kill-server 2>/dev/null || true"

# A counter, one line each 0.1 s, for about 20 s.
printf -v line '%q ' "$BGTASK" --dir "$D" run --name counter -- \
  sh -c 'i=0; while [ $i -lt 200 ]; do i=$((i+1)); echo "count $i"; sleep 0.1; done'
tmux new-session -d -s job -x 120 -y 30 "PS1='prompt\$ ' TERM=screen bash --norc --noprofile -i"
tmux send-keys -t job "$line" Enter
for _ in $(seq 100); do grep -q "count 3" <<<"$(tmux capture-pane -p -t job)" && break; sleep 0.1; done
id=$(bg list --name counter --json | jq -r '.[0].id')
[ -n "$id" ] && [ "$id" != null ] || fail "run did not start its task: $(tmux capture-pane -p -t job)"
output="$D/$id.output"
lines() { wc -l <"$output"; }
last_line() { tmux capture-pane -p -t job | grep -v '^$' | tail -1; }

tmux send-keys -t job C-z
# The shell's prompt comes back under the job's "Stopped" line.
for _ in $(seq 100); do grep -q "Stopped" <<<"$(tmux capture-pane -p -t job)" && break; sleep 0.1; done
pane=$(tmux capture-pane -p -t job)
grep -q "Stopped" <<<"$pane" || fail "Ctrl-Z did not stop run: $pane"
[ "$(last_line)" = 'prompt$' ] || fail "no prompt after Ctrl-Z: $pane"
# The task itself stopped: paused in its record, its output no longer grows.
for _ in $(seq 100); do [ "$(field "$id" .pause.paused)" = true ] && break; sleep 0.1; done
[ "$(field "$id" .pause.paused)" = true ] || fail "Ctrl-Z left the task unpaused: $(cat "$D/$id.status.json")"
before=$(lines)
sleep 1
[ "$(lines)" -eq "$before" ] || fail "the output grew from $before to $(lines) lines while run was stopped"
grep -q "paused" <<<"$pane" || fail "run did not say that it paused the task: $pane"

tmux send-keys -t job "fg" Enter
# The task runs again and run follows it: its output grows and reaches
# the terminal, and run ends with the task's own status.
for _ in $(seq 100); do [ "$(lines)" -gt "$before" ] && break; sleep 0.1; done
[ "$(lines)" -gt "$before" ] || fail "fg did not resume the task: $(tmux capture-pane -p -t job)"
[ "$(field "$id" .pause.paused)" = false ] || fail "the record still says paused after fg"
for _ in $(seq 300); do [ "$(field "$id" .state)" != running ] && [ "$(last_line)" = 'prompt$' ] && break; sleep 0.1; done
tmux send-keys -t job 'echo "rc=$?"' Enter
for _ in $(seq 100); do grep -q "^rc=" <<<"$(tmux capture-pane -p -t job)" && break; sleep 0.1; done
pane=$(tmux capture-pane -p -S -1000 -t job)
grep -q "^rc=0" <<<"$pane" || fail "run after fg did not end with the task's status: $pane"
grep -q "count 200" <<<"$pane" || fail "run after fg did not follow the task to its end: $pane"
[ "$(field "$id" .state)" = succeeded ] || fail "the task ended $(field "$id" .state)"
echo "run job control: ok"
