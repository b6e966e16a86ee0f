#include <bgtask/commands/dispatch.hpp>
#include <bgtask/proc/process_exit.hpp>

int main(int argc, char** argv)
{
  bgtask::exit_process(bgtask::run_cli(argc, argv));
}
