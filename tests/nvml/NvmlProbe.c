/* \file
 * Asks libnvidia-ml.so.1 (loaded with dlopen, so it builds without nvml.h)
 * what the devices are, one line per answer: `NAME status N` and the value.
 * Run on the H100 it records the shapes of NVIDIA's answers (strings'
 * formats, which queries a data-centre card answers, statuses for bad
 * arguments); run under ferry by tests/nvml it must answer every query it
 * can honestly answer. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef void *Dev;
typedef struct {
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} PciInfo;
typedef struct {
  unsigned long long total, free, used;
} MemInfo;
typedef struct {
  unsigned gpu, memory;
} Util;
typedef struct {
  unsigned pid;
  unsigned long long usedGpuMemory;
  unsigned gpuInstanceId, computeInstanceId;
} ProcInfo;

static void *L;
#define F(name) ((int (*)())dlsym(L, #name))
#define ST(label, expr)                                                                                                \
  do {                                                                                                                 \
    int s_ = (expr);                                                                                                   \
    printf("%s status %d\n", label, s_);                                                                               \
  } while (0)

int main(int argc, char **argv) {
  L = dlopen(argc > 1 ? argv[1] : "libnvidia-ml.so.1", RTLD_NOW);
  if (!L) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  char Buf[256];
  int I1 = 0, I2 = 0;
  unsigned U = 0, Count = 0;
  ST("init", ((int (*)(void))dlsym(L, "nvmlInit_v2"))());
  ST("driverversion", ((int (*)(char *, unsigned))dlsym(L, "nvmlSystemGetDriverVersion"))(Buf, sizeof Buf));
  printf("driverversion str %s\n", Buf);
  ST("nvmlversion", ((int (*)(char *, unsigned))dlsym(L, "nvmlSystemGetNVMLVersion"))(Buf, sizeof Buf));
  printf("nvmlversion str %s\n", Buf);
  ST("nvmlversion.small", ((int (*)(char *, unsigned))dlsym(L, "nvmlSystemGetNVMLVersion"))(Buf, 2));
  ST("cudaversion", ((int (*)(int *))dlsym(L, "nvmlSystemGetCudaDriverVersion_v2"))(&I1));
  printf("cudaversion int %d\n", I1);
  ST("count", ((int (*)(unsigned *))dlsym(L, "nvmlDeviceGetCount_v2"))(&Count));
  printf("count int %u\n", Count);
  Dev D = 0, D2 = 0;
  ST("handle.99", ((int (*)(unsigned, Dev *))dlsym(L, "nvmlDeviceGetHandleByIndex_v2"))(99, &D));
  ST("handle.0", ((int (*)(unsigned, Dev *))dlsym(L, "nvmlDeviceGetHandleByIndex_v2"))(0, &D));
  ST("name", ((int (*)(Dev, char *, unsigned))dlsym(L, "nvmlDeviceGetName"))(D, Buf, sizeof Buf));
  printf("name str %s\n", Buf);
  ST("name.small", ((int (*)(Dev, char *, unsigned))dlsym(L, "nvmlDeviceGetName"))(D, Buf, 4));
  char Uuid[96];
  ST("uuid", ((int (*)(Dev, char *, unsigned))dlsym(L, "nvmlDeviceGetUUID"))(D, Uuid, sizeof Uuid));
  printf("uuid str %s\n", Uuid);
  ST("byuuid", ((int (*)(const char *, Dev *))dlsym(L, "nvmlDeviceGetHandleByUUID"))(Uuid, &D2));
  printf("byuuid same %d\n", D2 == D);
  ST("byuuid.bad", ((int (*)(const char *, Dev *))dlsym(L, "nvmlDeviceGetHandleByUUID"))("GPU-nonsense", &D2));
  PciInfo P;
  memset(&P, 0, sizeof P);
  ST("pci", ((int (*)(Dev, PciInfo *))dlsym(L, "nvmlDeviceGetPciInfo_v3"))(D, &P));
  printf("pci str legacy=%s busId=%s domain=%u bus=%u device=%u id=%08x sub=%08x\n", P.busIdLegacy, P.busId, P.domain,
         P.bus, P.device, P.pciDeviceId, P.pciSubSystemId);
  ST("bypci", ((int (*)(const char *, Dev *))dlsym(L, "nvmlDeviceGetHandleByPciBusId_v2"))(P.busId, &D2));
  printf("bypci same %d\n", D2 == D);
  ST("bypci.bad", ((int (*)(const char *, Dev *))dlsym(L, "nvmlDeviceGetHandleByPciBusId_v2"))("zz:zz", &D2));
  MemInfo M;
  ST("memory", ((int (*)(Dev, MemInfo *))dlsym(L, "nvmlDeviceGetMemoryInfo"))(D, &M));
  printf("memory int total=%llu free=%llu used=%llu\n", M.total, M.free, M.used);
  ST("cc", ((int (*)(Dev, int *, int *))dlsym(L, "nvmlDeviceGetCudaComputeCapability"))(D, &I1, &I2));
  printf("cc int %d %d\n", I1, I2);
  for (int T = 0; T < 4; ++T) {
    char Label[64];
    snprintf(Label, sizeof Label, "clock.%d", T);
    ST(Label, ((int (*)(Dev, int, unsigned *))dlsym(L, "nvmlDeviceGetClockInfo"))(D, T, &U));
    printf("%s int %u\n", Label, U);
    snprintf(Label, sizeof Label, "maxclock.%d", T);
    ST(Label, ((int (*)(Dev, int, unsigned *))dlsym(L, "nvmlDeviceGetMaxClockInfo"))(D, T, &U));
    printf("%s int %u\n", Label, U);
  }
  ST("temperature", ((int (*)(Dev, int, unsigned *))dlsym(L, "nvmlDeviceGetTemperature"))(D, 0, &U));
  printf("temperature int %u\n", U);
  ST("power", ((int (*)(Dev, unsigned *))dlsym(L, "nvmlDeviceGetPowerUsage"))(D, &U));
  printf("power int %u\n", U);
  ST("powerlimit", ((int (*)(Dev, unsigned *))dlsym(L, "nvmlDeviceGetPowerManagementLimit"))(D, &U));
  printf("powerlimit int %u\n", U);
  ST("fan", ((int (*)(Dev, unsigned *))dlsym(L, "nvmlDeviceGetFanSpeed"))(D, &U));
  ST("pstate", ((int (*)(Dev, int *))dlsym(L, "nvmlDeviceGetPerformanceState"))(D, &I1));
  printf("pstate int %d\n", I1);
  Util Ut;
  ST("util", ((int (*)(Dev, Util *))dlsym(L, "nvmlDeviceGetUtilizationRates"))(D, &Ut));
  printf("util int %u %u\n", Ut.gpu, Ut.memory);
  ST("index", ((int (*)(Dev, unsigned *))dlsym(L, "nvmlDeviceGetIndex"))(D, &U));
  printf("index int %u\n", U);
  ST("minor", ((int (*)(Dev, unsigned *))dlsym(L, "nvmlDeviceGetMinorNumber"))(D, &U));
  printf("minor int %u\n", U);
  ST("serial", ((int (*)(Dev, char *, unsigned))dlsym(L, "nvmlDeviceGetSerial"))(D, Buf, sizeof Buf));
  ST("brand", ((int (*)(Dev, int *))dlsym(L, "nvmlDeviceGetBrand"))(D, &I1));
  printf("brand int %d\n", I1);
  ProcInfo Procs[8];
  unsigned N = 0;
  ST("procs.count", ((int (*)(Dev, unsigned *, ProcInfo *))dlsym(L, "nvmlDeviceGetComputeRunningProcesses_v3"))(D, &N, 0));
  printf("procs.count int %u\n", N);
  N = 8;
  ST("procs", ((int (*)(Dev, unsigned *, ProcInfo *))dlsym(L, "nvmlDeviceGetComputeRunningProcesses_v3"))(D, &N, Procs));
  /* Bad arguments: null outputs, short buffers, a null handle, a null id. */
  ST("count.nullout", ((int (*)(unsigned *))dlsym(L, "nvmlDeviceGetCount_v2"))(0));
  ST("handle.nullout", ((int (*)(unsigned, Dev *))dlsym(L, "nvmlDeviceGetHandleByIndex_v2"))(0, 0));
  ST("driverversion.small", ((int (*)(char *, unsigned))dlsym(L, "nvmlSystemGetDriverVersion"))(Buf, 2));
  ST("uuid.small", ((int (*)(Dev, char *, unsigned))dlsym(L, "nvmlDeviceGetUUID"))(D, Uuid, 10));
  ST("uuid.nullout", ((int (*)(Dev, char *, unsigned))dlsym(L, "nvmlDeviceGetUUID"))(D, 0, sizeof Uuid));
  ST("byuuid.null", ((int (*)(const char *, Dev *))dlsym(L, "nvmlDeviceGetHandleByUUID"))(0, &D2));
  ST("memory.nullout", ((int (*)(Dev, MemInfo *))dlsym(L, "nvmlDeviceGetMemoryInfo"))(D, 0));
  ST("memory.nullhandle", ((int (*)(Dev, MemInfo *))dlsym(L, "nvmlDeviceGetMemoryInfo"))(0, &M));
  ST("pci.nullout", ((int (*)(Dev, PciInfo *))dlsym(L, "nvmlDeviceGetPciInfo_v3"))(D, 0));
  ST("cc.nullout", ((int (*)(Dev, int *, int *))dlsym(L, "nvmlDeviceGetCudaComputeCapability"))(D, 0, 0));
  ST("clock.badtype", ((int (*)(Dev, int, unsigned *))dlsym(L, "nvmlDeviceGetClockInfo"))(D, 99, &U));
  ST("index.nullout", ((int (*)(Dev, unsigned *))dlsym(L, "nvmlDeviceGetIndex"))(D, 0));
  ST("name.nullhandle", ((int (*)(Dev, char *, unsigned))dlsym(L, "nvmlDeviceGetName"))(0, Buf, sizeof Buf));
  printf("errstr str %s | %s | %s\n", ((const char *(*)(int))dlsym(L, "nvmlErrorString"))(3),
         ((const char *(*)(int))dlsym(L, "nvmlErrorString"))(2), ((const char *(*)(int))dlsym(L, "nvmlErrorString"))(999));
  ST("shutdown", ((int (*)(void))dlsym(L, "nvmlShutdown"))());
  ST("shutdown.again", ((int (*)(void))dlsym(L, "nvmlShutdown"))());
  ST("count.afterShutdown", ((int (*)(unsigned *))dlsym(L, "nvmlDeviceGetCount_v2"))(&Count));
  return 0;
}
