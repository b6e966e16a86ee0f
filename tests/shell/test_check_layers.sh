#!/usr/bin/env bash
# scripts/check-layers on a copy of lib/bgtask: the tree as it is passes; a
# front end (cli/, cli/mcp/, commands/) that includes exec/local/ or
# exec/slurm/ fails, with no exception; an upward include fails.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tree="$WORK/tree"
mkdir -p "$tree/scripts" "$tree/lib"
cp "$ROOT/scripts/check-layers" "$tree/scripts/"
cp -r "$ROOT/lib/bgtask" "$tree/lib/"
"$tree/scripts/check-layers" 2>"$WORK/err" || fail "check-layers refused the tree as it is: $(cat "$WORK/err")"

# plant FILE INCLUDE: INCLUDE is added to FILE (under lib/bgtask), and the
# check must name it.
planted=()
plant() {
  printf '#include <bgtask/%s>\n' "$2" >>"$tree/lib/bgtask/$1"
  planted+=("$1 ($(dirname "$1")) includes $2 ($(dirname "$2"))")
}
plant commands/status.cpp exec/local/pause_control.hpp
plant commands/start.cpp exec/slurm/slurm_array.hpp
plant cli/console.cpp exec/local/pause_control.hpp
plant cli/mcp/tools.cpp exec/slurm/slurm_array.hpp
plant cli/start_options.cpp exec/slurm/slurm_submission.hpp
plant util/split.cpp core/task_id.hpp
if "$tree/scripts/check-layers" 2>"$WORK/err"; then
  fail "check-layers let planted includes through"
fi
for want in "${planted[@]}"; do
  grep -qF "check-layers: $want" "$WORK/err" || fail "check-layers did not say '$want': $(cat "$WORK/err")"
done
echo "checked ${#planted[@]} planted includes"
