#pragma once

#include <bgtask/cli/command.hpp>

// One handler per command, each in its own file under commands/.
namespace bgtask {

int run_complete(const GlobalOptions& global, const std::vector<std::string>& args);
int run_cancel(const GlobalOptions& global, const std::vector<std::string>& args);
int run_cleanup(const GlobalOptions& global, const std::vector<std::string>& args);
int run_list(const GlobalOptions& global, const std::vector<std::string>& args);
int run_output(const GlobalOptions& global, const std::vector<std::string>& args);
int run_pause(const GlobalOptions& global, const std::vector<std::string>& args);
int run_progress(const GlobalOptions& global, const std::vector<std::string>& args);
int run_queue(const GlobalOptions& global, const std::vector<std::string>& args);
int run_rerun(const GlobalOptions& global, const std::vector<std::string>& args);
int run_resume(const GlobalOptions& global, const std::vector<std::string>& args);
int run_run(const GlobalOptions& global, const std::vector<std::string>& args);
int run_start(const GlobalOptions& global, const std::vector<std::string>& args);
int run_status(const GlobalOptions& global, const std::vector<std::string>& args);
int run_wait(const GlobalOptions& global, const std::vector<std::string>& args);

} // namespace bgtask
