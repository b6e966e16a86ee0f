#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/result.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace bgtask {

// The largest record any reader accepts, and the most any writer produces.
inline constexpr std::size_t k_max_record_bytes = 1024 * 1024;

// Converts a record to its JSON object (every documented key present,
// absent values as null). Strings are made valid UTF-8 first.
boost::json::value record_to_json(const TaskRecord& record);

// The head of a result about one task (`wait --until-*`, `output --json`,
// the agent tools): its id, state and exit_code (null until it has one).
boost::json::object task_outcome_to_json(const TaskRecord& record);

// A JSON array of records, in order.
boost::json::value records_to_json(const std::vector<TaskRecord>& records);

// What `--json` shows for a record that cannot be read: every key of a
// record, null but for `schema`, `id`, `state` ("corrupt"), and `error` and
// `unreadable` (both the reason). A record that was read has `unreadable` null.
boost::json::value corrupt_record_to_json(std::string_view id, std::string_view reason);

// Serializes a record as one compact JSON document followed by a newline.
std::string encode_record(const TaskRecord& record);

// Parses and validates a record; a failure gives a one-line reason (syntax,
// wrong schema, missing key, wrong type).
Result<TaskRecord> decode_record(std::string_view text);

} // namespace bgtask
