#!/usr/bin/env bash
# Hostile arguments (security guide H4/H10): malformed, over-long and
# control-laden IDs on every command that takes one, malformed durations,
# counts and options on every command. Each is refused with exit 2 and one
# escaped line on stderr, and nothing is written to the task directory (or
# created, when the directory does not exist yet). (NUL cannot reach argv.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

A=$(bg start -- true)
B=$(bg start -- true)
bg wait "$A" "$B" >/dev/null
common=$(printf '%s\n%s\n' "$A" "$B" | sed -e 'N;s/^\(.*\).*\n\1.*$/\1/')
[ "${#common}" -ge 4 ] || skip "the two task IDs share fewer than 4 characters ($A, $B)"
ambiguous=${common:0:4}
before=$(snapshot "$D")

# refused WHAT ARGS...: exit 2, one line of error with no raw control byte,
# and the directory unchanged.
refused() {
  local what=$1
  shift
  run "$@"
  expect_rc 2 "$what"
  expect_error "" "$what"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$what: more than one line on stderr: $err"
  ! LC_ALL=C grep -q '[[:cntrl:]]' <<<"$err" || fail "$what: raw control byte on stderr"
  [ "${#err}" -le 600 ] || fail "$what: a ${#err}-byte message"
  [ "$before" = "$(snapshot "$D")" ] || fail "$what: the task directory changed"
}

long=$(printf 'a%.0s' $(seq 10000))
# (IDs are case-insensitive, so "${A^^}" names task A: it is no longer hostile.)
hostile_ids=(.. ../x a/b x/../.. -rf $'x\n' $'\n' "$long" $'\e]0;PWN\a' '' '*'
  0a1 0A1B "${A}0" "${A:0:11}i" "$(printf '%s\001' "${A:0:11}")" @@ @first)
for id in "${hostile_ids[@]}"; do
  shown=$(printf '%q' "$id")
  shown=${shown:0:40}
  refused "status $shown" status -- "$id"
  refused "output $shown" output -- "$id"
  refused "wait $shown" wait -- "$id"
  refused "cancel $shown" cancel -- "$id"
  refused "progress $shown" progress --percent 5 -- "$id"
  set +e
  err=$(BGTASK_ID="$id" timeout -s KILL 10 "$BGTASK" --dir "$D" progress --percent 5 2>&1)
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "progress with BGTASK_ID=$shown: exit $rc"
done
# A prefix shared by two tasks lists both; an unknown ID says so.
refused "ambiguous prefix" status "$ambiguous"
grep -q "$A" <<<"$err" && grep -q "$B" <<<"$err" ||
  fail "an ambiguous prefix does not list the matches: $err"
refused "unknown ID" status zzzzzzzzzzzz
refused "unknown prefix" wait zzzz

# Malformed IDs are refused before the directory is created.
missing="$WORK/not-created"
for id in .. a/b "$long"; do
  set +e
  timeout -s KILL 10 "$BGTASK" --dir "$missing" status -- "$id" 2>/dev/null
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "status $id on a missing directory: exit $rc"
  [ ! -e "$missing" ] || fail "status $id created the task directory"
done

# Durations, counts and sizes.
bad_durations=(-5s 1e309 99999999999d 5x '' 1.5.5s 1h1h 36526d inf nan 0x10 ' 5s' '5s ' 1s-1s 5S)
for dur in "${bad_durations[@]}"; do
  shown=$(printf '%q' "$dur")
  refused "start --timeout $shown" start --timeout "$dur" -- true
  refused "start --grace $shown" start --grace "$dur" -- true
  refused "wait --timeout $shown" wait --timeout "$dur" "$A"
  refused "cancel --grace $shown" cancel --grace "$dur" "$A"
  refused "cleanup --older-than $shown" cleanup --older-than "$dur"
done
refused "start --timeout 0" start --timeout 0 -- true
for count in -1 1e3 99999999999 '' x 1.5 ' 1' 0x1; do
  shown=$(printf '%q' "$count")
  refused "status --tail $shown" status --tail "$count" "$A"
  refused "output --tail $shown" output --tail "$count" "$A"
  refused "list --limit $shown" list --limit "$count"
  refused "cleanup --keep $shown" cleanup --keep "$count"
  refused "progress --current $shown" progress --current "$count" "$A"
done
for percent in -1 101 nan inf 1e309 '' x; do
  refused "progress --percent $(printf '%q' "$percent")" progress --percent "$percent" "$A"
done

# Unknown options, missing values and stray arguments on every command.
commands=$("$BGTASK" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
[ -n "$commands" ] || fail "bgtask --help lists no commands"
for command in $commands; do
  [ "$command" = help ] && continue
  refused "$command --no-such-option" "$command" --no-such-option
  refused "$command --dir=" --dir= "$command"
done
refused "--dir ''" --dir '' list
refused "unknown command" no-such-command
refused "start without a command" start
refused "start --env without =" start --env NOVALUE -- true
refused "start --env bad name" start --env '1X=v' -- true
refused "start --name too long" start --name "$long" -- true
refused "start -c and argv" start -c true -- true
refused "status without ID" status
refused "list --state bogus" list --state bogus
echo ok
