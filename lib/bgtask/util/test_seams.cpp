#include <bgtask/util/test_seams.hpp>

#include <csignal>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <unistd.h>

namespace bgtask {

#ifdef BGTASK_TEST_SEAMS

namespace {

const char* name_of(TestSeam seam)
{
  switch (seam) {
  case TestSeam::stop_supervisor:
    return "BGTASK_TEST_STOP_SUPERVISOR";
  case TestSeam::boot_id_file:
    return "BGTASK_TEST_BOOT_ID_FILE";
  case TestSeam::rename_noreplace_einval:
    return "BGTASK_TEST_RENAME_NOREPLACE_EINVAL";
  case TestSeam::clock_offset_file:
    return "BGTASK_TEST_CLOCK_OFFSET_FILE";
  case TestSeam::handoff_kill:
    return "BGTASK_TEST_HANDOFF_KILL";
  case TestSeam::group_start_kill:
    return "BGTASK_TEST_GROUP_START_KILL";
  }
  return "BGTASK_TEST_UNKNOWN";
}

} // namespace

const char* test_seam(TestSeam seam)
{
  return std::getenv(name_of(seam));
}

void clear_test_seam(TestSeam seam)
{
  ::unsetenv(name_of(seam));
}

bool test_seams_built()
{
  return true;
}

void kill_at_handoff_seam(const char* point)
{
  const char* value = test_seam(TestSeam::handoff_kill);
  if (value != nullptr && std::string_view(value) == point) {
    ::kill(::getpid(), SIGKILL);
  }
}

void kill_at_group_start_seam(const char* point)
{
  const char* value = test_seam(TestSeam::group_start_kill);
  if (value == nullptr) {
    return;
  }
  const std::string_view text(value);
  const auto at = text.find('@');
  if (text.substr(0, at) != point) {
    return;
  }
  const unsigned long nth =
    at == std::string_view::npos ? 1 : std::strtoul(value + at + 1, nullptr, 10);
  static std::map<std::string, unsigned long, std::less<>> reached;
  if (++reached[point] == nth) {
    ::kill(::getpid(), SIGKILL);
  }
}

#else

const char* test_seam(TestSeam)
{
  return nullptr;
}

void clear_test_seam(TestSeam)
{
}

bool test_seams_built()
{
  return false;
}

void kill_at_handoff_seam(const char*)
{
}

void kill_at_group_start_seam(const char*)
{
}

#endif

} // namespace bgtask
