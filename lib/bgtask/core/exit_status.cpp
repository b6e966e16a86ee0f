#include <bgtask/core/exit_status.hpp>
#include <bgtask/util/error.hpp>

namespace bgtask {

int exit_status_of(const TaskRecord& record)
{
  switch (record.state) {
  case TaskState::succeeded:
    return 0;
  case TaskState::failed:
    if (record.exit_code && *record.exit_code != 0) {
      return *record.exit_code;
    }
    return record.signal ? 128 + *record.signal : static_cast<int>(ExitCode::failure);
  case TaskState::timed_out:
    return static_cast<int>(ExitCode::timed_out);
  case TaskState::queued:
  case TaskState::running:
    return static_cast<int>(ExitCode::wait_gave_up);
  case TaskState::cancelled:
    return static_cast<int>(ExitCode::cancelled);
  case TaskState::lost:
    return static_cast<int>(ExitCode::lost);
  }
  return static_cast<int>(ExitCode::failure);
}

std::optional<int> wait_status_of(const TaskRecord& record)
{
  if (!is_final(record.state)) {
    return std::nullopt;
  }
  return exit_status_of(record);
}

int combined_exit_status(const std::vector<TaskRecord>& records)
{
  for (const auto& record : records) {
    if (const int status = exit_status_of(record); status != 0) {
      return status;
    }
  }
  return 0;
}

} // namespace bgtask
