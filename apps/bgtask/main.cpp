#include <bgtask/cli.hpp>

int main(int argc, char** argv)
{
  return bgtask::run_cli(argc, argv);
}
