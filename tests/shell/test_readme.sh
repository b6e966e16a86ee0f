#!/usr/bin/env bash
# README.md and docs/*.md as a user reads them: no example names a task by a
# short ID prefix (IDs begin with 8 characters of creation time, so a prefix
# copied from the docs rarely names one task; examples use "$id", @ or
# --name), and the build packages the README lists are those of
# `scripts/deps.sh build`.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# Every `bgtask CMD ... WORD` in a code block or an inline code span, where
# CMD takes task IDs and WORD looks like an ID or a prefix of one (4-12
# characters of 0-9a-z with a digit and a letter, not a duration or a size).
prefixes() {
  /usr/bin/python3 - "$@" <<'EOF'
import re, shlex, sys

takes_id = {"status", "output", "wait", "cancel", "pause", "resume", "rerun", "cleanup", "progress"}
with_value = {"--name", "--queue", "--dir", "--cwd", "--until-output", "--message", "--since"}
not_an_id = re.compile(r"([0-9.]+(ms|s|m|h|d))+|[0-9]+[KMGT]?", re.I)

def suspects(text):
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        words = text.split()
    found = []
    for i, word in enumerate(words):
        if word != "bgtask" or i + 1 >= len(words) or words[i + 1] not in takes_id:
            continue
        skip = False
        for w in words[i + 2:]:
            end = w.endswith(";")
            w = w.rstrip(";")
            if w in ("&&", "||", "|") or w.startswith("$("):
                break
            if not skip and re.fullmatch(r"[0-9a-z]{4,12}", w, re.I) and \
                    re.search(r"[0-9]", w) and re.search(r"[a-z]", w, re.I) and \
                    not not_an_id.fullmatch(w):
                found.append(w)
            skip = w in with_value
            if end:
                break
    return found

bad = 0
for path in sys.argv[1:]:
    in_block = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        texts = [line] if in_block else re.findall(r"`([^`]*bgtask [^`]*)`", line)
        for text in texts:
            for word in suspects(text):
                print(f"{path}:{number}: '{word}' in: {line.strip()}")
                bad += 1
sys.exit(1 if bad else 0)
EOF
}

prefixes "$ROOT/README.md" "$ROOT"/docs/*.md >"$WORK/prefixes" ||
  fail "examples name tasks by ID prefixes (use \"\$id\", @ or --name): $(cat "$WORK/prefixes")"

# The check finds what it is for.
printf '```sh\nbgtask rerun 2nk5 --env TOKEN\nbgtask pause 2nk5; bgtask resume 2nk5\n```\n' >"$WORK/bad.md"
printf 'Run `bgtask output --follow 2nk5t7f3` and `bgtask status 2NK5`.\n' >>"$WORK/bad.md"
! prefixes "$WORK/bad.md" >"$WORK/found" || fail "the prefix check missed every planted example"
[ "$(wc -l <"$WORK/found")" -eq 5 ] || fail "the prefix check found: $(cat "$WORK/found")"
printf '```sh\nbgtask wait --timeout 1h30m "$id"\nbgtask status @; bgtask output --name build2\n```\n' >"$WORK/good.md"
prefixes "$WORK/good.md" >"$WORK/found" || fail "the prefix check refused: $(cat "$WORK/found")"

# The build packages: the README's list (braces expanded) is deps.sh's.
listed=$(sed -n '/only what building needs (`/,/`)/p' "$ROOT/README.md" | tr '\n' ' ' |
  sed -E 's/.*only what building needs \(`([^`]*)`\).*/\1/')
[ -n "$listed" ] || fail "the README's list of build packages was not found"
readme_packages=$(eval "printf '%s\n' $listed" | sort)
deps_packages=$(bash -c 'source <(sed -n "/^build_packages=(/,/)/p" "$1"); printf "%s\n" "${build_packages[@]}"' \
  sh "$ROOT/scripts/deps.sh" | sort)
[ -n "$deps_packages" ] || fail "scripts/deps.sh has no build_packages"
[ "$readme_packages" = "$deps_packages" ] ||
  fail "the README's build packages differ from scripts/deps.sh build: $(diff <(echo "$readme_packages") <(echo "$deps_packages"))"
echo "readme: ok"
