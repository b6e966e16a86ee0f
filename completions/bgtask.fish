# fish completion for bgtask.
# Candidates come from `bgtask __complete WORD...`, which knows every command,
# option and task ID; this file only passes the words and shows the answer.

function __bgtask_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l reply ($words[1] __complete $words[2..-1] "$current" 2>/dev/null)
    test (count $reply) -gt 0; or return
    set -l head (string split -m 1 \t -- $reply[1])
    set -l prefix ''
    if test (count $head) -gt 1
        set prefix $head[2]
    end
    set -l value (string sub -s (math (string length -- "$prefix") + 1) -- "$current")
    switch $head[1]
        case files
            for path in (__fish_complete_path "$value")
                printf '%s%s\n' "$prefix" "$path"
            end
        case dirs
            for path in (__fish_complete_directories "$value")
                printf '%s%s\n' "$prefix" "$path"
            end
        case commands
            __fish_complete_command
        case words
            printf '%s\n' $reply[2..-1]
    end
end

complete -c bgtask -f -a '(__bgtask_complete)'
