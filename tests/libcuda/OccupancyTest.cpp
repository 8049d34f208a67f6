/// \file
/// The occupancy model under FERRY_DEVICE_PROFILE=h100 against the answers
/// an H100 gave (libcuda/profiles/h100-recorded.txt, made by
/// scripts/h100-probe/probe_device.cu): for kernels whose register use
/// ptxas reported (8 to 255 registers), static and dynamic shared memory,
/// opted-in shared memory and carveout preferences, every
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor answer must be the same.
/// ferry cannot know ptxas's register count for a kernel (it compiles PTX
/// itself), so this checks the model given the count; what ferry assumes
/// for a kernel is in libcuda/api/Occupancy.cpp.
#include "host/HostDevice.h"
#include "libcuda/Backend.h"
#include "libcuda/DeviceProfile.h"
#include "libcuda/Occupancy.h"
#include "support/Settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace ferry;

namespace {
struct Func {
  uint32_t Regs = 0;
  size_t Static = 0;
  size_t DefaultDyn = 0;
};
} // namespace

TEST(Occupancy, H100ProfileAnswersAsTheH100) {
  const DeviceProfile *Pr = findDeviceProfile("H100");
  ASSERT_NE(Pr, nullptr);
  DeviceProperties P;
  applyDeviceProfile(*Pr, P);
  EXPECT_EQ(P.MultiprocessorCount, 132);
  std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/libcuda/profiles/h100-recorded.txt");
  ASSERT_TRUE(In);
  std::map<std::string, Func> Funcs;
  std::string Line;
  size_t Checked = 0;
  while (std::getline(In, Line)) {
    std::istringstream L(Line);
    std::string Tag, Name, K;
    L >> Tag >> Name;
    if (Tag == "func" && !Funcs.count(Name)) {
      Func F;
      int MaxThreads;
      size_t Local, MaxDyn;
      L >> K >> F.Regs >> K >> F.Static >> K >> MaxThreads >> K >> Local >> K >> MaxDyn;
      F.DefaultDyn = MaxDyn;
      Funcs[Name] = F;
      continue;
    }
    if (Tag != "occ" && Tag != "occ_carve")
      continue;
    ASSERT_TRUE(Funcs.count(Name)) << Line;
    const Func &F = Funcs[Name];
    int Carve = -1, Block, Err, Want;
    size_t Dyn;
    if (Tag == "occ_carve")
      L >> Carve;
    L >> Block >> Dyn >> Err >> Want;
    ASSERT_EQ(Err, 0) << Line;
    OccupancyInput I;
    I.Registers = F.Regs;
    I.StaticShared = F.Static;
    // The probe opted every kernel in to 200 KiB of dynamic shared memory
    // for its sizes above 48 KiB, and reset it afterwards.
    I.DynamicSharedLimit = Dyn >= 50000 ? 200 * 1024 : F.DefaultDyn;
    I.CarveoutPercent = Carve;
    EXPECT_EQ(occupancyBlocks(P, I, Block, Dyn), Want) << Line;
    ++Checked;
  }
  EXPECT_GT(Checked, 1400u);
}

TEST(Occupancy, ProfileSettingReachesTheHostDevice) {
  setenv("FERRY_DEVICE_PROFILE", "h100", 1);
  Settings::reload();
  DeviceProperties P = host::hostDeviceProperties();
  EXPECT_EQ(P.Name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(P.CcMajor, 9);
  EXPECT_EQ(P.CcMinor, 0);
  EXPECT_EQ(P.MultiprocessorCount, 132);
  EXPECT_EQ(P.SharedMemPerMultiprocessor, 233472u);
  EXPECT_EQ(P.ReservedSharedMemPerBlock, 1024u);
  EXPECT_EQ(P.RegisterAllocUnit, 256);
}
