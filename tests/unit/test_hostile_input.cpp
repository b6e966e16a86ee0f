// Inputs crafted to break parsers or terminals: malformed timestamps, names
// that only look like task files, records with a wrong type in every field,
// and bidi overrides in JSON.

#include <bgtask/core/record_json.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/timestamp.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace json = boost::json;

using bgtask::parse_task_file_name;
using bgtask::parse_timestamp;
using bgtask::TaskRecord;

namespace {

using namespace std::chrono_literals;

// A record with every optional part set, so every key has a typed value.
TaskRecord full_record()
{
  TaskRecord r;
  r.id = "0a1b2c3d4e5f";
  r.name = "nightly";
  r.command = {"make", "all"};
  r.cwd = "/src";
  r.env_names = {"TOKEN"};
  r.state = bgtask::TaskState::failed;
  r.exit_code = 2;
  r.signal = 9;
  r.error = "exited with status 2";
  r.created_at = bgtask::TimePoint(1'767'225'600'123ms);
  r.started_at = r.created_at;
  r.finished_at = r.created_at;
  r.duration_s = 1.5;
  r.timeout_s = 60.5;
  r.owner = bgtask::OwnerIdentity{4242, "00ff", 9, "boot", "host"};
  r.child = bgtask::ChildIdentity{4243, 4243, 10};
  r.cancel_request = bgtask::CancelRequest{r.created_at, 1.5};
  r.progress = bgtask::Progress{42.5, 17, 40, "linking", r.created_at};
  r.events = {{"started", r.created_at, "go"}};
  r.output = {"/x/0a1b2c3d4e5f.output", 12, true, 34, 5, bgtask::OutputRetention::head_and_tail};
  return r;
}

enum class Kind { string, integer, real, boolean, array, object, null };

Kind kind_of(const json::value& v)
{
  switch (v.kind()) {
  case json::kind::string:
    return Kind::string;
  case json::kind::int64:
  case json::kind::uint64:
    return Kind::integer;
  case json::kind::double_:
    return Kind::real;
  case json::kind::bool_:
    return Kind::boolean;
  case json::kind::array:
    return Kind::array;
  case json::kind::object:
    return Kind::object;
  case json::kind::null:
    return Kind::null;
  }
  return Kind::null;
}

// True if a parser expecting `expected` may accept `given` (an integer is a
// valid real number).
bool compatible(Kind expected, Kind given)
{
  return expected == given || (expected == Kind::real && given == Kind::integer);
}

const std::vector<json::value>& replacements()
{
  static const std::vector<json::value> values = {json::value("x"), json::value(7),
                                                  json::value(1.5), json::value(true),
                                                  json::array{},    json::object{}};
  return values;
}

struct Slot
{
  std::string name;                              // for messages
  std::string key;                               // what the rejection must name
  std::function<json::value&(json::object&)> at; // the slot in a fresh copy
};

// Every value in the record: top-level keys, keys of nested objects, and the
// first element of every array.
std::vector<Slot> every_slot(const json::object& record)
{
  std::vector<Slot> slots;
  for (const auto& top : record) {
    const std::string key(top.key());
    slots.push_back({key, key, [key](json::object& o) -> json::value& { return o[key]; }});
    if (top.value().is_object()) {
      for (const auto& inner : top.value().as_object()) {
        const std::string sub(inner.key());
        slots.push_back({key + "." + sub, sub, [key, sub](json::object& o) -> json::value& {
                           return o[key].as_object()[sub];
                         }});
      }
    }
    if (top.value().is_array() && !top.value().as_array().empty()) {
      slots.push_back({key + "[0]", key,
                       [key](json::object& o) -> json::value& { return o[key].as_array()[0]; }});
      if (top.value().as_array()[0].is_object()) {
        for (const auto& inner : top.value().as_array()[0].as_object()) {
          const std::string sub(inner.key());
          slots.push_back({key + "[0]." + sub, sub, [key, sub](json::object& o) -> json::value& {
                             return o[key].as_array()[0].as_object()[sub];
                           }});
        }
      }
    }
  }
  return slots;
}

} // namespace

TEST(HostileInput, TimestampsWithMalformedSecondsAreRejected)
{
  // The first one made date::parse convert a NaN to an integer (fuzzing).
  for (const char* text :
       {"2026-11-29T19:076:125.4Z", "2026-11-29T19:07:1e5.4Z", "2026-11-29T19:07:nan.000Z",
        "2026-11-29T19:07:-1.000Z", "2026-11-29T19:07:12.5e9Z", "+026-11-29T19:07:12.000Z"}) {
    EXPECT_EQ(parse_timestamp(text), std::nullopt) << text;
  }
  EXPECT_NE(parse_timestamp("2026-11-29T19:07:12.564Z"), std::nullopt);
}

TEST(HostileInput, TempNamesMustFollowTheTaskFileScheme)
{
  EXPECT_TRUE(parse_task_file_name(".0a1b2c3d4e5f.status.json.0123456789abcdef.tmp"));
  EXPECT_TRUE(parse_task_file_name(".0a1b2c3d4e5f.lock.0123456789abcdef.tmp"));
  for (const std::string& name : {
         std::string(".0a1b2c3d4e5f.notes.tmp"),
         std::string(".0a1b2c3d4e5f.my-notes.0123456789abcdef.tmp"),
         std::string(".0a1b2c3d4e5f.status.json.0123456789abcde.tmp"),
         std::string(".0a1b2c3d4e5f.status.json.0123456789abcdefa.tmp"),
         std::string(".0a1b2c3d4e5f.status.json.0123456789ABCDEF.tmp"),
         std::string(".0a1b2c3d4e5f.status.json.0123456789abcdeg.tmp"),
         std::string(".0a1b2c3d4e5f.status.json0123456789abcdef.tmp"),
         std::string("..0a1b2c3d4e5f.status.json.0123456789abcdef.tmp.0123456789abcdef.tmp"),
         std::string(".0a1b2c3d4e5f.x/../status.json.0123456789abcdef.tmp"),
         // Found by fuzzing: accepted before, with a slash and a NUL inside.
         std::string(".b2c3d4ed4e5f.\0\2st)at/us.jso456789abcdef.tmp", 44),
       }) {
    EXPECT_FALSE(parse_task_file_name(name)) << name;
  }
}

TEST(HostileInput, ARecordWithAWrongTypeInAnyFieldIsRejectedNamingTheField)
{
  const auto original = json::parse(bgtask::encode_record(full_record())).as_object();
  std::size_t checked = 0;
  for (const auto& slot : every_slot(original)) {
    auto probe = original;
    const Kind expected = kind_of(slot.at(probe));
    if (expected == Kind::null) {
      continue; // a field this record leaves empty has no type to contradict
    }
    for (const auto& replacement : replacements()) {
      if (compatible(expected, kind_of(replacement))) {
        continue;
      }
      auto copy = original;
      slot.at(copy) = replacement;
      const auto record = bgtask::decode_record(json::serialize(copy));
      ASSERT_FALSE(record.has_value()) << slot.name << " = " << json::serialize(replacement);
      const std::string& error = record.error();
      EXPECT_NE(error.find(slot.key), std::string::npos)
        << slot.name << " = " << json::serialize(replacement) << ": " << error;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200U);
}

TEST(HostileInput, JsonForATerminalEscapesBidiOverrides)
{
  // A task named with U+202E would otherwise reorder what `status --json` shows.
  EXPECT_EQ(bgtask::escape_json_for_terminal("{\"name\":\"a\xe2\x80\xae"
                                             "b\xe2\x81\xa6\"}"),
            "{\"name\":\"a\\u202eb\\u2066\"}");
  EXPECT_EQ(bgtask::escape_json_for_terminal("\"\xe2\x80\xa9\""), "\"\xe2\x80\xa9\"")
    << "U+2029 is not a bidi override";
}
