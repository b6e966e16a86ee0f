#include <bgtask/store/cache_folder.hpp>
#include <bgtask/store/list_cache.hpp>
#include <bgtask/store/owned_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/random_token.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

// `.cache/list`: a header line `bgtask-list-cache 1 ENTRIES BYTES HASH
// CTIME MTIME LISTED` (BYTES and HASH of the body after it; the listing's
// DirStamp in ns), then one line per record file in ID order: tab-separated
// fields (see ListCache::entry; `ID INO -` for a task that is not finished),
// each escaped (\\ \t \n); an optional field is empty when absent and starts
// with `+` when present. In the cache folder, so that writing the cache
// leaves the task directory's times alone (its listing stamp).
constexpr const char* k_name = "list";
constexpr const char* k_temp_prefix = "list.";
constexpr std::string_view k_magic = "bgtask-list-cache 1 ";
constexpr std::size_t k_max_bytes = std::size_t{256} << 20;

// A checksum that finds a torn or foreign body (not an adversary: the
// directory is its owner's alone), eight bytes at a time.
std::uint64_t body_hash(std::string_view body)
{
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ body.size();
  std::size_t i = 0;
  for (; i + 8 <= body.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, body.data() + i, 8);
    h = (h ^ word) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 29;
  }
  for (; i < body.size(); ++i) {
    h = (h ^ static_cast<unsigned char>(body[i])) * 0xC4CEB9FE1A85EC53ULL;
  }
  return h ^ (h >> 31);
}

void append_escaped(std::string& out, std::string_view text)
{
  for (const char c : text) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\n':
      out += "\\n";
      break;
    default:
      out += c;
    }
  }
}

// `field` with its escapes undone; nullopt where an escape is bad.
std::optional<std::string> unescaped(std::string_view field)
{
  if (field.find('\\') == std::string_view::npos) {
    return std::string(field);
  }
  std::string text;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\') {
      text += field[i];
      continue;
    }
    const char c = ++i < field.size() ? field[i] : '\0';
    if (c != '\\' && c != 't' && c != 'n') {
      return std::nullopt;
    }
    text += c == 't' ? '\t' : c == 'n' ? '\n' : '\\';
  }
  return text;
}

template <typename Number> bool parse_number(std::string_view text, Number& value, int base = 10)
{
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  return ec == std::errc() && ptr == end && !text.empty();
}

// An optional number field: empty, or the number.
template <typename Number> bool parse_optional(std::string_view text, std::optional<Number>& value)
{
  if (text.empty()) {
    value.reset();
    return true;
  }
  Number n{};
  if (!parse_number(text, n)) {
    return false;
  }
  value = n;
  return true;
}

// An optional text field: empty, or `+` and the escaped text.
bool parse_optional_text(std::string_view text, std::optional<std::string>& value)
{
  if (text.empty()) {
    value.reset();
    return true;
  }
  if (text.front() != '+') {
    return false;
  }
  value = unescaped(text.substr(1));
  return value.has_value();
}

// The bits of a double, in hex: exact, and quicker to read than a decimal.
std::string double_bits(double value)
{
  char text[17];
  const auto [end, ec] =
    std::to_chars(text, text + sizeof text, std::bit_cast<std::uint64_t>(value), 16);
  return std::string(text, ec == std::errc() ? end : text);
}

void append_optional_text(std::string& out, const std::optional<std::string>& value)
{
  if (value) {
    out += '+';
    append_escaped(out, *value);
  }
  out += '\t';
}

// The line's record, or nullopt if any field is malformed.
std::optional<TaskRecord> decode_line(std::string_view line)
{
  const auto f = split(line, '\t', EmptyParts::keep);
  constexpr std::size_t k_fixed = 12; // id .. cwd; the command's words follow
  if (f.size() < k_fixed) {
    return std::nullopt;
  }
  TaskRecord r;
  r.id = std::string(f[0]);
  const auto state = parse_task_state(f[2]);
  std::optional<std::int64_t> started_ms;
  std::uint64_t duration_bits = 0;
  auto cwd = unescaped(f[11]);
  if (!state || !is_final(*state) || !parse_optional(f[3], r.exit_code) ||
      !parse_optional(f[4], r.signal) || !parse_optional(f[5], started_ms) ||
      !(f[6].empty() || parse_number(f[6], duration_bits, 16)) ||
      !parse_optional_text(f[7], r.reason) || !parse_optional_text(f[8], r.name) ||
      !parse_optional_text(f[9], r.queue) || (f[10] != "0" && f[10] != "1") || !cwd) {
    return std::nullopt;
  }
  r.state = *state;
  if (started_ms) {
    r.started_at = TimePoint(std::chrono::milliseconds(*started_ms));
  }
  if (!f[6].empty()) {
    r.duration_s = std::bit_cast<double>(duration_bits);
  }
  r.shell = f[10] == "1";
  r.cwd = std::move(*cwd);
  for (std::size_t i = k_fixed; i < f.size(); ++i) {
    auto word = unescaped(f[i]);
    if (!word) {
      return std::nullopt;
    }
    r.command.push_back(std::move(*word));
  }
  return r;
}

// The cache file's text, or empty when it is absent or not to be trusted.
std::string read_cache_file(const TaskDir& dir)
{
  const UniqueFd folder = open_cache_folder(dir, CreateFolder::no);
  if (!folder) {
    return {};
  }
  auto file = read_owned_file_at(folder.get(), dir.owner(), k_name, k_max_bytes);
  return file.status == OwnedFile::Status::ok ? std::move(file.text) : std::string();
}

// The header's stamp and the body of `text`, if the header matches it.
std::optional<std::pair<DirStamp, std::string_view>> checked_body(std::string_view text)
{
  const auto eol = text.find('\n');
  if (!text.starts_with(k_magic) || eol == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string header(text.substr(k_magic.size(), eol - k_magic.size()));
  unsigned long long entries = 0;
  unsigned long long bytes = 0;
  unsigned long long hash = 0;
  long long ctime_ns = 0;
  long long mtime_ns = 0;
  long long listed_ns = 0;
  int used = 0;
  if (std::sscanf(header.c_str(), "%llu %llu %llx %lld %lld %lld%n", &entries, &bytes, &hash,
                  &ctime_ns, &mtime_ns, &listed_ns, &used) != 6 ||
      static_cast<std::size_t>(used) != header.size()) {
    return std::nullopt;
  }
  const auto body = text.substr(eol + 1);
  if (body.size() != bytes || body_hash(body) != hash) {
    return std::nullopt;
  }
  return std::pair(DirStamp{ctime_ns, mtime_ns, listed_ns}, body);
}

std::int64_t nanoseconds(const timespec& t)
{
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The directory's times now, and the wall clock.
DirStamp stamp_now(const TaskDir& dir)
{
  DirStamp stamp;
  struct stat st
  {
  };
  timespec clock{};
  if (::fstat(dir.fd(), &st) == 0 && ::clock_gettime(CLOCK_REALTIME, &clock) == 0) {
    stamp = DirStamp{nanoseconds(st.st_ctim), nanoseconds(st.st_mtim), nanoseconds(clock)};
  }
  return stamp;
}

// A listing that began this long after the directory's last change saw
// every change up to its stamp (far more than a clock tick).
constexpr std::int64_t k_settled_ns = 1'000'000'000;

bool is_settled(const DirStamp& stamp)
{
  return stamp.listed_ns != 0 && stamp.listed_ns - stamp.ctime_ns >= k_settled_ns &&
         stamp.listed_ns - stamp.mtime_ns >= k_settled_ns;
}

// The line of a task that is not finished (or not readable): only its
// record file, for the listing.
std::string listing_line(const RecordFile& file)
{
  return file.id + '\t' + std::to_string(file.ino) + "\t-";
}

} // namespace

ListCache ListCache::load(const TaskDir& dir)
{
  ListCache cache;
  cache.m_text = read_cache_file(dir);
  const auto checked = checked_body(cache.m_text);
  if (!checked) {
    cache.m_text.clear();
    return cache;
  }
  cache.m_stamp = checked->first;
  std::string_view rest = checked->second;
  while (!rest.empty()) {
    const auto eol = rest.find('\n');
    const auto line = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    const auto id_end = line.find('\t');
    const auto ino_end =
      line.find('\t', id_end == std::string_view::npos ? line.size() : id_end + 1);
    ino_t ino = 0; // 0 where the file system gives none: listed, never matched
    if (ino_end == std::string_view::npos ||
        !parse_number(line.substr(id_end + 1, ino_end - id_end - 1), ino)) {
      return ListCache(); // its listing would leave a task out: trust none of it
    }
    cache.m_slots.push_back(Slot{line.substr(0, id_end), ino, line});
  }
  const auto by_id = [](const Slot& a, const Slot& b) { return a.id < b.id; };
  if (!std::is_sorted(cache.m_slots.begin(), cache.m_slots.end(), by_id)) {
    std::sort(cache.m_slots.begin(), cache.m_slots.end(), by_id);
  }
  return cache;
}

RecordListing ListCache::record_files(const TaskDir& dir) const
{
  RecordListing listing;
  listing.stamp = stamp_now(dir);
  const DirStamp& s = listing.stamp;
  if (is_settled(m_stamp) && s.ctime_ns == m_stamp.ctime_ns && s.mtime_ns == m_stamp.mtime_ns) {
    listing.stamp = m_stamp; // the same listing, as settled as it was
    listing.cached = true;
    listing.files.reserve(m_slots.size());
    for (const auto& slot : m_slots) {
      listing.files.push_back(RecordFile{std::string(slot.id), slot.ino});
    }
    return listing;
  }
  listing.files = scan_record_files(dir);
  return listing;
}

const ListCache::Slot* ListCache::match(const RecordFile& file) const
{
  const auto slot =
    std::lower_bound(m_slots.begin(), m_slots.end(), file.id,
                     [](const Slot& s, const std::string& id) { return s.id < id; });
  if (file.ino == 0 || slot == m_slots.end() || slot->id != file.id || slot->ino != file.ino) {
    return nullptr;
  }
  return &*slot;
}

std::optional<TaskRecord> ListCache::find(const RecordFile& file) const
{
  const Slot* slot = match(file);
  return slot != nullptr ? decode_line(slot->line) : std::nullopt;
}

std::string ListCache::entry(ino_t ino, const TaskRecord& r)
{
  std::string line;
  append_escaped(line, r.id);
  line += '\t' + std::to_string(ino) + '\t';
  line += to_string(r.state);
  line += '\t';
  line += (r.exit_code ? std::to_string(*r.exit_code) : "") + '\t';
  line += (r.signal ? std::to_string(*r.signal) : "") + '\t';
  line += (r.started_at ? std::to_string(r.started_at->time_since_epoch().count()) : "") + '\t';
  line += (r.duration_s ? double_bits(*r.duration_s) : "") + '\t';
  append_optional_text(line, r.reason);
  append_optional_text(line, r.name);
  append_optional_text(line, r.queue);
  line += r.shell ? "1\t" : "0\t";
  append_escaped(line, r.cwd);
  for (const auto& word : r.command) {
    line += '\t';
    append_escaped(line, word);
  }
  return line;
}

void ListCache::save(const TaskDir& dir, const RecordListing& listing,
                     const std::vector<std::string>& added) const
{
  if (listing.cached && added.empty()) {
    return; // every line as it is
  }
  // In ID order (the ID is the first field), as the listing is.
  const auto id_of = [](std::string_view line) { return line.substr(0, line.find('\t')); };
  std::vector<std::string_view> fresh(added.begin(), added.end());
  std::sort(fresh.begin(), fresh.end(),
            [&](std::string_view a, std::string_view b) { return id_of(a) < id_of(b); });
  std::string body;
  std::size_t same = 0; // lines as they were
  auto next_fresh = fresh.begin();
  for (const auto& file : listing.files) {
    while (next_fresh != fresh.end() && id_of(*next_fresh) < file.id) {
      ++next_fresh;
    }
    if (next_fresh != fresh.end() && id_of(*next_fresh) == file.id) {
      body.append(*next_fresh); // read again: the cached line, if any, did not decode
    } else if (const Slot* slot = match(file)) {
      body.append(slot->line);
      ++same;
    } else {
      body.append(listing_line(file));
    }
    body.push_back('\n');
  }
  const bool trusted_already = is_settled(m_stamp) && listing.stamp.ctime_ns == m_stamp.ctime_ns &&
                               listing.stamp.mtime_ns == m_stamp.mtime_ns;
  if (same == m_slots.size() && same == listing.files.size() &&
      (trusted_already || !is_settled(listing.stamp))) {
    return; // nothing a later list could use more of
  }
  char header[160];
  std::snprintf(header, sizeof header,
                "%s%zu %zu %" PRIx64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", k_magic.data(),
                listing.files.size(), body.size(), body_hash(body), listing.stamp.ctime_ns,
                listing.stamp.mtime_ns, listing.stamp.listed_ns);
  const UniqueFd folder = open_cache_folder(dir, CreateFolder::yes);
  if (!folder) {
    return;
  }
  const std::string temp = k_temp_prefix + random_token().substr(0, 16) + ".tmp";
  UniqueFd fd =
    open_at(folder.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (!fd) {
    return;
  }
  const bool complete = write_all(fd.get(), header + body) == 0 && ::close(fd.release()) == 0;
  if (!complete || ::renameat(folder.get(), temp.c_str(), folder.get(), k_name) != 0) {
    ::unlinkat(folder.get(), temp.c_str(), 0);
  }
}

void forget_list_cache(const TaskDir& dir)
{
  const UniqueFd folder = open_cache_folder(dir, CreateFolder::no);
  if (folder) {
    ::unlinkat(folder.get(), k_name, 0);
  }
}

} // namespace bgtask
