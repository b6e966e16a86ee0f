#pragma once

#include <bgtask/util/duration.hpp>

#include <string>
#include <vector>

namespace bgtask {

// One run of an external client program (sbatch, scontrol, sacct, scancel).
struct ClientCall
{
  std::vector<std::string> argv;          // argv[0] is looked up in PATH
  std::string input;                      // written to its stdin, which is then closed
  std::vector<std::string> env_additions; // K=V set on top of bgtask's environment
  Milliseconds timeout{5000};
};

enum class ClientEnd {
  exited,      // ran to its end; see exit_code
  timed_out,   // still running at the deadline: killed
  not_started, // could not be executed; see error
};

struct ClientResult
{
  ClientEnd end = ClientEnd::not_started;
  int exit_code = -1; // exit status, or 128+signal if it was killed by one
  std::string out;
  std::string err;
  std::string error; // why it did not start
};

// Runs `call` to completion or to its deadline, whichever comes first, and
// never longer: at the deadline the program is killed (SIGKILL) with every
// process it started (it runs in a process group of its own), and reaped.
// Captures stdout and stderr (each capped at 256 MiB; beyond that the
// program is killed too). Never throws for the program's own failures.
ClientResult run_client(const ClientCall& call);

// The first non-empty line of the client's stderr (else stdout), for messages.
std::string client_message(const ClientResult& result);

} // namespace bgtask
