#include <bgtask/cli/command.hpp>
#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/completion.hpp>
#include <bgtask/cli/global_options.hpp>
#include <bgtask/cli/option_help.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <span>
#include <sys/stat.h>

namespace bgtask {

namespace {

constexpr std::array<std::string_view, 3> k_list_formats{"table", "json", "jsonl"};

constexpr std::array<std::string_view, 1> k_retry_conditions{"timed_out"};

constexpr std::array<std::string_view, 3> k_color_choices{"auto", "always", "never"};

constexpr std::size_t k_max_description_chars = 60;

// Commands whose ID arguments only make sense for unfinished tasks.
constexpr std::array<std::string_view, 4> k_unfinished_only{"cancel", "pause", "progress",
                                                            "resume"};

// One option as completion needs it.
struct OptionSpec
{
  std::string long_name;  // without `--`; empty if the option has none
  std::string short_name; // `-c`, or empty
  bool takes_value = false;
  std::string description;

  std::string word() const { return long_name.empty() ? short_name : "--" + long_name; }
};

// The command being completed and what it accepts.
struct CommandSpec
{
  std::string name;
  std::vector<OptionSpec> options;
  Operands operands = Operands::none;

  const OptionSpec* find_long(std::string_view long_name) const
  {
    const auto it = std::find_if(options.begin(), options.end(), [&](const OptionSpec& o) {
      return !long_name.empty() && o.long_name == long_name;
    });
    return it == options.end() ? nullptr : &*it;
  }

  const OptionSpec* find_short(char letter) const
  {
    const auto it = std::find_if(options.begin(), options.end(), [&](const OptionSpec& o) {
      return o.short_name.size() == 2 && o.short_name[1] == letter;
    });
    return it == options.end() ? nullptr : &*it;
  }
};

// `text` shortened to one line that is safe on a terminal and in the
// tab-separated output.
std::string one_line(std::string_view text)
{
  std::string line;
  std::size_t chars = 0;
  for (const char c : escape_for_terminal(text, KeepNewlines::no)) {
    if ((c & 0xC0) != 0x80 && ++chars > k_max_description_chars) {
      line += "...";
      break;
    }
    line += c == '\t' ? ' ' : c;
  }
  return line;
}

// True for words a shell can insert without quoting.
bool is_plain_word(std::string_view word)
{
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte > 0x20 && byte != 0x7F &&
           std::string_view("'\"\\$`;&|<>()*?[]{}~#!").find(c) == std::string_view::npos;
  });
}

Completion words(std::vector<CompletionCandidate> candidates, std::string_view typed)
{
  Completion completion;
  for (auto& candidate : candidates) {
    if (candidate.word.starts_with(typed)) {
      completion.candidates.push_back(std::move(candidate));
    }
  }
  return completion;
}

Completion shell_completion(CompletionKind kind, std::string prefix)
{
  Completion completion;
  completion.kind = kind;
  completion.prefix = std::move(prefix);
  return completion;
}

// How many operands a command of this kind takes at most.
std::size_t max_operands(Operands operands)
{
  switch (operands) {
  case Operands::task_id:
  case Operands::optional_task_id:
  case Operands::optional_queue:
    return 1;
  case Operands::task_ids:
  case Operands::any_task_ids:
    return std::numeric_limits<std::size_t>::max();
  case Operands::none:
  case Operands::command:
  case Operands::words:
    break;
  }
  return 0;
}

OptionSpec describe_option(const po::option_description& option)
{
  OptionSpec o;
  o.long_name = option.long_name();
  const auto display = option.canonical_display_name(po::command_line_style::allow_dash_for_short);
  if (display.size() == 2 && display[0] == '-') {
    o.short_name = display;
  }
  o.takes_value = option.semantic()->max_tokens() > 0;
  o.description = one_line(option_summary(option));
  return o;
}

// The global options, as a command without operands.
CommandSpec describe_globals()
{
  CommandSpec spec;
  const po::options_description options = global_options();
  for (const auto& option : options.options()) {
    spec.options.push_back(describe_option(*option));
  }
  return spec;
}

// A command's options, with the global ones that may follow its name.
CommandSpec describe(const Command& command)
{
  CommandSpec spec;
  spec.name = command.name;
  spec.operands = command.operands;
  const po::options_description options = visible_options(command);
  for (const auto& option : options.options()) {
    spec.options.push_back(describe_option(*option));
  }
  for (auto& option : describe_globals().options) {
    if (option.takes_value) {
      spec.options.push_back(std::move(option));
    }
  }
  return spec;
}

std::vector<CompletionCandidate> command_candidates(std::span<const Command> commands)
{
  std::vector<CompletionCandidate> candidates;
  for (const auto& command : commands) {
    if (!is_hidden(command)) {
      candidates.push_back({std::string(command.name), one_line(command.summary)});
    }
  }
  candidates.push_back({"help", "show the help of a command"});
  return candidates;
}

std::vector<CompletionCandidate> option_candidates(const CommandSpec& spec)
{
  std::vector<CompletionCandidate> candidates;
  for (const auto& option : spec.options) {
    candidates.push_back({option.word(), option.description});
  }
  return candidates;
}

// The task directory, opened only if it already exists.
std::optional<TaskDir> existing_task_dir(const std::optional<std::string>& dir_option)
{
  const std::string path = TaskDir::resolve_path(dir_option);
  struct stat st
  {
  };
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return std::nullopt;
  }
  return TaskDir::open(path);
}

enum class Unfinished { only, any };

std::vector<CompletionCandidate> id_candidates(const std::optional<std::string>& dir_option,
                                               std::string_view typed, Unfinished which)
{
  std::vector<CompletionCandidate> candidates;
  const auto dir = existing_task_dir(dir_option);
  if (!dir) {
    return candidates;
  }
  for (const auto& id : scan_task_ids(*dir)) {
    if (!id.starts_with(typed)) {
      continue;
    }
    const auto loaded = load_record(*dir, id);
    if (loaded.status == LoadStatus::missing) {
      continue;
    }
    if (loaded.status == LoadStatus::corrupt) {
      if (which == Unfinished::any) {
        candidates.push_back({id, "corrupt"});
      }
      continue;
    }
    const auto& record = loaded.record;
    if (which == Unfinished::only && is_final(record.state)) {
      continue;
    }
    candidates.push_back({id, one_line(std::string(to_string(record.state)) + "  " +
                                       (record.name ? *record.name : command_text(record)))});
  }
  return candidates;
}

// One candidate per value, each described as `description`.
std::vector<CompletionCandidate> described(const std::set<std::string>& values,
                                           std::string_view description)
{
  std::vector<CompletionCandidate> candidates;
  candidates.reserve(values.size());
  for (const auto& value : values) {
    candidates.push_back({value, std::string(description)});
  }
  return candidates;
}

std::vector<CompletionCandidate> name_candidates(const std::optional<std::string>& dir_option)
{
  std::set<std::string> names;
  if (const auto dir = existing_task_dir(dir_option)) {
    for (const auto& record :
         load_records(*dir, [](const TaskRecord& r) { return r.name && is_plain_word(*r.name); })) {
      names.insert(*record.name);
    }
  }
  return described(names, "task name");
}

// Queues with settings, and queues that unfinished tasks wait in or run in.
std::vector<CompletionCandidate> queue_candidates(const std::optional<std::string>& dir_option)
{
  std::set<std::string> queues;
  if (const auto dir = existing_task_dir(dir_option)) {
    for (auto& queue : scan_queue_names(*dir)) {
      queues.insert(std::move(queue));
    }
    for (const auto& record : load_records(*dir, [](const TaskRecord& r) {
           return r.queue && !is_final(r.state) && is_queue_name(*r.queue);
         })) {
      queues.insert(*record.queue);
    }
  }
  return described(queues, "queue");
}

std::vector<CompletionCandidate> state_candidates(std::string_view command)
{
  std::vector<CompletionCandidate> candidates;
  for (const auto& [state, name] : k_task_states) {
    if (command != "cleanup" || is_final(state)) {
      candidates.push_back({std::string(name), "state"});
    }
  }
  if (command == "list") {
    candidates.push_back({"corrupt", "a record that cannot be read"});
  }
  return candidates;
}

// Completes the last item of a comma-separated list such as `failed,lo`:
// each candidate not chosen yet, after the items already typed.
Completion complete_list_item(std::vector<CompletionCandidate> items, std::string_view typed,
                              const std::string& prefix)
{
  const auto comma = typed.rfind(',');
  const std::string done =
    comma == std::string_view::npos ? "" : std::string(typed.substr(0, comma + 1));
  const auto chosen = split_list(done);
  std::vector<CompletionCandidate> candidates;
  for (auto& item : items) {
    if (std::find(chosen.begin(), chosen.end(), item.word) == chosen.end()) {
      candidates.push_back({prefix + done + item.word, std::move(item.description)});
    }
  }
  return words(std::move(candidates), prefix + std::string(typed));
}

template <std::size_t N>
Completion fixed_values(const std::array<std::string_view, N>& values, std::string_view description,
                        std::string_view typed, const std::string& prefix)
{
  std::vector<CompletionCandidate> candidates;
  candidates.reserve(values.size());
  for (const auto value : values) {
    candidates.push_back({prefix + std::string(value), std::string(description)});
  }
  return words(std::move(candidates), prefix + std::string(typed));
}

struct Context
{
  std::optional<std::string> dir;
};

// Completes the value of `option`; `prefix` is what precedes the value in
// the word under the cursor (`--state=`), `typed` the value so far.
Completion complete_value(const Context& context, const CommandSpec& spec, const OptionSpec& option,
                          std::string_view typed, const std::string& prefix)
{
  const std::string& name = option.long_name;
  if (name == "dir" || name == "cwd") {
    return shell_completion(CompletionKind::directories, prefix);
  }
  if (name == "state") {
    return complete_list_item(state_candidates(spec.name), typed, prefix);
  }
  if (name == "format" && spec.name == "list") {
    return fixed_values(k_list_formats, "output format", typed, prefix);
  }
  if (name == "color") {
    return fixed_values(k_color_choices, "when to colour", typed, prefix);
  }
  if (name == "executor") {
    return fixed_values(k_executor_names, "executor", typed, prefix);
  }
  if (name == "retry-on") {
    return fixed_values(k_retry_conditions, "retry condition", typed, prefix);
  }
  if (name == "env-file") {
    return shell_completion(CompletionKind::files, prefix);
  }
  if (name == "queue") {
    auto queues = queue_candidates(context.dir);
    for (auto& candidate : queues) {
      candidate.word.insert(0, prefix);
    }
    return words(std::move(queues), prefix + std::string(typed));
  }
  if (name == "name") {
    auto names = name_candidates(context.dir);
    for (auto& candidate : names) {
      candidate.word.insert(0, prefix);
    }
    return words(std::move(names), prefix + std::string(typed));
  }
  if (name == "after") {
    const auto comma = typed.rfind(',');
    const auto last = comma == std::string_view::npos ? typed : typed.substr(comma + 1);
    return complete_list_item(id_candidates(context.dir, last, Unfinished::any), typed, prefix);
  }
  return {};
}

// Completes the arguments of `spec`'s command; the last of `args` is the
// word under the cursor.
Completion complete_arguments(const Context& context, const CommandSpec& spec,
                              std::span<const std::string> args)
{
  const std::string& typed = args.back();
  const OptionSpec* pending = nullptr;
  bool after_separator = false;
  std::size_t positionals = 0;
  std::size_t passed_through = 0;
  for (const auto& word : args.first(args.size() - 1)) {
    if (after_separator) {
      ++passed_through;
    } else if (pending != nullptr) {
      pending = nullptr;
    } else if (word == "--") {
      after_separator = true;
    } else if (word.starts_with("--")) {
      const auto equals = word.find('=');
      const auto* option = spec.find_long(std::string_view(word).substr(2, equals - 2));
      if (option != nullptr && option->takes_value && equals == std::string::npos) {
        pending = option;
      }
    } else if (word.size() > 1 && word[0] == '-') {
      const auto* option = spec.find_short(word[1]);
      if (option != nullptr && option->takes_value && word.size() == 2) {
        pending = option;
      }
    } else {
      ++positionals;
    }
  }
  if (pending != nullptr) {
    return complete_value(context, spec, *pending, typed, "");
  }
  const std::size_t operands = max_operands(spec.operands);
  if (after_separator && operands == 0) {
    // `start -- CMD ARG...`: the command to run, then its arguments.
    return shell_completion(passed_through == 0 ? CompletionKind::commands : CompletionKind::files,
                            "");
  }
  if (!after_separator && typed.starts_with("--") && typed.find('=') != std::string::npos) {
    const auto equals = typed.find('=');
    const auto* option = spec.find_long(std::string_view(typed).substr(2, equals - 2));
    if (option == nullptr || !option->takes_value) {
      return {};
    }
    return complete_value(context, spec, *option, std::string_view(typed).substr(equals + 1),
                          typed.substr(0, equals + 1));
  }
  if (!after_separator && typed.starts_with('-')) {
    return words(option_candidates(spec), typed);
  }
  if (positionals < operands) {
    if (spec.operands == Operands::optional_queue) {
      return words(queue_candidates(context.dir), typed);
    }
    const bool unfinished_only = std::find(k_unfinished_only.begin(), k_unfinished_only.end(),
                                           spec.name) != k_unfinished_only.end();
    return words(
      id_candidates(context.dir, typed, unfinished_only ? Unfinished::only : Unfinished::any),
      typed);
  }
  return words(option_candidates(spec), typed);
}

} // namespace

Completion complete_command_line(std::span<const Command> commands,
                                 const std::vector<std::string>& words_in,
                                 const std::optional<std::string>& dir)
{
  const std::vector<std::string> args = words_in.empty() ? std::vector<std::string>{""} : words_in;
  const std::string& typed = args.back();
  const std::size_t last = args.size() - 1;
  if (typed.find_first_of("\t\n") != std::string::npos) {
    return {};
  }
  Context context{dir};
  const CommandSpec globals = describe_globals();
  std::size_t i = 0;
  while (i < last && args[i].starts_with("--")) {
    const auto equals = args[i].find('=');
    const std::string name =
      args[i].substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    const OptionSpec* option = globals.find_long(name);
    if (option != nullptr && option->takes_value && equals == std::string::npos) {
      if (i + 1 == last) {
        return complete_value(context, globals, *option, typed, "");
      }
      if (name == "dir") {
        context.dir = args[i + 1];
      }
      i += 2;
      continue;
    }
    if (name == "dir" && equals != std::string::npos) {
      context.dir = args[i].substr(equals + 1);
    }
    ++i;
  }
  while (i < last && args[i].starts_with('-')) {
    ++i;
  }
  if (i == last) {
    if (const auto equals = typed.find('=');
        typed.starts_with("--") && equals != std::string::npos) {
      const OptionSpec* option = globals.find_long(typed.substr(2, equals - 2));
      if (option != nullptr && option->takes_value) {
        return complete_value(context, globals, *option, std::string_view(typed).substr(equals + 1),
                              typed.substr(0, equals + 1));
      }
      return {};
    }
    if (typed.starts_with('-')) {
      return words(option_candidates(globals), typed);
    }
    return words(command_candidates(commands), typed);
  }
  if (args[i] == "help") {
    return i + 1 == last ? words(command_candidates(commands), typed) : Completion{};
  }
  const Command* command = find_command(commands, args[i]);
  if (command == nullptr || is_hidden(*command)) {
    return {};
  }
  const CommandSpec spec = describe(*command);
  return complete_arguments(context, spec, std::span<const std::string>(args).subspan(i + 1));
}

std::string format_completion(const Completion& completion)
{
  std::string out;
  switch (completion.kind) {
  case CompletionKind::words:
    out = "words";
    break;
  case CompletionKind::files:
    out = "files";
    break;
  case CompletionKind::directories:
    out = "dirs";
    break;
  case CompletionKind::commands:
    out = "commands";
    break;
  }
  if (!completion.prefix.empty()) {
    out += '\t' + completion.prefix;
  }
  out += '\n';
  for (const auto& candidate : completion.candidates) {
    out += candidate.word + '\t' + candidate.description + '\n';
  }
  return out;
}

} // namespace bgtask
