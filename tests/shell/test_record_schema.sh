#!/usr/bin/env bash
# docs/record.schema.json against what bgtask writes and prints: records in
# many states, unreadable records (the same keys, `unreadable` saying why),
# the --json outputs, null rather than missing keys; and the check that every
# shell test runs at its end fails on a record that breaks the schema.
source "$(dirname "$0")/lib.sh"

checker="$(dirname "$0")/../tools/check_records.py"
schema="$(dirname "$0")/../../docs/record.schema.json"
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null ||
  fail "python3-jsonschema is missing (scripts/deps.sh test installs it)"

# validate DEFINITION FILE: FILE (JSON) against $defs/DEFINITION.
validate() {
  /usr/bin/python3 - "$schema" "$1" "$2" <<'EOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator({"$ref": "#/$defs/" + sys.argv[2], "$defs": schema["$defs"]})
errors = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}"
          for e in validator.iter_errors(json.load(open(sys.argv[3])))]
print("\n".join(errors), file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
}

# Tasks in many states and with many fields set.
ok=$(bg start --name ok --env K=v -- sh -c 'echo one; echo two')
failed=$(bg start -- sh -c 'exit 3')
killed=$(bg start -- sh -c 'kill -TERM $$')
timed=$(bg start --timeout 100ms --grace 100ms -- sleep 30)
retried=$(bg start --retry 1 --retry-on 4 -- sh -c 'exit 4')
limited=$(bg start --max-output 64K -c 'head -c 200000 /dev/zero | tr "\0" x')
slow=$(bg start --name slow --queue q --grace 200ms -- sh -c 'echo ready; sleep 60')
after=$(bg start --after "$slow" -- true)
queued=$(bg start --queue q -- true)
missing=$(bg start -- /nonexistent/command 2>/dev/null) || true
bg wait "$ok" "$failed" "$killed" "$timed" "$retried" "$limited" >/dev/null 2>&1 || true
bg progress "$slow" --percent 50 --current 1 --total 2 --message half
bg wait "$slow" --until-output ready --json >"$WORK/until-met.json"
validate wait_condition "$WORK/until-met.json" || fail "wait --until-output --json: $(cat "$WORK/until-met.json")"
bg wait "$ok" --until-output nothing-like-this --json >"$WORK/until-ended.json" || true
validate wait_condition "$WORK/until-ended.json" || fail "wait --until-output (ended) --json"
# Absent values are null, not missing keys (an event without a message too).
[ "$(jq -c '[.line, has("line")]' "$WORK/until-ended.json")" = '[null,true]' ] ||
  fail "wait --until-output left out line: $(cat "$WORK/until-ended.json")"
jq -e '[.events[] | has("message")] | all' "$D/$ok.status.json" >/dev/null || fail "an event without message key"
jq -e '[.events[] | select(.message == null)] | length > 0' "$D/$ok.status.json" >/dev/null ||
  fail "no event with a null message in $(cat "$D/$ok.status.json")"
bg output "$ok" --json >"$WORK/slice.json"
validate output_slice "$WORK/slice.json" || fail "output --json: $(cat "$WORK/slice.json")"

# Every file, running and queued ones included, is a record of the schema.
for f in "$D"/*.status.json; do
  validate record "$f" || fail "$(basename "$f") violates the schema: $(cat "$f")"
done
bg cancel --json "$slow" >"$WORK/cancel.json"
validate record_array "$WORK/cancel.json" || fail "cancel --json: $(cat "$WORK/cancel.json")"
bg wait --json "$after" "$queued" >"$WORK/wait.json" 2>/dev/null || true
validate record_array "$WORK/wait.json" || fail "wait --json: $(cat "$WORK/wait.json")"

# Unreadable records: garbage, a wrong type, a newer schema. They keep every
# key of a record, `unreadable` says why, the rest is null.
garbage=$(bg start -- true)
wrong=$(bg start -- true)
newer=$(bg start -- sh -c 'echo last line')
bg wait "$garbage" "$wrong" "$newer" >/dev/null
printf '{"schema":1,"id": not json' >"$D/$garbage.status.json"
jq -c '.exit_code = "zero"' "$D/$wrong.status.json" >"$WORK/r" && cat "$WORK/r" >"$D/$wrong.status.json"
jq -c '.schema = 2' "$D/$newer.status.json" >"$WORK/r" && cat "$WORK/r" >"$D/$newer.status.json"
bg list --json >"$WORK/list.json"
validate record_array "$WORK/list.json" || fail "list --json with unreadable records"
rc=0
bg status --json --tail 1 "$ok" "$garbage" "$wrong" "$newer" >"$WORK/status.json" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "status of unreadable records exited $rc, not 1"
validate status_array "$WORK/status.json" || fail "status --json --tail: $(cat "$WORK/status.json")"
keys=$(jq -c '.[0] | del(.output_tail) | keys' "$WORK/status.json")
for i in 1 2 3; do
  [ "$(jq -c ".[$i] | del(.output_tail) | keys" "$WORK/status.json")" = "$keys" ] ||
    fail "unreadable record $i has other keys than a record: $(jq -c ".[$i]" "$WORK/status.json")"
done
[ "$(jq -r '.[0].unreadable' "$WORK/status.json")" = null ] || fail "a readable record has unreadable set"
jq -r '.[1:][] | "\(.state) \(.schema) \(.unreadable == .error) \(.unreadable)"' "$WORK/status.json" >"$WORK/why"
grep -c "^corrupt 1 true invalid JSON" "$WORK/why" >/dev/null || fail "garbage: $(cat "$WORK/why")"
grep -c "^corrupt 1 true bad field exit_code" "$WORK/why" >/dev/null || fail "wrong type: $(cat "$WORK/why")"
grep -c "^corrupt 1 true bad field schema: unsupported version 2" "$WORK/why" >/dev/null || fail "newer: $(cat "$WORK/why")"
[ "$(jq -r '.[3].output_tail' "$WORK/status.json")" = "last line" ] || fail "an unreadable record lost its output_tail"
[ "$(jq -c '[.[1] | to_entries[] | select(.value != null) | .key] | sort' "$WORK/status.json")" = \
  '["error","id","output_tail","schema","state","unreadable"]' ] ||
  fail "unreadable record with other values: $(jq -c '.[1]' "$WORK/status.json")"
bg list --format jsonl >"$WORK/list.jsonl"
while IFS= read -r line; do
  printf '%s\n' "$line" >"$WORK/line.json"
  validate listed_record "$WORK/line.json" || fail "a list --format jsonl line: $line"
done <"$WORK/list.jsonl"
rm -f "$D/$garbage".* "$D/$wrong".* "$D/$newer".*

# The check every shell test runs when it ends (lib.sh) fails on a record
# that breaks the schema: an undocumented key (bgtask itself would read it),
# and a key left out.
for edit in '. + {"undocumented": 1}' 'del(.wait_status)'; do
  cat >"$WORK/inner_test.sh" <<EOF
source $(printf %q "$(dirname "$0")/lib.sh")
id=\$(bg start -- true)
bg wait "\$id" >/dev/null
jq -c $(printf %q "$edit") "\$D/\$id.status.json" >"\$WORK/r" && mv "\$WORK/r" "\$D/\$id.status.json"
bg status "\$id" >/dev/null || fail "bgtask did not read the edited record"
EOF
  rc=0
  bash "$WORK/inner_test.sh" >"$WORK/inner.out" 2>&1 || rc=$?
  inner_work=$(sed -n 's/^kept \(.*\) for inspection$/\1/p' "$WORK/inner.out")
  [ -z "$inner_work" ] || rm -rf "$inner_work"
  [ "$rc" -eq 1 ] || fail "a test that left a record edited with '$edit' passed (rc $rc): $(cat "$WORK/inner.out")"
  grep -c "violate docs/record.schema.json" "$WORK/inner.out" >/dev/null || fail "inner test said: $(cat "$WORK/inner.out")"
done
# The checker itself on a file with a wrong type names the key.
mkdir "$WORK/bad"
jq -c '.duration_s = "long"' "$D/$ok.status.json" >"$WORK/bad/$ok.status.json"
rc=0
/usr/bin/python3 "$checker" "$WORK/bad" 2>"$WORK/bad.err" || rc=$?
[ "$rc" -eq 1 ] && grep -c "duration_s" "$WORK/bad.err" >/dev/null || fail "checker: rc $rc, $(cat "$WORK/bad.err")"
rm -r "$WORK/bad"
echo "record schema: ok"
