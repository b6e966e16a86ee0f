#pragma once

#include <bgtask/cli/command.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bgtask {

// What the shell should offer for the word under the cursor: the listed
// candidates, or its own completion of paths, directories or command names.
enum class CompletionKind { words, files, directories, commands };

struct CompletionCandidate
{
  std::string word;
  std::string description; // one line, escaped for terminals; may be empty
};

struct Completion
{
  CompletionKind kind = CompletionKind::words;
  // The start of the word under the cursor that is not part of the value
  // being completed (`--cwd=` in `--cwd=/tm`); empty for most words.
  std::string prefix;
  // For `words`: every candidate, each starting with the word typed so far.
  std::vector<CompletionCandidate> candidates;
};

// Completes a bgtask command line. `words` are the arguments after `bgtask`
// up to the cursor; the last is the word being typed (empty after a space).
// Commands, their options and their operands come from the declarations in
// `commands` (sorted by name); task IDs, names and queues are read from the
// task directory the words select (or `dir`, else the default), which is
// never created or written.
Completion complete_command_line(std::span<const Command> commands,
                                 const std::vector<std::string>& words,
                                 const std::optional<std::string>& dir);

// The form the shell scripts read: a first line `KIND[\tPREFIX]` (KIND is
// words, files, dirs or commands), then one `WORD\tDESCRIPTION` line per
// candidate.
std::string format_completion(const Completion& completion);

} // namespace bgtask
