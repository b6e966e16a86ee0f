# shellcheck shell=bash
# Invariant checks and helpers shared by the crash, fault and concurrency
# tests (tests/shell/test_crash_*.sh). Sourced after lib.sh.
#
#   check_invariants DIR [PRINTED_IDS_FILE]
#
# checks, on a task directory where no invocation is in progress:
#   I1 every ID.status.json parses, has schema 1 and names its own ID;
#   I2 after one reconciling invocation (`list`), no record says `running`
#      while neither its supervisor (the ownership lock, seen in /proc/locks)
#      nor its command (a process carrying BGTASK_ID) lived before that call;
#   I3 every ID in PRINTED_IDS_FILE (what `start` printed) has a record, and
#      no ID was printed twice;
#   I4 after `cleanup`, no temp file (.*.tmp) is left, nor a lock or output
#      file of a task without a record;
#   I5 no process of a cancelled, timed-out or lost task survives;
#   I6 a second reconciling invocation changes no finished record.
# Prints what failed to stderr and returns 1; returns 0 when all hold.
# Adds the number of records checked to INV_RECORDS_CHECKED.

INV_RECORDS_CHECKED=${INV_RECORDS_CHECKED:-0}

# task_processes: "PID ID" for each live process carrying BGTASK_ID in its
# environment (zombies have none).
task_processes() {
  grep -Hazo '^BGTASK_ID=[0-9a-z]\{12\}' /proc/[0-9]*/environ 2>/dev/null |
    tr '\0' '\n' | sed -n 's|^/proc/\([0-9]*\)/environ:BGTASK_ID=|\1 |p' || true
}

# held_lock_inodes: inode numbers with an OFD write lock on byte 0 (the
# ownership byte of a task lock), one per line.
held_lock_inodes() {
  awk '$2 == "OFDLCK" && $4 == "WRITE" && $7 == "0" { n = split($6, a, ":"); print a[n] }' /proc/locks
}

# alive_tasks DIR: IDs of DIR whose supervisor holds the lock or whose
# command still has a process.
alive_tasks() {
  local dir=$1 inodes f id ino
  inodes=" $(held_lock_inodes | tr '\n' ' ') "
  for f in "$dir"/*.lock; do
    [ -e "$f" ] || continue
    id=$(basename "$f" .lock)
    ino=$(stat -c %i "$f" 2>/dev/null) || continue
    case "$inodes" in *" $ino "*) echo "$id" ;; esac
  done
  task_processes | awk '{ print $2 }'
}

# record_table DIR: "ID<TAB>state" for each record; returns 1 if one does not
# parse as a schema-1 record of its own ID (reported on stderr).
RECORD_FILTER='(input_filename | sub(".*/"; "") | sub("[.]status[.]json$"; "")) as $id
  | if .schema == 1 and .id == $id and (.state | type) == "string" then [.id, .state] | @tsv
    else error("not a schema-1 record of \($id)") end'
record_table() {
  local dir=$1 f bad=0 files=()
  for f in "$dir"/*.status.json; do
    [ -e "$f" ] && files+=("$f")
  done
  [ "${#files[@]}" -gt 0 ] || return 0
  # One jq for all records; one per record only to find the bad ones.
  if jq -er "$RECORD_FILTER" "${files[@]}" 2>/dev/null; then
    return 0
  fi
  for f in "${files[@]}"; do
    if ! jq -er "$RECORD_FILTER" "$f" >/dev/null 2>&1; then
      echo "I1: record $f does not parse as a schema-1 record of its ID:" >&2
      head -c 300 "$f" | od -c | sed -n 1,5p >&2
      bad=1
    fi
  done
  [ "$bad" -eq 1 ] || echo "I1: jq failed on the records of $dir" >&2
  return 1
}

# digests DIR ID...: sha256 of the records of these IDs.
digests() {
  local dir=$1
  shift
  for id in "$@"; do
    sha256sum "$dir/$id.status.json" 2>&1
  done
}

# leftovers DIR: temp files, and lock/output files of tasks without a record.
leftovers() {
  local dir=$1 f base id
  for f in "$dir"/.* "$dir"/*; do
    base=$(basename "$f")
    case "$base" in
      . | .. | '*' | '.*') ;;
      start.lock | events.lock | queue-*.lock) ;; # the directory's own locks, not a task's
      .*.tmp) echo "$base" ;;
      *.lock | *.output)
        id=${base%.*}
        [ -e "$dir/$id.status.json" ] || echo "$base" ;;
    esac
  done
}

check_invariants() {
  local dir=$1 printed=${2:-} ok=0 alive table id state n
  local bgt=(timeout 60 "$BGTASK" --dir "$dir")

  alive=" $(alive_tasks "$dir" | sort -u | tr '\n' ' ') "
  if ! "${bgt[@]}" list >/dev/null; then
    echo "I2: the reconciling list failed" >&2
    ok=1
  fi
  # I1
  if ! table=$(record_table "$dir"); then
    ok=1
  fi
  n=$(printf '%s' "$table" | grep -c . || true)
  INV_RECORDS_CHECKED=$((INV_RECORDS_CHECKED + n))
  # I2
  while IFS=$'\t' read -r id state; do
    [ -n "$id" ] || continue
    if [ "$state" = running ] && [[ "$alive" != *" $id "* ]]; then
      echo "I2: $id says running after reconciliation, but neither its supervisor nor its command lived" >&2
      ok=1
    fi
  done <<<"$table"
  # I3
  if [ -n "$printed" ] && [ -s "$printed" ]; then
    local dups
    dups=$(sort "$printed" | uniq -d)
    if [ -n "$dups" ]; then
      echo "I3: IDs printed twice: $dups" >&2
      ok=1
    fi
    while read -r id; do
      [ -n "$id" ] || continue
      if [[ ! "$id" =~ ^[0-9a-z]{12}$ ]]; then
        echo "I3: start printed '$id', not a task ID" >&2
        ok=1
      elif [ ! -e "$dir/$id.status.json" ]; then
        echo "I3: start printed $id but it has no record" >&2
        ok=1
      fi
    done <"$printed"
  fi
  # I6
  local finished before after
  finished=$(awk -F'\t' '$2 != "running" { print $1 }' <<<"$table")
  # shellcheck disable=SC2086
  before=$(digests "$dir" $finished)
  "${bgt[@]}" list >/dev/null || true
  # shellcheck disable=SC2086
  after=$(digests "$dir" $finished)
  if [ "$before" != "$after" ]; then
    echo "I6: a second reconciliation changed finished records:" >&2
    diff <(echo "$before") <(echo "$after") >&2 || true
    ok=1
  fi
  # I4: a writer may be finishing a final record right now; give it a moment.
  local left
  for _ in 1 2 3; do
    "${bgt[@]}" cleanup >/dev/null || echo "I4: cleanup failed" >&2
    left=$(leftovers "$dir")
    [ -n "$left" ] || break
    sleep 0.3
  done
  if [ -n "$left" ]; then
    echo "I4: left after cleanup:" $left >&2
    ok=1
  fi
  # I5: processes being killed may take a moment to vanish.
  local doomed survivors
  doomed=$(awk -F'\t' '$2 == "cancelled" || $2 == "timed_out" || $2 == "lost" { print $1 }' <<<"$table")
  if [ -n "$doomed" ]; then
    for _ in $(seq 30); do
      survivors=$(task_processes | awk 'NR == FNR { d[$1] = 1; next } d[$2]' <(echo "$doomed") -)
      [ -n "$survivors" ] || break
      sleep 0.1
    done
    if [ -n "$survivors" ]; then
      echo "I5: processes of finished tasks survive (pid id):" $survivors >&2
      ok=1
    fi
  fi
  return "$ok"
}

# kill_dir_processes DIR: SIGKILLs every supervisor and command of DIR.
kill_dir_processes() {
  local dir=$1 pid
  pkill -KILL -f -- "--dir $dir " 2>/dev/null || true
  for pid in $(grep -lzx "BGTASK_DIR=$dir" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# zombies_of DIR: pids of zombies whose parent is a bgtask process of DIR,
# sorted. A supervisor reaps its children on SIGCHLD, so these only last
# an instant; one that lasts is a leak.
zombies_of() {
  ps -eo pid=,stat=,ppid= | awk '$2 ~ /^Z/ { print $1, $3 }' | while read -r pid ppid; do
    if [[ $(tr '\0' ' ' <"/proc/$ppid/cmdline" 2>/dev/null) == *"--dir $1 "* ]]; then echo "$pid"; fi
  done | sort
}

# lasting_zombies DIR: the zombies of zombies_of DIR still there a second later.
lasting_zombies() {
  local first
  first=$(zombies_of "$1")
  [ -n "$first" ] || return 0
  sleep 1
  comm -12 <(echo "$first") <(zombies_of "$1")
}

# wait_until SECONDS CMD...: polls CMD every 20 ms; false on timeout.
wait_until() {
  local limit=$1 end
  shift
  end=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.02
  done
}
