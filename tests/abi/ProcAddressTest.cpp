/// \file
/// cuGetProcAddress resolution (ferry/ProcAddress.h over the generated
/// table) against facts observed from NVIDIA's CUDA 13 stack: the requests
/// cudart 13 makes (cudart13-requests.txt, recorded against a logging
/// libcuda) must all resolve, and the answers documented in
/// /work/shared/reference/cuda13-driver-contract.md must be the ones given.
/// Rows carry the symbol's name instead of its address, so the test needs
/// no libcuda.
#include "ferry/ProcAddress.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

using namespace ferry::api;

namespace {

#define FERRY_PROC(Name, Version, PerThread, Symbol)                                    \
  {Name, Version, PerThread != 0, const_cast<char *>(#Symbol)},
const ProcEntry Table[] = {
#include "ferry/generated/ProcAddressTable.inc"
};

/// The symbol name answering (Name, Version, Flags), or "" with the status.
std::string resolve(std::string_view Name, int Version, uint64_t Flags,
                    ProcStatus *Status = nullptr) {
  ProcLookup L = lookupProc(Table, Name, Version, Flags);
  if (Status)
    *Status = L.Status;
  return L.Status == ProcStatus::Found ? static_cast<const char *>(L.Entry->Fn) : "";
}

} // namespace

TEST(ProcAddress, TableIsSortedForBinarySearch) {
  for (size_t I = 1; I < std::size(Table); ++I)
    ASSERT_LE(std::string_view(Table[I - 1].Name), std::string_view(Table[I].Name)) << I;
}

TEST(ProcAddress, ContractAnswers) {
  // Facts from the driver contract (observed with NVIDIA's libcuda).
  EXPECT_EQ(resolve("cuMemAlloc", 3020, 0), "cuMemAlloc_v2");
  EXPECT_EQ(resolve("cuMemFree", 3020, 0), "cuMemFree_v2");
  EXPECT_EQ(resolve("cuDeviceTotalMem", 3020, 0), "cuDeviceTotalMem_v2");
  EXPECT_EQ(resolve("cuModuleGetGlobal", 3020, 0), "cuModuleGetGlobal_v2");
  EXPECT_EQ(resolve("cuMemGetInfo", 3020, 0), "cuMemGetInfo_v2");
  EXPECT_EQ(resolve("cuMemcpyHtoD", 3020, 0), "cuMemcpyHtoD_v2");
  EXPECT_EQ(resolve("cuCtxGetDevice", 13000, 0), "cuCtxGetDevice_v2");
  EXPECT_EQ(resolve("cuCtxGetDevice", 2000, 0), "cuCtxGetDevice");
  EXPECT_EQ(resolve("cuCtxSynchronize", 13000, 0), "cuCtxSynchronize_v2");
  EXPECT_EQ(resolve("cuCtxSynchronize", 2000, 0), "cuCtxSynchronize");
  EXPECT_EQ(resolve("cuEventElapsedTime", 12080, 0), "cuEventElapsedTime_v2");
  EXPECT_EQ(resolve("cuDeviceGetUuid", 9020, 0), "cuDeviceGetUuid");
  EXPECT_EQ(resolve("cuDevicePrimaryCtxRelease", 7000, 0), "cuDevicePrimaryCtxRelease");
  EXPECT_EQ(resolve("cuDevicePrimaryCtxReset", 7000, 0), "cuDevicePrimaryCtxReset");
  EXPECT_EQ(resolve("cuGetProcAddress", 11030, 0), "cuGetProcAddress");
  EXPECT_EQ(resolve("cuGetProcAddress", 12000, 0), "cuGetProcAddress_v2");
  EXPECT_EQ(resolve("cuInit", 2000, 0), "cuInit");
}

TEST(ProcAddress, NewestBreakpointAtOrBelowTheRequest) {
  // Between and above breakpoints (cudaTypedefs.h: cuMemAlloc v2000, v3020).
  EXPECT_EQ(resolve("cuMemAlloc", 3010, 0), "cuMemAlloc");
  EXPECT_EQ(resolve("cuMemAlloc", 13000, 0), "cuMemAlloc_v2");
  EXPECT_EQ(resolve("cuCtxSynchronize", 12090, 0), "cuCtxSynchronize");
  EXPECT_EQ(resolve("cuEventElapsedTime", 12070, 0), "cuEventElapsedTime");
}

TEST(ProcAddress, PerThreadVariants) {
  EXPECT_EQ(resolve("cuLaunchKernel", 12000, 2), "cuLaunchKernel_ptsz");
  EXPECT_EQ(resolve("cuLaunchKernel", 12000, 0), "cuLaunchKernel");
  EXPECT_EQ(resolve("cuLaunchKernel", 12000, 1), "cuLaunchKernel"); // legacy stream
  EXPECT_EQ(resolve("cuMemcpyHtoD", 12000, 2), "cuMemcpyHtoD_v2_ptds");
  EXPECT_EQ(resolve("cuMemcpyHtoDAsync", 12000, 2), "cuMemcpyHtoDAsync_v2_ptsz");
  EXPECT_EQ(resolve("cuStreamSynchronize", 12000, 2), "cuStreamSynchronize_ptsz");
  // No per-thread form: the default one answers.
  EXPECT_EQ(resolve("cuMemAlloc", 12000, 2), "cuMemAlloc_v2");
  EXPECT_EQ(resolve("cuInit", 12000, 2), "cuInit");
  // Per-thread forms start at 7000; before that the default one answers.
  EXPECT_EQ(resolve("cuLaunchKernel", 6050, 2), "cuLaunchKernel");
}

TEST(ProcAddress, UnknownAndTooOld) {
  ProcStatus S;
  EXPECT_EQ(resolve("", 0, 0, &S), "");
  EXPECT_EQ(S, ProcStatus::NotFound);
  EXPECT_EQ(resolve("cuNoSuchFunction", 13000, 0, &S), "");
  EXPECT_EQ(S, ProcStatus::NotFound);
  EXPECT_EQ(resolve("cuMemAlloc_v2", 13000, 0, &S), ""); // symbols are not keys
  EXPECT_EQ(S, ProcStatus::NotFound);
  EXPECT_EQ(resolve("cuLibraryLoadData", 11080, 0, &S), ""); // exists from 12000
  EXPECT_EQ(S, ProcStatus::VersionTooOld);
  EXPECT_EQ(resolve("cuLibraryLoadData", 12000, 0, &S), "cuLibraryLoadData");
  EXPECT_EQ(resolve("zzz", 13000, 0, &S), ""); // past the last row
  EXPECT_EQ(S, ProcStatus::NotFound);
}

TEST(ProcAddress, EveryRequestOfCudart13Resolves) {
  std::ifstream In(FERRY_SOURCE_DIR "/tests/abi/cudart13-requests.txt");
  ASSERT_TRUE(In) << "missing cudart13-requests.txt";
  std::regex Line(R"re("([^"]*)", ver=(\d+), flags=(0x[0-9a-fA-F]+|\d+))re");
  std::string Text;
  size_t Count = 0, Interop = 0;
  std::string Failures;
  while (std::getline(In, Text)) {
    std::smatch M;
    ASSERT_TRUE(std::regex_match(Text, M, Line)) << Text;
    std::string Name = M[1];
    if (Name.empty())
      continue; // cudart's probe; NOT_FOUND is the expected answer
    ++Count;
    ProcStatus S;
    std::string Sym = resolve(Name, std::stoi(M[2]), std::stoull(M[3], nullptr, 0), &S);
    // Graphics interop (GL/EGL/VDPAU) is not exported by NVIDIA's libcuda
    // stub either, so it is not in the table; cudart tolerates its absence.
    static const std::regex InteropName("cu(GL|EGL|VDPAU|Graphics(GL|EGL|VDPAU)|.*EglFrame).*");
    if (std::regex_match(Name, InteropName)) {
      ++Interop;
      if (S != ProcStatus::NotFound)
        Failures += Text + " (interop, expected NOT_FOUND)\n";
      continue;
    }
    if (S != ProcStatus::Found)
      Failures += Text + "\n";
    else if (Sym.rfind(Name, 0) != 0)
      Failures += Text + " -> " + Sym + "\n";
  }
  EXPECT_GT(Count, 400u);
  EXPECT_LT(Interop, 40u); // a broad pattern must not hide real misses
  EXPECT_EQ(Failures, "");
}
