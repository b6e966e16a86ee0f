#include <bgtask/cli/console.hpp>
#include <bgtask/cli/global_options.hpp>
#include <bgtask/util/error.hpp>

#include <optional>

namespace bgtask {

po::options_description global_options()
{
  po::options_description options("Global options");
  options.add_options()("dir", po::value<std::string>()->value_name("DIR"),
                        "task directory (default: $BGTASK_DIR, else $XDG_STATE_HOME/bgtask, "
                        "else ~/.local/state/bgtask)\n"
                        "It may come before or after the command name (before a `--`).")(
    "color", po::value<std::string>()->value_name("auto|always|never"),
    "colour in tables: auto (default), always or never\n"
    "`auto` colours only on a terminal, unless `NO_COLOR` is set and not empty or `TERM` is "
    "`dumb`. May come after the command name, like `--dir`.")(
    "help,h", "show the commands; `bgtask COMMAND --help` shows a command's options")(
    "version", "show the version");
  return options;
}

namespace {

// One global option found in the arguments.
struct Found
{
  std::string name;
  std::optional<std::string> value;
  std::size_t words = 0; // how many arguments it took (1 or 2)
};

// The global option at args[i], or nullopt when args[i] is none.
// `with_value_only`: only options that take a value count.
std::optional<Found> global_option_at(const po::options_description& options,
                                      const std::vector<std::string>& args, std::size_t i,
                                      bool with_value_only)
{
  const std::string& arg = args[i];
  std::string name;
  std::optional<std::string> value;
  if (arg.starts_with("--")) {
    const auto equals = arg.find('=');
    name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    }
  } else if (arg.size() == 2 && arg[0] == '-') {
    const auto* option = options.find_nothrow(arg, false, false, false);
    if (option == nullptr || with_value_only) {
      return std::nullopt;
    }
    return Found{option->long_name(), std::nullopt, 1};
  } else {
    return std::nullopt;
  }
  const auto* option = options.find_nothrow(name, false, false, false);
  if (option == nullptr) {
    return std::nullopt;
  }
  const bool takes_value = option->semantic()->max_tokens() > 0;
  if (with_value_only && !takes_value) {
    return std::nullopt;
  }
  if (!takes_value) {
    if (value) {
      throw_usage("option '--" + name + "' takes no value (see bgtask --help)");
    }
    return Found{name, std::nullopt, 1};
  }
  if (value) {
    return Found{name, value, 1};
  }
  if (i + 1 == args.size()) {
    throw_usage("option '--" + name + "' requires an argument");
  }
  return Found{name, args[i + 1], 2};
}

ColorChoice parse_color(const std::string& value)
{
  if (value == "auto") {
    return ColorChoice::automatic;
  }
  if (value == "always") {
    return ColorChoice::always;
  }
  if (value == "never") {
    return ColorChoice::never;
  }
  throw_usage("--color must be auto, always or never, not '" + value + "'");
}

// Stores `value` in `slot`; the same value twice is fine, another is not.
template <typename T>
void store_once(std::optional<T>& slot, const T& value, const std::string& name)
{
  if (slot && *slot != value) {
    throw_usage("--" + name + " given twice, with different values");
  }
  slot = value;
}

void apply(GlobalOptions& global, const Found& found)
{
  if (found.name == "dir") {
    store_once(global.dir, *found.value, found.name);
  } else if (found.name == "color") {
    store_once(global.color, parse_color(*found.value), found.name);
  } else if (found.name == "help") {
    global.help = true;
  } else if (found.name == "version") {
    global.version = true;
  }
}

} // namespace

void take_leading_global_options(std::vector<std::string>& args, GlobalOptions& global)
{
  const po::options_description options = global_options();
  std::size_t i = 0;
  while (i < args.size() && args[i].starts_with('-')) {
    const auto found = global_option_at(options, args, i, false);
    if (!found) {
      throw_usage("unknown option '" + args[i] + "' (see bgtask --help)");
    }
    apply(global, *found);
    i += found->words;
  }
  args.erase(args.begin(), args.begin() + static_cast<long>(i));
}

void take_trailing_global_options(std::vector<std::string>& args, GlobalOptions& global)
{
  const po::options_description options = global_options();
  for (std::size_t i = 0; i < args.size() && args[i] != "--";) {
    const auto found = global_option_at(options, args, i, true);
    if (!found) {
      ++i;
      continue;
    }
    apply(global, *found);
    args.erase(args.begin() + static_cast<long>(i),
               args.begin() + static_cast<long>(i + found->words));
  }
}

} // namespace bgtask
