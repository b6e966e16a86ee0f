#!/usr/bin/env bash
# The examples of docs/scheduling.md and docs/scripting.md (queues,
# dependencies, run, de-duplication, limits, notifications), run as written,
# with stand-ins for make, deploy, backup, crawl, notify-send and curl.
source "$(dirname "$0")/lib.sh"
export BGTASK_DIR="$D"
mkdir "$WORK/bin"
ln -s "$BGTASK" "$WORK/bin/bgtask"
for tool in make deploy crawl; do
  printf '#!/bin/sh\nsleep 0.2\necho "%s $*"\n' "$tool" >"$WORK/bin/$tool"
done
# The backup runs until released, so the second cron run surely finds it running.
printf '#!/bin/sh\nwhile [ ! -e "%s/release" ]; do sleep 0.05; done\necho "backup $*"\n' "$WORK" >"$WORK/bin/backup"
printf '#!/bin/sh\necho "$*" >>"%s/notified"\n' "$WORK" >"$WORK/bin/notify-send"
printf '#!/bin/sh\necho "$*" >>"%s/posted"\n' "$WORK" >"$WORK/bin/curl"
chmod +x "$WORK"/bin/*
export PATH="$WORK/bin:$PATH"
cd "$WORK"
ids_of() { bgtask list --format jsonl "$@" | jq -r .id; }
wait_all() { # shellcheck disable=SC2046
  timeout 60 bgtask wait $(ids_of) >/dev/null || fail "a task of the examples did not succeed"; }

# --- Queues ---
bgtask queue build --slots 2          # at most 2 tasks of queue "build" run at once
for t in unit integration lint docs; do
  bgtask start --queue build --name "$t" -- make "$t"
done
bgtask list --state queued,running     # 2 running, 2 queued
bgtask queue build                     # its slots, running and queued IDs, in order
[ "$(bgtask queue build --json | jq '.[0].slots')" = 2 ] || fail "the slot count was not stored"
[ "$(bgtask queue build --json | jq '.[0].running | length')" -le 2 ] || fail "more than 2 running"
wait_all
[ "$(bgtask output "$(ids_of --name lint)")" = "make lint" ] || fail "the lint task did not run make lint"

# --- Dependencies ---
build=$(bgtask start -- make)
bgtask start --after "$build" -- make install              # runs only if make succeeded
bgtask start --after "$build" --queue deploy -- deploy production
wait_all
[ "$(bgtask list --state succeeded --format jsonl | wc -l)" -eq 7 ] || fail "dependent tasks did not succeed"

# --- Run ---
out=$(bgtask run -- make test) || fail "run of a succeeding command failed"
[ "$out" = "make test" ] || fail "run printed '$out'"
bgtask run --detach-after 5s -- make all >/dev/null || fail "run --detach-after of a quick command failed"

# --- De-duplication: the crontab line's command, fired twice ---
line='*/5 * * * * bgtask start --dedupe --name backup -- backup /home'
command=${line#* * * * * }
first=$(sh -c "$command" 2>/dev/null)
second=$(sh -c "$command" 2>/dev/null)
[ "$first" = "$second" ] || fail "--dedupe started the backup twice ($first, $second)"
touch "$WORK/release"
wait_all

# --- Limits ---
bgtask start --max-running 8 -- crawl || echo "busy, try later"   # exit 69 when 8 run
export BGTASK_MAX_RUNNING=8                                     # the same, for every start
bgtask cleanup --max-bytes 500M              # cron: finished tasks take at most 500 MiB
wait_all

# --- Notifications ---
a=$(bgtask start --on-exit 'notify-send "bgtask $BGTASK_ID: $BGTASK_STATE ($BGTASK_EXIT_CODE)"' -- make)
b=$(bgtask start --on-exit 'curl -fsS -d "$BGTASK_ID $BGTASK_STATE" https://hooks.example/bgtask' -- backup /home)
bgtask wait "$a" "$b" >/dev/null || fail "the notified tasks did not succeed"
for _ in $(seq 100); do
  [ -s "$WORK/notified" ] && [ -s "$WORK/posted" ] && break
  sleep 0.05
done
[ "$(cat "$WORK/notified")" = "bgtask $a: succeeded (0)" ] || fail "notify-send got: $(cat "$WORK/notified")"
[ "$(cat "$WORK/posted")" = "-fsS -d $b succeeded https://hooks.example/bgtask" ] || fail "curl got: $(cat "$WORK/posted")"
echo "ok"
