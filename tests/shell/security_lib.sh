# Helpers for the test_security_*.sh scripts (sourced after lib.sh).

# run ARGS...: bgtask on $D, killed after 10 s so a hang shows as status 137.
# Sets $rc, $out (stdout) and $err (stderr).
run() {
  set +e
  out=$(timeout -s KILL 10 "$BGTASK" --dir "$D" "$@" 2>"$WORK/stderr")
  rc=$?
  set -e
  err=$(cat "$WORK/stderr")
}

# expect_rc CODE WHAT: fails unless the last run exited with CODE.
expect_rc() {
  [ "$rc" -ne 137 ] || fail "$2: hung (killed after 10 s)"
  [ "$rc" -eq "$1" ] || fail "$2: exit $rc, expected $1 (stderr: $err)"
}

# expect_error WORDS WHAT: the last run printed a one-line error containing WORDS.
expect_error() {
  [ "$(printf '%s\n' "$err" | grep -c 'bgtask: error: ')" -ge 1 ] || fail "$2: no error message: $err"
  grep -qiF -- "$1" <<<"$err" || fail "$2: error does not mention '$1': $err"
}

# snapshot DIR: a listing of DIR (names, types, modes, sizes, link targets).
snapshot() { (cd "$1" && find . -printf '%p %y %m %s %l\n' | sort); }

# sums FILE...: content checksums, to show files were neither read into
# output nor written.
sums() { sha256sum "$@"; }

# finished_task ARGS...: starts a task, waits for it, prints its ID.
finished_task() {
  local id
  id=$(bg start "$@")
  bg wait "$id" >/dev/null || true
  echo "$id"
}
