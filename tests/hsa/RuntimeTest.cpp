/// \file
/// The ROCr loader where no AMD GPU exists: with the library absent
/// (FERRY_HSA_LIBRARY naming a missing file) and with Debian's ROCr but no
/// /dev/kfd, ferry reports zero GPUs with a reason and does not hang (the
/// ctest TIMEOUT guards the latter; a watchdog thread makes a hang a clear
/// failure rather than a timeout).
#include "hsa/HsaRuntime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

using namespace ferry::hsa;

namespace {

/// Fails the process if the body takes longer than Seconds.
struct Watchdog {
  std::atomic<bool> Done{false};
  std::thread T;
  explicit Watchdog(int Seconds) {
    T = std::thread([this, Seconds] {
      for (int I = 0; I < Seconds * 10 && !Done; ++I)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (!Done) {
        std::fprintf(stderr, "watchdog: HSA initialisation hung\n");
        std::_Exit(3);
      }
    });
  }
  ~Watchdog() {
    Done = true;
    T.join();
  }
};

TEST(HsaRuntime, MissingLibraryMeansNoDevices) {
  Watchdog W(20);
  HsaRuntime R = HsaRuntime::open("/nonexistent/libhsa-runtime64.so.1");
  EXPECT_FALSE(R.ready());
  EXPECT_TRUE(R.agents().empty());
  EXPECT_NE(R.whyUnavailable().find("ROCr not found"), std::string::npos) << R.whyUnavailable();
  EXPECT_NE(R.whyUnavailable().find("/nonexistent/libhsa-runtime64.so.1"), std::string::npos);
}

TEST(HsaRuntime, EnvironmentVariableNamesTheLibrary) {
  setenv("FERRY_HSA_LIBRARY", "/nonexistent/elsewhere.so", 1);
  EXPECT_EQ(hsaLibraryPath(), "/nonexistent/elsewhere.so");
  unsetenv("FERRY_HSA_LIBRARY");
  EXPECT_EQ(hsaLibraryPath(), "libhsa-runtime64.so.1");
}

TEST(HsaRuntime, LibraryWithoutHsaSymbolsIsRejected) {
  // libz is a real shared library without any hsa_* symbol.
  HsaRuntime R = HsaRuntime::open("libz.so.1");
  EXPECT_FALSE(R.ready());
  EXPECT_TRUE(R.agents().empty());
  EXPECT_NE(R.whyUnavailable().find("lacks HSA entry points"), std::string::npos)
      << R.whyUnavailable();
}

TEST(HsaRuntime, RocrWithoutGpuMeansNoDevices) {
  const char *Lib = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1";
  if (!std::filesystem::exists(Lib))
    GTEST_SKIP() << "Debian's ROCr is not installed";
  if (std::filesystem::exists("/dev/kfd"))
    GTEST_SKIP() << "this machine has an AMD GPU driver";
  Watchdog W(30);
  HsaRuntime R = HsaRuntime::open(Lib);
  EXPECT_TRUE(R.agents().empty());
  EXPECT_FALSE(R.whyUnavailable().empty());
  // ROCr 5.2 reports OUT_OF_RESOURCES from hsa_init without /dev/kfd.
  EXPECT_NE(R.whyUnavailable().find("hsa_init failed"), std::string::npos) << R.whyUnavailable();
}

TEST(HsaRuntime, ProcessWideRuntimeIsStable) {
  setenv("FERRY_HSA_LIBRARY", "/nonexistent/libhsa.so", 1);
  const HsaRuntime &A = HsaRuntime::get();
  const HsaRuntime &B = HsaRuntime::get();
  EXPECT_EQ(&A, &B);
  EXPECT_TRUE(A.agents().empty());
  unsetenv("FERRY_HSA_LIBRARY");
}

} // namespace
