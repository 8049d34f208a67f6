/// \file
/// `ferry info`: what this ferry is and how it is configured. `--man`
/// writes the ferry(1) page from the command registry and the settings
/// table, so the installed manual cannot drift from either (the build makes
/// it: cmake/FerryInstall.cmake).
#include "support/Settings.h"
#include "tools/Command.h"

#include <cstdio>
#include <string>

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

/// Text for roff: a backslash or a hyphen would be read as markup.
static std::string roff(const char *Text) {
  std::string Out;
  for (const char *C = Text; *C; ++C) {
    if (*C == '\\')
      Out += "\\e";
    else if (*C == '-')
      Out += "\\-";
    else
      Out += *C;
  }
  if (!Out.empty() && (Out[0] == '.' || Out[0] == '\''))
    Out = "\\&" + Out;
  return Out;
}

static int printManPage() {
  std::printf(".TH FERRY 1 \"\" \"ferry %s\" \"User Commands\"\n"
              ".SH NAME\nferry \\- run unmodified CUDA programs on AMD GPUs and x86\\-64 CPUs\n"
              ".SH SYNOPSIS\n.B ferry\n.I COMMAND\n.RI [ ARGS ...]\n"
              ".SH DESCRIPTION\n"
              "ferry is a drop\\-in CUDA driver and runtime: libcuda.so.1, libcudart.so.13\n"
              "and .12, and math libraries with NVIDIA's sonames. Installed as a package, its\n"
              "libraries come first in the loader's cache, so a program built by nvcc runs on\n"
              "it with no environment variable. Programs that load NVIDIA's libraries by\n"
              "absolute path get ferry's under\n.BR \"ferry run\" ,\n"
              "which also sets LD_AUDIT to ferry's libferry\\-audit.so.\n"
              ".SH COMMANDS\n",
              FERRY_VERSION);
  for (const Command &C : commands())
    std::printf(".TP\n.B %s\n%s\n", roff(C.Name).c_str(), roff(C.Summary).c_str());
  std::printf(".PP\n.B ferry\n.I COMMAND\n.B \\-\\-help\ndescribes one command.\n"
              ".SH ENVIRONMENT\n");
  for (const SettingInfo &S : Settings::table())
    std::printf(".TP\n.BR %s \" (%s, default %s)\"\n%s\n", roff(S.EnvName).c_str(),
                typeName(S.Type), S.Default[0] ? roff(S.Default).c_str() : "empty",
                roff(S.Doc).c_str());
  std::printf(".SH FILES\n.TP\n.I /etc/ld.so.conf.d/00\\-ferry.conf\n"
              "puts ferry's library directory first in the loader's cache\n"
              ".TP\n.I ~/.cache/ferry\ncompiled kernels (CUDA_CACHE_PATH)\n"
              ".SH SEE ALSO\n.BR ld.so (8),\n.BR ldconfig (8)\n");
  return 0;
}

static int runInfo(const std::vector<std::string> &Args) {
  bool ShowSettings = false;
  for (const auto &A : Args) {
    if (A == "--settings")
      ShowSettings = true;
    else if (A == "--man")
      return printManPage();
    else if (A == "--help") {
      std::printf("usage: ferry info [--settings | --man]\n  --settings  print the settings table "
                  "with current values\n  --man       write the ferry(1) manual page (roff)\n");
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
