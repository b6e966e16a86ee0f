#pragma once

#include <bgtask/core/launch_request.hpp>
#include <bgtask/util/result.hpp>

#include <optional>
#include <string>

namespace bgtask {

class TaskDir;

// The fingerprint `start --dedupe` compares: HMAC-SHA-256, under the task
// directory's key, of what makes two tasks the same work: the command (argv,
// or the shell string, and which of the two), the working directory, the
// `--env` entries with their values (in the order given) and the timeout.
// Not the name, queue, dependencies, grace or on-exit hook, nor the
// inherited environment. Stored as 64 hex characters; env values are never
// stored, and without the key the fingerprint cannot be tested against
// guesses of them.
//
// The key is 32 random bytes in `fingerprint.key` (0600), made by the first
// start under `start.lock` (so the caller must not hold that lock). A
// Failure, naming the file and the errno, if the key can neither be read
// nor made; a `start` that asked for --dedupe then fails with it.
Result<std::string> task_fingerprint(const TaskDir& dir, const LaunchRequest& request);

} // namespace bgtask
