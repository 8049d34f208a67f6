/// \file
/// FERRY_DEVICE_PROFILE=h100 through libcuda.so.1: the device reports what
/// an H100 reported (libcuda/profiles/h100-recorded.txt, made by
/// scripts/h100-probe/probe_device.cu): name, compute capability, memory,
/// every CUdevice_attribute, context limits; features ferry lacks are
/// never claimed. Also the L2-persistence and compression behaviour the
/// same recording shows: persisting-limit rounding and bounds, access
/// policy window checks, compressible VMM allocations.
#include "ferry/generated/DriverApi.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Recording {
  std::string Name;
  size_t TotalMem = 0;
  int Major = 0, Minor = 0;
  std::map<int, int> Attrs;
  std::map<std::string, size_t> Limits;
  std::vector<std::vector<size_t>> PersistingSets; // want, set result, get result, value
};

const Recording &recording() {
  static Recording R = [] {
    Recording R;
    std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/libcuda/profiles/h100-recorded.txt");
    std::string Line;
    while (std::getline(In, Line)) {
      std::istringstream L(Line);
      std::string Tag;
      L >> Tag;
      if (Tag == "name")
        R.Name = Line.substr(5);
      else if (Tag == "total_mem")
        L >> R.TotalMem;
      else if (Tag == "cc")
        L >> R.Major >> R.Minor;
      else if (Tag == "attr") {
        int A;
        std::string V;
        L >> A >> V;
        if (V != "err")
          R.Attrs[A] = std::stoi(V);
      } else if (Tag == "limit") {
        std::string K;
        int Err;
        size_t V;
        L >> K >> Err >> V;
        if (Err == 0)
          R.Limits[K] = V;
      } else if (Tag == "persisting_set") {
        size_t Want, E1, E2, Got;
        L >> Want >> E1 >> E2 >> Got;
        R.PersistingSets.push_back({Want, E1, E2, Got});
      }
    }
    return R;
  }();
  return R;
}

class Profile : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    setenv("FERRY_BACKEND", "host", 1);
    setenv("FERRY_DEVICE_PROFILE", "h100", 1);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
  }
  static void TearDownTestSuite() { cuDevicePrimaryCtxRelease(0); }
  void SetUp() override { ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS); }
  static CUcontext Ctx;
};
CUcontext Profile::Ctx = nullptr;

// Attributes that announce a feature ferry does not have: the profile
// reports 0 for them whatever the H100 said (libcuda/DeviceProfile.h).
const int FeaturesFerryLacks[] = {96, 110, 112, 114, 116, 117, 118, 119, 120, 121, 124,
                                  125, 127, 128, 129, 132, 141, 142, 143, 144, 145, 146};

} // namespace

TEST_F(Profile, IdentityAndMemory) {
  const Recording &R = recording();
  ASSERT_FALSE(R.Name.empty());
  char Name[256];
  ASSERT_EQ(cuDeviceGetName(Name, sizeof Name, 0), CUDA_SUCCESS);
  EXPECT_EQ(std::string(Name), R.Name);
  size_t Total = 0;
  ASSERT_EQ(cuDeviceTotalMem_v2(&Total, 0), CUDA_SUCCESS);
  EXPECT_EQ(Total, R.TotalMem);
  int Major = 0, Minor = 0;
  ASSERT_EQ(cuDeviceComputeCapability(&Major, &Minor, 0), CUDA_SUCCESS);
  EXPECT_EQ(Major, R.Major);
  EXPECT_EQ(Minor, R.Minor);
}

TEST_F(Profile, PciLocationAgreesEverywhere) {
  // The bus id string, the attributes and cuDeviceGetByPCIBusId describe one
  // location (the recorded GPU's), the one cudart's integrity check hashes.
  int Domain = -1, Bus = -1, Dev = -1;
  ASSERT_EQ(cuDeviceGetAttribute(&Domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&Bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&Dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0), CUDA_SUCCESS);
  char Id[32], Want[32];
  ASSERT_EQ(cuDeviceGetPCIBusId(Id, sizeof Id, 0), CUDA_SUCCESS);
  std::snprintf(Want, sizeof Want, "%08X:%02X:%02X.0", unsigned(Domain), unsigned(Bus), unsigned(Dev));
  EXPECT_STREQ(Id, Want);
  CUdevice D = -1;
  ASSERT_EQ(cuDeviceGetByPCIBusId(&D, Id), CUDA_SUCCESS);
  EXPECT_EQ(D, 0);
}

TEST_F(Profile, EveryAttributeAsRecorded) {
  const Recording &R = recording();
  ASSERT_GT(R.Attrs.size(), 140u);
  for (auto [A, Want] : R.Attrs) {
    int V = -12345;
    ASSERT_EQ(cuDeviceGetAttribute(&V, CUdevice_attribute(A), 0), CUDA_SUCCESS) << "attribute " << A;
    bool Lacked = std::find(std::begin(FeaturesFerryLacks), std::end(FeaturesFerryLacks), A) !=
                  std::end(FeaturesFerryLacks);
    EXPECT_EQ(V, Lacked ? 0 : Want) << "attribute " << A;
  }
  // The attribute numbers the H100's driver refused are refused too.
  int V;
  EXPECT_EQ(cuDeviceGetAttribute(&V, CUdevice_attribute(CU_DEVICE_ATTRIBUTE_MAX), 0), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Profile, ContextLimitsAsRecorded) {
  const Recording &R = recording();
  const std::pair<const char *, CUlimit> Limits[] = {
      {"stack", CU_LIMIT_STACK_SIZE},           {"printf_fifo", CU_LIMIT_PRINTF_FIFO_SIZE},
      {"malloc_heap", CU_LIMIT_MALLOC_HEAP_SIZE}, {"pending_launch", CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT},
      {"max_l2_fetch", CU_LIMIT_MAX_L2_FETCH_GRANULARITY}, {"persisting_l2", CU_LIMIT_PERSISTING_L2_CACHE_SIZE}};
  for (auto [Key, L] : Limits) {
    ASSERT_TRUE(R.Limits.count(Key)) << Key;
    size_t V = 0;
    ASSERT_EQ(cuCtxGetLimit(&V, L), CUDA_SUCCESS);
    EXPECT_EQ(V, R.Limits.at(Key)) << Key;
  }
}

TEST_F(Profile, PersistingL2LimitRoundsAsRecorded) {
  const Recording &R = recording();
  ASSERT_GE(R.PersistingSets.size(), 5u);
  for (const auto &S : R.PersistingSets) {
    CUresult E = cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, S[0]);
    EXPECT_EQ(E == CUDA_SUCCESS, S[1] == 0) << "set " << S[0];
    size_t V = 0;
    ASSERT_EQ(cuCtxGetLimit(&V, CU_LIMIT_PERSISTING_L2_CACHE_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(V, S[3]) << "set " << S[0];
  }
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 256), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 128), CUDA_SUCCESS);
}

TEST_F(Profile, AccessPolicyWindowsCheckedAndReadBack) {
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  CUstreamAttrValue V;
  std::memset(&V, 0, sizeof V);
  V.accessPolicyWindow.base_ptr = reinterpret_cast<void *>(0x10000);
  V.accessPolicyWindow.num_bytes = 16 << 20;
  V.accessPolicyWindow.hitRatio = 0.6f;
  V.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
  V.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
  ASSERT_EQ(cuStreamSetAttribute(S, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &V), CUDA_SUCCESS);
  // Refused as on the H100, each leaving the window set before: a window
  // over the device's maximum, a ratio outside [0, 1], a persisting miss.
  CUstreamAttrValue Bad = V;
  Bad.accessPolicyWindow.num_bytes = size_t(200) << 20;
  EXPECT_EQ(cuStreamSetAttribute(S, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &Bad), CUDA_ERROR_INVALID_VALUE);
  Bad = V;
  Bad.accessPolicyWindow.hitRatio = 1.5f;
  EXPECT_EQ(cuStreamSetAttribute(S, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &Bad), CUDA_ERROR_INVALID_VALUE);
  Bad = V;
  Bad.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_STREAMING;
  Bad.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_PERSISTING;
  EXPECT_EQ(cuStreamSetAttribute(S, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &Bad), CUDA_ERROR_INVALID_VALUE);
  CUstreamAttrValue Got;
  std::memset(&Got, 0xff, sizeof Got);
  ASSERT_EQ(cuStreamGetAttribute(S, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.accessPolicyWindow.base_ptr, V.accessPolicyWindow.base_ptr);
  EXPECT_EQ(Got.accessPolicyWindow.num_bytes, size_t(16) << 20);
  EXPECT_EQ(Got.accessPolicyWindow.hitRatio, 0.6f);
  EXPECT_EQ(Got.accessPolicyWindow.hitProp, CU_ACCESS_PROPERTY_PERSISTING);
  EXPECT_EQ(Got.accessPolicyWindow.missProp, CU_ACCESS_PROPERTY_STREAMING);
  EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
}

TEST_F(Profile, CompressibleMemoryIsGrantedAndReported) {
  int Supported = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&Supported, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0), CUDA_SUCCESS);
  EXPECT_EQ(Supported, 1);
  CUmemAllocationProp P;
  std::memset(&P, 0, sizeof P);
  P.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  P.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  P.location.id = 0;
  P.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  size_t Gran = 0;
  ASSERT_EQ(cuMemGetAllocationGranularity(&Gran, &P, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
  CUmemGenericAllocationHandle H;
  ASSERT_EQ(cuMemCreate(&H, Gran, &P, 0), CUDA_SUCCESS);
  CUmemAllocationProp Back;
  std::memset(&Back, 0, sizeof Back);
  ASSERT_EQ(cuMemGetAllocationPropertiesFromHandle(&Back, H), CUDA_SUCCESS);
  EXPECT_EQ(Back.allocFlags.compressionType, CU_MEM_ALLOCATION_COMP_GENERIC);
  EXPECT_EQ(cuMemRelease(H), CUDA_SUCCESS);
  P.allocFlags.compressionType = 7; // Not a CUDA compression type.
  EXPECT_EQ(cuMemCreate(&H, Gran, &P, 0), CUDA_ERROR_INVALID_VALUE);
}
