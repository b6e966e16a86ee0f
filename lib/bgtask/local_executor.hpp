#pragma once

#include <bgtask/executor.hpp>

namespace bgtask {

// Runs tasks on this host under a forked supervisor (supervisor.hpp).
class LocalExecutor final : public Executor
{
public:
  LaunchResult launch(const TaskDir& dir, TaskLock lock, LaunchRequest request) override;
  Liveness judge(const TaskRecord& record, TaskLock* lock) override;
  void stop_orphaned(const TaskRecord& record, Milliseconds grace) override;
};

} // namespace bgtask
