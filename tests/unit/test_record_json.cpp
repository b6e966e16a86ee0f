#include <bgtask/core/record_json.hpp>
#include <bgtask/util/timestamp.hpp>
#include <bgtask/util/utf8.hpp>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace json = boost::json;

using bgtask::decode_record;
using bgtask::encode_record;
using bgtask::TaskRecord;
using bgtask::TaskState;
using bgtask::TimePoint;

namespace {

TimePoint at_ms(std::int64_t ms_since_epoch)
{
  return TimePoint(std::chrono::milliseconds(ms_since_epoch));
}

// A record with every optional part filled in.
TaskRecord full_record()
{
  TaskRecord r;
  r.generation = 7;
  r.id = "01hx2k3m4n5p";
  r.name = "nightly build";
  r.command = {"make", "-j2", "all"};
  r.shell = false;
  r.cwd = "/home/user/src";
  r.env_names = {"TOKEN", "MODE"};
  r.state = TaskState::failed;
  r.exit_code = 2;
  r.signal = 9;
  r.error = "exited with status 2";
  r.created_at = at_ms(1'767'225'600'123);
  r.started_at = at_ms(1'767'225'600'200);
  r.started_clock =
    bgtask::MonotonicMark{"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/time:[4026531834]", 123'456'789};
  r.finished_at = at_ms(1'767'225'660'450);
  r.duration_s = 60.25;
  r.timeout_s = 3600;
  r.grace_s = 2.5;
  r.owner = bgtask::OwnerIdentity{4242, "00112233445566778899aabbccddeeff", 987654,
                                  "6f1c2d3e-aaaa-bbbb-cccc-0123456789ab", "buildhost"};
  r.child = bgtask::ChildIdentity{4243, 4243, 987660};
  r.unsupervised = true;
  r.cancel_request = bgtask::CancelRequest{at_ms(1'767'225'650'000), 1.5};
  r.progress = bgtask::Progress{42.5, 17, 40, "linking", at_ms(1'767'225'640'000)};
  r.events = {{"started", at_ms(1'767'225'600'200), std::nullopt},
              {"progress", at_ms(1'767'225'640'000), "linking"},
              {"finished", at_ms(1'767'225'660'450), "failed"}};
  r.output = {"/home/user/.local/state/bgtask/01hx2k3m4n5p.output",
              12345,
              false,
              0,
              std::nullopt,
              bgtask::OutputRetention::head_only};
  return r;
}

// A freshly started record: everything optional left empty.
TaskRecord minimal_record()
{
  TaskRecord r;
  r.id = "01hx2k3m4n5q";
  r.command = {"true"};
  r.cwd = "/";
  r.created_at = at_ms(1'767'225'600'000);
  return r;
}

json::object as_object(const TaskRecord& record)
{
  const auto value = json::parse(encode_record(record));
  EXPECT_TRUE(value.is_object());
  return value.as_object();
}

TaskRecord decoded(std::string_view text)
{
  auto record = decode_record(text);
  EXPECT_TRUE(record.has_value()) << record.error();
  return record.value_or(TaskRecord{});
}

// The reason decode_record gives for rejecting `text`.
std::string rejection(std::string_view text)
{
  const auto record = decode_record(text);
  EXPECT_FALSE(record.has_value()) << "accepted: " << text.substr(0, 200);
  const std::string error = record.has_value() ? std::string() : record.error();
  EXPECT_FALSE(error.empty());
  return error;
}

// The full record's JSON with `key` set to `value`.
std::string with_field(std::string_view key, json::value value)
{
  auto o = as_object(full_record());
  o[key] = std::move(value);
  return json::serialize(o);
}

std::string without_field(std::string_view key)
{
  auto o = as_object(full_record());
  o.erase(key);
  return json::serialize(o);
}

std::string with_nested_field(std::string_view object, std::string_view key, json::value value)
{
  auto o = as_object(full_record());
  o[object].as_object()[key] = std::move(value);
  return json::serialize(o);
}

bool is_rfc3339_utc_ms(const json::value& v)
{
  static const std::regex pattern(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
  return v.is_string() && std::regex_match(std::string(v.as_string()), pattern);
}

} // namespace

TEST(RecordJson, RoundTripsAFullRecord)
{
  const TaskRecord original = full_record();
  const std::string text = encode_record(original);
  const TaskRecord r = decoded(text);

  EXPECT_EQ(r.schema, bgtask::k_record_schema);
  EXPECT_EQ(r.generation, 7u);
  EXPECT_EQ(r.id, original.id);
  EXPECT_EQ(r.name, original.name);
  EXPECT_EQ(r.command, original.command);
  EXPECT_EQ(r.shell, original.shell);
  EXPECT_EQ(r.cwd, original.cwd);
  EXPECT_EQ(r.env_names, original.env_names);
  EXPECT_EQ(r.state, original.state);
  EXPECT_EQ(r.exit_code, original.exit_code);
  EXPECT_EQ(r.signal, original.signal);
  EXPECT_EQ(r.error, original.error);
  EXPECT_EQ(r.created_at, original.created_at);
  EXPECT_EQ(r.started_at, original.started_at);
  ASSERT_TRUE(r.started_clock.has_value());
  EXPECT_EQ(r.started_clock->clock, original.started_clock->clock);
  EXPECT_EQ(r.started_clock->ms, original.started_clock->ms);
  EXPECT_EQ(r.finished_at, original.finished_at);
  EXPECT_EQ(r.duration_s, original.duration_s);
  EXPECT_EQ(r.timeout_s, original.timeout_s);
  EXPECT_EQ(r.grace_s, original.grace_s);
  EXPECT_EQ(r.executor, "local");
  ASSERT_TRUE(r.owner.has_value());
  EXPECT_EQ(r.owner->pid, 4242);
  EXPECT_EQ(r.owner->instance, original.owner->instance);
  EXPECT_EQ(r.owner->start_time, 987654u);
  EXPECT_EQ(r.owner->boot_id, original.owner->boot_id);
  EXPECT_EQ(r.owner->host, "buildhost");
  ASSERT_TRUE(r.child.has_value());
  EXPECT_EQ(r.child->pid, 4243);
  EXPECT_EQ(r.child->pgid, 4243);
  EXPECT_EQ(r.child->start_time, 987660u);
  EXPECT_TRUE(r.unsupervised);
  ASSERT_TRUE(r.cancel_request.has_value());
  EXPECT_EQ(r.cancel_request->at, original.cancel_request->at);
  EXPECT_EQ(r.cancel_request->grace_s, 1.5);
  ASSERT_TRUE(r.progress.has_value());
  EXPECT_EQ(r.progress->percent, 42.5);
  EXPECT_EQ(r.progress->current, 17);
  EXPECT_EQ(r.progress->total, 40);
  EXPECT_EQ(r.progress->message, "linking");
  EXPECT_EQ(r.progress->updated_at, original.progress->updated_at);
  ASSERT_EQ(r.events.size(), 3u);
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    EXPECT_EQ(r.events[i].kind, original.events[i].kind);
    EXPECT_EQ(r.events[i].at, original.events[i].at);
    EXPECT_EQ(r.events[i].message, original.events[i].message);
  }
  EXPECT_EQ(r.output.path, original.output.path);
  EXPECT_EQ(r.output.bytes, 12345u);
  EXPECT_EQ(encode_record(r), text);
}

TEST(RecordJson, RoundTripsAbsentValuesAsNulls)
{
  const std::string text = encode_record(minimal_record());
  const auto o = json::parse(text).as_object();
  for (const char* key :
       {"name", "exit_code", "signal", "error", "started_at", "finished_at", "duration_s",
        "timeout_s", "owner", "child", "progress", "cancel_request"}) {
    ASSERT_TRUE(o.contains(key)) << key;
    EXPECT_TRUE(o.at(key).is_null()) << key;
  }
  const TaskRecord r = decoded(text);
  EXPECT_FALSE(r.name);
  EXPECT_FALSE(r.exit_code);
  EXPECT_FALSE(r.signal);
  EXPECT_FALSE(r.error);
  EXPECT_FALSE(r.started_at);
  EXPECT_FALSE(r.finished_at);
  EXPECT_FALSE(r.duration_s);
  EXPECT_FALSE(r.timeout_s);
  EXPECT_FALSE(r.owner);
  EXPECT_FALSE(r.child);
  EXPECT_FALSE(r.progress);
  EXPECT_FALSE(r.cancel_request);
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(r.state, TaskState::running);
  EXPECT_EQ(encode_record(r), text);
}

TEST(RecordJson, KeepsNullsInsideProgress)
{
  TaskRecord original = minimal_record();
  original.progress = bgtask::Progress{std::nullopt, std::nullopt, std::nullopt, "starting",
                                       at_ms(1'767'225'600'500)};
  const auto o = as_object(original);
  const auto& progress = o.at("progress").as_object();
  EXPECT_TRUE(progress.at("percent").is_null());
  EXPECT_TRUE(progress.at("current").is_null());
  EXPECT_TRUE(progress.at("total").is_null());
  const TaskRecord r = decoded(encode_record(original));
  ASSERT_TRUE(r.progress);
  EXPECT_FALSE(r.progress->percent);
  EXPECT_FALSE(r.progress->current);
  EXPECT_FALSE(r.progress->total);
  EXPECT_EQ(r.progress->message, "starting");
}

TEST(RecordJson, WritesEveryDocumentedKey)
{
  for (const TaskRecord& record : {full_record(), minimal_record()}) {
    const auto o = as_object(record);
    for (const char* key :
         {"schema",    "id",     "name",  "command",    "shell",      "cwd",         "state",
          "exit_code", "signal", "error", "created_at", "started_at", "finished_at", "duration_s",
          "timeout_s", "owner",  "child", "progress",   "events",     "output"}) {
      EXPECT_TRUE(o.contains(key)) << key;
    }
    EXPECT_EQ(o.at("schema"), json::value(1));
    EXPECT_TRUE(o.at("command").is_array());
    EXPECT_TRUE(o.at("events").is_array());
    const auto& output = o.at("output").as_object();
    EXPECT_TRUE(output.contains("path"));
    EXPECT_TRUE(output.contains("bytes"));
  }
  const auto o = as_object(full_record());
  const auto& owner = o.at("owner").as_object();
  for (const char* key : {"pid", "instance", "start_time", "boot_id", "host"}) {
    EXPECT_TRUE(owner.contains(key)) << "owner." << key;
  }
  const auto& child = o.at("child").as_object();
  for (const char* key : {"pid", "pgid", "start_time"}) {
    EXPECT_TRUE(child.contains(key)) << "child." << key;
  }
  const auto& progress = o.at("progress").as_object();
  for (const char* key : {"percent", "current", "total", "message", "updated_at"}) {
    EXPECT_TRUE(progress.contains(key)) << "progress." << key;
  }
  for (const auto& event : o.at("events").as_array()) {
    EXPECT_TRUE(event.as_object().contains("kind"));
    EXPECT_TRUE(event.as_object().contains("at"));
  }
  EXPECT_EQ(o.at("state"), json::value("failed"));
}

TEST(RecordJson, AnUnreadableRecordHasEveryKeyOfARecord)
{
  const auto record = as_object(full_record());
  EXPECT_TRUE(record.at("unreadable").is_null());
  const json::value corrupt = bgtask::corrupt_record_to_json("01hx2k3m4n5p", "invalid JSON: x");
  const auto& o = corrupt.as_object();
  ASSERT_EQ(o.size(), record.size());
  for (const auto& entry : record) {
    ASSERT_TRUE(o.contains(entry.key())) << entry.key();
    const std::string key(entry.key());
    if (key == "schema") {
      EXPECT_EQ(o.at(key), json::value(1));
    } else if (key == "id") {
      EXPECT_EQ(o.at(key), json::value("01hx2k3m4n5p"));
    } else if (key == "state") {
      EXPECT_EQ(o.at(key), json::value("corrupt"));
    } else if (key == "error" || key == "unreadable") {
      EXPECT_EQ(o.at(key), json::value("invalid JSON: x")) << key;
    } else {
      EXPECT_TRUE(o.at(key).is_null()) << key;
    }
  }
}

TEST(RecordJson, WritesTimestampsAsRfc3339UtcWithMilliseconds)
{
  const auto o = as_object(full_record());
  for (const char* key : {"created_at", "started_at", "finished_at"}) {
    EXPECT_TRUE(is_rfc3339_utc_ms(o.at(key))) << key << ": " << json::serialize(o.at(key));
  }
  EXPECT_EQ(o.at("created_at"), json::value("2026-01-01T00:00:00.123Z"));
  EXPECT_TRUE(is_rfc3339_utc_ms(o.at("progress").as_object().at("updated_at")));
  for (const auto& event : o.at("events").as_array()) {
    EXPECT_TRUE(is_rfc3339_utc_ms(event.as_object().at("at")));
  }
}

TEST(RecordJson, EndsWithOneNewlineAndHoldsNoOtherLineBreak)
{
  TaskRecord record = full_record();
  record.name = "two\nlines";
  const std::string text = encode_record(record);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1);
}

TEST(RecordJson, IgnoresUnknownKeys)
{
  auto o = as_object(full_record());
  o["added_in_a_later_version"] = json::object{{"nested", json::array{1, 2, 3}}};
  o["owner"].as_object()["cgroup"] = "/user.slice";
  o["output"].as_object()["compressed"] = false;
  o["events"].as_array()[0].as_object()["extra"] = 1;
  const TaskRecord r = decoded(json::serialize(o));
  EXPECT_EQ(r.id, full_record().id);
  EXPECT_EQ(r.owner->host, "buildhost");
}

TEST(RecordJson, AcceptsMissingOptionalKeys)
{
  const std::string text = R"({"schema":1,"id":"01hx2k3m4n5p","command":["true"],)"
                           R"("state":"running","created_at":"2026-01-01T00:00:00.000Z"})";
  const TaskRecord r = decoded(text);
  EXPECT_EQ(r.id, "01hx2k3m4n5p");
  EXPECT_EQ(r.command, std::vector<std::string>{"true"});
  EXPECT_FALSE(r.owner);
  EXPECT_EQ(r.executor, "local");
}

TEST(RecordJson, RejectsAnotherSchemaVersion)
{
  EXPECT_NE(rejection(with_field("schema", 2)).find("schema"), std::string::npos);
  EXPECT_NE(rejection(with_field("schema", 0)).find("schema"), std::string::npos);
  EXPECT_NE(rejection(with_field("schema", "1")).find("schema"), std::string::npos);
  EXPECT_NE(rejection(without_field("schema")).find("schema"), std::string::npos);
}

TEST(RecordJson, RejectsAMissingOrMalformedId)
{
  EXPECT_NE(rejection(without_field("id")).find("id"), std::string::npos);
  EXPECT_NE(rejection(with_field("id", nullptr)).find("id"), std::string::npos);
  EXPECT_NE(rejection(with_field("id", 12)).find("id"), std::string::npos);
  EXPECT_NE(rejection(with_field("id", "../etc/passwd")).find("id"), std::string::npos);
  EXPECT_NE(rejection(with_field("id", "01HX2K3M4N5P")).find("id"), std::string::npos);
}

TEST(RecordJson, RejectsMissingRequiredKeys)
{
  for (const char* key : {"command", "state", "created_at"}) {
    EXPECT_NE(rejection(without_field(key)).find(key), std::string::npos) << key;
  }
}

TEST(RecordJson, RejectsWrongTypesNamingTheField)
{
  const std::pair<std::string, std::string> cases[] = {
    {with_field("command", "make all"), "command"},
    {with_field("command", json::array{"make", 3}), "command"},
    {with_field("shell", "yes"), "shell"},
    {with_field("cwd", 5), "cwd"},
    {with_field("name", json::array{}), "name"},
    {with_field("state", "exploded"), "state"},
    {with_field("state", 1), "state"},
    {with_field("exit_code", "2"), "exit_code"},
    {with_field("exit_code", 2.5), "exit_code"},
    {with_field("exit_code", 1e12), "exit_code"},
    {with_field("signal", true), "signal"},
    {with_field("error", 1), "error"},
    {with_field("created_at", "yesterday"), "created_at"},
    {with_field("created_at", "2026-01-01T00:00:00Z"), "created_at"},
    {with_field("started_at", 1767225600), "started_at"},
    {with_field("started_clock", 5), "started_clock"},
    {with_field("started_clock", json::object{{"clock", "b/t"}}), "ms"},
    {with_field("duration_s", "60"), "duration_s"},
    {with_field("timeout_s", json::object{}), "timeout_s"},
    {with_field("owner", json::array{}), "owner"},
    {with_field("child", "4243"), "child"},
    {with_field("progress", 42), "progress"},
    {with_field("events", json::object{}), "events"},
    {with_field("events", json::array{"started"}), "events"},
    {with_field("output", "/tmp/x"), "output"},
    {with_field("unsupervised", "no"), "unsupervised"},
    {with_nested_field("owner", "pid", "4242"), "owner.pid"},
    {with_nested_field("owner", "start_time", -1), "owner.start_time"},
    {with_nested_field("owner", "host", nullptr), "host"},
    {with_nested_field("child", "pgid", 1.5), "child.pgid"},
    {with_nested_field("owner", "pid", 0), "owner.pid"},
    {with_nested_field("child", "pid", -1), "child.pid"},
    {with_nested_field("child", "pgid", 0), "child.pgid"},
    {with_nested_field("progress", "percent", "half"), "percent"},
    {with_nested_field("progress", "current", 1.5), "progress.current"},
    {with_nested_field("progress", "updated_at", nullptr), "updated_at"},
    {with_nested_field("output", "bytes", -5), "output.bytes"},
  };
  for (const auto& [text, field] : cases) {
    const std::string reason = rejection(text);
    EXPECT_NE(reason.find(field), std::string::npos) << "reason '" << reason << "' for " << field;
  }
}

TEST(RecordJson, RejectsInvalidJson)
{
  EXPECT_NE(rejection("{\"schema\":1,").find("JSON"), std::string::npos);
  EXPECT_NE(rejection("not json at all").find("JSON"), std::string::npos);
  rejection("{\"schema\":1}{\"schema\":1}");
  rejection("{'schema':1}");
}

TEST(RecordJson, RejectsAnEmptyText)
{
  EXPECT_EQ(rejection(""), "empty file");
  rejection("   \n");
}

TEST(RecordJson, RejectsNulFilledText)
{
  const std::string zeros(4096, '\0');
  rejection(zeros);
  rejection(std::string_view("\0", 1));
}

TEST(RecordJson, RejectsEveryTruncation)
{
  const std::string text = encode_record(full_record());
  // Cutting just before the final "}\n" or earlier always breaks the document.
  for (std::size_t length = 0; length + 2 < text.size(); ++length) {
    const auto record = decode_record(std::string_view(text).substr(0, length));
    ASSERT_FALSE(record) << length;
    EXPECT_FALSE(record.error().empty()) << length;
  }
}

TEST(RecordJson, RejectsDeepNestingWithoutCrashing)
{
  const std::size_t depth = 100'000;
  rejection(std::string(depth, '[') + std::string(depth, ']'));
  std::string objects;
  for (std::size_t i = 0; i < depth; ++i) {
    objects += "{\"a\":";
  }
  objects += "1" + std::string(depth, '}');
  rejection(objects);
  auto o = as_object(full_record());
  json::value nested = 1;
  for (int i = 0; i < 200; ++i) {
    nested = json::array{nested};
  }
  o["extra"] = nested;
  rejection(json::serialize(o));
}

TEST(RecordJson, RejectsValuesOtherThanAnObject)
{
  EXPECT_EQ(rejection("[]"), "not a JSON object");
  EXPECT_EQ(rejection("null"), "not a JSON object");
  EXPECT_EQ(rejection("\"01hx2k3m4n5p\""), "not a JSON object");
}

TEST(RecordJson, RejectsTextLargerThanTheLimit)
{
  auto o = as_object(full_record());
  o["padding"] = std::string(bgtask::k_max_record_bytes, 'x');
  EXPECT_NE(rejection(json::serialize(o)).find("1 MiB"), std::string::npos);
}

TEST(RecordJson, KeepsInvalidUtf8InArgvParseable)
{
  TaskRecord record = full_record();
  record.command = {"printf", "\xff\xfe", "caf\xc3", "ok \xe2\x82\xac"};
  const std::string text = encode_record(record);
  EXPECT_TRUE(bgtask::is_valid_utf8(text));
  json::error_code ec;
  json::parse(text, ec);
  EXPECT_FALSE(ec) << ec.message();
  const TaskRecord r = decoded(text);
  ASSERT_EQ(r.command.size(), 4u);
  EXPECT_EQ(r.command[0], "printf");
  EXPECT_EQ(r.command[1], "\\xff\\xfe");
  EXPECT_EQ(r.command[2], "caf\\xc3");
  EXPECT_EQ(r.command[3], "ok \xe2\x82\xac");
}

TEST(RecordJson, KeepsInvalidUtf8InEveryStringFieldParseable)
{
  TaskRecord record = full_record();
  const std::string bad = "x\xff\xc0y";
  record.name = bad;
  record.cwd = "/tmp/" + bad;
  record.env_names = {bad};
  record.error = bad;
  record.owner->host = bad;
  record.owner->boot_id = bad;
  record.owner->instance = bad;
  record.progress->message = bad;
  record.events.push_back({"progress", at_ms(1'767'225'641'000), bad});
  record.output.path = "/tmp/" + bad;
  record.executor = bad;
  const std::string text = encode_record(record);
  EXPECT_TRUE(bgtask::is_valid_utf8(text));
  const TaskRecord r = decoded(text);
  ASSERT_TRUE(r.owner.has_value());
  EXPECT_EQ(r.name, bgtask::to_valid_utf8(bad));
  EXPECT_EQ(r.cwd, "/tmp/" + bgtask::to_valid_utf8(bad));
  EXPECT_EQ(r.owner->host, bgtask::to_valid_utf8(bad));
  EXPECT_EQ(r.owner->boot_id, bgtask::to_valid_utf8(bad));
  EXPECT_EQ(r.owner->instance, bgtask::to_valid_utf8(bad));
  EXPECT_EQ(r.executor, bgtask::to_valid_utf8(bad));
}

TEST(RecordJson, KeepsARecordWithAMalformedIdParseableAndRejectsIt)
{
  TaskRecord record = full_record();
  record.id = "01hx2k3m4n\xff";
  const std::string text = encode_record(record);
  json::error_code ec;
  json::parse(text, ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_NE(rejection(text).find("id"), std::string::npos);
}

TEST(RecordJson, KeepsControlCharactersAndQuotesIntact)
{
  TaskRecord record = full_record();
  record.command = {"sh", "-c", "echo \"a\tb\" \\ \x01\x1b[31m"};
  const TaskRecord r = decoded(encode_record(record));
  EXPECT_EQ(r.command, record.command);
}

TEST(RecordJson, RoundTripsTheLifecycleFields)
{
  TaskRecord original = full_record();
  original.options.max_output = 1048576;
  original.options.partition = "short";
  original.options.slurm_time = "10:00";
  original.options.slurm_args = {"--mem=1G"};
  original.options.retry = bgtask::RetryPolicy{3, 1.5, {1, 75}, true};
  original.options.limits = bgtask::ResourceLimits{64 << 20, 32, 0.5};
  original.attempts = {
    {1, at_ms(1'767'225'600'200), at_ms(1'767'225'601'000), 1, std::nullopt, "failed"},
    {2, at_ms(1'767'225'602'000), std::nullopt, std::nullopt, 9, "oom"}};
  original.retry_at = at_ms(1'767'225'603'000);
  original.rerun_of = "01hx2k3m4n5q";
  original.pause = bgtask::PauseInfo{true, true, at_ms(1'767'225'604'000), 2.25};
  original.cgroup = "/sys/fs/cgroup/memory/bgtask/01hx2k3m4n5p";
  original.memory_peak = 67108864;
  original.reason = "oom";
  const std::string text = encode_record(original);
  const TaskRecord r = decoded(text);
  EXPECT_EQ(r.options.max_output, 1048576U);
  EXPECT_EQ(r.options.partition, "short");
  EXPECT_EQ(r.options.slurm_time, "10:00");
  EXPECT_EQ(r.options.slurm_args, std::vector<std::string>{"--mem=1G"});
  ASSERT_TRUE(r.options.retry);
  EXPECT_EQ(r.options.retry->max_retries, 3);
  EXPECT_EQ(r.options.retry->delay_s, 1.5);
  EXPECT_EQ(r.options.retry->on_exit_codes, (std::vector<int>{1, 75}));
  EXPECT_TRUE(r.options.retry->on_timeout);
  EXPECT_EQ(r.options.limits.memory_max, std::uint64_t{64 << 20});
  EXPECT_EQ(r.options.limits.pids_max, 32U);
  EXPECT_EQ(r.options.limits.cpu_max, 0.5);
  ASSERT_EQ(r.attempts.size(), 2U);
  EXPECT_EQ(r.attempts[0].exit_code, 1);
  EXPECT_EQ(r.attempts[1].signal, 9);
  EXPECT_FALSE(r.attempts[1].finished_at);
  EXPECT_EQ(r.attempts[1].outcome, "oom");
  EXPECT_EQ(r.retry_at, at_ms(1'767'225'603'000));
  EXPECT_EQ(r.rerun_of, "01hx2k3m4n5q");
  EXPECT_TRUE(r.pause.requested);
  EXPECT_TRUE(r.pause.paused);
  EXPECT_EQ(r.pause.paused_s, 2.25);
  EXPECT_EQ(r.cgroup, original.cgroup);
  EXPECT_EQ(r.memory_peak, 67108864U);
  EXPECT_EQ(r.reason, "oom");
  EXPECT_EQ(encode_record(r), text);
  EXPECT_EQ(as_object(original).at("paused"), json::value(true));
}

TEST(RecordJson, ReadsARecordWrittenBeforeTheLifecycleFields)
{
  auto o = as_object(full_record());
  for (const char* key : {"options", "attempts", "retry_at", "rerun_of", "pause", "paused",
                          "cgroup", "memory_peak", "reason"}) {
    ASSERT_TRUE(o.contains(key)) << key;
    o.erase(key);
  }
  const TaskRecord r = decoded(json::serialize(o));
  EXPECT_FALSE(r.options.retry);
  EXPECT_FALSE(r.options.limits.any());
  EXPECT_TRUE(r.attempts.empty());
  EXPECT_FALSE(r.pause.paused);
  EXPECT_FALSE(r.reason);
  EXPECT_EQ(r.exit_code, 2);
}

TEST(RecordJson, RejectsMalformedLifecycleFields)
{
  EXPECT_NE(rejection(with_field("attempts", json::value("x"))).find("attempts"),
            std::string::npos);
  EXPECT_NE(rejection(with_field("rerun_of", json::value("../x"))).find("rerun_of"),
            std::string::npos);
  EXPECT_NE(rejection(with_nested_field("options", "retry", json::object{{"max_retries", -1}}))
              .find("max_retries"),
            std::string::npos);
  EXPECT_NE(rejection(with_nested_field("pause", "paused", json::value(3))).find("paused"),
            std::string::npos);
}
