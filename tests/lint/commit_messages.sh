#!/usr/bin/env bash
# Checks the message of every commit from the one that added this file to
# HEAD (merges aside): a subject of at most 72 characters in the imperative
# (not "Fixed ...", "review: ...", "fixup! ..."), then, if there is more, a
# blank line and a body whose lines fit in 72 columns (a line may run over
# only because of a URL or a path, which cannot be wrapped).
# Usage: commit_messages.sh SOURCE_DIR   (exit 1 naming each commit and
# rule broken; 125 when SOURCE_DIR is not the top of a git work tree, as in
# a release tarball)
set -euo pipefail
root=$(cd "${1:?usage: commit_messages.sh SOURCE_DIR}" && pwd -P)
skip() { echo "SKIP: $*" >&2; exit 125; }
command -v git >/dev/null || skip "git is not installed"
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) || skip "$root is not a git work tree"
[ "$(cd "$top" && pwd -P)" = "$root" ] || skip "$root is not the top of a git work tree"
self=tests/lint/commit_messages.sh
first=$(git -C "$root" log --diff-filter=A --format=%H -- "$self" | tail -n 1)
if [ -z "$first" ]; then
  echo "commit_messages: $self is not committed yet: nothing to check"
  exit 0
fi

# Imperative verbs that end in -ed; any other first word that does, and the
# common irregular past forms below, are past tense.
imperative_ed=" bed embed exceed feed heed need proceed seed shed shred speed succeed "
irregular_past=" began brought built chose did drew fed found gave got held kept left
  made meant ran said sent shown spent took told went wrote "

status=0
# problem COMMIT TEXT: reports one broken rule of the commit whose subject
# check_commit holds.
problem() {
  echo "commit_messages: $(git -C "$root" rev-parse --short "$1") \"${subject:0:80}\": $2" >&2
  status=1
}

# check_commit COMMIT: checks one message.
check_commit() {
  local commit=$1 message subject first_word line number=0 without
  message=$(git -C "$root" log -1 --format=%B "$commit")
  subject=$(sed -n 1p <<<"$message")
  [ -n "$subject" ] || problem "$commit" "the subject is empty"
  [ "${#subject}" -le 72 ] || problem "$commit" "the subject has ${#subject} characters (at most 72)"
  first_word=$(sed 's/[^A-Za-z!:].*//' <<<"$subject" | tr 'A-Z' 'a-z')
  case "$first_word" in
    review:* | fixup* | squash* | amend* | wip*)
      problem "$commit" "the subject starts with \"$first_word\": fold the change into the commit it fixes" ;;
  esac
  first_word=${first_word%%[!a-z]*}
  if { [[ $first_word == *ed ]] && [[ $imperative_ed != *" $first_word "* ]]; } ||
    [[ $irregular_past == *" $first_word "* ]]; then
    problem "$commit" "the subject starts with \"$first_word\", not an imperative verb"
  fi
  while IFS= read -r line; do
    number=$((number + 1))
    if [ "$number" -eq 2 ] && [ -n "$line" ]; then
      problem "$commit" "line 2 is not blank"
    fi
    [ "$number" -gt 1 ] && [ "${#line}" -gt 72 ] || continue
    # Without its URLs and paths, the line must fit.
    without=$(sed -E 's#[^ ]*(://|/)[^ ]*##g' <<<"$line")
    [ "${#without}" -le 72 ] && [ "$without" != "$line" ] ||
      problem "$commit" "body line $number has ${#line} characters (at most 72): ${line:0:40}..."
  done <<<"$message"
}

count=0
# $first and what follows it: HEAD without $first's parents, if any.
for commit in $(git -C "$root" rev-list --no-merges --reverse HEAD --not $(git -C "$root" rev-parse "$first^@")); do
  check_commit "$commit"
  count=$((count + 1))
done
[ "$status" -ne 0 ] || echo "commit_messages: $count commits since $(git -C "$root" log -1 --format=%h "$first") ok"
exit "$status"
