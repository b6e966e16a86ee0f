#!/usr/bin/env bash
# Runs e2e.mjs: `bgtask mcp` driven by the MCP TypeScript SDK client
# pinned in package-lock.json. scripts/test installs it (npm ci); if it is
# missing, this installs it, and skips (125) only if the npm registry
# cannot be reached.
set -euo pipefail
: "${BGTASK:?BGTASK must point at the bgtask binary}"
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "SKIP: node is not installed (scripts/deps.sh)" >&2; exit 125; }
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
  if ! (cd "$here" && npm ci --no-audit --no-fund >&2); then
    echo "SKIP: npm ci could not install @modelcontextprotocol/sdk (is the npm registry reachable?)" >&2
    exit 125
  fi
fi
work=$(mktemp -d /tmp/bgtask-mcp-e2e.XXXXXX)
stop_tasks() {
  local ids
  ids=$("$BGTASK" --dir "$work/tasks" list --state queued,running --json 2>/dev/null | jq -r '.[].id' || true)
  [ -z "$ids" ] || "$BGTASK" --dir "$work/tasks" cancel --grace 0 $ids >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap stop_tasks EXIT
mkdir -m 700 "$work/tasks"
node "$here/e2e.mjs" "$BGTASK" "$work/tasks"
# The records the tools made, and their --json forms, match docs/record.schema.json.
/usr/bin/python3 "$here/../tools/check_records.py" --bgtask "$BGTASK" "$work/tasks"
