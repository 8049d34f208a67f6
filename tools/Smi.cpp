/// \file
/// `ferry smi`: ferry's devices as people expect to see them from
/// nvidia-smi, asked through ferry's own NVML (libnvidia-ml.so.1 from
/// ferry's library directory, over ferry's libcuda.so.1), so what it shows
/// is what any NVML client of ferry sees.
///   ferry smi                     the summary: a header box with the
///                                 driver and CUDA versions, one box per GPU
///                                 (name, bus id, memory use, utilisation)
///                                 and the processes using the GPUs;
///   ferry smi -L                  one line per GPU with its UUID;
///   ferry smi --query-gpu=F,... --format=csv[,noheader][,nounits]
///                                 nvidia-smi's CSV query for the common
///                                 fields (the list: --help-query-gpu).
/// The layout, headers, units and the text for unavailable values follow
/// what nvidia-smi 580 printed on the H100 for the same queries
/// (tests/nvml/goldens/smi/). Values ferry cannot know on its backend
/// (temperature, power, fan, utilisation of a CPU device...) are the
/// answers NVML gives ferry: NOT_SUPPORTED, shown as nvidia-smi shows
/// those, never made up. `-i N` picks one GPU, as nvidia-smi's.
#include "ferry/libs/nvml.h"
#include "tools/Command.h"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace ferry::tool {

std::string ferryLibDir();

namespace {

/// ferry's NVML, resolved by name from the loaded library.
struct Nvml {
  void *Lib = nullptr;
  template <typename Fn> Fn get(const char *Name) const {
    return reinterpret_cast<Fn>(dlsym(Lib, Name));
  }
  nvmlReturn_t (*Init)() = nullptr;
  nvmlReturn_t (*Shutdown)() = nullptr;
  nvmlReturn_t (*DriverVersion)(char *, unsigned) = nullptr;
  nvmlReturn_t (*CudaVersion)(int *) = nullptr;
  nvmlReturn_t (*Count)(unsigned *) = nullptr;
  nvmlReturn_t (*Handle)(unsigned, nvmlDevice_t *) = nullptr;
  nvmlReturn_t (*Name)(nvmlDevice_t, char *, unsigned) = nullptr;
  nvmlReturn_t (*Uuid)(nvmlDevice_t, char *, unsigned) = nullptr;
  nvmlReturn_t (*Pci)(nvmlDevice_t, nvmlPciInfo_t *) = nullptr;
  nvmlReturn_t (*Memory)(nvmlDevice_t, nvmlMemory_t *) = nullptr;
  nvmlReturn_t (*Cc)(nvmlDevice_t, int *, int *) = nullptr;
  nvmlReturn_t (*Clock)(nvmlDevice_t, int, unsigned *) = nullptr;
  nvmlReturn_t (*MaxClock)(nvmlDevice_t, int, unsigned *) = nullptr;
  nvmlReturn_t (*Util)(nvmlDevice_t, nvmlUtilization_t *) = nullptr;
  nvmlReturn_t (*Temp)(nvmlDevice_t, int, unsigned *) = nullptr;
  nvmlReturn_t (*Power)(nvmlDevice_t, unsigned *) = nullptr;
  nvmlReturn_t (*PowerLimit)(nvmlDevice_t, unsigned *) = nullptr;
  nvmlReturn_t (*Fan)(nvmlDevice_t, unsigned *) = nullptr;
  nvmlReturn_t (*Pstate)(nvmlDevice_t, int *) = nullptr;
  nvmlReturn_t (*Serial)(nvmlDevice_t, char *, unsigned) = nullptr;
  nvmlReturn_t (*Procs)(nvmlDevice_t, unsigned *, nvmlProcessInfo_t *) = nullptr;
  const char *(*ErrorString)(nvmlReturn_t) = nullptr;
};

/// Loads ferry's driver first (global), so the NVML's dlopen of
/// "libcuda.so.1" finds ferry's already loaded, then ferry's NVML.
bool load(Nvml &N, std::string &Why) {
  std::string Dir = ferryLibDir();
  if (!dlopen((Dir + "/libcuda.so.1").c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    Why = std::string("cannot load ferry's libcuda.so.1: ") + dlerror();
    return false;
  }
  N.Lib = dlopen((Dir + "/libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!N.Lib) {
    Why = std::string("cannot load ferry's libnvidia-ml.so.1: ") + dlerror();
    return false;
  }
  using R = nvmlReturn_t;
  N.Init = N.get<R (*)()>("nvmlInit_v2");
  N.Shutdown = N.get<R (*)()>("nvmlShutdown");
  N.DriverVersion = N.get<R (*)(char *, unsigned)>("nvmlSystemGetDriverVersion");
  N.CudaVersion = N.get<R (*)(int *)>("nvmlSystemGetCudaDriverVersion_v2");
  N.Count = N.get<R (*)(unsigned *)>("nvmlDeviceGetCount_v2");
  N.Handle = N.get<R (*)(unsigned, nvmlDevice_t *)>("nvmlDeviceGetHandleByIndex_v2");
  N.Name = N.get<R (*)(nvmlDevice_t, char *, unsigned)>("nvmlDeviceGetName");
  N.Uuid = N.get<R (*)(nvmlDevice_t, char *, unsigned)>("nvmlDeviceGetUUID");
  N.Pci = N.get<R (*)(nvmlDevice_t, nvmlPciInfo_t *)>("nvmlDeviceGetPciInfo_v3");
  N.Memory = N.get<R (*)(nvmlDevice_t, nvmlMemory_t *)>("nvmlDeviceGetMemoryInfo");
  N.Cc = N.get<R (*)(nvmlDevice_t, int *, int *)>("nvmlDeviceGetCudaComputeCapability");
  N.Clock = N.get<R (*)(nvmlDevice_t, int, unsigned *)>("nvmlDeviceGetClockInfo");
  N.MaxClock = N.get<R (*)(nvmlDevice_t, int, unsigned *)>("nvmlDeviceGetMaxClockInfo");
  N.Util = N.get<R (*)(nvmlDevice_t, nvmlUtilization_t *)>("nvmlDeviceGetUtilizationRates");
  N.Temp = N.get<R (*)(nvmlDevice_t, int, unsigned *)>("nvmlDeviceGetTemperature");
  N.Power = N.get<R (*)(nvmlDevice_t, unsigned *)>("nvmlDeviceGetPowerUsage");
  N.PowerLimit = N.get<R (*)(nvmlDevice_t, unsigned *)>("nvmlDeviceGetPowerManagementLimit");
  N.Fan = N.get<R (*)(nvmlDevice_t, unsigned *)>("nvmlDeviceGetFanSpeed");
  N.Pstate = N.get<R (*)(nvmlDevice_t, int *)>("nvmlDeviceGetPerformanceState");
  N.Serial = N.get<R (*)(nvmlDevice_t, char *, unsigned)>("nvmlDeviceGetSerial");
  N.Procs = N.get<R (*)(nvmlDevice_t, unsigned *, nvmlProcessInfo_t *)>("nvmlDeviceGetComputeRunningProcesses_v3");
  N.ErrorString = N.get<const char *(*)(nvmlReturn_t)>("nvmlErrorString");
  if (!N.Init || !N.Count || !N.Handle || !N.Name || !N.ErrorString) {
    Why = "ferry's libnvidia-ml.so.1 lacks the NVML API";
    return false;
  }
  return true;
}

/// One answer: a value, or why there is none (nvidia-smi's words).
struct Value {
  bool Ok = false;
  std::string Text;  // with units
  std::string Plain; // nounits
};

Value ok(const std::string &Plain, const std::string &Unit = "") {
  return {true, Unit.empty() ? Plain : Plain + " " + Unit, Plain};
}
Value none(nvmlReturn_t R) {
  // nvidia-smi writes [N/A] for a value the GPU does not report (what
  // NOT_SUPPORTED means for these queries) and [Unknown Error] otherwise.
  std::string T = R == NVML_ERROR_NOT_SUPPORTED ? "[N/A]" : "[Unknown Error]";
  return {false, T, T};
}
Value okOr(nvmlReturn_t R, const std::string &Plain, const std::string &Unit = "") {
  return R == NVML_SUCCESS ? ok(Plain, Unit) : none(R);
}

std::string mib(unsigned long long Bytes) { return std::to_string(Bytes >> 20); }

/// The query fields: name (and nvidia-smi's aliases), CSV header unit.
struct Field {
  const char *Name;
  const char *Alias;
  const char *Unit; // "" when none
};
const Field Fields[] = {
    {"timestamp", nullptr, ""},
    {"driver_version", nullptr, ""},
    {"count", nullptr, ""},
    {"name", "gpu_name", ""},
    {"serial", "gpu_serial", ""},
    {"uuid", "gpu_uuid", ""},
    {"pci.bus_id", "gpu_bus_id", ""},
    {"pci.domain", nullptr, ""},
    {"pci.bus", nullptr, ""},
    {"pci.device", nullptr, ""},
    {"pci.device_id", nullptr, ""},
    {"pci.sub_device_id", nullptr, ""},
    {"index", nullptr, ""},
    {"persistence_mode", nullptr, ""},
    {"vbios_version", nullptr, ""},
    {"fan.speed", nullptr, "%"},
    {"pstate", nullptr, ""},
    {"memory.total", nullptr, "MiB"},
    {"memory.reserved", nullptr, "MiB"},
    {"memory.used", nullptr, "MiB"},
    {"memory.free", nullptr, "MiB"},
    {"compute_cap", nullptr, ""},
    {"utilization.gpu", nullptr, "%"},
    {"utilization.memory", nullptr, "%"},
    {"temperature.gpu", nullptr, ""},
    {"power.draw", nullptr, "W"},
    {"power.limit", "gpu.power.requested_limit", "W"},
    {"clocks.current.graphics", "clocks.gr", "MHz"},
    {"clocks.current.sm", "clocks.sm", "MHz"},
    {"clocks.current.memory", "clocks.mem", "MHz"},
    {"clocks.max.graphics", "clocks.max.gr", "MHz"},
    {"clocks.max.sm", nullptr, "MHz"},
    {"clocks.max.memory", "clocks.max.mem", "MHz"},
};

const Field *findField(const std::string &Name) {
  for (const Field &F : Fields)
    if (Name == F.Name || (F.Alias && Name == F.Alias))
      return &F;
  return nullptr;
}

std::string watts(unsigned Milli) {
  char B[32];
  std::snprintf(B, sizeof B, "%.2f", Milli / 1000.0);
  return B;
}

/// The value of field F for device D (index I of Count).
Value query(const Nvml &N, const Field &F, nvmlDevice_t D, unsigned I, unsigned Count) {
  std::string Name = F.Name;
  char Buf[256] = {0};
  unsigned U = 0;
  int A = 0, B = 0;
  nvmlReturn_t R;
  if (Name == "timestamp") {
    std::time_t T = std::time(nullptr);
    std::tm Tm;
    localtime_r(&T, &Tm);
    std::strftime(Buf, sizeof Buf, "%Y/%m/%d %H:%M:%S.000", &Tm);
    return ok(Buf);
  }
  if (Name == "driver_version") {
    R = N.DriverVersion ? N.DriverVersion(Buf, sizeof Buf) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, Buf);
  }
  if (Name == "count")
    return ok(std::to_string(Count));
  if (Name == "index")
    return ok(std::to_string(I));
  if (Name == "name") {
    R = N.Name(D, Buf, sizeof Buf);
    return okOr(R, Buf);
  }
  if (Name == "serial") {
    R = N.Serial ? N.Serial(D, Buf, sizeof Buf) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, Buf);
  }
  if (Name == "uuid") {
    R = N.Uuid ? N.Uuid(D, Buf, sizeof Buf) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, Buf);
  }
  if (Name.rfind("pci.", 0) == 0) {
    nvmlPciInfo_t P;
    std::memset(&P, 0, sizeof P);
    R = N.Pci ? N.Pci(D, &P) : NVML_ERROR_NOT_SUPPORTED;
    if (R != NVML_SUCCESS)
      return none(R);
    if (Name == "pci.bus_id")
      return ok(P.busId);
    if (Name == "pci.domain")
      std::snprintf(Buf, sizeof Buf, "0x%04X", P.domain);
    else if (Name == "pci.bus")
      std::snprintf(Buf, sizeof Buf, "0x%02X", P.bus);
    else if (Name == "pci.device")
      std::snprintf(Buf, sizeof Buf, "0x%02X", P.device);
    else if (Name == "pci.device_id")
      std::snprintf(Buf, sizeof Buf, "0x%08X", P.pciDeviceId);
    else
      std::snprintf(Buf, sizeof Buf, "0x%08X", P.pciSubSystemId);
    return ok(Buf);
  }
  // Persistence mode and the VBIOS have no meaning for ferry's devices;
  // its NVML does not implement them (and would log each call).
  if (Name == "persistence_mode" || Name == "vbios_version")
    return none(NVML_ERROR_NOT_SUPPORTED);
  if (Name == "compute_cap") {
    R = N.Cc ? N.Cc(D, &A, &B) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, std::to_string(A) + "." + std::to_string(B));
  }
  if (Name == "fan.speed") {
    R = N.Fan ? N.Fan(D, &U) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, std::to_string(U), "%");
  }
  if (Name == "pstate") {
    R = N.Pstate ? N.Pstate(D, &A) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, "P" + std::to_string(A));
  }
  if (Name.rfind("memory.", 0) == 0) {
    nvmlMemory_t M;
    R = N.Memory ? N.Memory(D, &M) : NVML_ERROR_NOT_SUPPORTED;
    if (R != NVML_SUCCESS)
      return none(R);
    // Reserved: what the total leaves beyond used and free (the driver's
    // own share on NVIDIA's; none on ferry's devices).
    unsigned long long V = Name == "memory.total"  ? M.total
                           : Name == "memory.used" ? M.used
                           : Name == "memory.free" ? M.free
                                                   : M.total - M.used - M.free;
    return ok(mib(V), "MiB");
  }
  if (Name.rfind("utilization.", 0) == 0) {
    nvmlUtilization_t Ut;
    R = N.Util ? N.Util(D, &Ut) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, std::to_string(Name == "utilization.gpu" ? Ut.gpu : Ut.memory), "%");
  }
  if (Name == "temperature.gpu") {
    R = N.Temp ? N.Temp(D, NVML_TEMPERATURE_GPU, &U) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, std::to_string(U));
  }
  if (Name == "power.draw") {
    R = N.Power ? N.Power(D, &U) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, watts(U), "W");
  }
  if (Name == "power.limit") {
    R = N.PowerLimit ? N.PowerLimit(D, &U) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, watts(U), "W");
  }
  if (Name.rfind("clocks.", 0) == 0) {
    bool Max = Name.rfind("clocks.max.", 0) == 0;
    std::string Kind = Name.substr(Max ? 11 : 15);
    int Type = Kind == "sm" ? NVML_CLOCK_SM : Kind == "memory" ? NVML_CLOCK_MEM : NVML_CLOCK_GRAPHICS;
    auto Fn = Max ? N.MaxClock : N.Clock;
    R = Fn ? Fn(D, Type, &U) : NVML_ERROR_NOT_SUPPORTED;
    return okOr(R, std::to_string(U), "MHz");
  }
  return none(NVML_ERROR_NOT_SUPPORTED);
}

std::vector<std::string> split(const std::string &S, char Sep) {
  std::vector<std::string> Out;
  size_t Pos = 0;
  while (true) {
    size_t End = S.find(Sep, Pos);
    Out.push_back(S.substr(Pos, End == std::string::npos ? std::string::npos : End - Pos));
    if (End == std::string::npos)
      break;
    Pos = End + 1;
  }
  return Out;
}

void usage(FILE *Out) {
  std::fprintf(Out, "usage: ferry smi [-i N] [-L | --query-gpu=FIELD,... --format=csv[,noheader][,nounits]]\n"
                    "  Shows ferry's devices as nvidia-smi shows NVIDIA's, asked through ferry's\n"
                    "  NVML (libnvidia-ml.so.1). With no option: the summary table.\n"
                    "  -L                 one line per GPU: name and UUID\n"
                    "  -i N               only GPU N\n"
                    "  --query-gpu=F,...  values of the fields F for each GPU (--help-query-gpu)\n"
                    "  --format=csv[,noheader][,nounits]  as nvidia-smi's (csv is the default)\n"
                    "  --help-query-gpu   the fields --query-gpu knows\n");
}

/// A cell of the summary's boxes: Text padded to Width, left or right.
std::string pad(const std::string &Text, size_t Width, bool Right) {
  if (Text.size() >= Width)
    return Text;
  std::string Fill(Width - Text.size(), ' ');
  return Right ? Fill + Text : Text + Fill;
}

int summary(const Nvml &N, const std::vector<unsigned> &Which, unsigned Count) {
  char Driver[96] = "N/A";
  if (!N.DriverVersion || N.DriverVersion(Driver, sizeof Driver) != NVML_SUCCESS)
    std::strcpy(Driver, "N/A");
  int Cuda = 0;
  std::string CudaText = "N/A";
  if (N.CudaVersion && N.CudaVersion(&Cuda) == NVML_SUCCESS)
    CudaText = std::to_string(Cuda / 1000) + "." + std::to_string(Cuda % 1000 / 10);
  std::time_t T = std::time(nullptr);
  char When[64];
  std::strftime(When, sizeof When, "%a %b %e %H:%M:%S %Y", std::localtime(&T));
  std::printf("%s       \n", When);
  const std::string Rule = "+-----------------------------------------------------------------------------------------+";
  const std::string Mid = "+-----------------------------------------+------------------------+----------------------+";
  std::printf("%s\n", Rule.c_str());
  // nvidia-smi's widths: version 23, driver version 15, CUDA version 9.
  std::printf("| FERRY-SMI %s%s%s%s%s|\n", pad(FERRY_VERSION, 24, false).c_str(), "Driver Version: ",
              pad(Driver, 15, false).c_str(), "CUDA Version: ", pad(CudaText, 9, false).c_str());
  std::printf("%s\n", Mid.c_str());
  std::printf("| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
              "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
              "|                                         |                        |               MIG M. |\n"
              "|=========================================+========================+======================|\n");
  for (unsigned I : Which) {
    nvmlDevice_t D;
    if (N.Handle(I, &D) != NVML_SUCCESS)
      continue;
    auto Q = [&](const char *F) { return query(N, *findField(F), D, I, Count); };
    Value Persist = Q("persistence_mode"), Name = Q("name"), Bus = Q("pci.bus_id"), Fan = Q("fan.speed"),
          Temp = Q("temperature.gpu"), Perf = Q("pstate"), Pw = Q("power.draw"), Cap = Q("power.limit"),
          Used = Q("memory.used"), Total = Q("memory.total"), Util = Q("utilization.gpu");
    auto Or = [](const Value &V, const std::string &Suffix) { return V.Ok ? V.Plain + Suffix : std::string("N/A"); };
    auto Watts = [](const Value &V) {
      return V.Ok ? std::to_string((int)(std::stod(V.Plain) + 0.5)) + "W" : std::string("N/A");
    };
    // Each box's inner widths: 41, 24 and 22 characters.
    std::string PersistText = Persist.Ok ? (Persist.Plain == "Enabled" ? "On" : "Off") : "N/A";
    std::string C1 = pad(std::to_string(I), 4, true) + "  " + pad(Or(Name, ""), 33 - PersistText.size(), false) +
                     PersistText + "  ";
    std::string C2 = pad(Or(Bus, ""), 19, true) + " Off ";
    std::string C3 = pad("N/A", 21, true) + " ";
    std::printf("|%s|%s|%s|\n", C1.c_str(), C2.c_str(), C3.c_str());
    std::string Left = " " + pad(Or(Fan, "%"), 3, false) + "   " + pad(Or(Temp, "C"), 3, true) + "    " + Or(Perf, "");
    std::string Right = Watts(Pw) + " / " + pad(Watts(Cap), 5, true) + " ";
    C1 = pad(Left, 41 - Right.size(), false) + Right;
    C2 = pad(Or(Used, "MiB"), 11, true) + " / " + pad(Or(Total, "MiB"), 9, true) + " ";
    C3 = pad(Or(Util, "%"), 8, true) + "      Default ";
    std::printf("|%s|%s|%s|\n", C1.c_str(), C2.c_str(), C3.c_str());
    std::printf("|%s|%s|%s|\n", std::string(41, ' ').c_str(), std::string(24, ' ').c_str(),
                (pad("N/A", 21, true) + " ").c_str());
    std::printf("%s\n", Mid.c_str());
  }
  std::printf("\n%s\n", Rule.c_str());
  std::printf("| Processes:                                                                              |\n"
              "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n"
              "|        ID   ID                                                               Usage      |\n"
              "|=========================================================================================|\n");
  // ferry's devices live inside the processes that load ferry: NVML lists
  // only this one while it holds a context, which `ferry smi` never does.
  bool Any = false;
  for (unsigned I : Which) {
    nvmlDevice_t D;
    unsigned P = 0;
    if (N.Handle(I, &D) == NVML_SUCCESS && N.Procs && N.Procs(D, &P, nullptr) == NVML_SUCCESS && P)
      Any = true;
  }
  if (!Any)
    std::printf("|  No running processes found                                                             |\n");
  std::printf("%s\n", Rule.c_str());
  return 0;
}

int runSmi(const std::vector<std::string> &Args) {
  std::string QueryList, Format;
  bool List = false, HaveQuery = false, HaveFormat = false;
  int Only = -1;
  for (size_t K = 0; K < Args.size(); ++K) {
    const std::string &A = Args[K];
    if (A == "--help" || A == "-h") {
      usage(stdout);
      return 0;
    }
    if (A == "--help-query-gpu") {
      for (const Field &F : Fields)
        std::printf("\"%s\"%s%s%s\n", F.Name, F.Alias ? " or \"" : "", F.Alias ? F.Alias : "", F.Alias ? "\"" : "");
      return 0;
    }
    if (A == "-L" || A == "--list-gpus")
      List = true;
    else if (A.rfind("--query-gpu=", 0) == 0) {
      QueryList = A.substr(12);
      HaveQuery = true;
    } else if (A.rfind("--format=", 0) == 0) {
      Format = A.substr(9);
      HaveFormat = true;
    } else if ((A == "-i" || A == "--id") && K + 1 < Args.size()) {
      Only = std::atoi(Args[++K].c_str());
    } else if (A.rfind("--id=", 0) == 0) {
      Only = std::atoi(A.c_str() + 5);
    } else {
      std::fprintf(stderr, "ferry smi: unknown option '%s'\n", A.c_str());
      usage(stderr);
      return 2;
    }
  }
  bool NoHeader = false, NoUnits = false;
  if (HaveFormat) {
    std::vector<std::string> Parts = split(Format, ',');
    if (Parts[0] != "csv") {
      std::printf("Format modifier is not recognized.\n");
      return 2;
    }
    for (size_t K = 1; K < Parts.size(); ++K) {
      if (Parts[K] == "noheader")
        NoHeader = true;
      else if (Parts[K] == "nounits")
        NoUnits = true;
      else {
        std::printf("Format modifier is not recognized.\n");
        return 2;
      }
    }
  }
  std::vector<const Field *> Query;
  if (HaveQuery) {
    for (const std::string &Name : split(QueryList, ',')) {
      const Field *F = findField(Name);
      if (!F) {
        std::printf("Field \"%s\" is not a valid field to query.\n\n", Name.c_str());
        return 2;
      }
      Query.push_back(F);
    }
  }
  Nvml N;
  std::string Why;
  if (!load(N, Why)) {
    std::fprintf(stderr, "ferry smi: %s\n", Why.c_str());
    return 9;
  }
  if (nvmlReturn_t R = N.Init()) {
    std::printf("ferry smi: NVML answers \"%s\": ferry sees no device ('ferry doctor' says why).\n",
                N.ErrorString(R));
    return 9;
  }
  unsigned Count = 0;
  N.Count(&Count);
  std::vector<unsigned> Which;
  if (Only >= 0) {
    if ((unsigned)Only >= Count) {
      std::printf("No devices were found\n");
      N.Shutdown();
      return 6;
    }
    Which.push_back(Only);
  } else
    for (unsigned I = 0; I < Count; ++I)
      Which.push_back(I);
  int Rc = 0;
  if (List) {
    for (unsigned I : Which) {
      nvmlDevice_t D;
      char Name[128] = "", Uuid[128] = "";
      if (N.Handle(I, &D) != NVML_SUCCESS)
        continue;
      N.Name(D, Name, sizeof Name);
      if (N.Uuid)
        N.Uuid(D, Uuid, sizeof Uuid);
      std::printf("GPU %u: %s (UUID: %s)\n", I, Name, Uuid);
    }
  } else if (HaveQuery) {
    if (!NoHeader) {
      std::string H;
      for (const Field *F : Query) {
        if (!H.empty())
          H += ", ";
        // The header names what was asked (an alias stays an alias).
        H += F->Name;
        if (F->Unit[0]) // nvidia-smi keeps the units here even with nounits
          H += std::string(" [") + F->Unit + "]";
      }
      std::printf("%s\n", H.c_str());
    }
    for (unsigned I : Which) {
      nvmlDevice_t D;
      if (N.Handle(I, &D) != NVML_SUCCESS)
        continue;
      std::string L;
      for (const Field *F : Query) {
        if (!L.empty())
          L += ", ";
        Value V = query(N, *F, D, I, Count);
        L += NoUnits ? V.Plain : V.Text;
      }
      std::printf("%s\n", L.c_str());
    }
  } else {
    if (Count == 0) {
      std::printf("No devices were found\n");
      Rc = 6;
    } else
      Rc = summary(N, Which, Count);
  }
  if (N.Shutdown)
    N.Shutdown();
  return Rc;
}

} // namespace

FERRY_REGISTER_COMMAND(Smi, "smi", "ferry's devices as nvidia-smi shows them (NVML), --query-gpu CSV", runSmi);

} // namespace ferry::tool
