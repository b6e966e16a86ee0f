#!/usr/bin/env bash
# A hostname change does not strand tasks. In a private UTS namespace, tasks
# are started, the host is renamed with hostname(1), and then: `wait` returns
# the real status of a task started under the old name, `cancel` stops one,
# `list` judges one whose supervisor and command were killed (`lost`) and
# `cleanup` removes it. A record from another machine (other name *and*
# other boot id) is still foreign: left as it is, never cleaned up.
source "$(dirname "$0")/lib.sh"
require_unshare --uts

cat >"$WORK/inner.sh" <<'EOF'
set -euo pipefail
D=$1
bg() { timeout 20 "$BGTASK" --dir "$D" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
gone() { for _ in $(seq 200); do [ -e "/proc/$1" ] || return 0; sleep 0.02; done; return 1; }

hostname before-rename.example
waited=$(bg start -- sh -c 'sleep 1; exit 3')
cancelled=$(bg start -- sleep 300)
dead=$(bg start -- sleep 300)
sup=$(jq .owner.pid "$D/$dead.status.json")
pgid=$(jq .child.pgid "$D/$dead.status.json")
kill -KILL "$sup"; gone "$sup" || fail "supervisor $sup did not die"
kill -KILL -- "-$pgid"; gone "$pgid" || fail "command $pgid did not die"
[ "$(jq -r .owner.host "$D/$waited.status.json")" = before-rename.example ] || fail "old host not recorded"

# Another machine: another name and another boot id (pids that cannot exist).
foreign=0000000000aa
jq --arg id "$foreign" '.id = $id | .owner.host = "elsewhere.example"
  | .owner.boot_id = "00000000-0000-0000-0000-000000000000"
  | .owner.pid = 67108608 | .child.pid = 67108609 | .child.pgid = 67108609' \
  "$D/$cancelled.status.json" >"$D/$foreign.status.json"
chmod 600 "$D/$foreign.status.json"
install -m 600 /dev/null "$D/$foreign.lock"
foreign_before=$(sha256sum <"$D/$foreign.status.json")

hostname after-rename.example

rc=0; bg wait "$waited" >/dev/null || rc=$?
[ "$rc" = 3 ] || fail "wait on a task started under the old name exited $rc, not 3"

rc=0; out=$(bg cancel "$cancelled" 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "cancel exited $rc: $out"
[ "$(jq -r .state "$D/$cancelled.status.json")" = cancelled ] || fail "not cancelled: $out"

bg list >/dev/null
[ "$(jq -r .state "$D/$dead.status.json")" = lost ] || fail "dead task is $(jq -r .state "$D/$dead.status.json"), not lost"
status=$(bg status "$dead")
grep -F "(on " <<<"$status" >/dev/null && fail "status calls this machine another host: $status"

bg cleanup --older-than 0 >/dev/null
for id in "$waited" "$cancelled" "$dead"; do
  [ ! -e "$D/$id.status.json" ] || fail "cleanup left $id"
done

# The foreign record: untouched by all of the above, still foreign.
[ "$(sha256sum <"$D/$foreign.status.json")" = "$foreign_before" ] || fail "foreign record was rewritten"
rc=0; bg wait --timeout 200ms "$foreign" >/dev/null 2>&1 || rc=$?
[ "$rc" = 4 ] || fail "wait on the foreign task exited $rc, not 4 (timeout)"
rc=0; out=$(bg cancel "$foreign" 2>&1) || rc=$?
grep -F "runs on host elsewhere.example" <<<"$out" >/dev/null || fail "cancel of the foreign task: $out"
grep -F "(on elsewhere.example)" <<<"$(bg status "$foreign")" >/dev/null || fail "status does not name the foreign host"
echo ok
EOF

unshare --uts bash "$WORK/inner.sh" "$D" || fail "see above"
echo ok
