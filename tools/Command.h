/// \file
/// Subcommands of the `ferry` tool register themselves here, one file each
/// (tools/Inspect.cpp, tools/Info.cpp, …), so adding a command touches no
/// shared list.
#pragma once

#include <string>
#include <vector>

namespace ferry::tool {

using CommandFn = int (*)(const std::vector<std::string> &Args);

struct Command {
  const char *Name;
  const char *Summary;
  CommandFn Run;
};

/// Registers a command at static-initialisation time; returns true.
bool registerCommand(Command C);
const std::vector<Command> &commands();

} // namespace ferry::tool

#define FERRY_REGISTER_COMMAND(Id, Name, Summary, Fn)                                    \
  static const bool FerryCommandRegistered_##Id =                                          \
      ::ferry::tool::registerCommand({Name, Summary, Fn})
