#!/usr/bin/env bash
# start --each-line: a task per input line, `{}` replaced in the command's
# words (never through a shell) and the line in BGTASK_ITEM; the IDs are
# printed in input order once durable; --resume skips lines; a start that
# fails half-way says where to go on, and what it printed has records.
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is missing"

printf '%s\n' 'a b' '$(touch pwned)' '' 'last;line' >"$WORK/lines"
bg start --each-line "$WORK/lines" --queue g --slots 2 -- \
  sh -c 'printf "%s|%s\n" "$1" "$BGTASK_ITEM"' _ '<{}>' >"$WORK/ids" || fail "start --each-line failed"
[ "$(wc -l <"$WORK/ids")" -eq 4 ] || fail "want 4 IDs, got $(cat "$WORK/ids")"
sort -c "$WORK/ids" || fail "the IDs are not in input order"
# shellcheck disable=SC2046
bg wait $(cat "$WORK/ids") >/dev/null || fail "wait failed"
got=$(for id in $(cat "$WORK/ids"); do bg output "$id"; done)
want=$'<a b>|a b\n<$(touch pwned)>|$(touch pwned)\n<>|\n<last;line>|last;line'
[ "$got" = "$want" ] || fail "outputs: $got"
[ ! -e pwned ] && [ ! -e "$D/pwned" ] || fail "a line went through a shell"

# From stdin, with -c: no {} replaced inside the string, BGTASK_ITEM set;
# --resume 1 skips the first line.
printf 'x\ny\nz\n' | bg start --each-line - --resume 1 --queue g -c 'echo "{} $BGTASK_ITEM"' >"$WORK/ids2"
[ "$(wc -l <"$WORK/ids2")" -eq 2 ] || fail "--resume 1 of 3 lines started $(wc -l <"$WORK/ids2")"
# shellcheck disable=SC2046
bg wait $(cat "$WORK/ids2") >/dev/null || fail "the stdin tasks failed"
[ "$(bg output "$(head -1 "$WORK/ids2")")" = "{} y" ] || fail "-c: $(bg output "$(head -1 "$WORK/ids2")")"

bg start --resume 1 -- true >/dev/null 2>"$WORK/err" && fail "--resume without --each-line was taken"
grep -q -- "--resume needs --each-line" "$WORK/err" || fail "unclear error: $(cat "$WORK/err")"

# A directory that runs out of inodes in the second group: the first
# group's IDs are printed and have records, the error names --resume 1024.
if unshare --mount --propagation private true 2>/dev/null; then
  seq 1500 >"$WORK/many"
  mkdir -m 700 "$WORK/tiny"
  rc=0
  unshare --mount --propagation private bash -c '
    mount -t tmpfs -o nr_inodes=4400,mode=0700 tmpfs "$1" || exit 77
    "$2" --dir "$1" queue q --slots 0 >/dev/null
    "$2" --dir "$1" start --each-line "$3" --queue q -- true >"$4.ids" 2>"$4.err"
    echo $? >"$4.rc"
    n=0; for id in $(cat "$4.ids"); do [ -e "$1/$id.status.json" ] && n=$((n + 1)); done
    echo "$n" >"$4.recorded"' _ "$WORK/tiny" "$BGTASK" "$WORK/many" "$WORK/cut" || rc=$?
  if [ "$rc" -ne 77 ]; then
    [ "$(cat "$WORK/cut.rc")" -ne 0 ] || fail "the start that ran out of inodes exited 0"
    [ "$(wc -l <"$WORK/cut.ids")" -eq 1024 ] || fail "printed $(wc -l <"$WORK/cut.ids") IDs, want 1024"
    [ "$(cat "$WORK/cut.recorded")" -eq 1024 ] || fail "only $(cat "$WORK/cut.recorded") printed IDs have records"
    grep -q -- "go on with --resume 1024" "$WORK/cut.err" || fail "no resume point: $(cat "$WORK/cut.err")"
    cut="; a start cut short at $(wc -l <"$WORK/cut.ids") of 1500 lines said --resume 1024"
  fi
fi
echo "ok${cut:-}"
