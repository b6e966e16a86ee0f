#!/usr/bin/env bash
# cleanup --max-bytes counts the bytes the files take on disk: a chatty
# task whose --max-output punched a hole in its output keeps only what it
# kept, so a budget that the directory fits in removes nothing.
source "$(dirname "$0")/lib.sh"

quiet=()
for i in 1 2 3; do
  quiet+=("$(bg start -- echo "quiet $i")")
done
# About 16 MiB printed, at most 256 KiB kept: the output's length stays
# about 16 MiB, its blocks about 256 KiB.
chatty=$(bg start --max-output 256K -- sh -c 'yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 16M') # sigpipe-ok: the task's own sh, without pipefail
bg wait "${quiet[@]}" "$chatty" >/dev/null
apparent=$(stat -c %s "$D/$chatty.output")
on_disk=$(($(stat -c %b "$D/$chatty.output") * $(stat -c %B "$D/$chatty.output")))
[ "$apparent" -gt $((8 << 20)) ] || skip "the output is not long ($apparent bytes): no retention here"
[ "$on_disk" -lt $((1 << 20)) ] || skip "the file system keeps the punched range ($on_disk bytes)"
total=$(du -s -B1 "$D" | cut -f1)
[ "$total" -lt $((2 << 20)) ] || fail "the directory takes $total bytes on disk"

bg cleanup --max-bytes 2M --quiet
for id in "${quiet[@]}" "$chatty"; do
  [ -e "$D/$id.status.json" ] || fail "cleanup --max-bytes 2M removed $id; the directory took $total bytes"
done
# A budget that only the chatty task's files fit in removes the older
# quiet tasks, and keeps the chatty one.
chatty_files=$(du -c -B1 "$D/$chatty".* | tail -1 | cut -f1)
bg cleanup --max-bytes $((chatty_files + 2048)) --quiet
for id in "${quiet[@]}"; do
  [ ! -e "$D/$id.status.json" ] || fail "$id was kept past the budget"
done
[ -e "$D/$chatty.status.json" ] || fail "the chatty task was removed though its $chatty_files bytes fit"
echo ok
