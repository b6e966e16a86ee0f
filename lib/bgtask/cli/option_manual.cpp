#include <bgtask/cli/global_options.hpp>
#include <bgtask/cli/option_help.hpp>
#include <bgtask/cli/option_manual.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace bgtask {

namespace {

constexpr std::string_view k_marker = "; options: ";
// The marker's name for the global options.
constexpr std::string_view k_global = "global";

// `text` with scdoc's markup characters escaped.
std::string escaped(std::string_view text)
{
  std::string out;
  for (const char c : text) {
    if (c == '\\' || c == '*' || c == '_') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

// Plain text with `code` in backquotes, as scdoc: the code in bold.
std::string marked_up(std::string_view text)
{
  std::string out;
  bool code = false;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto tick = text.find('`', at);
    const auto part = text.substr(at, tick == std::string_view::npos ? tick : tick - at);
    out += part.empty() ? "" : (code ? "*" + escaped(part) + "*" : escaped(part));
    if (tick == std::string_view::npos) {
      break;
    }
    code = !code;
    at = tick + 1;
  }
  return out;
}

// A summary line as a sentence: capitalised, with a full stop.
std::string as_sentence(std::string_view summary)
{
  std::string sentence = marked_up(summary);
  if (!sentence.empty() && std::islower(static_cast<unsigned char>(sentence[0])) != 0) {
    sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
  }
  if (!sentence.empty() && std::string_view(".?!").find(sentence.back()) == std::string::npos) {
    sentence += '.';
  }
  return sentence;
}

std::string entry_heading(const po::option_description& option)
{
  const std::string shown =
    option.canonical_display_name(po::command_line_style::allow_dash_for_short);
  std::string heading;
  if (shown.size() == 2 && shown[0] == '-') {
    heading += "*" + shown + "*, ";
  }
  heading += "*--" + option.long_name() + "*";
  if (option.semantic()->max_tokens() > 0) {
    heading += " _" + escaped(value_placeholder(option)) + "_";
  }
  return heading;
}

} // namespace

std::string format_options_scdoc(const po::options_description& options)
{
  std::string out;
  for (const auto& option : options.options()) {
    if (!out.empty()) {
      out += '\n';
    }
    out += entry_heading(*option) + "\n\t" + as_sentence(option_summary(*option));
    const std::string_view details = option_details(*option);
    if (!details.empty()) {
      out += ' ' + marked_up(details);
    }
    out += '\n';
  }
  return out;
}

Result<std::string> expand_option_markers(std::string_view page, std::span<const Command> commands)
{
  std::string out;
  std::set<std::string_view> expanded;
  std::size_t at = 0;
  while (at < page.size()) {
    const auto end = page.find('\n', at);
    const auto line = page.substr(at, end == std::string_view::npos ? end : end - at);
    at = end == std::string_view::npos ? page.size() : end + 1;
    if (!line.starts_with(k_marker)) {
      out.append(line).append("\n");
      continue;
    }
    const auto name = line.substr(k_marker.size());
    if (name == k_global) {
      if (!expanded.insert(k_global).second) {
        return Failure{"a second marker for the global options"};
      }
      out += format_options_scdoc(global_options());
      continue;
    }
    const Command* command = find_command(commands, name);
    if (command == nullptr || is_hidden(*command)) {
      return Failure{"no command '" + std::string(name) + "' for the marker '" + std::string(line) +
                     "'"};
    }
    if (!expanded.insert(command->name).second) {
      return Failure{"a second marker for the options of " + std::string(name)};
    }
    if (command->options != nullptr) {
      out += format_options_scdoc(command->options());
    }
  }
  if (!expanded.contains(k_global)) {
    return Failure{"no marker '" + std::string(k_marker) + std::string(k_global) + "'"};
  }
  for (const auto& command : commands) {
    if (!is_hidden(command) && !expanded.contains(command.name)) {
      return Failure{"no marker '" + std::string(k_marker) + std::string(command.name) + "'"};
    }
  }
  return out;
}

} // namespace bgtask
