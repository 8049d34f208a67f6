/// \file
/// The `ferry` command: dispatches to the registered subcommands.
#include "tools/Command.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ferry::tool {

static std::vector<Command> &registry() {
  static std::vector<Command> R;
  return R;
}

bool registerCommand(Command C) {
  registry().push_back(C);
  return true;
}

const std::vector<Command> &commands() {
  auto &R = registry();
  std::sort(R.begin(), R.end(),
            [](const Command &A, const Command &B) { return std::strcmp(A.Name, B.Name) < 0; });
  return R;
}

static void usage(FILE *Out) {
  std::fprintf(Out, "usage: ferry COMMAND [ARGS...]\n\ncommands:\n");
  for (const Command &C : commands())
    std::fprintf(Out, "  %-10s %s\n", C.Name, C.Summary);
  std::fprintf(Out, "\n'ferry COMMAND --help' describes one command.\n");
}

} // namespace ferry::tool

int main(int Argc, char **Argv) {
  using namespace ferry::tool;
  if (Argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string Name = Argv[1];
  if (Name == "--help" || Name == "-h" || Name == "help") {
    usage(stdout);
    return 0;
  }
  for (const Command &C : commands())
    if (Name == C.Name)
      return C.Run(std::vector<std::string>(Argv + 2, Argv + Argc));
  std::fprintf(stderr, "ferry: unknown command '%s'\n\n", Name.c_str());
  usage(stderr);
  return 2;
}
