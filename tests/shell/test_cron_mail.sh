#!/usr/bin/env bash
# The crontab lines of the documentation under a real cron daemon whose mail
# a real MTA delivers to the users' spools (/var/mail/USER): the README's
# `start --quiet --dedupe --name backup -- backup /home` and the nightly
# `cleanup` of scripts/examples/cron-cleanup, with cron's own PATH. A user
# whose runs succeed gets no mail at all (and the task reaches `bgtask
# progress` through the PATH bgtask gives it); a user whose `backup` is not
# on cron's PATH gets exactly one mail that says the command was not found in
# that PATH, which no `cleanup` line can take back.
#
# As in test_cron, the daemon is the test's own, in a mount namespace where
# the users' crontabs, /etc/cron.d, /etc/crontab and /run are the test's
# directories: it runs only this test's crontabs for one minute, and is
# stopped by pid. The MTA is whatever provides /usr/sbin/sendmail
# (scripts/deps.sh installs dma, which delivers local mail without a daemon).
source "$(dirname "$0")/lib.sh"
DOCS=$(cd "$(dirname "$0")/../.." && pwd)

[ "$(id -u)" -eq 0 ] || skip "needs root (a private cron daemon and two users)"
command -v cron >/dev/null || fail "cron is not installed (scripts/deps.sh installs it)"
[ -x /usr/sbin/sendmail ] || fail "no MTA: /usr/sbin/sendmail is missing (scripts/deps.sh installs dma)"
require_unshare --mount --propagation private
[ -d /etc/cron.d ] && [ -f /etc/crontab ] && [ -d /var/spool/cron/crontabs ] ||
  skip "cron's directories are not where Debian's cron keeps them"

# The documented lines, with the schedule made every minute and bgtask given
# by its full path (docs/pitfalls.md: cron's PATH is /usr/bin:/bin).
start_line=$(grep -m1 -E '^\*/5 \* \* \* \* bgtask start ' "$DOCS/README.md") ||
  fail "README.md has no '*/5 * * * * bgtask start' crontab line"
cleanup_line=$(grep -m1 -E '^[0-9]+ +[0-9]+ +\* +\* +\* +bgtask cleanup ' "$DOCS/scripts/examples/cron-cleanup") ||
  fail "scripts/examples/cron-cleanup has no crontab line"
every_minute() { # every_minute LINE: LINE's command, every minute, with bgtask's full path
  local command
  read -r _ _ _ _ _ command <<<"$1"
  echo "* * * * * $BGTASK ${command#bgtask }"
}
[[ $start_line == *' --quiet --dedupe --name backup -- backup /home' ]] ||
  fail "the README's crontab line changed; adapt this test: $start_line"

ok="bgtmok$$"     # `backup` is on its crontab's PATH
lost="bgtmnf$$"   # its crontab keeps cron's PATH, which has no `backup`
cron_pid=""
finish() {
  if [ -n "$cron_pid" ]; then
    kill "$cron_pid" 2>/dev/null || true
    wait "$cron_pid" 2>/dev/null || true
  fi
  for u in "$ok" "$lost"; do
    if id "$u" >/dev/null 2>&1; then userdel "$u" 2>/dev/null || true; fi
    rm -f "/var/mail/$u"
  done
}
on_exit finish

chmod 755 "$WORK"
mkdir -m 755 "$WORK/sbin" "$WORK/cron.d" "$WORK/run"
mkdir -m 1730 "$WORK/crontabs"
: >"$WORK/system-crontab"
for u in "$ok" "$lost"; do
  useradd -M -d "$WORK/$u" -s /bin/sh "$u"
  mkdir -m 700 "$WORK/$u"
  chown "$u:" "$WORK/$u"
  rm -f "/var/mail/$u"
done
share_binary "$ok"
share_binary "$lost"
# The backup: reports its progress with plain `bgtask`, which only the PATH
# bgtask gives its tasks reaches, and takes long enough for the second
# identical line to find it running, however loaded the machine.
cat >"$WORK/sbin/backup" <<'EOF'
#!/bin/sh
bgtask progress --current 1 --total 1 --message "copied $1" || exit 9
sleep 10
echo "backup of $1 done"
EOF
chmod 755 "$WORK/sbin/backup"

crontab_of() { # crontab_of USER STARTS [PATH_LINE]: USER's crontab, as `crontab -e` would leave it
  {
    [ -z "${3:-}" ] || echo "$3"
    for _ in $(seq "$2"); do every_minute "$start_line"; done
    every_minute "$cleanup_line"
  } >"$WORK/crontabs/$1"
  chown "$1:crontab" "$WORK/crontabs/$1" 2>/dev/null || chown "$1:" "$WORK/crontabs/$1"
  chmod 600 "$WORK/crontabs/$1"
}
# The start line twice for the user whose runs succeed: the second finds the
# first's task running (--dedupe), and that is no reason for a mail either.
crontab_of "$ok" 2 "PATH=/usr/bin:/bin:$WORK/sbin"
crontab_of "$lost" 1

# Not in the last seconds of a minute: a daemon started then might only run
# the crontabs the minute after.
while [ "$(date +%S)" -ge 50 ]; do sleep 1; done
unshare --mount --propagation private -- sh -c '
  mount --bind "$1" /etc/cron.d && mount --bind "$2" /etc/crontab &&
    mount --bind "$3" /var/spool/cron/crontabs && mount --bind "$4" /run && exec cron -f' \
  sh "$WORK/cron.d" "$WORK/system-crontab" "$WORK/crontabs" "$WORK/run" &
cron_pid=$!
for _ in $(seq 100); do
  [ "$(cat "$WORK/run/crond.pid" 2>/dev/null)" = "$cron_pid" ] && break
  kill -0 "$cron_pid" 2>/dev/null || fail "the private cron daemon exited at once"
  sleep 0.1
done
[ "$(cat "$WORK/run/crond.pid" 2>/dev/null)" = "$cron_pid" ] || fail "cron ($cron_pid) did not write its pid to the test's /run"

ok_dir="$WORK/$ok/.local/state/bgtask"
lost_dir="$WORK/$lost/.local/state/bgtask"
records() { find "$1" -maxdepth 1 -name '*.status.json' 2>/dev/null | wc -l; }
# One minute's firing is over when both users have their task recorded, the
# backup has finished and cron has no job left (a job's cron child hands its
# output to sendmail before it exits). Then no further minute may fire.
over=no
for _ in $(seq 300); do
  if [ "$(records "$ok_dir")" -ge 1 ] && [ "$(records "$lost_dir")" -ge 1 ] &&
    [ "$(jq -r .state "$ok_dir"/*.status.json | sort -u)" = succeeded ] && [ -z "$(pgrep -P "$cron_pid")" ]; then
    over=yes
    break
  fi
  kill -0 "$cron_pid" 2>/dev/null || fail "the private cron daemon died"
  sleep 0.5
done
rm -f "$WORK/crontabs/$ok" "$WORK/crontabs/$lost"
kill "$cron_pid"
wait "$cron_pid" 2>/dev/null || true
cron_pid=""
[ "$over" = yes ] || fail "cron's jobs were not over within 150 s: $(records "$ok_dir") and $(records "$lost_dir") tasks"
# The mails cron handed to the MTA are delivered once no sendmail is left.
for _ in $(seq 60); do
  pgrep -x 'sendmail|dma' >/dev/null || break
  sleep 0.5
done
queued=$(grep -lwE "$ok|$lost" /var/spool/dma/* 2>/dev/null || true)
[ -z "$queued" ] || fail "mail for the test's users is still queued, not delivered: $queued"

mails() { # mails USER: how many mails USER's spool holds
  if [ -e "/var/mail/$1" ]; then grep -c '^From ' "/var/mail/$1" || true; else echo 0; fi
}
# The user whose runs succeeded: one task, finished, its progress recorded
# through plain `bgtask`, and not one mail.
[ "$(records "$ok_dir")" -eq 1 ] || fail "$ok: $(records "$ok_dir") tasks, not one: $(ls "$ok_dir")"
record=$(echo "$ok_dir"/*.status.json)
[ "$(jq -r .exit_code "$record")" = 0 ] || fail "$ok: the backup exited $(jq -r .exit_code "$record")"
[ "$(jq -r .progress.message "$record")" = "copied /home" ] ||
  fail "$ok: the task could not run 'bgtask progress': $(jq -c .progress "$record")"
[ "$(mails "$ok")" = 0 ] || fail "$ok: cron mailed runs that succeeded: $(cat "/var/mail/$ok")"

# The user whose command cron cannot find: exactly one mail, from cron, that
# says the command was not found in cron's PATH (with bgtask's folder, which
# bgtask adds); the failed task is on record.
[ "$(mails "$lost")" = 1 ] || fail "$lost: $(mails "$lost") mails, not one: $(cat "/var/mail/$lost" 2>/dev/null)"
mail=$(cat "/var/mail/$lost")
grep -q "^Subject: Cron <$lost@" <<<"$mail" || fail "$lost: the mail is not cron's: $mail"
grep -qF 'cannot execute backup: No such file or directory (not found in PATH=/usr/bin:/bin:' <<<"$mail" ||
  fail "$lost: the mail does not say that backup was not found in cron's PATH: $mail"
[ "$(records "$lost_dir")" -eq 1 ] || fail "$lost: $(records "$lost_dir") tasks, not one"
[ "$(jq -r .exit_code "$lost_dir"/*.status.json)" = 127 ] || fail "$lost: the task did not fail with 127"
echo "cron mail: ok"
