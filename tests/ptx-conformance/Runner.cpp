//===- Runner.cpp - run generated PTX conformance kernels, print results --===//
/// \file
/// The device half of the PTX conformance suite (see README.md). It reads a
/// job file written by conformance.py (a PTX module and, per kernel, the
/// number of threads, the input slots and the output widths), runs every
/// kernel through the CUDA driver API and prints the outputs as hex lines.
///
/// The same binary must run over NVIDIA's driver on the recording machine
/// and over ferry's libcuda here, so it includes no CUDA header and links no
/// CUDA library: it dlopen()s "libcuda.so.1" (whichever the loader finds)
/// and declares the handful of entry points it calls itself.
///
/// Errors are results, not aborts: a module that fails to load is retried
/// kernel by kernel (so one form the driver rejects does not hide the
/// others), and a kernel that fails to load or launch prints `E <code>`; a
/// launch error may poison the context, so the context is then rebuilt.
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>
#include <csignal>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// The kernel running now, for the watchdog: a form that hangs (a
/// compare-and-swap loop that never settles, say) must become a result,
/// not a stuck test. The caller reruns the kernels after it.
char Running[128];

void onAlarm(int) {
  char Buf[200];
  int N = std::snprintf(Buf, sizeof Buf, "K %s E hang\n", Running);
  if (N > 0 && write(1, Buf, size_t(N)) < 0)
    _exit(4);
  _exit(3);
}

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUdeviceptr = unsigned long long;

struct Driver {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*DevicePrimaryCtxReset)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)();
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           void *, void **, void **);
};

template <typename F> bool bind(void *Lib, F &Slot, const char *Name) {
  Slot = reinterpret_cast<F>(dlsym(Lib, Name));
  if (!Slot)
    std::fprintf(stderr, "runner: libcuda.so.1 lacks %s\n", Name);
  return Slot != nullptr;
}

bool loadDriver(Driver &D) {
  void *Lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!Lib) {
    std::fprintf(stderr, "runner: cannot load libcuda.so.1: %s\n", dlerror());
    return false;
  }
  return bind(Lib, D.Init, "cuInit") && bind(Lib, D.DeviceGet, "cuDeviceGet") &&
         bind(Lib, D.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
         bind(Lib, D.DevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2") &&
         bind(Lib, D.CtxSetCurrent, "cuCtxSetCurrent") && bind(Lib, D.CtxSynchronize, "cuCtxSynchronize") &&
         bind(Lib, D.ModuleLoadData, "cuModuleLoadData") && bind(Lib, D.ModuleUnload, "cuModuleUnload") &&
         bind(Lib, D.ModuleGetFunction, "cuModuleGetFunction") && bind(Lib, D.MemAlloc, "cuMemAlloc_v2") &&
         bind(Lib, D.MemFree, "cuMemFree_v2") && bind(Lib, D.MemcpyHtoD, "cuMemcpyHtoD_v2") &&
         bind(Lib, D.MemcpyDtoH, "cuMemcpyDtoH_v2") && bind(Lib, D.MemsetD8, "cuMemsetD8_v2") &&
         bind(Lib, D.LaunchKernel, "cuLaunchKernel");
}

struct Kernel {
  std::string Name;
  unsigned Threads = 0, InSlots = 0;
  std::vector<unsigned> OutWidths; // bytes printed of each 8-byte slot
  std::vector<uint64_t> Inputs;    // Threads * InSlots
};

/// A job: the module text and its kernels, in file order.
struct Job {
  std::string Ptx;
  std::vector<Kernel> Kernels;
};

bool readJob(const std::string &Path, Job &J) {
  std::ifstream In(Path);
  if (!In) {
    std::fprintf(stderr, "runner: cannot open %s\n", Path.c_str());
    return false;
  }
  std::string Word, PtxPath;
  In >> Word >> PtxPath;
  if (Word != "ptx")
    return false;
  std::string Dir = Path.substr(0, Path.find_last_of('/') + 1);
  std::ifstream P(Dir + PtxPath);
  if (!P) {
    std::fprintf(stderr, "runner: cannot open %s\n", (Dir + PtxPath).c_str());
    return false;
  }
  std::stringstream SS;
  SS << P.rdbuf();
  J.Ptx = SS.str();
  while (In >> Word) {
    if (Word != "kernel")
      return false;
    Kernel K;
    unsigned NOut = 0;
    In >> K.Name >> K.Threads >> K.InSlots >> NOut;
    K.OutWidths.resize(NOut);
    for (unsigned &W : K.OutWidths)
      In >> W;
    K.Inputs.resize(size_t(K.Threads) * K.InSlots);
    for (uint64_t &V : K.Inputs) {
      std::string Hex;
      In >> Hex;
      V = std::strtoull(Hex.c_str(), nullptr, 16);
    }
    if (!In)
      return false;
    J.Kernels.push_back(std::move(K));
  }
  return true;
}

/// The module's text up to its first entry (version, target, globals).
std::string header(const std::string &Ptx) {
  size_t At = Ptx.find("\n.visible .entry ");
  return At == std::string::npos ? Ptx : Ptx.substr(0, At + 1);
}

/// One entry's text, cut out of the module (entries are separated by the
/// generator's "// end <name>" lines).
std::string entryText(const std::string &Ptx, const std::string &Name) {
  size_t Begin = Ptx.find("\n.visible .entry " + Name + "(");
  size_t End = Ptx.find("// end " + Name + "\n", Begin);
  if (Begin == std::string::npos || End == std::string::npos)
    return "";
  return Ptx.substr(Begin + 1, End - Begin - 1);
}

/// Seconds one kernel (load, compile, run) may take before it counts as hung.
unsigned Watchdog = 60;

class Session {
public:
  explicit Session(Driver &D) : D(D) {}
  bool start() {
    if (D.Init(0) || D.DeviceGet(&Dev, 0) || D.DevicePrimaryCtxRetain(&Ctx, Dev) || D.CtxSetCurrent(Ctx))
      return false;
    return true;
  }
  /// After a failed launch: a sticky error poisons the primary context, so
  /// reset it and take it again.
  void restart() {
    Modules.clear();
    D.DevicePrimaryCtxReset(Dev);
    D.DevicePrimaryCtxRetain(&Ctx, Dev);
    D.CtxSetCurrent(Ctx);
  }
  void runJob(const Job &J);

private:
  Driver &D;
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  std::map<std::string, CUmodule> Modules; // kernel name -> its own module
  CUmodule Whole = nullptr;

  CUresult function(const Job &J, const Kernel &K, CUfunction &F);
  void runKernel(const Job &J, const Kernel &K, unsigned Seconds);
  void warmUp(const Kernel &K);
};

CUresult Session::function(const Job &J, const Kernel &K, CUfunction &F) {
  if (Whole && D.ModuleGetFunction(&F, Whole, K.Name.c_str()) == 0)
    return 0;
  auto It = Modules.find(K.Name);
  if (It == Modules.end()) {
    std::string Text = header(J.Ptx) + entryText(J.Ptx, K.Name);
    CUmodule M = nullptr;
    if (CUresult R = D.ModuleLoadData(&M, Text.c_str()))
      return R;
    It = Modules.emplace(K.Name, M).first;
  }
  return D.ModuleGetFunction(&F, It->second, K.Name.c_str());
}

void Session::runKernel(const Job &J, const Kernel &K, unsigned Seconds) {
  std::fflush(stdout);
  std::snprintf(Running, sizeof Running, "%s", K.Name.c_str());
  alarm(Seconds);
  CUfunction F = nullptr;
  if (CUresult R = function(J, K, F)) {
    std::printf("K %s E %d\n", K.Name.c_str(), R);
    alarm(0);
    return;
  }
  size_t InBytes = K.Inputs.size() * 8, OutBytes = size_t(K.Threads) * K.OutWidths.size() * 8;
  CUdeviceptr In = 0, Out = 0;
  CUresult R = D.MemAlloc(&In, InBytes ? InBytes : 8);
  if (!R)
    R = D.MemAlloc(&Out, OutBytes ? OutBytes : 8);
  if (!R && InBytes)
    R = D.MemcpyHtoD(In, K.Inputs.data(), InBytes);
  if (!R)
    R = D.MemsetD8(Out, 0, OutBytes ? OutBytes : 8);
  unsigned N = K.Threads;
  void *Params[] = {&In, &Out, &N};
  unsigned Block = N < 128 ? N : 128;
  if (!R)
    R = D.LaunchKernel(F, (N + Block - 1) / Block, 1, 1, Block, 1, 1, 0, nullptr, Params, nullptr);
  if (!R)
    R = D.CtxSynchronize();
  std::vector<uint64_t> Res(OutBytes / 8);
  if (!R)
    R = D.MemcpyDtoH(Res.data(), Out, OutBytes);
  if (R) {
    std::printf("K %s E %d\n", K.Name.c_str(), R);
    std::fflush(stdout);
    restart();
    Whole = nullptr;
    alarm(0);
    return;
  }
  D.MemFree(In);
  D.MemFree(Out);
  std::printf("K %s\n", K.Name.c_str());
  std::string Line;
  for (unsigned T = 0; T < N; ++T) {
    Line.clear();
    for (size_t O = 0; O < K.OutWidths.size(); ++O) {
      char Buf[24];
      unsigned W = K.OutWidths[O];
      uint64_t V = Res[size_t(T) * K.OutWidths.size() + O];
      if (W < 8)
        V &= (uint64_t(1) << (8 * W)) - 1;
      std::snprintf(Buf, sizeof Buf, "%s%0*llx", O ? " " : "", int(2 * W), (unsigned long long)V);
      Line += Buf;
    }
    std::printf("%s\n", Line.c_str());
  }
  alarm(0);
}

void Session::warmUp(const Kernel &K) {
  CUfunction F = nullptr;
  if (D.ModuleGetFunction(&F, Whole, K.Name.c_str()))
    return;
  std::snprintf(Running, sizeof Running, "%s", K.Name.c_str());
  alarm(Watchdog * 20);
  CUdeviceptr Null = 0;
  unsigned N = 0;
  void *Params[] = {&Null, &Null, &N};
  // A failure here shows again, with its code, when the kernel runs.
  if (D.LaunchKernel(F, 1, 1, 1, 32, 1, 1, 0, nullptr, Params, nullptr) == 0)
    D.CtxSynchronize();
  alarm(0);
}

void Session::runJob(const Job &J) {
  Whole = nullptr;
  if (D.ModuleLoadData(&Whole, J.Ptx.c_str()))
    Whole = nullptr; // Some kernel was rejected: load them one by one.
  // A driver may compile the whole module at the first launch (ferry
  // does): launch the first kernel once with no work (its threads see n = 0
  // and leave), under a watchdog long enough for all of them, so that a
  // kernel's own watchdog times its run, not the module's compilation.
  if (Whole && !J.Kernels.empty())
    warmUp(J.Kernels.front());
  for (const Kernel &K : J.Kernels)
    runKernel(J, K, Watchdog);
  if (Whole)
    D.ModuleUnload(Whole);
  for (auto &[Name, M] : Modules)
    D.ModuleUnload(M);
  Modules.clear();
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s JOB...  (results on stdout)\n", argv[0]);
    return 2;
  }
  if (const char *W = std::getenv("PTX_CONFORMANCE_WATCHDOG"))
    Watchdog = unsigned(std::atoi(W));
  std::signal(SIGALRM, onAlarm);
  Driver D;
  if (!loadDriver(D))
    return 1;
  Session S(D);
  if (!S.start()) {
    std::fprintf(stderr, "runner: no CUDA device or context\n");
    return 1;
  }
  for (int I = 1; I < argc; ++I) {
    Job J;
    if (!readJob(argv[I], J)) {
      std::fprintf(stderr, "runner: malformed job %s\n", argv[I]);
      return 1;
    }
    std::printf("J %s\n", argv[I]);
    S.runJob(J);
  }
  return 0;
}
