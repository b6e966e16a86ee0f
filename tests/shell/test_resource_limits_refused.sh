#!/usr/bin/env bash
# Where no cgroup can be written (an unprivileged user without delegation),
# start --memory-max / --pids-max / --cpu-max refuses with a message saying
# why and exit 78, and creates nothing; a start without limits still works.
source "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (to create a second, unprivileged user)"
command -v useradd >/dev/null && command -v runuser >/dev/null || skip "needs useradd and runuser"

user="bgtlim$$"
trap 'id "$user" >/dev/null 2>&1 && userdel "$user" 2>/dev/null; cleanup_work' EXIT
chmod 755 "$WORK"
useradd -M -d "$WORK/user" -s /bin/sh "$user"
mkdir -m 700 "$WORK/user"
chown "$user:" "$WORK/user"
share_binary "$user"
as_user() { runuser -u "$user" -- timeout 60 "$BGTASK" --dir "$WORK/user/tasks" "$@"; }

# Skip where this user can write a cgroup after all (delegation).
for option in "--memory-max 64M" "--pids-max 10" "--cpu-max 0.5"; do
  rc=0
  as_user start $option -- true >"$WORK/out" 2>"$WORK/err" || rc=$?
  if [ "$rc" = 0 ]; then
    skip "user $user can write a cgroup here (delegated): nothing to refuse"
  fi
  [ "$rc" = 78 ] || fail "start $option as $user exited $rc, expected 78: $(cat "$WORK/err")"
  [ ! -s "$WORK/out" ] || fail "start $option printed an ID although it refused: $(cat "$WORK/out")"
  grep -F "cannot enforce" "$WORK/err" >/dev/null && grep -F "cgroup" "$WORK/err" >/dev/null ||
    fail "the refusal does not say why: $(cat "$WORK/err")"
  grep -F "rlimits are no substitute" "$WORK/err" >/dev/null || fail "no word on rlimits: $(cat "$WORK/err")"
done
leftover=$(find "$WORK/user/tasks" -name '*.status.json' -o -name '*.output' -o -name '*.lock' | grep -v start.lock || true)
[ -z "$leftover" ] || fail "a refused start left files behind: $leftover"

id=$(as_user start -- true)
as_user wait "$id" >/dev/null || fail "a start without limits failed for $user"
echo ok
