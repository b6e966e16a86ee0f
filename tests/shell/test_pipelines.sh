#!/usr/bin/env bash
# bgtask in pipelines, the way scripts use it: a follower whose reader goes
# away exits while the task is silent; `run` into a pipe writes only the
# task's bytes, and a `run` whose reader goes away stops its task; the
# waiter's own outcomes have their own exit codes.
source "$(dirname "$0")/lib.sh"

# A task that says it is ready, then stays silent for a minute.
server=$(bg start --name server -c 'echo booting; echo Listening on 8080; sleep 60')

# `grep -m1` exits after the match: the follower must notice at once, not at
# the task's next write (a minute away), and exit 141 as `tail -f` would.
# timeout 30 stands for "never"; 3 s is a generous "at once".
set +o pipefail
began=$(date +%s%N)
timeout 30 "$BGTASK" --dir "$D" output --follow "$server" | grep -m1 Listening >"$WORK/grep.out" # sigpipe-ok: the test
statuses=("${PIPESTATUS[@]}")
took_ms=$((($(date +%s%N) - began) / 1000000))
set -o pipefail
[ "$(cat "$WORK/grep.out")" = "Listening on 8080" ] || fail "grep -m1 read '$(cat "$WORK/grep.out")'"
[ "${statuses[*]}" = "141 0" ] || fail "output --follow | grep -m1 exited ${statuses[*]}, not 141 0" # sigpipe-ok: text
[ "$took_ms" -lt 3000 ] || fail "output --follow | grep -m1 took ${took_ms} ms while the task was silent" # sigpipe-ok: text
[ "$(field "$server" .state)" = running ] || fail "the task did not keep running"
rc=0
timeout 30 "$BGTASK" --dir "$D" output --follow "$server" 2>"$WORK/follow.err" | head -1 >"$WORK/head.out" || # sigpipe-ok: the test
  rc=$?
[ "$rc" -ne 124 ] || fail "output --follow | head -1 outlived its reader until timeout(1) killed it" # sigpipe-ok: text
[ "$(cat "$WORK/head.out")" = booting ] || fail "head -1 read '$(cat "$WORK/head.out")'"
# The follower's own status with the reader gone: 141, as tail -f gets.
set +o pipefail
timeout 30 "$BGTASK" --dir "$D" output --follow "$server" | head -1 >/dev/null # sigpipe-ok: no pipefail here
statuses=("${PIPESTATUS[@]}")
set -o pipefail
[ "${statuses[0]}" -eq 141 ] || fail "output --follow with its reader gone exited ${statuses[0]}, not 141"
[ "$(field "$server" .state)" = running ] || fail "the task did not keep running"

# wait --timeout gives up with 4 (not 124: that is a task that timed out).
rc=0
bg wait --timeout 200ms "$server" >/dev/null 2>"$WORK/wait.err" || rc=$?
[ "$rc" -eq 4 ] || fail "wait --timeout on a running task exited $rc, not 4"
grep -q "gave up" "$WORK/wait.err" || fail "wait said: $(cat "$WORK/wait.err")"
timed=$(bg start --timeout 100ms -- sleep 30)
rc=0
bg wait "$timed" >/dev/null || rc=$?
[ "$rc" -eq 124 ] || fail "wait on a task that timed out exited $rc, not 124"

# Ctrl-C of a waiter in a script (SIGINT to it): 5, and the task runs on.
"$BGTASK" --dir "$D" wait "$server" >/dev/null 2>&1 &
waiter=$!
sleep 0.5
kill -INT "$waiter"
rc=0
wait "$waiter" || rc=$?
[ "$rc" -eq 5 ] || fail "wait interrupted by SIGINT exited $rc, not 5"
[ "$(field "$server" .state)" = running ] || fail "interrupting wait stopped the task"

# A task killed by SIGINT (130) is not a cancelled task (125).
interrupted=$(bg start -- sh -c 'kill -INT $$')
rc=0
bg wait "$interrupted" >/dev/null || rc=$?
[ "$rc" -eq 130 ] || fail "wait on a task killed by SIGINT exited $rc, not 130"
bg cancel --grace 200ms "$server" >/dev/null
rc=0
bg wait "$server" >/dev/null || rc=$?
[ "$rc" -eq 125 ] || fail "wait on a cancelled task exited $rc, not 125"
[ "$(bg status --json "$server" "$interrupted" | jq -c '[.[].wait_status]')" = "[125,130]" ] ||
  fail "wait_status in status --json: $(bg status --json "$server" "$interrupted")"

# `run` into a pipe: only the task's bytes, as it wrote them; no status line
# anywhere, even though stderr is a terminal (script(1) gives it one).
printf -v quoted '%q ' "$BGTASK" --dir "$D" run -c "printf 'a\\r50%%\\033[32mok\\033[0m\\n'; sleep 1.5; echo done"
timeout -s KILL 30 script -qfec "$quoted | cat >$WORK/run.out" "$WORK/run.tty" </dev/null >/dev/null 2>&1 ||
  fail "run | cat in a pty failed"
printf 'a\r50%%\033[32mok\033[0m\ndone\n' | cmp -s - "$WORK/run.out" ||
  fail "run | cat got $(od -c "$WORK/run.out" | sed -n 1,5p)"
! grep -a "bgtask:" "$WORK/run.tty" >/dev/null || fail "run drew a status line while stdout was a pipe: $(cat -v "$WORK/run.tty")"

# `run` into a pipe whose reader goes away: it notices while the task is
# silent (a minute away from its next write), cancels the task as SIGPIPE
# would stop a foreground command, and exits 141. timeout 30 stands for
# "never". Then the same with a task that keeps writing (EPIPE, not poll).
for kind in silent chatty; do
  case $kind in
  silent) script='echo ready; sleep 60' ;;
  *) script='echo ready; while :; do echo more; sleep 0.05; done' ;;
  esac
  set +o pipefail
  timeout 30 "$BGTASK" --dir "$D" run --name "run-$kind" --grace 1s -c "$script" 2>"$WORK/run-$kind.err" |
    head -1 >"$WORK/run-$kind.out" # sigpipe-ok: the test
  statuses=("${PIPESTATUS[@]}")
  set -o pipefail
  [ "${statuses[0]}" -eq 141 ] || fail "run ($kind) with its reader gone exited ${statuses[0]}, not 141: $(cat "$WORK/run-$kind.err")"
  [ "$(cat "$WORK/run-$kind.out")" = ready ] || fail "head -1 read '$(cat "$WORK/run-$kind.out")'"
  id=$(bg list --name "run-$kind" --json | jq -r '.[0].id')
  [ "$(field "$id" .state)" = cancelled ] || fail "run ($kind) left its task $(field "$id" .state)"
  grep -c "reader of stdout went away" "$WORK/run-$kind.err" >/dev/null ||
    fail "run ($kind) said: $(cat "$WORK/run-$kind.err")"
  child=$(field "$id" .child.pid)
  ! kill -0 "$child" 2>/dev/null || fail "the command of run ($kind) still runs"
done

# On a terminal (stdout and stderr the same pty) the status line is drawn,
# and the command's bytes reach the terminal as it wrote them: a progress
# bar's \r and a colour, not \x0d and \x1b[32m (the pty turns \n into \r\n).
drawn=$(printf 'a\r50%%\033[32mok\033[0m\r\n')
printf -v quoted '%q ' "$BGTASK" --dir "$D" run -c "printf 'a\\r50%%\\033[32mok\\033[0m\\n'; sleep 2.5; echo two"
timeout -s KILL 30 script -qfec "$quoted" "$WORK/tty.log" </dev/null >/dev/null 2>&1 || fail "run in a pty failed"
grep -a "Ctrl-C cancels" "$WORK/tty.log" >/dev/null || fail "no status line on a terminal: $(cat -v "$WORK/tty.log")"
LC_ALL=C grep -aF "$drawn" "$WORK/tty.log" >/dev/null ||
  fail "run on a terminal did not pass the command's bytes through: $(cat -v "$WORK/tty.log")"
# --escape: the same bytes shown escaped, none of them raw.
printf -v quoted '%q ' "$BGTASK" --dir "$D" run --escape -c "printf 'a\\r50%%\\033[32mok\\033[0m\\n'"
timeout -s KILL 30 script -qfec "$quoted" "$WORK/escaped.log" </dev/null >/dev/null 2>&1 || fail "run --escape in a pty failed"
LC_ALL=C grep -aF 'a\x0d50%\x1b[32mok\x1b[0m' "$WORK/escaped.log" >/dev/null ||
  fail "run --escape on a terminal showed: $(cat -v "$WORK/escaped.log")"
! LC_ALL=C grep -aF "$(printf '\033[32m')" "$WORK/escaped.log" >/dev/null ||
  fail "run --escape let a colour through: $(cat -v "$WORK/escaped.log")"

# Keys typed at a real terminal (tmux): Ctrl-C cancels the task and `run`
# exits 130; Ctrl-\ detaches (exit 3) and the task runs on.
if command -v tmux >/dev/null; then
  export TMUX_TMPDIR="$WORK" # a private tmux server, gone with the work directory
  for key in 03 1c; do # the bytes of Ctrl-C and Ctrl-\
    rm -f "$WORK/rc"
    printf -v line '%q ' "$BGTASK" --dir "$D" run --name "key-$key" -- sh -c 'echo started; sleep 60'
    tmux new-session -d -s keys -x 200 -y 20 "$line; echo \$? >$WORK/rc; sleep 30"
    for _ in $(seq 100); do tmux capture-pane -p -t keys | grep started >/dev/null && break; sleep 0.1; done
    tmux send-keys -t keys -H "$key"
    for _ in $(seq 100); do [ -s "$WORK/rc" ] && break; sleep 0.1; done
    pane=$(tmux capture-pane -p -t keys)
    tmux kill-server
    id=$(bg list --name "key-$key" --json | jq -r '.[0].id')
    case $key in
    03)
      [ "$(cat "$WORK/rc" 2>/dev/null)" = 130 ] || fail "Ctrl-C in run: exit $(cat "$WORK/rc" 2>/dev/null); pane: $pane"
      [ "$(field "$id" .state)" = cancelled ] || fail "Ctrl-C in run left the task $(field "$id" .state)"
      grep -q "cancelling task $id (TERM now, KILL after 5.0s if it still runs; Ctrl-C again to kill it now)" <<<"$pane" ||
        fail "Ctrl-C in run did not announce the grace: $pane"
      ;;
    *)
      [ "$(cat "$WORK/rc" 2>/dev/null)" = 3 ] || fail "Ctrl-\\ in run: exit $(cat "$WORK/rc" 2>/dev/null); pane: $pane"
      [ "$(field "$id" .state)" = running ] || fail "Ctrl-\\ in run did not leave the task running"
      grep -q "detached" <<<"$pane" || fail "Ctrl-\\ in run said: $pane"
      bg cancel --grace 100ms "$id" >/dev/null
      ;;
    esac
  done
  # Ctrl-C twice: a task that ignores TERM is killed at the second, long
  # before its 60 s grace.
  rm -f "$WORK/rc"
  printf -v line '%q ' "$BGTASK" --dir "$D" run --grace 60s --name twice -- sh -c 'trap "" TERM; echo started; sleep 120'
  tmux new-session -d -s keys -x 200 -y 20 "$line; echo \$? >$WORK/rc; sleep 30"
  for _ in $(seq 100); do tmux capture-pane -p -t keys | grep started >/dev/null && break; sleep 0.1; done
  tmux send-keys -t keys -H 03
  for _ in $(seq 100); do tmux capture-pane -p -t keys | grep "Ctrl-C again" >/dev/null && break; sleep 0.1; done
  tmux send-keys -t keys -H 03
  for _ in $(seq 100); do [ -s "$WORK/rc" ] && break; sleep 0.1; done
  pane=$(tmux capture-pane -p -t keys)
  tmux kill-server
  id=$(bg list --name twice --json | jq -r '.[0].id')
  [ "$(cat "$WORK/rc" 2>/dev/null)" = 130 ] || fail "Ctrl-C twice in run: exit $(cat "$WORK/rc" 2>/dev/null); pane: $pane"
  [ "$(field "$id" .state)" = cancelled ] && [ "$(field "$id" .signal)" = 9 ] ||
    fail "Ctrl-C twice left the task $(field "$id" .state) (signal $(field "$id" .signal)); pane: $pane"
  grep -q "killing task $id now" <<<"$pane" || fail "the second Ctrl-C was not announced: $pane"
else
  echo "note: tmux is not installed; the key presses were not tried" >&2
fi
echo "pipelines: ok"
