#!/usr/bin/env bash
# No shell script of the repository pipes into a reader that may exit early
# (`| grep -q`, `| grep -E -q`, `| grep -l`, `| head`, `| awk '... exit'`,
# `| sed 1q`): under pipefail that fails now and then with SIGPIPE.
# scripts/check-pipes names the lines; each planted one is caught, and
# readers that read everything are let through.
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
  'bgtask list | grep -m1 run' # sigpipe-ok: planted
  'ls | head -1' # sigpipe-ok: planted
  'cmd | grep -F x | grep -qi y' # sigpipe-ok: planted
  'cmd | grep -E -q "a+"' # sigpipe-ok: planted
  'cmd | grep -i -m1 ready' # sigpipe-ok: planted
  'cmd | grep -l x' # sigpipe-ok: planted
  'cmd | grep -rL x' # sigpipe-ok: planted
  'cmd | grep --max-count=1 x' # sigpipe-ok: planted
  '! cmd | LC_ALL=C grep -q x || fail' # sigpipe-ok: planted
  'cmd | timeout 5 grep -q x' # sigpipe-ok: planted
  "cmd | awk '/ready/ { print; exit }'" # sigpipe-ok: planted
  "cmd | awk 'BEGIN { exit 0 }'" # sigpipe-ok: planted
  'cmd | sed 1q' # sigpipe-ok: planted
  "cmd | sed -n '/x/{p;q}'" # sigpipe-ok: planted
  $'cmd |\n  grep -q x' # sigpipe-ok: planted
  $'cmd \\\n  | head -n 3 >out' # sigpipe-ok: planted
)
for bad in "${bad_lines[@]}"; do
  printf '#!/usr/bin/env bash\n%s\n' "$bad" >"$WORK/tree/tests/shell/test_bad.sh"
  if "$WORK/tree/scripts/check-pipes" 2>"$WORK/err"; then
    fail "check-pipes let '$bad' through"
  fi
  grep -qF "test_bad.sh:2:" "$WORK/err" || fail "check-pipes did not name the line of '$bad': $(cat "$WORK/err")"
done
# Readers that read everything, and lines that are no pipe into one.
good_lines=(
  'sh -c "yes | head -c 5" # sigpipe-ok: sh'
  'a || grep -q x f'
  'n=$(ls | grep -c x)'
  '[ "$(cmd | grep -c x)" -eq 1 ] || fail'
  'cmd | grep -v x | sort'
  "cmd | awk '{ n++ } END { print n; exit }'"
  "cmd | awk '{ print \$1 }'"
  "cmd | sed 's/q/x/'"
  "cmd | sed -n 1,3p"
  '# cmd | grep -q x: a comment' # sigpipe-ok: a safe line
  'grep -q x <<<"$text"'
)
printf '#!/usr/bin/env bash\n' >"$WORK/tree/tests/shell/test_bad.sh"
printf '%s\n' "${good_lines[@]}" >>"$WORK/tree/tests/shell/test_bad.sh"
"$WORK/tree/scripts/check-pipes" 2>"$WORK/err" || fail "check-pipes refused a safe line: $(cat "$WORK/err")"
# The same under mawk, Debian's default awk, where it is installed.
if command -v mawk >/dev/null; then
  mkdir -p "$WORK/mawk"
  ln -s "$(command -v mawk)" "$WORK/mawk/awk"
  PATH="$WORK/mawk:$PATH" "$WORK/tree/scripts/check-pipes" 2>"$WORK/err" ||
    fail "check-pipes under mawk refused a safe line: $(cat "$WORK/err")"
  printf '#!/usr/bin/env bash\n%s\n' $'cmd |\n  grep -i -m1 x' >"$WORK/tree/tests/shell/test_bad.sh"
  ! PATH="$WORK/mawk:$PATH" "$WORK/tree/scripts/check-pipes" 2>"$WORK/err" ||
    fail "check-pipes under mawk let a continued pipeline through"
fi
echo ok
