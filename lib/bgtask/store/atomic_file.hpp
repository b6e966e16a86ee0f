#pragma once

#include <functional>
#include <string_view>
#include <vector>

namespace bgtask {

class TaskDir;

// Replaces `name` in `dir` with `content` so that every reader sees either
// the old or the new file, and the new one is durable on return: a 0600
// temp in the same directory (O_EXCL, O_NOFOLLOW), a full write, fsync,
// close, renameat, fsync of the directory. On any failure the temp is
// removed, the old file is left untouched, and Error(failure) names the
// file and the system error. A failed attempt is never retried on the same
// temp (a failed fsync may have dropped the data).
void replace_file_atomically(const TaskDir& dir, std::string_view name, std::string_view content);

// Creates `name` in `dir` with `content` as replace_file_atomically does,
// unless `name` already exists: then nothing is changed and it returns
// false. The temp is moved into place with renameat2(RENAME_NOREPLACE) or,
// where the file system refuses that flag with EINVAL (NFS, FUSE), with
// link(2), which fails with EEXIST just as atomically; the temp is then
// unlinked. Error(failure) names the file, the step and the errno.
bool create_file_atomically(const TaskDir& dir, std::string_view name, std::string_view content);

// While one lives on this thread, replace_file_atomically in its directory
// leaves out the fsync of the directory and finish() does it once for all
// the files replaced meanwhile: a batch that rewrites many records (a
// reconciliation) pays one directory fsync, not one per record. Until
// finish() returns, a replaced file is complete and fsynced but its new name
// may not survive a power cut (the old file would then be back, never a
// torn one); readers fsync the directory before they report a final state
// they saw (exec/executors.cpp), so none reports one that is not durable.
class DirSyncBatch
{
public:
  explicit DirSyncBatch(const TaskDir& dir);
  ~DirSyncBatch(); // syncs what finish() did not (errors ignored)
  DirSyncBatch(const DirSyncBatch&) = delete;
  DirSyncBatch& operator=(const DirSyncBatch&) = delete;

  // Fsyncs the directory if a file was replaced since the batch began (or
  // the last finish); Error(failure) if that fails.
  void finish();

  // Used by replace_file_atomically: true (and the sync noted as pending)
  // if a batch of this thread covers `dir`.
  static bool defer(const TaskDir& dir);

  // If a batch of this thread covers `dir`: true, and `action` runs once
  // the batch's directory sync succeeded (never if it failed); it must not
  // throw. Else false, and nothing is kept.
  static bool after_sync(const TaskDir& dir, std::function<void()> action);

private:
  void run_after_sync();

  const TaskDir& m_dir;
  DirSyncBatch* m_outer;
  bool m_pending = false;
  std::vector<std::function<void()>> m_after_sync;
};

} // namespace bgtask
