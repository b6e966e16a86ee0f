# bash completion for bgtask.
# Candidates come from `bgtask __complete WORD...`, which knows every command,
# option and task ID; this file only passes the words and shows the answer.

_bgtask() {
  local -a words=() reply=()
  local word join=0
  # Put `--opt=value` back together: bash splits it at the `=`.
  for word in "${COMP_WORDS[@]:1:COMP_CWORD}"; do
    if [[ $word == "=" && ${#words[@]} -gt 0 && ${words[-1]} == --* ]]; then
      words[-1]+="="
      join=1
    elif ((join)); then
      words[-1]+="$word"
      join=0
    else
      words+=("$word")
    fi
  done
  mapfile -t reply < <("${COMP_WORDS[0]}" __complete "${words[@]}" 2>/dev/null)
  ((${#reply[@]} > 0)) || return 0

  local kind=${reply[0]%%$'\t'*} cur=${words[-1]}
  # Bash replaces only what follows the last `=`.
  [[ $cur == --*=* ]] && cur=${cur#*=}
  case $kind in
    files)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      ;;
    dirs)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      ;;
    commands)
      mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
      ;;
    words)
      COMPREPLY=()
      local line
      for line in "${reply[@]:1}"; do
        line=${line%%$'\t'*}
        [[ ${words[-1]} == --*=* ]] && line=${line#*=}
        COMPREPLY+=("$line")
      done
      ;;
  esac
}

complete -F _bgtask bgtask
