/// \file
/// `ferry doctor [PROGRAM]`: will CUDA programs run on this ferry, and if
/// not, why. It reports
///  - which libcuda.so.1, libcudart and math libraries the dynamic loader
///    resolves for this user (and for PROGRAM's own dependencies), and
///    whether each is ferry's; NVIDIA's libraries by absolute path;
///  - which backend and devices ferry's libcuda sees, with ferry's own log
///    lines saying why (ROCr found or not, /dev/kfd, FERRY_SIM);
///  - the kernel cache directory and its size.
/// It exits 1 when something would keep a program off ferry (libcuda.so.1
/// not ferry's, a math library that is NVIDIA's, a missing dependency, no
/// device, an unwritable cache), else 0.
///
/// Resolution runs the loader in trace mode (LD_TRACE_LOADED_OBJECTS, the
/// mechanism of ldd) with the library as LD_PRELOAD: the loader searches
/// exactly as a dlopen by name would, and runs no constructor. Devices are
/// probed by a child process (this executable, `doctor --probe-devices`)
/// that dlopens ferry's libcuda.so.1 and calls cuInit, so a crash or a
/// hang in a broken install cannot take the report with it.
#include "support/Cache.h"
#include "tools/Command.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <climits>
#include <dlfcn.h>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ferry::tool {

std::string ferryLibDir();

namespace {

/// What the tool prints and counts: one line per finding.
struct Report {
  int Problems = 0;
  void line(const char *Tag, const std::string &Text) {
    std::printf("  %-5s %s\n", Tag, Text.c_str());
  }
  void ok(const std::string &Text) { line("ok", Text); }
  void note(const std::string &Text) { line("--", Text); }
  void bad(const std::string &Text) {
    ++Problems;
    line("BAD", Text);
  }
};

/// Runs Argv with extra environment, returning its standard output and
/// error together (empty when it could not run).
std::string capture(const std::vector<std::string> &Argv,
                    const std::vector<std::pair<std::string, std::string>> &Env,
                    int *Status = nullptr) {
  std::fflush(nullptr); // else the child would print our buffered lines again
  int Pipe[2];
  if (pipe(Pipe) != 0)
    return "";
  pid_t Pid = fork();
  if (Pid == 0) {
    dup2(Pipe[1], 1);
    dup2(Pipe[1], 2);
    close(Pipe[0]);
    close(Pipe[1]);
    for (auto &[K, V] : Env)
      setenv(K.c_str(), V.c_str(), 1);
    std::vector<char *> A;
    for (const auto &S : Argv)
      A.push_back(const_cast<char *>(S.c_str()));
    A.push_back(nullptr);
    execv(A[0], A.data());
    _exit(127);
  }
  close(Pipe[1]);
  std::string Out;
  char Buf[4096];
  ssize_t N;
  while ((N = read(Pipe[0], Buf, sizeof Buf)) > 0 || (N < 0 && errno == EINTR))
    if (N > 0)
      Out.append(Buf, size_t(N));
  close(Pipe[0]);
  int St = 0;
  if (Pid > 0)
    waitpid(Pid, &St, 0);
  if (Status)
    *Status = St;
  return Out;
}

/// The loader's trace of Program (with Preload loaded first): each "name =>
/// path" line as a pair; a name the loader could not find maps to "".
std::vector<std::pair<std::string, std::string>> traceLoads(const std::string &Program,
                                                            const std::string &Preload) {
  std::vector<std::pair<std::string, std::string>> Env = {{"LD_TRACE_LOADED_OBJECTS", "1"}};
  if (!Preload.empty())
    Env.push_back({"LD_PRELOAD", Preload});
  std::string Out = capture({Program}, Env);
  std::vector<std::pair<std::string, std::string>> Loads;
  size_t Pos = 0;
  while (Pos < Out.size()) {
    size_t End = Out.find('\n', Pos);
    std::string L = Out.substr(Pos, End == std::string::npos ? std::string::npos : End - Pos);
    Pos = End == std::string::npos ? Out.size() : End + 1;
    size_t Arrow = L.find(" => ");
    if (Arrow == std::string::npos)
      continue;
    std::string Name = L.substr(L.find_first_not_of(" \t"), Arrow - L.find_first_not_of(" \t"));
    std::string Path = L.substr(Arrow + 4);
    if (Path.rfind("not found", 0) == 0)
      Path.clear();
    else
      Path = Path.substr(0, Path.find(" ("));
    Loads.push_back({Name, Path});
  }
  return Loads;
}

std::string realPath(const std::string &P) {
  char Buf[PATH_MAX];
  return realpath(P.c_str(), Buf) ? std::string(Buf) : P;
}

/// A program with no CUDA dependency to trace library searches with.
std::string neutralProgram() {
  for (const char *P : {"/usr/bin/true", "/bin/true"})
    if (access(P, X_OK) == 0)
      return P;
  return "/bin/true";
}

bool isFerrys(const std::string &Path, const std::string &FerryDir) {
  std::string Dir = realPath(FerryDir) + "/";
  return realPath(Path).rfind(Dir, 0) == 0 || Path.rfind(FerryDir + "/", 0) == 0;
}

/// Another ferry (a package beside a build tree): its directory also has
/// the audit library, which no NVIDIA install has.
bool isAnotherFerrys(const std::string &Path) {
  std::string Dir = Path.substr(0, Path.rfind('/'));
  return access((Dir + "/libferry-audit.so").c_str(), R_OK) == 0;
}

struct Wanted {
  const char *Name;
  bool Required; ///< Missing or foreign means programs miss ferry.
  bool MustBeFerrys;
  const char *What;
};

const Wanted Libraries[] = {
    {"libcuda.so.1", true, true, "the driver: every CUDA program loads it"},
    {"libcudart.so.13", false, false, "the runtime of `nvcc -cudart shared` (CUDA 13)"},
    {"libcudart.so.12", false, false, "the runtime of `nvcc -cudart shared` (CUDA 12)"},
    {"libcublas.so.13", false, true, "cuBLAS"},
    {"libcublasLt.so.13", false, true, "cuBLASLt"},
    {"libcurand.so.10", false, true, "cuRAND"},
    {"libcufft.so.12", false, true, "cuFFT"},
    {"libcusparse.so.12", false, true, "cuSPARSE"},
    {"libcusolver.so.12", false, true, "cuSOLVER"},
    {"libnvidia-ml.so.1", false, true, "NVML"},
    {"libcudnn.so.9", false, true, "cuDNN (versions and handles only: XLA needs one)"},
};

void checkLibrary(Report &R, const Wanted &W, const std::string &Program,
                  const std::string &FerryDir, bool AsDependency) {
  auto Loads = traceLoads(Program, AsDependency ? "" : W.Name);
  std::string Path;
  bool Found = false;
  std::vector<std::string> Missing;
  for (auto &[Name, P] : Loads) {
    if (Name == W.Name) {
      Path = P;
      Found = true;
    } else if (P.empty()) {
      Missing.push_back(Name);
    }
  }
  if (!Found || Path.empty()) {
    if (AsDependency)
      return;
    if (W.Required)
      R.bad(std::string(W.Name) + ": not found (" + W.What + ")");
    else
      R.note(std::string(W.Name) + ": not found");
    return;
  }
  std::string Desc = std::string(W.Name) + " -> " + Path;
  if (isFerrys(Path, FerryDir)) {
    Desc += " (ferry's)";
  } else if (isAnotherFerrys(Path)) {
    Desc += " (another ferry's, not this one's at " + FerryDir + ")";
  } else if (W.MustBeFerrys) {
    R.bad(Desc + " (not ferry's: " +
          (W.Required ? std::string("programs will not run on ferry")
                      : std::string("NVIDIA's math libraries cannot run on ferry")) +
          ")");
    return;
  } else {
    R.note(Desc + " (not ferry's; NVIDIA's runtime works over ferry's driver)");
    return;
  }
  if (!Missing.empty()) {
    std::string List;
    for (auto &M : Missing)
      List += (List.empty() ? "" : ", ") + M;
    R.bad(Desc + ", but its dependencies are missing: " + List);
    return;
  }
  R.ok(Desc);
}

/// NVIDIA's usual absolute paths, which frameworks dlopen directly.
void checkAbsolutePaths(Report &R, const std::string &FerryDir) {
  const char *Paths[] = {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1"};
  const char *Audit = std::getenv("LD_AUDIT");
  bool Audited = Audit && std::strstr(Audit, "libferry-audit.so");
  for (const char *P : Paths) {
    if (access(P, F_OK) != 0)
      continue;
    if (isFerrys(P, FerryDir) || isAnotherFerrys(realPath(P)))
      R.ok(std::string(P) + " -> " + realPath(P) + " (ferry's)");
    else if (Audited)
      R.ok(std::string(P) + " is not ferry's; LD_AUDIT redirects loads by this path");
    else
      R.note(std::string(P) + " is " + realPath(P) +
             ", not ferry's: programs loading it by path need `ferry run` (LD_AUDIT)");
  }
}

void checkBackend(Report &R, const std::string &FerryDir) {
  auto Env = [](const char *K) {
    const char *V = std::getenv(K);
    return V && *V ? std::string(V) : std::string();
  };
  std::string Backend = Env("FERRY_BACKEND");
  R.note("FERRY_BACKEND=" + (Backend.empty() ? std::string("auto (default)") : Backend));
  std::string Sim = Env("FERRY_SIM"), Hsa = Env("FERRY_HSA_LIBRARY");
  std::vector<std::pair<std::string, std::string>> ProbeEnv = {
      {"FERRY_LOG", "warn,api=info,hsa=info"}};
  if (!Sim.empty() && Hsa.empty()) {
    // As `ferry run` does: the HSA stand-in beside the libraries plays ROCr.
    Hsa = FerryDir + "/libferry-hsa-sim.so";
    ProbeEnv.push_back({"FERRY_HSA_LIBRARY", Hsa});
    if (access(Hsa.c_str(), R_OK) != 0)
      R.bad("FERRY_SIM=" + Sim + " but the HSA stand-in " + Hsa + " is missing");
    else
      R.note("FERRY_SIM=" + Sim + ": simulated AMD GPUs through " + Hsa);
  } else if (!Sim.empty()) {
    R.note("FERRY_SIM=" + Sim + " (FERRY_HSA_LIBRARY=" + Hsa + " is used as ROCr)");
  }
  if (Sim.empty()) {
    std::string Rocr = Hsa.empty() ? "libhsa-runtime64.so.1" : Hsa;
    std::string Where;
    for (auto &[Name, P] : traceLoads(neutralProgram(), Rocr))
      if (Name == Rocr)
        Where = P;
    if (Rocr[0] == '/' && access(Rocr.c_str(), R_OK) == 0)
      Where = Rocr;
    R.note("ROCr (" + Rocr + "): " + (Where.empty() ? "not found, so no AMD GPU" : Where));
    bool Kfd = access("/dev/kfd", F_OK) == 0;
    R.note(std::string("/dev/kfd: ") +
           (Kfd ? (access("/dev/kfd", R_OK | W_OK) == 0 ? "present" : "present, not usable by you")
                : "absent (no amdgpu kernel driver), so no AMD GPU"));
  }
  char Self[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Self, sizeof(Self) - 1);
  if (N <= 0)
    return;
  Self[N] = 0;
  int Status = 0;
  std::string Out = capture({Self, "doctor", "--probe-devices", FerryDir + "/libcuda.so.1"},
                            ProbeEnv, &Status);
  bool Ok = WIFEXITED(Status) && WEXITSTATUS(Status) == 0;
  size_t Pos = 0;
  std::vector<std::string> Shown; // the backend may log one reason twice
  while (Pos < Out.size()) {
    size_t End = Out.find('\n', Pos);
    std::string L = Out.substr(Pos, End == std::string::npos ? std::string::npos : End - Pos);
    Pos = End == std::string::npos ? Out.size() : End + 1;
    if (L.empty() || std::find(Shown.begin(), Shown.end(), L) != Shown.end())
      continue;
    Shown.push_back(L);
    std::printf("        %s\n", L.c_str());
  }
  if (!Ok)
    R.bad(WIFSIGNALED(Status) ? "probing devices crashed (signal " +
                                    std::to_string(WTERMSIG(Status)) + ")"
                              : std::string("ferry sees no CUDA device (lines above say why)"));
}

/// The child of checkBackend: loads ferry's driver and lists its devices.
int probeDevices(const std::string &Path) {
  void *Lib = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    std::printf("cannot load %s: %s\n", Path.c_str(), dlerror());
    return 1;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using GetFn = int (*)(int *, int);
  using NameFn = int (*)(char *, int, int);
  using AttrFn = int (*)(int *, int, int);
  auto Init = reinterpret_cast<InitFn>(dlsym(Lib, "cuInit"));
  auto Count = reinterpret_cast<CountFn>(dlsym(Lib, "cuDeviceGetCount"));
  auto Get = reinterpret_cast<GetFn>(dlsym(Lib, "cuDeviceGet"));
  auto Name = reinterpret_cast<NameFn>(dlsym(Lib, "cuDeviceGetName"));
  auto Attr = reinterpret_cast<AttrFn>(dlsym(Lib, "cuDeviceGetAttribute"));
  if (!Init || !Count || !Get || !Name || !Attr) {
    std::printf("%s lacks the driver API\n", Path.c_str());
    return 1;
  }
  std::fflush(stdout);
  if (int E = Init(0)) {
    std::printf("cuInit: error %d\n", E);
    return 1;
  }
  int N = 0;
  Count(&N);
  for (int I = 0; I < N; ++I) {
    int Dev = 0, Major = 0, Minor = 0;
    char Buf[256] = {0};
    Get(&Dev, I);
    Name(Buf, sizeof Buf, Dev);
    Attr(&Major, 75, Dev); // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    Attr(&Minor, 76, Dev);
    std::printf("device %d: %s (compute capability %d.%d)\n", I, Buf, Major, Minor);
  }
  return N > 0 ? 0 : 1;
}

void checkCache(Report &R) {
  CodeCache &C = CodeCache::fromSettings();
  if (!C.enabled()) {
    R.note("kernel cache: disabled (CUDA_CACHE_DISABLE, or no HOME)");
    return;
  }
  namespace fs = std::filesystem;
  std::error_code Ec;
  uint64_t Bytes = 0, Files = 0;
  if (fs::exists(C.directory(), Ec))
    for (auto It = fs::recursive_directory_iterator(C.directory(), Ec);
         !Ec && It != fs::recursive_directory_iterator(); It.increment(Ec))
      if (It->is_regular_file(Ec)) {
        Bytes += It->file_size(Ec);
        ++Files;
      }
  // The cache is made on first store, so a missing one needs a writable parent.
  std::string Probe = C.directory();
  while (!Probe.empty() && access(Probe.c_str(), F_OK) != 0)
    Probe = Probe.substr(0, Probe.rfind('/'));
  char Size[64];
  std::snprintf(Size, sizeof Size, "%.1f MiB in %llu files", double(Bytes) / (1 << 20),
                (unsigned long long)Files);
  std::string Desc = "kernel cache: " + C.directory() + " (" + Size + ")";
  if (access(Probe.empty() ? "/" : Probe.c_str(), W_OK) != 0)
    R.bad(Desc + ", not writable: every run compiles its kernels again");
  else
    R.ok(Desc);
}

int usage(FILE *Out, int Code) {
  std::fprintf(Out, "usage: ferry doctor [PROGRAM]\n"
                    "  Says which CUDA libraries the loader finds (for PROGRAM too), which\n"
                    "  backend and devices ferry sees and why, and the kernel cache; exits 1\n"
                    "  when something would keep programs off ferry.\n");
  return Code;
}

int runDoctor(const std::vector<std::string> &Args) {
  if (Args.size() == 2 && Args[0] == "--probe-devices")
    return probeDevices(Args[1]);
  if (Args.size() > 1 || (Args.size() == 1 && Args[0][0] == '-'))
    return usage(Args.size() == 1 && (Args[0] == "--help" || Args[0] == "-h") ? stdout : stderr,
                 Args.size() == 1 && (Args[0] == "--help" || Args[0] == "-h") ? 0 : 2);
  Report R;
  std::string Dir = ferryLibDir();
  std::printf("ferry %s (%s), libraries in %s\n", FERRY_VERSION, FERRY_GIT_REV, Dir.c_str());
  if (access((Dir + "/libcuda.so.1").c_str(), R_OK) != 0)
    R.bad("this ferry's libcuda.so.1 is missing from " + Dir);
  const char *Llp = std::getenv("LD_LIBRARY_PATH");
  std::printf("\nlibraries the loader finds by name%s:\n",
              Llp && *Llp ? (" (LD_LIBRARY_PATH=" + std::string(Llp) + ")").c_str() : "");
  for (const Wanted &W : Libraries)
    checkLibrary(R, W, neutralProgram(), Dir, false);
  checkAbsolutePaths(R, Dir);
  if (R.Problems)
    std::printf("  hint: install ferry's package (scripts/package), or run programs with "
                "`ferry run --` or LD_LIBRARY_PATH=%s\n", Dir.c_str());
  if (!Args.empty()) {
    std::string Program = Args[0];
    if (Program.find('/') == std::string::npos)
      Program = "./" + Program;
    std::printf("\n%s's own dependencies:\n", Args[0].c_str());
    if (access(Program.c_str(), X_OK) != 0) {
      R.bad(Program + ": " + std::strerror(errno));
    } else {
      unsigned Seen = 0;
      for (auto &[Name, Path] : traceLoads(Program, "")) {
        if (Path.empty()) {
          R.bad(Name + ": not found");
          continue;
        }
        for (const Wanted &W : Libraries)
          if (Name == W.Name) {
            ++Seen;
            checkLibrary(R, W, Program, Dir, true);
          }
      }
      if (!Seen)
        R.note("no CUDA library among them: it loads libcuda.so.1 by name at run time "
               "(NVIDIA's static cudart), as found above");
    }
  }
  std::printf("\nbackend and devices:\n");
  checkBackend(R, Dir);
  std::printf("\ncache:\n");
  checkCache(R);
  std::printf("\n%s\n", R.Problems ? "ferry doctor: something is off (BAD lines above)"
                                   : "ferry doctor: all good");
  return R.Problems ? 1 : 0;
}

} // namespace

FERRY_REGISTER_COMMAND(Doctor, "doctor",
                       "which CUDA libraries the loader finds, ferry's devices and cache", runDoctor);

} // namespace ferry::tool
