#!/usr/bin/env bash
# `bgtask-bench latency`, the loop scripts/bench times starts with: each run
# is timed on a quiet machine (it waits, untimed, for every process a command
# left behind, and runs the command's ::after), and the commands come in a new
# order each round. Run by ctest with BGTASK_BENCH_TOOL set.
set -euo pipefail
tool=${BGTASK_BENCH_TOOL:?BGTASK_BENCH_TOOL is not set}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "test_latency: $*" >&2
  exit 1
}

touch "$work/left"
# A command that returns at once and leaves a process behind, as a task
# manager's start does: latency must not begin the next run, nor return,
# before that process has written its line.
"$tool" latency 3 1 detach sh -c '(sleep 0.2; echo left >>"$1") &' sh "$work/left" >"$work/detach.json"
[ "$(wc -l <"$work/left")" = 4 ] ||
  fail "latency returned before the processes its command left behind had ended: $(wc -l <"$work/left") of 4 lines"
[ "$(jq '.detach.n' "$work/detach.json")" = 3 ] || fail "expected 3 timed runs: $(cat "$work/detach.json")"

# ::after runs, untimed, after each run of its own command.
"$tool" latency 2 0 main sh -c 'echo run >>"$1"' sh "$work/sequence" \
  ::after sh -c 'echo after >>"$1"' sh "$work/sequence" >/dev/null
[ "$(tr '\n' ' ' <"$work/sequence")" = "run after run after " ] ||
  fail "::after did not follow each run: $(tr '\n' ' ' <"$work/sequence")"

# Each round runs every command once, in an order of its own.
args=()
for name in a b c; do
  [ ${#args[@]} = 0 ] || args+=(:::)
  args+=("$name" sh -c 'echo "$1" >>"$2"' sh "$name" "$work/order")
done
"$tool" latency 12 0 "${args[@]}" >/dev/null
mapfile -t rounds < <(paste -d ' ' - - - <"$work/order")
[ "${#rounds[@]}" = 12 ] || fail "expected 12 rounds: ${rounds[*]}"
for round in "${rounds[@]}"; do
  [ "$(tr ' ' '\n' <<<"$round" | sort | tr '\n' ' ')" = "a b c " ] || fail "a round ran '$round'"
done
[ "$(printf '%s\n' "${rounds[@]}" | sort -u | wc -l)" -gt 1 ] ||
  fail "every round ran in the same order: ${rounds[0]}"
echo "ok: latency waits for what each run leaves behind, runs ::after, and shuffles each round"
