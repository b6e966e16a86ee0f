#!/usr/bin/env bash
# A queued task whose record names a host this machine is no longer called
# (a rename, a UTS namespace) is still rung by the waiter ahead of it: a
# supervisor of this boot is this machine's, whatever the host's name
# (is_this_boot). In a private UTS namespace, a queue of 2 slots runs A and
# X, B waits first in line and C behind B (C watches B alone). The host is
# renamed; A ends, so B takes A's slot and rings C, which must then watch the
# running tasks itself: X ends, and C runs at once. Unrung, C would sleep
# until B's supervisor exits or its 60 s safety poll.
source "$(dirname "$0")/lib.sh"
require_unshare --uts

cat >"$WORK/inner.sh" <<'EOF'
set -euo pipefail
D=$1
W=$2
bg() { timeout 60 "$BGTASK" --dir "$D" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
state() { jq -r .state "$D/$1.status.json"; }
until_state() { # ID STATE
  for _ in $(seq 400); do
    [ "$(state "$1")" = "$2" ] && return 0
    sleep 0.05
  done
  fail "$1 is $(state "$1"), not $2"
}
holder() { echo "while [ ! -e '$W/$1' ]; do sleep 0.05; done"; }

hostname before-rename.example
a=$(bg start --queue q --slots 2 -c "$(holder a)")
x=$(bg start --queue q -c "$(holder x)")
until_state "$a" running
until_state "$x" running
b=$(bg start --queue q -c "$(holder b)")
c=$(bg start --queue q -- true)
[ "$(state "$b")" = queued ] || fail "B is $(state "$b"), not queued"
[ "$(state "$c")" = queued ] || fail "C is $(state "$c"), not queued"
[ "$(jq -r .owner.host "$D/$c.status.json")" = before-rename.example ] || fail "C's host not recorded"
sleep 0.5 # C settles behind B

hostname after-rename.example
touch "$W/a"
until_state "$b" running # B left the line, and rang C
touch "$W/x"
rc=0
bg wait --timeout 15s "$c" >/dev/null || rc=$?
touch "$W/b"
bg wait "$b" >/dev/null || true
[ "$rc" -eq 0 ] || fail "C did not run once X's slot was free (wait exited $rc): the waiter ahead did not ring it"
echo ok
EOF

unshare --uts bash "$WORK/inner.sh" "$D" "$WORK" || fail "see above"
echo ok
