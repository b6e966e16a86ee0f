#!/usr/bin/env bash
# Inputs have bounds: an --env-file of no end (/dev/zero) is refused at
# 1 MiB, an MCP message line over 4 MiB gets a JSON-RPC error and the server
# answers on, and a NUL byte in a command (possible through MCP's JSON) is
# refused before anything is recorded rather than run cut short.
source "$(dirname "$0")/lib.sh"

# --env-file /dev/zero: exit 2 at once, memory bounded (1 GiB of address space).
set +e
out=$( (ulimit -v 1048576 && exec timeout -s KILL 20 "$BGTASK" --dir "$D" start --env-file /dev/zero -- true) 2>&1)
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--env-file /dev/zero exited $rc: $out"
[[ $out == *"larger than 1024 KiB"* ]] || fail "--env-file /dev/zero: $out"
printf 'A=1\nB=x\0y\n' >"$WORK/nul.env"
rc=0
out=$(bg start --env-file "$WORK/nul.env" -- true 2>&1) || rc=$?
[ "$rc" -eq 2 ] && [[ $out == *"line 2: a NUL byte"* ]] || fail "an --env-file with a NUL byte: exit $rc, $out"
# Just under 1 MiB (in values under the kernel's 128 KiB a string) is fine.
for i in 1 2 3 4 5 6 7 8; do
  printf 'BIG%s=%s\n' "$i" "$(head -c 120000 /dev/zero | tr '\0' x)"
done >"$WORK/big.env"
id=$(bg start --env-file "$WORK/big.env" -- sh -c 'echo $((${#BIG1} + ${#BIG8}))')
bg wait "$id" >/dev/null
[ "$(bg output "$id")" = 240000 ] || fail "an --env-file just under 1 MiB was not passed on: $(bg output "$id")"

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
start() { # start ID ARGV_JSON [CWD]
  printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"start","arguments":{"argv":%s%s}}}' \
    "$1" "$2" "${3:+,\"cwd\":\"$3\"}"
}
{
  echo "$init"
  # A well-formed ping padded to 5 MiB.
  printf '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"'
  head -c $((5 << 20)) /dev/zero | tr '\0' x
  printf '"}}\n'
  start 3 '["printf","a\u0000b"]'
  echo
  start 4 '["true"]' '/tmp\u0000x'
  echo
  echo '{"jsonrpc":"2.0","id":5,"method":"ping"}'
} >"$WORK/in"
set +e
timeout 60 "$BGTASK" --dir "$D" mcp <"$WORK/in" >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "bgtask mcp exited $rc: $(tail -3 "$WORK/err")"
reply() { jq -c "select(.id == $1)" "$WORK/out"; }
[ "$(jq -c 'select(.id == null) | .error.code' "$WORK/out")" = -32600 ] ||
  fail "a 5 MiB line: $(jq -c 'select(.id == null)' "$WORK/out"), $(reply 2 | cut -c1-200)"
[ -z "$(reply 2)" ] || fail "a 5 MiB line was answered as a request"
[ "$(reply 3 | jq .result.isError)" = true ] || fail "argv with a NUL byte: $(reply 3)"
grep -q 'NUL byte' <<<"$(reply 3 | jq -r '.result.content[0].text')" || fail "argv with a NUL: $(reply 3)"
[ "$(reply 4 | jq .result.isError)" = true ] || fail "cwd with a NUL byte: $(reply 4)"
[ "$(reply 5 | jq -c .result)" = '{}' ] || fail "the server did not answer after those: $(reply 5)"
[ "$(bg list --json | jq length)" -eq 1 ] || fail "a refused start left a record: $(bg list)"
echo ok
