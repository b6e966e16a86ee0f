#!/usr/bin/env bash
# The task directory (security guide H1/H9): bgtask refuses, with exit 2 and
# a message naming the path and the problem, a directory writable by group
# or others, owned by another user, reached through a symlink, or that is
# not a directory; it leaves such a directory untouched. What it creates is
# private: directories 0700, records, output and locks 0600, whatever the
# umask, while the command still runs with the caller's umask.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

# refused_dir DIR WORDS WHAT: every command refuses DIR naming it and WORDS.
refused_dir() {
  local dir=$1 words=$2 what=$3 before
  before=$(ls -lA "$dir" 2>&1 || true)
  for command in "list" "status 0a1b2c3d4e5f" "wait 0a1b2c3d4e5f" "cancel 0a1b2c3d4e5f" \
    "output 0a1b2c3d4e5f" "progress 0a1b2c3d4e5f --percent 1" "cleanup" "start -- touch $WORK/ran"; do
    set +e
    # shellcheck disable=SC2086
    err=$(timeout -s KILL 10 "$BGTASK" --dir "$dir" $command 2>&1 >/dev/null)
    rc=$?
    set -e
    expect_rc 2 "$what: $command"
    expect_error "refusing task directory $dir" "$what: $command"
    expect_error "$words" "$what: $command"
  done
  [ "$before" = "$(ls -lA "$dir" 2>&1 || true)" ] || fail "$what: the directory changed"
  [ ! -e "$WORK/ran" ] || fail "$what: a command ran"
}

bad="$WORK/bad"
mkdir "$bad"
chmod 0777 "$bad"
refused_dir "$bad" "mode 0777 is writable by others" "world-writable"
chmod 1777 "$bad"
refused_dir "$bad" "writable by others" "sticky world-writable"
chmod 0770 "$bad"
refused_dir "$bad" "mode 0770 is writable by group" "group-writable"
chmod 0720 "$bad"
refused_dir "$bad" "writable by group" "group-writable, not readable"
chmod 0700 "$bad"
if [ "$(id -u)" -eq 0 ]; then
  chown 65534 "$bad"
  refused_dir "$bad" "owned by uid 65534" "foreign owner"
  # The same check holds by environment variable.
  set +e
  err=$(BGTASK_DIR="$bad" timeout -s KILL 10 "$BGTASK" list 2>&1 >/dev/null)
  rc=$?
  set -e
  expect_rc 2 "BGTASK_DIR with a foreign owner"
  chown 0 "$bad"
else
  echo "note: not root, the foreign-owner case is not covered" >&2
fi
ln -s "$D" "$WORK/link"
refused_dir "$WORK/link" "symbolic link" "symlinked directory"
echo data >"$WORK/file"
refused_dir "$WORK/file" "not a directory" "regular file"

# Creation: missing components are made 0700; files are 0600 even under
# umask 000; the command sees the caller's umask.
fresh="$WORK/a/b/tasks"
ID=$(umask 000 && timeout 60 "$BGTASK" --dir "$fresh" start -- sh -c umask)
timeout 60 "$BGTASK" --dir "$fresh" wait "$ID" >/dev/null
for dir in "$WORK/a" "$WORK/a/b" "$fresh"; do
  [ "$(stat -c %a "$dir")" = 700 ] || fail "$dir was created $(stat -c %a "$dir")"
done
for file in "$fresh/$ID.status.json" "$fresh/$ID.output" "$fresh/$ID.lock"; do
  [ "$(stat -c %a "$file")" = 600 ] || fail "$file was created $(stat -c %a "$file")"
done
[ "$(cat "$fresh/$ID.output")" = 0000 ] || fail "the command saw umask $(cat "$fresh/$ID.output"), not 0000"
ID=$(umask 000 && timeout 60 "$BGTASK" --dir "$fresh" start --max-output 1K -- sh -c umask)
timeout 60 "$BGTASK" --dir "$fresh" wait "$ID" >/dev/null
[ "$(stat -c %a "$fresh/$ID.output")" = 600 ] || fail "a capped output file was created $(stat -c %a "$fresh/$ID.output")"
[ "$(stat -c %a "$fresh/$ID.status.json")" = 600 ] || fail "a rewritten record is not 0600"
ID=$(umask 027 && timeout 60 "$BGTASK" --dir "$fresh" start -- sh -c umask)
timeout 60 "$BGTASK" --dir "$fresh" wait "$ID" >/dev/null
[ "$(cat "$fresh/$ID.output")" = 0027 ] || fail "the command saw umask $(cat "$fresh/$ID.output"), not 0027"
echo ok
