#!/usr/bin/env bash
# Every command works when the caller closed any of its descriptors 0-2
# (`<&-`, `>&-`, `2>&-` from a real shell), and a start that works leaves
# the task's files only; none of them is an orphan without a record.
source "$(dirname "$0")/lib.sh"

# orphans: names of task files whose record is missing.
orphans() {
  local f id
  for f in "$D"/*.lock "$D"/*.output; do
    [ -e "$f" ] || continue
    id=$(basename "$f"); id=${id%.lock}; id=${id%.output}
    [[ $id =~ ^[0-9a-z]{12}$ ]] || continue # a directory-wide lock (start.lock)
    [ -e "$D/$id.status.json" ] || echo "$f"
  done
}

export BGTASK D
for closed in '<&-' '>&-' '2>&-' '<&- >&- 2>&-'; do
  before=$(ls "$D" | grep -c 'status.json$' || true)
  # The shell closes the descriptor itself, as a user's redirection does.
  rc=0
  out=$(bash -c "timeout 60 \"\$BGTASK\" --dir \"\$D\" start -- sh -c 'echo hello; exit 3' $closed" 2>&1) || rc=$?
  [ "$rc" -eq 0 ] || fail "start with $closed: exit $rc: $out"
  after=$(ls "$D" | grep -c 'status.json$' || true)
  [ "$after" -eq $((before + 1)) ] || fail "start with $closed made no record"
  id=$(ls -t "$D" | grep 'status.json$' | sed -n 1p); id=${id%.status.json}
  rc=0
  bash -c "timeout 60 \"\$BGTASK\" --dir \"\$D\" wait $id $closed" >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 3 ] || fail "wait with $closed: exit $rc (want the command's 3)"
  [ "$(cat "$D/$id.output")" = hello ] || fail "output with $closed: $(cat "$D/$id.output")"
  [ "$(field "$id" .state)" = failed ] || fail "state with $closed: $(field "$id" .state)"
  # Read-only commands too.
  for cmd in "list" "status $id" "output $id"; do
    rc=0
    bash -c "timeout 60 \"\$BGTASK\" --dir \"\$D\" $cmd $closed" >/dev/null 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || fail "$cmd with $closed: exit $rc"
  done
  [ -z "$(orphans)" ] || fail "start with $closed left orphan files: $(orphans)"
done

# A start that fails (the command cannot be found is reported by start) with
# stdin closed still leaves a record or nothing at all.
rc=0
bash -c 'timeout 60 "$BGTASK" --dir "$D" start --cwd /nonexistent-dir -- true <&-' >/dev/null 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "start in a missing cwd succeeded"
[ -z "$(orphans)" ] || fail "failed start left orphan files: $(orphans)"
echo ok
