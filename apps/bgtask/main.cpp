#include <bgtask/commands/dispatch.hpp>

int main(int argc, char** argv)
{
  return bgtask::run_cli(argc, argv);
}
