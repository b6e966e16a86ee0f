#include <bgtask/util/error.hpp>

#include <cstring>

namespace bgtask {

Error::Error(ExitCode code, const std::string& message)
  : std::runtime_error(message),
    m_code(code)
{
}

void throw_usage(const std::string& message)
{
  throw Error(ExitCode::usage, message);
}

void throw_system(const std::string& what, int errnum)
{
  throw Error(ExitCode::failure, what + ": " + std::strerror(errnum));
}

} // namespace bgtask
