#!/usr/bin/env bash
# Shell completion: the bash, zsh and fish scripts load without error and,
# called as the shells call them, offer every command and every option each
# command's --help shows, state names, directories and task IDs from the
# task directory. `bgtask __complete` never creates a directory and prints
# nothing when it cannot help.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COMPLETIONS="$ROOT/completions"
export BGTASK_DIR="$D"

# A directory holding `bgtask`, for the shells that look it up in PATH.
mkdir "$WORK/bin"
ln -s "$BGTASK" "$WORK/bin/bgtask"
export PATH="$WORK/bin:$PATH"

commands=$("$BGTASK" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
[ -n "$commands" ] || fail "no commands in bgtask --help"
# options CMD: the long options `bgtask CMD --help` lists.
options() {
  "$BGTASK" "$1" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'
}

# contains WORD LIST...: true if WORD is one of LIST.
contains() {
  local word=$1
  shift
  grep -qxF -- "$word" <<<"$(printf '%s\n' "$@")"
}

# --- bgtask __complete itself -------------------------------------------------
out=$(BGTASK_DIR="$WORK/missing" "$BGTASK" __complete wait "")
[ "$out" = "words" ] || fail "completion in a missing directory printed: $out"
[ ! -e "$WORK/missing" ] || fail "completion created the task directory"
mkdir -m 777 "$WORK/open"
out=$("$BGTASK" --dir "$WORK/open" __complete wait "" 2>&1) || fail "__complete failed on a refused directory"
[ -z "$out" ] || fail "completion on a refused directory printed: $out"
grep -q "__complete" <<<"$("$BGTASK" --help)" && fail "--help lists the hidden __complete command"

# The global options: completion offers those `bgtask --help` lists, with
# the same summaries (both come from one declaration), and their values.
python3 - "$("$BGTASK" --help)" "$("$BGTASK" __complete --)" <<'PY' || fail "global options differ between --help and completion"
import re, sys
help_text, completion = sys.argv[1], sys.argv[2]
section = help_text.split("Global options:\n", 1)[1].splitlines()
helped, column = {}, None
for line in section:
    m = re.match(r"^  ((-\w, )?(--[a-z-]+)( \S+)? +)(\S.*)$", line)
    if m:
        column, name = len(m.group(1)) + 2, m.group(3)
        helped[name] = m.group(5)
    elif column and line.startswith(" " * column) and not line.startswith(" " * (column + 1)):
        helped[name] += " " + line.strip()
offered = dict(l.split("\t", 1) for l in completion.splitlines()[1:])
assert sorted(offered) == sorted(helped), (offered, helped)
for name, summary in offered.items():
    assert helped[name].startswith(summary.removesuffix("...")), (name, summary, helped[name])
PY
[ "$("$BGTASK" __complete --color al | cut -f1)" = $'words\nalways' ] || fail "no value for --color"
[ "$("$BGTASK" __complete list --color=n | cut -f1)" = $'words\n--color=never' ] ||
  fail "no value for --color after the command name"

running=$(bg start --name web -- sleep 600)
on_exit 'bg cancel --quiet --grace 100ms "$running"'
finished=$(bg start --name build -- true)
bg wait "$finished" >/dev/null

# --- bash -----------------------------------------------------------------------
bash -n "$COMPLETIONS/bgtask.bash" || fail "bash -n bgtask.bash"
# complete_bash WORD...: COMPREPLY for the words, as bash splits them, the
# last being completed.
complete_bash() {
  bash -c 'source "$1"; shift
           COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
           _bgtask; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETIONS/bgtask.bash" bgtask "$@"
}
reply=$(complete_bash "")
for c in $commands; do
  contains "$c" $reply || fail "bash: command $c not offered: $reply"
done
for c in $commands; do
  reply=$(complete_bash "$c" --)
  for o in $(options "$c"); do
    contains "$o" $reply || fail "bash: $c $o not offered: $reply"
  done
done
[ "$(complete_bash list --state fa)" = "failed" ] || fail "bash: --state value"
[ "$(complete_bash list --state = ti)" = "timed_out" ] || fail "bash: --state=value"
[ "$(complete_bash list --state failed,lo)" = "failed,lost" ] || fail "bash: state list"
reply=$(complete_bash wait "")
contains "$running" $reply && contains "$finished" $reply || fail "bash: wait IDs: $reply"
[ "$(complete_bash cancel "")" = "$running" ] || fail "bash: cancel offers only unfinished tasks"
[ "$(complete_bash status "${finished:0:10}")" = "$finished" ] || fail "bash: ID prefix"
[ "$(complete_bash list --name bu)" = "build" ] || fail "bash: --name value"
bg queue nightly --slots 2 >/dev/null
[ "$(complete_bash queue "")" = "nightly" ] || fail "bash: queue names for queue"
[ "$(complete_bash start --queue ni)" = "nightly" ] || fail "bash: queue names for --queue"
[ "$(complete_bash start --executor "")" = $'local\nslurm' ] || fail "bash: --executor values"
[ "$(complete_bash start --retry-on "")" = "timed_out" ] || fail "bash: --retry-on values"
[ "$(complete_bash pause "")" = "$running" ] || fail "bash: pause offers the running task only"
mkdir "$WORK/subdir"
[ "$(complete_bash start --cwd "$WORK/subd")" = "$WORK/subdir" ] || fail "bash: --cwd directory"
[ "$(complete_bash --dir "$WORK/subd")" = "$WORK/subdir" ] || fail "bash: --dir directory"
contains bash $(complete_bash start -- bas) || fail "bash: command after --"

# --- zsh ------------------------------------------------------------------------
command -v zsh >/dev/null || skip "zsh is not installed"
zsh -n "$COMPLETIONS/_bgtask" || fail "zsh -n _bgtask"
# Drives an interactive zsh on a pseudo-terminal: each argument is typed,
# followed by TAB, and the resulting command line is printed.
cat >"$WORK/complete.zsh" <<'EOF'
zmodload zsh/zpty
fpath_dir=$1
shift
zpty shell 'zsh -f -i'
zpty -w shell "PS1='%% '; bindkey -e; unsetopt beep; fpath=($fpath_dir \$fpath); autoload -U compinit; compinit -u -D"
for line in "$@"; do
  zpty -w -n shell "$line"$'\t'$'\C-a''print -r -- RESULT:'$'\n'
  zpty -r shell chunk '*'$'\n''RESULT:*'$'\n'
  chunk=${chunk##*$'\n'RESULT:}
  print -r -- "${chunk%%$'\r'*}"
done
zpty -d shell
EOF
# complete_zsh LINE...: each line as zsh completes it with one TAB.
# Generous: one TAB per command and option, each running bgtask, on a loaded machine.
complete_zsh() { timeout 300 zsh -f "$WORK/complete.zsh" "$COMPLETIONS" "$@"; }
lines=()
expected=()
for c in $commands; do
  lines+=("bgtask ${c%?}")
  expected+=("bgtask $c ")
  all=$(options "$c")
  for o in $all; do
    # One character short, unless that is also the start of another option
    # (`--slot` of `--slots` and `--slot-env`): then the whole option, unless
    # that too begins another (`--all` of `--all-named`: zsh lists both).
    typed=${o%?}
    [ "$(grep -c -- "^$typed" <<<"$all")" -eq 1 ] || typed=$o
    [ "$(grep -c -- "^$typed" <<<"$all")" -eq 1 ] || continue
    lines+=("bgtask $c $typed")
    expected+=("bgtask $c $o")
  done
done
lines+=("bgtask list --state fa" "bgtask list --state=ti" "bgtask status ${finished:0:10}"
  "bgtask start --cwd $WORK/subd")
expected+=("bgtask list --state failed " "bgtask list --state=timed_out " "bgtask status $finished "
  "bgtask start --cwd $WORK/subdir")
mapfile -t got < <(complete_zsh "${lines[@]}")
[ "${#got[@]}" -eq "${#lines[@]}" ] || fail "zsh: ${#got[@]} results for ${#lines[@]} lines"
# The printed line loses the trailing space or slash zsh inserts after a
# complete word, and an option that starts another one gets no space anyway.
for i in "${!lines[@]}"; do
  want=${expected[$i]% }
  have=${got[$i]%/}
  [ "$have" = "$want" ] || fail "zsh: '${lines[$i]}' completed to '${got[$i]}', expected '$want'"
done

# --- fish -----------------------------------------------------------------------
command -v fish >/dev/null || skip "fish is not installed"
fish -n "$COMPLETIONS/bgtask.fish" || fail "fish -n bgtask.fish"
# complete_fish LINE: the words fish offers for the line.
complete_fish() {
  fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$COMPLETIONS/bgtask.fish" "$1" | cut -f1
}
reply=$(complete_fish "bgtask ")
for c in $commands; do
  contains "$c" $reply || fail "fish: command $c not offered: $reply"
done
for c in $commands; do
  reply=$(complete_fish "bgtask $c --")
  for o in $(options "$c"); do
    contains "$o" $reply || fail "fish: $c $o not offered: $reply"
  done
done
[ "$(complete_fish "bgtask list --state=fa")" = "--state=failed" ] || fail "fish: --state=value"
[ "$(complete_fish "bgtask cancel ")" = "$running" ] || fail "fish: cancel IDs"
[ "$(complete_fish "bgtask start --cwd $WORK/subd")" = "$WORK/subdir/" ] || fail "fish: --cwd directory"
echo "ok"
