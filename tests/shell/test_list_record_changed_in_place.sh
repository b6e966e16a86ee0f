#!/usr/bin/env bash
# `list`, its table and --summary, shows a record as the file says now, also
# when the file was changed in place (the same inode) after an earlier `list`
# had read it: a changed state is shown, a broken record is called corrupt,
# as `list --json` and `status` do.
source "$(dirname "$0")/lib.sh"

changed=$(bg start -- true)
broken=$(bg start -- true)
bg wait "$changed" "$broken" >/dev/null
bg list >/dev/null
bg list --summary >/dev/null
inode_before=$(stat -c %i "$D/$changed.status.json")

# The state rewritten in place, to a text of the same length.
python3 - "$D/$changed.status.json" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    text = f.read()
    new = text.replace(b'"state":"succeeded"', b'"state":"failed"   ', 1)
    if new == text:
        sys.exit("no succeeded state in the record")
    f.seek(0)
    f.write(new)
PY
# The other record broken in place.
printf 'X' | dd of="$D/$broken.status.json" conv=notrunc status=none
[ "$(stat -c %i "$D/$changed.status.json")" = "$inode_before" ] || fail "the record was replaced, not changed in place"

state=$(bg list --json | jq -r --arg id "$changed" '.[] | select(.id == $id) | .state')
[ "$state" = failed ] || fail "list --json reads the changed record as '$state', not failed"

row() { bg list | grep "^$1" || true; }
[[ $(row "$changed") == *failed* ]] || fail "list shows the old state of a record changed in place: $(row "$changed")"
[[ $(row "$broken") == *corrupt* ]] || fail "list does not call a record broken in place corrupt: $(row "$broken")"

summary=$(bg list --summary)
for count in succeeded=0 failed=1 corrupt=1 total=2; do
  grep -qw "$count" <<<"$summary" || fail "list --summary does not say $count: $summary"
done
echo ok
