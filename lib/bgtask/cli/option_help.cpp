#include <bgtask/cli/option_help.hpp>

#include <boost/program_options/cmdline.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace bgtask {

namespace po = boost::program_options;

namespace {

constexpr std::size_t k_line = 80;
constexpr std::size_t k_max_name_column = 30;
constexpr std::size_t k_details_indent = 6;

// The placeholder of each option that takes a value, by long name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 27> k_placeholders{{
  {"after", "ID[,ID...]"},
  {"current", "N"},
  {"cwd", "DIR"},
  {"detach-after", "DUR"},
  {"env", "K=V"},
  {"executor", "local|slurm"},
  {"format", "FORMAT"},
  {"grace", "DUR"},
  {"keep", "N"},
  {"limit", "N"},
  {"max-bytes", "SIZE"},
  {"max-output", "SIZE"},
  {"max-running", "N"},
  {"message", "M"},
  {"name", "N"},
  {"older-than", "DUR"},
  {"on-exit", "'SHELL STRING'"},
  {"partition", "P"},
  {"percent", "P"},
  {"queue", "Q"},
  {"shell", "'SHELL STRING'"},
  {"slots", "N"},
  {"slurm-arg", "ARG"},
  {"slurm-time", "T"},
  {"state", "S[,S...]"},
  {"tail", "N"},
  {"timeout", "DUR"},
}};

std::string name_column(const po::option_description& option)
{
  const std::string shown =
    option.canonical_display_name(po::command_line_style::allow_dash_for_short);
  std::string text = "  ";
  if (shown.size() == 2 && shown[0] == '-') {
    text += shown + ", ";
  }
  text += "--" + option.long_name();
  if (option.semantic()->max_tokens() > 0) {
    text += " " + value_placeholder(option);
  }
  return text;
}

// `text` wrapped at word boundaries so that, indented by `indent`, no line
// passes k_line columns; continuation lines are indented.
std::string wrapped(const std::string& text, std::size_t indent)
{
  const std::size_t room = k_line > indent + 20 ? k_line - indent : 20;
  std::string out;
  std::size_t column = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto space = text.find(' ', at);
    const std::string word = text.substr(at, space == std::string::npos ? space : space - at);
    at = space == std::string::npos ? text.size() : space + 1;
    if (column > 0 && column + 1 + word.size() > room) {
      out += "\n" + std::string(indent, ' ');
      column = 0;
    } else if (column > 0) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out;
}

} // namespace

std::string value_placeholder(const po::option_description& option)
{
  std::string given = option.semantic()->name();
  if (!given.empty() && given != "arg") {
    return given;
  }
  const auto it = std::find_if(k_placeholders.begin(), k_placeholders.end(),
                               [&](const auto& p) { return p.first == option.long_name(); });
  if (it != k_placeholders.end()) {
    return std::string(it->second);
  }
  std::string upper = option.long_name();
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](char c) { return c == '-' ? '_' : static_cast<char>(std::toupper(c)); });
  return upper;
}

std::string_view option_summary(const po::option_description& option)
{
  const std::string_view text = option.description();
  return text.substr(0, text.find('\n'));
}

std::string_view option_details(const po::option_description& option)
{
  const std::string_view text = option.description();
  const auto newline = text.find('\n');
  return newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
}

std::string format_option_help(const po::options_description& options, std::string_view title)
{
  std::size_t width = 0;
  for (const auto& option : options.options()) {
    width = std::max(width, std::min(name_column(*option).size(), k_max_name_column));
  }
  std::string out = std::string(title) + ":\n";
  for (const auto& option : options.options()) {
    std::string line = name_column(*option);
    if (line.size() > width) {
      line += "\n" + std::string(width, ' ');
    } else {
      line.append(width - line.size(), ' ');
    }
    out += line + "  " + wrapped(std::string(option_summary(*option)), width + 2) + "\n";
    const std::string_view details = option_details(*option);
    if (!details.empty()) {
      const std::size_t indent = k_details_indent;
      out += std::string(indent, ' ') + wrapped(std::string(details), indent) + "\n";
    }
  }
  return out;
}

} // namespace bgtask
