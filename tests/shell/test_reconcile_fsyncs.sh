#!/usr/bin/env bash
# One reconciliation that rewrites many records fsyncs the directory once for
# all of them (each record's temp is still fsynced before its rename), and
# every record it reports is then durable: 20 tasks whose supervisor and
# command were killed become `lost` in one `list`.
source "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip "strace is not installed"
n=20
ids=()
for _ in $(seq "$n"); do
  ids+=("$(bg start -- sleep 300)")
done
for id in "${ids[@]}"; do
  kill -KILL "$(field "$id" .owner.pid)" 2>/dev/null || true
  kill -KILL -- "-$(field "$id" .child.pgid)" 2>/dev/null || true
done
for id in "${ids[@]}"; do
  pid=$(field "$id" .owner.pid)
  for _ in $(seq 100); do
    [ -e "/proc/$pid" ] || break
    sleep 0.05
  done
done

strace -f -qq -y -e trace=fsync,fdatasync -o "$WORK/trace" "$BGTASK" --dir "$D" list >"$WORK/list" 2>"$WORK/err" ||
  fail "list failed: $(cat "$WORK/err")"
lost=$(bg list --state lost --json | jq length)
[ "$lost" = "$n" ] || fail "$lost of $n killed tasks are lost: $(cat "$WORK/list")"
dir_syncs=$(grep -c "sync([0-9]*<$D>)" "$WORK/trace" || true)
temp_syncs=$(grep -c 'sync([0-9]*<.*\.tmp>)' "$WORK/trace" || true)
[ "$temp_syncs" = "$n" ] || fail "$temp_syncs record temps fsynced for $n rewritten records"
# One for the batch, one before the final states are reported (a no-op then).
[ "$dir_syncs" -le 2 ] || fail "$dir_syncs fsyncs of the directory for one reconciliation of $n records"
# Reconciling again changes nothing (and so syncs nothing but the check).
sums=$(sha256sum "$D"/*.status.json)
bg list >/dev/null
[ "$(sha256sum "$D"/*.status.json)" = "$sums" ] || fail "a second reconciliation rewrote records"
echo "ok: $n records rewritten with $temp_syncs temp fsyncs and $dir_syncs directory fsyncs"
