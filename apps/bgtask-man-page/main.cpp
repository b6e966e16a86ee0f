// Writes the man page's scdoc source with each command's options filled in
// from the command table: bgtask-man-page IN.scd OUT.scd (run by the build).
#include <bgtask/cli/option_manual.hpp>
#include <bgtask/commands/table.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv)
{
  if (argc != 3) {
    std::cerr << "usage: bgtask-man-page IN.scd OUT.scd\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream page;
  page << in.rdbuf();
  if (!in) {
    std::cerr << "bgtask-man-page: cannot read " << argv[1] << '\n';
    return 1;
  }
  const auto expanded = bgtask::expand_option_markers(page.str(), bgtask::all_commands());
  if (!expanded) {
    std::cerr << "bgtask-man-page: " << argv[1] << ": " << expanded.error() << '\n';
    return 1;
  }
  std::ofstream out(argv[2], std::ios::trunc);
  out << *expanded;
  out.close();
  if (!out) {
    std::cerr << "bgtask-man-page: cannot write " << argv[2] << '\n';
    return 1;
  }
  return 0;
}
