#!/usr/bin/env bash
# `cancel` of many queued tasks ends them together: each is recorded
# cancelled with its task.exited event, the tasks waiting `--after` them
# fail, the cancel reads `.parked` (a hand-off pass) a bounded number of
# times, not once per task, and an --on-exit hook runs holding its own
# task's lock and no other's.
source "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is missing"

tasks=300
bg queue held --slots 0 >/dev/null
bg queue other --slots 0 >/dev/null
seq 500 | "$BGTASK" --dir "$D" start --queue other --each-line - --quiet -- true ||
  fail "start --each-line into other failed"
seq "$tasks" | "$BGTASK" --dir "$D" start --queue held --each-line - --quiet -- true ||
  fail "start --each-line into held failed"
first=$(bg list --queue held --json | jq -r '.[0].id')
dependent=$(bg start --after "$first" -- true)

strace -f -y -e trace=getdents64 -o "$WORK/cancel.trace" \
  "$BGTASK" --dir "$D" cancel --queue held --quiet --grace 0s || fail "cancel --queue exited $?"
cancelled=$(bg list --queue held --state cancelled --json | jq length)
[ "$cancelled" -eq "$tasks" ] || fail "$cancelled of $tasks queued tasks cancelled"
[ "$(field "$dependent" .state)" = failed ] ||
  fail "the task --after a cancelled one ended $(field "$dependent" .state), not failed"
[ "$(bg list --queue other --state queued --json | jq length)" -eq 500 ] ||
  fail "the other queue's tasks did not stay queued"
exited=$(bg events --queue held --type task.exited | jq -s 'map(select(.data.state == "cancelled")) | length')
[ "$exited" -eq "$tasks" ] || fail "$exited task.exited events for $tasks cancels"
[ -z "$(ls "$D/.parked" | grep -v '+other$' | grep -v '^\.' || true)" ] ||
  fail "cancelled tasks left files in .parked: $(ls "$D/.parked" | grep -v '+other$' | sed -n 1,3p)"
# A pass reads the 800 names in a call or two (and a last one at the end).
reads=$(grep -c '^[0-9]* *getdents64([0-9]*</[^>]*/\.parked>' "$WORK/cancel.trace" || true)
[ "$reads" -le 40 ] || fail "cancel of $tasks queued tasks read .parked in $reads calls"

# A hook (4 s) among 50 queued tasks cancelled in one batch: while it runs,
# its process holds its own task's lock and none of the other 50 (an
# inherited copy of the batch's descriptors would hold them all).
bg queue hooks --slots 0 >/dev/null
seq 50 | "$BGTASK" --dir "$D" start --queue hooks --each-line - --quiet -- true
bg start --queue hooks --on-exit "sleep 4; echo \$BGTASK_STATE >'$WORK/hook'" -- true >/dev/null
bg cancel --queue hooks --quiet --grace 0s || fail "cancel --queue hooks exited $?"
inodes=$(bg list --queue hooks --json | jq -r '.[].id' | while read -r id; do stat -c %i "$D/$id.lock"; done)
# /proc/locks names a locked file by MAJOR:MINOR:INODE.
held=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f]+:[0-9a-f]+:[0-9]+$/) { split($i, p, ":"); print p[3] } }' /proc/locks |
  sort -u | grep -cxF -f <(echo "$inodes") || true)
[ "$held" -le 1 ] || fail "while one hook ran, $held task locks of its cancel were held"
for _ in $(seq 200); do
  [ -s "$WORK/hook" ] && break
  sleep 0.05
done
[ "$(cat "$WORK/hook" 2>/dev/null)" = cancelled ] || fail "the --on-exit hook of a cancelled queued task did not run"
echo "ok: $cancelled cancelled, .parked read in $reads calls; $held lock held by a hook"
