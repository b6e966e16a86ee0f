#!/usr/bin/env bash
# No shell script of the repository pipes into a reader that may exit early
# (`| grep -q`, `| grep -m`, `| head`): under pipefail that fails now and then
# with SIGPIPE. scripts/check-pipes names the lines; a planted one is caught.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
"$ROOT/scripts/check-pipes" || fail "scripts/check-pipes found pipes into early readers (above)"

# The check itself: a copy of it in a scratch tree with one bad line fails.
mkdir -p "$WORK/tree/scripts" "$WORK/tree/tests/shell"
cp "$ROOT/scripts/check-pipes" "$WORK/tree/scripts/"
printf '#!/usr/bin/env bash\nset -euo pipefail\nok=$(printf "a\\n" | sed -n 1p)\n' >"$WORK/tree/tests/shell/test_good.sh"
"$WORK/tree/scripts/check-pipes" 2>"$WORK/err" || fail "check-pipes refused a clean tree: $(cat "$WORK/err")"
bad_lines=(
  'printf "%s\n" "$x" | grep -q y' # sigpipe-ok: planted
  'bgtask list | grep -m1 run'      # sigpipe-ok: planted
  'ls | head -1'                    # sigpipe-ok: planted
  'cmd | grep -F x | grep -qi y'    # sigpipe-ok: planted
)
for bad in "${bad_lines[@]}"; do
  printf '#!/usr/bin/env bash\n%s\n' "$bad" >"$WORK/tree/tests/shell/test_bad.sh"
  if "$WORK/tree/scripts/check-pipes" 2>"$WORK/err"; then
    fail "check-pipes let '$bad' through"
  fi
  grep -qF "test_bad.sh:2:" "$WORK/err" || fail "check-pipes did not name the line of '$bad': $(cat "$WORK/err")"
done
printf '#!/usr/bin/env bash\n%s\n' 'sh -c "yes | head -c 5" # sigpipe-ok: sh' 'a || grep -q x f' \
  >"$WORK/tree/tests/shell/test_bad.sh"
"$WORK/tree/scripts/check-pipes" 2>"$WORK/err" || fail "check-pipes refused a marked or || line: $(cat "$WORK/err")"
echo ok
