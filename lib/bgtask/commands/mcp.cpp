#include <bgtask/cli/mcp/mcp_server.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/store/task_dir.hpp>

#include <csignal>
#include <iostream>

namespace bgtask {

po::options_description mcp_options()
{
  return po::options_description(); // --help only
}

int run_mcp(const GlobalOptions& global, const CommandArgs& /*args*/)
{
  const TaskDir dir = open_task_dir(global);
  std::signal(SIGPIPE, SIG_IGN); // a client that went away is an end of stdin, not a crash
  std::ios::sync_with_stdio(false);
  mcp::serve(dir, std::cin, std::cout);
  return 0;
}

} // namespace bgtask
