#!/usr/bin/env bash
# Secrets (security guide H8): values from the caller's environment and from
# `--env K=V` reach the command only. They never appear in records, output
# files bgtask writes itself, JSON output, `status`, or error messages.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

# The command compares against a file, so its argv holds no secret itself.
printf '%s\n' s3cr3t-flag x=s3cr3t-second hunter2-env >"$WORK/expected"
ID=$(SECRET_A=hunter2-env bg start --env API_KEY=s3cr3t-flag --env 'OTHER=x=s3cr3t-second' \
  -- sh -c 'printf "%s\n" "$API_KEY" "$OTHER" "$SECRET_A" | cmp -s - "$1"' sh "$WORK/expected")
bg wait "$ID" >/dev/null || fail "the command did not get its environment"
[ "$(field "$ID" '.env_names | join(",")')" = API_KEY,OTHER ] || fail "env names not recorded: $(field "$ID" .env_names)"

leaks() { grep -rl -e hunter2 -e s3cr3t "$@" 2>/dev/null || true; }
[ -z "$(leaks "$D")" ] || fail "a secret was written to $(leaks "$D")"
for command in "status $ID" "status --json $ID" "list" "list --json" "wait --json $ID" "cancel --json $ID"; do
  # shellcheck disable=SC2086
  SECRET_A=hunter2-env run $command
  case "$out$err" in
    *hunter2* | *s3cr3t*) fail "$command printed a secret" ;;
  esac
done

# Values never appear in error messages, even for a malformed entry.
for entry in '1BAD=s3cr3t-v' 'BAD NAME=s3cr3t-v' '=s3cr3t-v' 'A-B=s3cr3t-v'; do
  run start --env "$entry" -- true
  expect_rc 2 "--env '${entry%%=*}=...'"
  case "$err" in *s3cr3t*) fail "the error for --env '${entry%%=*}=...' shows the value: $err" ;; esac
done
run start --env 'GOOD=s3cr3t-v' -- /nonexistent/command
case "$out$err" in *s3cr3t*) fail "a failed start shows an --env value: $err" ;; esac
[ -z "$(leaks "$D")" ] || fail "a secret was written by a failed start"
echo ok
