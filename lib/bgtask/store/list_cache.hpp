#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/store/record_store.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace bgtask {

class TaskDir;

// When a directory's record files were listed: its change and modification
// times then (ns), and the wall clock when the listing began (ns).
struct DirStamp
{
  std::int64_t ctime_ns = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t listed_ns = 0;
};

// The record files of a directory, oldest first, and when they were listed.
struct RecordListing
{
  std::vector<RecordFile> files;
  DirStamp stamp;
  bool cached = false; // the files are the cache's own listing
};

// A derived index that spares `list` from parsing finished records again,
// and from reading a big directory that has not changed.
// - For each finished task it holds the fields `list` shows (see entry()),
//   keyed by the task's ID and the inode number of its record file. A
//   record is only ever replaced by renaming a new file over it, so the same
//   ID and inode mean the same record; a rewrite of a finished record (a
//   late event) also deletes the cache (forget_list_cache).
// - It holds the directory's record files as last listed, with the stamp of
//   that listing: creating, removing or renaming an entry changes the
//   directory's ctime, so while the ctime is as then, so is the listing.
// The cache is never the truth: one that is missing, torn, of another
// format, too big or not owned by the directory's owner is ignored, and
// `list` rebuilds it from the directory and the records.
class ListCache
{
public:
  ListCache() = default;
  ListCache(ListCache&&) = default; // the slots point into m_text's buffer, which moves along
  ListCache(const ListCache&) = delete;
  ListCache& operator=(const ListCache&) = delete;

  // The cache of `dir` (`.cache/list`), or an empty one when it has none
  // or it cannot be trusted. Never throws for a bad cache.
  static ListCache load(const TaskDir& dir);

  // The record files of `dir`: the cached listing when the directory's
  // ctime and mtime are still those of its stamp and the last change before
  // it was at least a second older than the listing (a change in the same
  // clock tick as the listing could leave the times as they were); else a
  // new scan (scan_record_files). Throws Error(failure) like that scan.
  RecordListing record_files(const TaskDir& dir) const;

  // The cached fields of `file`'s task, if the cache holds them for that
  // very record file: a TaskRecord with only id, state, exit_code, signal,
  // reason, started_at, duration_s, name, queue, shell, cwd and command set.
  // Safe to call from several threads.
  std::optional<TaskRecord> find(const RecordFile& file) const;

  // The cache line of a finished `record` read from inode `ino`, for save().
  static std::string entry(ino_t ino, const TaskRecord& record);

  // Writes the cache anew if it would change: `listing` (from
  // record_files()), each file with its line from `added` (entry() lines),
  // else the loaded one that find() matches. Replaced by rename, without
  // fsync: a cache lost to a crash is rebuilt. Errors are ignored (a
  // read-only directory keeps no cache).
  void save(const TaskDir& dir, const RecordListing& listing,
            const std::vector<std::string>& added) const;

private:
  struct Slot
  {
    std::string_view id;
    ino_t ino = 0;
    std::string_view line; // the whole line, its newline left out
  };

  // The slot of `file` if the cache holds its very record file.
  const Slot* match(const RecordFile& file) const;

  std::string m_text;        // the file as read
  std::vector<Slot> m_slots; // sorted by ID, pointing into m_text
  DirStamp m_stamp;          // of the listing the slots are
};

// Deletes the list cache of `dir` (errors ignored): for a writer that
// replaced a finished record, whose cached fields may now be stale.
void forget_list_cache(const TaskDir& dir);

} // namespace bgtask
