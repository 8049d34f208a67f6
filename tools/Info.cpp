/// \file
/// `ferry info`: what this ferry is and how it is configured.
#include "support/Settings.h"
#include "tools/Command.h"

#include <cstdio>

namespace ferry::tool {

static const char *typeName(SettingType T) {
  switch (T) {
  case SettingType::Bool:
    return "bool";
  case SettingType::Int:
    return "int";
  case SettingType::String:
    return "string";
  }
  return "?";
}

static int runInfo(const std::vector<std::string> &Args) {
  bool ShowSettings = false;
  for (const auto &A : Args) {
    if (A == "--settings")
      ShowSettings = true;
    else if (A == "--help") {
      std::printf("usage: ferry info [--settings]\n  --settings  print the settings table "
                  "with current values\n");
      return 0;
    } else {
      std::fprintf(stderr, "ferry info: unknown option '%s'\n", A.c_str());
      return 2;
    }
  }
  std::printf("ferry %s (%s)\n", FERRY_VERSION, FERRY_GIT_REV);
  if (!ShowSettings)
    return 0;
  const auto &S = Settings::get();
  const auto &T = Settings::table();
  std::printf("\n%-22s %-7s %-12s %-12s %s\n", "variable", "type", "default", "value", "meaning");
  for (size_t I = 0; I < T.size(); ++I)
    std::printf("%-22s %-7s %-12s %-12s %s\n", T[I].EnvName, typeName(T[I].Type),
                T[I].Default[0] ? T[I].Default : "''",
                S.isSet(Settings::Key(I)) ? S.getString(Settings::Key(I)).c_str() : "(default)",
                T[I].Doc);
  return 0;
}

FERRY_REGISTER_COMMAND(Info, "info", "version and settings (--settings)", runInfo);

} // namespace ferry::tool
