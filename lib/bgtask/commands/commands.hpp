#pragma once

#include <bgtask/cli/command.hpp>

// Each command's options and handler, declared by the table (table.cpp) and
// defined side by side in commands/NAME.cpp.
namespace bgtask {

int run_complete(const GlobalOptions& global, const CommandArgs& args);

int run_supervise(const GlobalOptions& global, const CommandArgs& args);

po::options_description cancel_options();
int run_cancel(const GlobalOptions& global, const CommandArgs& args);

po::options_description cleanup_options();
int run_cleanup(const GlobalOptions& global, const CommandArgs& args);

po::options_description events_options();
int run_events(const GlobalOptions& global, const CommandArgs& args);

po::options_description list_options();
int run_list(const GlobalOptions& global, const CommandArgs& args);

po::options_description mcp_options();
int run_mcp(const GlobalOptions& global, const CommandArgs& args);

po::options_description output_options();
int run_output(const GlobalOptions& global, const CommandArgs& args);

po::options_description pause_options();
int run_pause(const GlobalOptions& global, const CommandArgs& args);

po::options_description progress_options();
int run_progress(const GlobalOptions& global, const CommandArgs& args);

po::options_description queue_options();
int run_queue(const GlobalOptions& global, const CommandArgs& args);

po::options_description rerun_options();
int run_rerun(const GlobalOptions& global, const CommandArgs& args);

int run_resume(const GlobalOptions& global, const CommandArgs& args);

po::options_description run_options();
int run_run(const GlobalOptions& global, const CommandArgs& args);

po::options_description start_options();
int run_start(const GlobalOptions& global, const CommandArgs& args);

po::options_description status_options();
int run_status(const GlobalOptions& global, const CommandArgs& args);

po::options_description top_options();
int run_top(const GlobalOptions& global, const CommandArgs& args);

po::options_description wait_options();
int run_wait(const GlobalOptions& global, const CommandArgs& args);

} // namespace bgtask
