#!/usr/bin/env bash
# Planted files (security guide H2/H3): symlinks to files outside the task
# directory and to /dev/zero, FIFOs, directories and devices put under a
# task's own file names. Every command must answer promptly with a clear
# error or a `corrupt` entry, nothing outside the directory may be read into
# bgtask's output or written, and no link is followed.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/security_lib.sh"

OUT="$WORK/outside"
mkdir "$OUT"
echo "outside-secret-$$" >"$OUT/secret"
printf 'not a record\n' >"$OUT/record"
targets=("$OUT/secret" "$OUT/record" /etc/passwd)
before=$(sums "${targets[@]}")
stamp="$WORK/stamp"
touch "$stamp"

can_mknod=yes
mknod "$WORK/probe" c 1 5 2>/dev/null || can_mknod=no
rm -f "$WORK/probe"

# plant PATH KIND: replaces PATH with something hostile.
plant() {
  rm -rf "$1"
  case "$2" in
    link-secret) ln -s "$OUT/secret" "$1" ;;
    link-zero) ln -s /dev/zero "$1" ;;
    link-passwd) ln -s /etc/passwd "$1" ;;
    link-dangling) ln -s "$OUT/does-not-exist" "$1" ;;
    fifo) mkfifo "$1" ;;
    dir) mkdir "$1" ;;
    device) mknod "$1" c 1 5 ;; # /dev/zero
  esac
}

kinds=(link-secret link-zero link-passwd link-dangling fifo dir)
[ "$can_mknod" = yes ] && kinds+=(device)

no_leak() {
  case "$out$err" in
    *outside-secret*) fail "$1: printed the content of a file outside the directory" ;;
    *root:x:0:0*) fail "$1: printed /etc/passwd" ;;
  esac
}

# --- Hostile ID.output of a finished task ---
F=$(finished_task -- sh -c 'echo hello')
for kind in "${kinds[@]}"; do
  plant "$D/$F.output" "$kind"
  run output "$F"
  expect_rc 1 "output with $kind output file"
  expect_error "$F.output" "output with $kind output file"
  no_leak "output ($kind)"
  run output --tail 2 "$F"
  expect_rc 1 "output --tail with $kind output file"
  run output --follow "$F"
  expect_rc 1 "output --follow with $kind output file"
  run status "$F"
  [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "status with $kind output file: exit $rc"
  no_leak "status ($kind)"
  run list
  expect_rc 0 "list with $kind output file"
  run wait "$F"
  expect_rc 0 "wait with $kind output file"
  run cancel "$F"
  expect_rc 0 "cancel with $kind output file"
  run cleanup --dry-run --older-than 0s
  expect_rc 0 "cleanup --dry-run with $kind output file"
done

# --- Hostile ID.status.json ---
for kind in "${kinds[@]}"; do
  F=$(finished_task -- true)
  plant "$D/$F.status.json" "$kind"
  run list
  expect_rc 0 "list with $kind record"
  grep -q "^$F  *corrupt" <<<"$out" || fail "list with $kind record: not shown as corrupt: $out"
  run status "$F"
  expect_rc 1 "status with $kind record"
  expect_error "corrupt" "status with $kind record"
  no_leak "status ($kind record)"
  run status --json "$F"
  expect_rc 1 "status --json with $kind record"
  [ "$(printf '%s' "$out" | jq -r '.[0].state')" = corrupt ] || fail "status --json with $kind record: $out"
  for cmd in "output $F" "wait $F" "cancel $F" "progress $F --percent 5"; do
    # shellcheck disable=SC2086
    run $cmd
    expect_rc 1 "$cmd with $kind record"
    expect_error "$F" "$cmd with $kind record"
    no_leak "$cmd ($kind record)"
  done
  run cleanup --older-than 0s
  expect_rc 0 "cleanup with $kind record"
  [ -e "$D/$F.status.json" ] || [ -L "$D/$F.status.json" ] || fail "cleanup removed a $kind record"
  [ -e "$D/$F.output" ] || fail "cleanup removed the output of a task with a $kind record"
done

# --- Hostile ID.lock of a finished task, and stale temps next to it ---
for kind in "${kinds[@]}"; do
  F=$(finished_task -- true)
  plant "$D/$F.lock" "$kind"
  for cmd in "status $F" "wait $F" "cancel $F" "list"; do
    # shellcheck disable=SC2086
    run $cmd
    expect_rc 0 "$cmd with $kind lock"
  done
done

# --- Hostile lock of a running task: cancel answers instead of waiting forever ---
for kind in link-secret link-dangling fifo dir; do
  R=$(bg start --timeout 30s -- sleep 60)
  mv "$D/$R.lock" "$WORK/lock.saved" # the supervisor keeps its lock on the moved file
  plant "$D/$R.lock" "$kind"
  run cancel --grace 1s "$R"
  [ "$rc" -ne 137 ] || fail "cancel of a running task with a $kind lock hung"
  [ "$rc" -eq 0 ] || expect_error "$R" "cancel of a running task with a $kind lock"
  run status "$R"
  [ "$rc" -ne 137 ] || fail "status of a running task with a $kind lock hung"
  rm -rf "$D/$R.lock"
  mv "$WORK/lock.saved" "$D/$R.lock"
  bg cancel --grace 1s "$R" >/dev/null
done

# --- Hostile files of a running task: progress and the final write ---
R=$(bg start --timeout 2s -- sleep 30)
plant "$D/$R.status.json" link-secret
run progress "$R" --percent 50
expect_rc 1 "progress with a linked record"
# The supervisor's final record replaces the link; it never writes through it.
for _ in $(seq 100); do
  [ -L "$D/$R.status.json" ] || break
  sleep 0.1
done
[ -f "$D/$R.status.json" ] && [ ! -L "$D/$R.status.json" ] || fail "the final record did not replace the link"
[ "$(field "$R" .state)" = timed_out ] || fail "the final record of $R: $(cat "$D/$R.status.json")"

# --- cleanup removes links and special files themselves, never their targets ---
for kind in "${kinds[@]}"; do
  F=$(finished_task -- true)
  plant "$D/$F.output" "$kind"
done
run cleanup --older-than 0s
expect_rc 0 "cleanup of tasks with hostile output files"

# --- cleanup deletes task files only: near-miss names stay ---
F=$(finished_task -- true)
strangers=(notes.txt "$F.status.json.bak" "$F.output~" ".$F.notes.tmp" ".$F.status.json.0123456789ABCDEF.tmp"
  "${F}x.lock" "$F.d")
for name in "${strangers[@]}"; do
  echo keep >"$D/$name"
done
touch -h -d '2 hours ago' "$D"/* "$D"/.[!.]*
run cleanup --older-than 0s
expect_rc 0 "cleanup next to files that are not task files"
for name in "${strangers[@]}"; do
  [ -f "$D/$name" ] || fail "cleanup deleted $name"
done
[ ! -e "$D/$F.status.json" ] || fail "cleanup did not remove the finished task $F"

# --- Nothing outside the directory was read into output or changed ---
after=$(sums "${targets[@]}")
[ "$before" = "$after" ] || fail "a file outside the task directory changed"
[ -z "$(find "$OUT" -newer "$stamp")" ] || fail "something under $OUT was modified"
echo "ok"
