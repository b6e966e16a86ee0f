#!/usr/bin/env bash
# tests/lint/commit_messages.sh (ctest's lint.commit_messages) on a scratch
# repository: commits before the one that adds the check are not looked at;
# after it, each broken rule is named with its commit, and good messages,
# long URLs and paths in a body pass. Without a git work tree it skips (125).
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v git >/dev/null || skip "git is not installed"
export HOME="$WORK" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
  GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
repo="$WORK/repo"
check="$repo/tests/lint/commit_messages.sh"
git init -q "$repo"
commit() { git -C "$repo" commit -q --allow-empty -m "$1"; }
run_check() {
  rc=0
  bash "$check" "$repo" >"$WORK/out" 2>"$WORK/err" || rc=$?
}

commit "Fixed an old thing before the check, with a subject that runs far beyond seventy-two characters"
mkdir -p "$repo/tests/lint"
cp "$ROOT/tests/lint/commit_messages.sh" "$check"
git -C "$repo" add tests/lint/commit_messages.sh
commit $'Check commit messages\n\nEvery commit from this one on is checked.'
commit $'Keep a long URL in a body\n\nSee https://example.org/a/very/long/address/that/cannot/be/wrapped/at/all/whatever/is/done\nand lib/bgtask/exec/local/a_rather_long_file_name_that_runs_on_and_on_and_on.cpp too.'
commit "Split the parser"
run_check
[ "$rc" -eq 0 ] || fail "good messages failed (exit $rc): $(cat "$WORK/err")"
grep -qF "4 commits" "$WORK/out" && fail "the commit before the check was checked: $(cat "$WORK/out")"
grep -qF "3 commits" "$WORK/out" || fail "not the 3 commits since the check: $(cat "$WORK/out")"

long_subject="Add a subject that is longer than seventy-two characters by a few more words"
long_body="This body line is far too long to read in a terminal of eighty columns without wrapping it"
commit "Fixed the parser"
commit "review: the parser's comment"
commit "fixup! Split the parser"
commit "$long_subject"
commit $'Add a body without a blank line\nright after the subject'
commit $'Add a long body line\n\n'"$long_body"
run_check
[ "$rc" -eq 1 ] || fail "bad messages: exit $rc, want 1: $(cat "$WORK/err")"
for want in \
  '"Fixed the parser": the subject starts with "fixed", not an imperative verb' \
  '"review: the parser'"'"'s comment": the subject starts with "review:"' \
  '"fixup! Split the parser": the subject starts with "fixup!"' \
  "the subject has ${#long_subject} characters (at most 72)" \
  '"Add a body without a blank line": line 2 is not blank' \
  "\"Add a long body line\": body line 3 has ${#long_body} characters"; do
  grep -qF "$want" "$WORK/err" || fail "the check did not say '$want': $(cat "$WORK/err")"
done
[ "$(grep -c . "$WORK/err")" -eq 6 ] || fail "want 6 problems: $(cat "$WORK/err")"

# A release tarball has no .git; a tree inside another repository is not one.
mkdir -p "$WORK/tarball/tests/lint"
cp "$check" "$WORK/tarball/tests/lint/"
rc=0
bash "$check" "$WORK/tarball" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 125 ] || fail "without .git: exit $rc, want 125 (skipped): $(cat "$WORK/err")"
rc=0
bash "$check" "$repo/tests" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 125 ] || fail "below the top of a work tree: exit $rc, want 125: $(cat "$WORK/err")"
