#!/usr/bin/env bash
# scripts/check-layers on a copy of lib/bgtask: the tree as it is passes; a
# front end (cli/, cli/mcp/, commands/) that includes exec/local/ or
# exec/slurm/ fails, unless it is one of the listed exceptions, and an
# exception that no longer holds fails too; an upward include fails.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tree="$WORK/tree"
mkdir -p "$tree/scripts" "$tree/lib"
cp "$ROOT/scripts/check-layers" "$tree/scripts/"
cp -r "$ROOT/lib/bgtask" "$tree/lib/"
"$tree/scripts/check-layers" 2>"$WORK/err" || fail "check-layers refused the tree as it is: $(cat "$WORK/err")"

# The listed exceptions ("FILE FOLDER" lines).
exceptions=$(sed -n '/^front_end_exceptions="$/,/^"$/p' "$ROOT/scripts/check-layers" | sed '1d;$d')

# plant FILE INCLUDE WANT: INCLUDE is added to FILE (under lib/bgtask), and
# the check must say WANT.
planted=()
plant() {
  printf '#include <bgtask/%s>\n' "$2" >>"$tree/lib/bgtask/$1"
  planted+=("$1 ($(dirname "$1")) includes $2 ($(dirname "$2"))")
}
plant commands/status.cpp exec/local/pause_control.hpp
plant commands/start.cpp exec/slurm/slurm_array.hpp
plant cli/console.cpp exec/local/pause_control.hpp
plant cli/mcp/tools.cpp exec/slurm/slurm_array.hpp
plant util/split.cpp core/task_id.hpp
# An exception lets through only its own file and folder.
while read -r file folder; do
  [ -n "$file" ] || continue
  if [ "$folder" = exec/local ]; then
    plant "$file" exec/slurm/slurm_array.hpp
  else
    plant "$file" exec/local/pause_control.hpp
  fi
done <<<"$exceptions"
if "$tree/scripts/check-layers" 2>"$WORK/err"; then
  fail "check-layers let planted includes through"
fi
for want in "${planted[@]}"; do
  grep -qF "check-layers: $want" "$WORK/err" || fail "check-layers did not say '$want': $(cat "$WORK/err")"
done

# An exception whose include is gone fails until it is taken off the list.
rm -rf "$tree/lib/bgtask"
cp -r "$ROOT/lib/bgtask" "$tree/lib/"
while read -r file folder; do
  [ -n "$file" ] || continue
  sed -i "\\|^#include <bgtask/$folder/|d" "$tree/lib/bgtask/$file"
done <<<"$exceptions"
if [ -n "$exceptions" ]; then
  if "$tree/scripts/check-layers" 2>"$WORK/err"; then
    fail "check-layers kept exceptions whose includes are gone"
  fi
  while read -r file folder; do
    grep -qF "check-layers: $file no longer includes $folder" "$WORK/err" ||
      fail "check-layers did not name the stale exception $file: $(cat "$WORK/err")"
  done <<<"$exceptions"
fi
echo "checked ${#planted[@]} planted includes and $(grep -c . <<<"$exceptions" || true) exceptions"
