/// \file
/// `ferry run [--backend host|hsa] [--] PROGRAM ARGS...`: runs an unmodified
/// CUDA program on ferry. It puts ferry's library directory (the `lib`
/// beside the `bin` holding this executable) first on LD_LIBRARY_PATH, so the
/// program's `dlopen("libcuda.so.1")` (NVIDIA's cudart) and its
/// `libcudart.so.13` dependency resolve to ferry's, then execs the program.
/// With FERRY_SIM set (simulated AMD GPUs) and FERRY_HSA_LIBRARY not, it
/// points FERRY_HSA_LIBRARY at the HSA runtime stand-in beside ferry's
/// libraries (sim/runtime), so the AMD backend loads it as it loads ROCr.
/// It also adds ferry's libferry-audit.so to LD_AUDIT (tools/audit), so a
/// program that loads NVIDIA's libcuda.so.1 by absolute path gets ferry's.
#include "tools/Command.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace ferry::tool {

/// The directory holding ferry's libraries, found from this executable's
/// place so that a build tree and any install prefix both work: an install
/// puts them in <prefix>/FERRY_INSTALL_LIBDIR (cmake/FerryInstall.cmake),
/// a build tree in build/lib beside build/bin. The install layout is tried
/// first: <prefix>/lib may hold another vendor's libcuda.so.1.
std::string ferryLibDir() {
  char Buf[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Buf, sizeof(Buf) - 1);
  if (N <= 0)
    return "";
  Buf[N] = 0;
  std::string Exe(Buf);
  std::string Bin = Exe.substr(0, Exe.rfind('/'));
  std::string Prefix = Bin.substr(0, Bin.rfind('/'));
#ifdef FERRY_INSTALL_LIBDIR
  std::string Installed = Prefix + "/" FERRY_INSTALL_LIBDIR;
  if (access((Installed + "/libcuda.so.1").c_str(), R_OK) == 0)
    return Installed;
#endif
  return Prefix + "/lib";
}

static int usage(FILE *Out, int Code) {
  std::fprintf(Out, "usage: ferry run [--backend host|hsa|auto] [--] PROGRAM [ARGS...]\n"
                    "  Runs PROGRAM with ferry's libcuda.so.1 and libcudart.so.13.\n");
  return Code;
}

/// Run-time compilers asked for a cubin hand ferry PTX instead (tools/jit,
/// DESIGN.md): the stand-ins for libnvrtc.so.13 and libnvJitLink.so.13 go
/// first on LD_LIBRARY_PATH and the stand-in ptxas first on PATH. They reach
/// NVIDIA's compilers, and clients (CuPy, Numba-CUDA) find headers, NVVM and
/// libdevice, through CUDA_PATH, set to /usr/local/cuda when unset. Triton
/// is pointed at the stand-in ptxas and ferry's libcuda by its variables;
/// XLA's autotuning is turned off (XLA_FLAGS) unless the user set its level,
/// and Python finds the hook that lets JAX see ferry's device.
static void setUpJitStandIns(const std::string &Lib) {
  std::string Jit = Lib + "/ferry-jit";
  if (access((Jit + "/libnvrtc.so.13").c_str(), R_OK) != 0)
    return;
  const char *Old = std::getenv("LD_LIBRARY_PATH");
  setenv("LD_LIBRARY_PATH", (Jit + (Old && *Old ? ":" + std::string(Old) : "")).c_str(), 1);
  const char *Path = std::getenv("PATH");
  setenv("PATH", (Jit + "/bin" + (Path && *Path ? ":" + std::string(Path) : "")).c_str(), 1);
  const char *CudaPath = std::getenv("CUDA_PATH");
  if (!(CudaPath && *CudaPath) && access("/usr/local/cuda/lib64/libnvrtc.so.13", R_OK) == 0)
    setenv("CUDA_PATH", "/usr/local/cuda", 1);
  // Triton runs its own bundled ptxas (TRITON_PTXAS_PATH below 9.0,
  // TRITON_PTXAS_BLACKWELL_PATH from 9.0) and links its launcher against
  // the libcuda in TRITON_LIBCUDA_PATH: ferry's, each unless already set.
  std::string Ptxas = Jit + "/bin/ptxas";
  setenv("TRITON_PTXAS_PATH", Ptxas.c_str(), 0);
  setenv("TRITON_PTXAS_BLACKWELL_PATH", Ptxas.c_str(), 0);
  setenv("TRITON_LIBCUDA_PATH", Lib.c_str(), 0);
  // XLA (JAX) autotunes each GEMM and fusion by compiling and timing dozens
  // of candidate kernels: minutes of compilation on ferry for timings that
  // say nothing about an NVIDIA GPU. Level 0 takes XLA's default choice;
  // a level the user set is kept.
  // JAX's device-file gate (tools/jit/python/sitecustomize.py).
  if (access((Jit + "/python/sitecustomize.py").c_str(), R_OK) == 0) {
    const char *PyPath = std::getenv("PYTHONPATH");
    setenv("PYTHONPATH", (Jit + "/python" + (PyPath && *PyPath ? ":" + std::string(PyPath) : "")).c_str(), 1);
  }
  const char *Xla = std::getenv("XLA_FLAGS");
  std::string XlaFlags = Xla ? Xla : "";
  if (XlaFlags.find("xla_gpu_autotune_level") == std::string::npos)
    setenv("XLA_FLAGS", (XlaFlags + (XlaFlags.empty() ? "" : " ") + "--xla_gpu_autotune_level=0").c_str(), 1);
}

/// Prepends ferry's library directory to LD_LIBRARY_PATH and applies the
/// options; shared with `ferry trace`.
bool prepareEnvironment(const std::string &Backend) {
  std::string Lib = ferryLibDir();
  if (Lib.empty() || access((Lib + "/libcuda.so.1").c_str(), R_OK) != 0) {
    std::fprintf(stderr, "ferry run: cannot find libcuda.so.1 in '%s'\n", Lib.c_str());
    return false;
  }
  const char *Old = std::getenv("LD_LIBRARY_PATH");
  std::string Path = Lib + (Old && *Old ? ":" + std::string(Old) : "");
  setenv("LD_LIBRARY_PATH", Path.c_str(), 1);
  const char *Sim = std::getenv("FERRY_SIM");
  const char *Hsa = std::getenv("FERRY_HSA_LIBRARY");
  if (Sim && *Sim && !(Hsa && *Hsa)) {
    std::string StandIn = Lib + "/libferry-hsa-sim.so";
    if (access(StandIn.c_str(), R_OK) != 0) {
      std::fprintf(stderr, "ferry run: FERRY_SIM is set but '%s' is missing (build target "
                           "ferry-hsa-sim)\n", StandIn.c_str());
      return false;
    }
    setenv("FERRY_HSA_LIBRARY", StandIn.c_str(), 1);
  }
  if (!Backend.empty())
    setenv("FERRY_BACKEND", Backend.c_str(), 1);
  setUpJitStandIns(Lib);
  return true;
}

static int runRun(const std::vector<std::string> &Args) {
  std::string Backend;
  size_t I = 0;
  for (; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--") {
      ++I;
      break;
    }
    if (A == "--help" || A == "-h")
      return usage(stdout, 0);
    if (A == "--backend" && I + 1 < Args.size()) {
      Backend = Args[++I];
      if (Backend != "host" && Backend != "hsa" && Backend != "auto") {
        std::fprintf(stderr, "ferry run: unknown backend '%s'\n", Backend.c_str());
        return 2;
      }
      continue;
    }
    if (!A.empty() && A[0] == '-') {
      std::fprintf(stderr, "ferry run: unknown option '%s'\n", A.c_str());
      return usage(stderr, 2);
    }
    break;
  }
  if (I >= Args.size())
    return usage(stderr, 2);
  if (!prepareEnvironment(Backend))
    return 1;
  // Only `run`: `ferry trace --native` must reach NVIDIA's driver by path.
  std::string Audit = ferryLibDir() + "/libferry-audit.so";
  if (access(Audit.c_str(), R_OK) == 0) {
    const char *Old = std::getenv("LD_AUDIT");
    setenv("LD_AUDIT", (Old && *Old ? std::string(Old) + ":" + Audit : Audit).c_str(), 1);
  }
  std::vector<char *> Argv;
  for (size_t J = I; J < Args.size(); ++J)
    Argv.push_back(const_cast<char *>(Args[J].c_str()));
  Argv.push_back(nullptr);
  execvp(Argv[0], Argv.data());
  std::fprintf(stderr, "ferry run: cannot execute '%s': %s\n", Argv[0], std::strerror(errno));
  return 127;
}

FERRY_REGISTER_COMMAND(Run, "run", "run a CUDA program on ferry (--backend host|hsa)", runRun);

} // namespace ferry::tool
