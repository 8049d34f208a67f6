/// \file
/// `ferry trace [--native | --real PATH] [--out FILE] [--] PROGRAM ARGS...`:
/// runs PROGRAM with the tracing interposer (lib/trace/libcuda.so.1) in
/// front of the real driver, logging every driver API call with decoded
/// arguments and results. By default the real driver is ferry's; `--native`
/// forwards to NVIDIA's installed libcuda.so.1 (how we record what NVIDIA's
/// runtime does on a machine with a GPU).
#include "tools/Command.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace ferry::tool {

std::string ferryLibDir();

static int usage(FILE *Out, int Code) {
  std::fprintf(Out,
               "usage: ferry trace [--native | --real PATH] [--out FILE] [--] PROGRAM [ARGS...]\n"
               "  --native    forward to NVIDIA's libcuda.so.1 instead of ferry's\n"
               "  --real PATH forward to the driver library at PATH\n"
               "  --out FILE  append the trace to FILE (default: standard error)\n");
  return Code;
}

/// NVIDIA's driver as installed by its packages, first match wins.
static std::string findNativeDriver() {
  static const char *Candidates[] = {"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                                     "/usr/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1",
                                     "/usr/lib/wsl/lib/libcuda.so.1"};
  for (const char *C : Candidates)
    if (access(C, R_OK) == 0)
      return C;
  return "";
}

static int runTrace(const std::vector<std::string> &Args) {
  std::string Real, Out;
  bool Native = false;
  size_t I = 0;
  for (; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--") {
      ++I;
      break;
    }
    if (A == "--help" || A == "-h")
      return usage(stdout, 0);
    if (A == "--native") {
      Native = true;
      continue;
    }
    if ((A == "--real" || A == "--out") && I + 1 < Args.size()) {
      (A == "--real" ? Real : Out) = Args[++I];
      continue;
    }
    if (!A.empty() && A[0] == '-') {
      std::fprintf(stderr, "ferry trace: unknown option '%s'\n", A.c_str());
      return usage(stderr, 2);
    }
    break;
  }
  if (I >= Args.size())
    return usage(stderr, 2);
  std::string Lib = ferryLibDir();
  if (Real.empty())
    Real = Native ? findNativeDriver() : Lib + "/libcuda.so.1";
  if (Real.empty() || access(Real.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "ferry trace: no driver library to forward to ('%s')\n", Real.c_str());
    return 1;
  }
  if (access((Lib + "/trace/libcuda.so.1").c_str(), R_OK) != 0) {
    std::fprintf(stderr, "ferry trace: the tracer library is missing from '%s/trace'\n",
                 Lib.c_str());
    return 1;
  }
  const char *Old = std::getenv("LD_LIBRARY_PATH");
  std::string Path = Lib + "/trace";
  if (!Native)
    Path += ":" + Lib;
  if (Old && *Old)
    Path += ":" + std::string(Old);
  setenv("LD_LIBRARY_PATH", Path.c_str(), 1);
  setenv("FERRY_TRACE_REAL", Real.c_str(), 1);
  if (!Out.empty())
    setenv("FERRY_TRACE", Out.c_str(), 1);
  std::vector<char *> Argv;
  for (size_t J = I; J < Args.size(); ++J)
    Argv.push_back(const_cast<char *>(Args[J].c_str()));
  Argv.push_back(nullptr);
  execvp(Argv[0], Argv.data());
  std::fprintf(stderr, "ferry trace: cannot execute '%s': %s\n", Argv[0], std::strerror(errno));
  return 127;
}

FERRY_REGISTER_COMMAND(Trace, "trace", "run a CUDA program logging every driver API call", runTrace);

} // namespace ferry::tool
