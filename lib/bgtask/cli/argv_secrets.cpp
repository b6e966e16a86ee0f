#include <bgtask/cli/argv_secrets.hpp>

#include <cstring>
#include <string_view>

namespace bgtask {

namespace {

// Replaces what follows the first '=' of `arg` with asterisks.
void hide_value(char* arg)
{
  char* equals = std::strchr(arg, '=');
  if (equals != nullptr) {
    std::memset(equals + 1, '*', std::strlen(equals + 1));
  }
}

} // namespace

void hide_env_values(int argc, char** argv)
{
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--") {
      return;
    }
    if (arg == "--env" && i + 1 < argc) {
      hide_value(argv[++i]);
    } else if (arg.starts_with("--env=")) {
      hide_value(argv[i] + 6);
    }
  }
}

} // namespace bgtask
