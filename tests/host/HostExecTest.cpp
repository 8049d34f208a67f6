/// \file
/// Host backend tests: hand-written SIMT IR kernels (tests/host/kernels/*.ll)
/// compiled by HostCompiler and run by HostExecutor, each checked against a
/// reference computed here on the host.
#include "host/exec/HostExecutor.h"
#include "support/Settings.h"
#include "tests/common/ScopedDump.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

using namespace ferry;
using namespace ferry::host;

namespace {

std::string readKernelFile(const std::string &Name) {
  std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/tests/host/kernels/" + Name);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Packs kernel parameters at their natural alignment, as CUDA does.
class Params {
public:
  template <typename T> Params &add(T V) {
    size_t Off = (Buf.size() + alignof(T) - 1) & ~(alignof(T) - 1);
    Buf.resize(Off + sizeof(T));
    std::memcpy(Buf.data() + Off, &V, sizeof(T));
    return *this;
  }
  const void *data() const { return Buf.data(); }

private:
  std::vector<char> Buf;
};

class HostExec : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    HostExecutorOptions O;
    O.Threads = 3; // More workers than cores: exercises the pool's hand-off.
    Exec = new HostExecutor(O);
  }
  static void TearDownTestSuite() {
    Modules.clear();
    delete Exec;
    Exec = nullptr;
  }

  static const CompiledModule &module(const std::string &File, bool FastPath = true) {
    std::string Key = File + (FastPath ? "" : "#fibers");
    for (auto &[K, M] : Modules)
      if (K == Key)
        return *M;
    Expected<HostCompiler *> C = Exec->compiler();
    EXPECT_TRUE(C) << (C ? "" : C.error().message());
    HostCompileOptions Opts;
    Opts.AllowFastPath = FastPath;
    Expected<std::unique_ptr<CompiledModule>> M = (*C)->compileIR(readKernelFile(File), File, Opts);
    if (!M)
      ADD_FAILURE() << M.error().message();
    Modules.emplace_back(Key, std::move(*M));
    return *Modules.back().second;
  }
  static const HostKernel &kernel(const std::string &File, const std::string &Name,
                                  bool FastPath = true) {
    const HostKernel *K = module(File, FastPath).kernel(Name);
    if (!K)
      throw std::runtime_error("no kernel " + Name);
    return *K;
  }
  static Status launch(const HostKernel &K, std::array<uint32_t, 3> G, std::array<uint32_t, 3> B,
                       const Params &P, uint32_t Dyn = 0, uint32_t Flags = 0) {
    return Exec->launch(K, G, B, Dyn, P.data(), Flags);
  }

  static HostExecutor *Exec;
  static std::vector<std::pair<std::string, std::unique_ptr<CompiledModule>>> Modules;
};
HostExecutor *HostExec::Exec = nullptr;
std::vector<std::pair<std::string, std::unique_ptr<CompiledModule>>> HostExec::Modules;

TEST_F(HostExec, VecAddBothPaths) {
  for (bool Fast : {true, false}) {
    const HostKernel &K = kernel("vecadd.ll", "vecadd", Fast);
    EXPECT_EQ(K.UsesFibers, !Fast);
    EXPECT_EQ(K.ParamBytes, 28u);
    const uint32_t N = 10007; // Not a multiple of the block size.
    std::vector<float> A(N), B(N), C(N, -1.0f);
    for (uint32_t I = 0; I < N; ++I) {
      A[I] = float(I) * 0.5f;
      B[I] = float(N - I);
    }
    Params P;
    P.add(A.data()).add(B.data()).add(C.data()).add(N);
    Status S = launch(K, {(N + 255) / 256, 1, 1}, {256, 1, 1}, P);
    ASSERT_TRUE(S) << S.message();
    for (uint32_t I = 0; I < N; ++I)
      ASSERT_EQ(C[I], A[I] + B[I]) << "at " << I << (Fast ? " (block loop)" : " (fibers)");
  }
}

// The serialized form (what the code cache stores) links back into a
// module that runs the same; damaged bytes are refused, never run.
TEST_F(HostExec, SerializedModuleRoundTripsAndRejectsDamage) {
  const CompiledModule &M = module("vecadd.ll");
  ASSERT_FALSE(M.serialized().empty());
  Expected<HostCompiler *> C = Exec->compiler();
  ASSERT_TRUE(C);
  Expected<std::unique_ptr<CompiledModule>> Again = (*C)->load(M.serialized());
  ASSERT_TRUE(Again) << Again.error().message();
  const HostKernel *K = (*Again)->kernel("vecadd");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->ParamBytes, 28u);
  float A[5] = {1, 2, 3, 4, 5}, B[5] = {10, 20, 30, 40, 50}, Out[5] = {};
  Params P;
  P.add(&A[0]).add(&B[0]).add(&Out[0]).add(5u);
  ASSERT_TRUE(launch(*K, {1, 1, 1}, {5, 1, 1}, P));
  for (int I = 0; I < 5; ++I)
    EXPECT_EQ(Out[I], A[I] + B[I]);
  std::string Cut = M.serialized().substr(0, M.serialized().size() / 2);
  Expected<std::unique_ptr<CompiledModule>> Bad = (*C)->load(Cut);
  ASSERT_FALSE(Bad);
  EXPECT_EQ(Bad.error().code(), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_FALSE((*C)->load("not a module"));
}

TEST_F(HostExec, MisalignedParameterBufferIsCopied) {
  const HostKernel &K = kernel("vecadd.ll", "vecadd");
  float A[3] = {1, 2, 3}, B[3] = {10, 20, 30}, C[3] = {};
  Params P;
  P.add(&A[0]).add(&B[0]).add(&C[0]).add(3u);
  alignas(16) char Buf[64];
  std::memcpy(Buf + 4, P.data(), 28); // Only 4-byte aligned.
  ASSERT_TRUE(Exec->launch(K, {1, 1, 1}, {3, 1, 1}, 0, Buf + 4));
  EXPECT_EQ(C[0], 11);
  EXPECT_EQ(C[2], 33);
}

TEST_F(HostExec, SharedReductionWithBarrierInLoop) {
  const HostKernel &K = kernel("reduce.ll", "reduce");
  EXPECT_TRUE(K.UsesFibers);
  EXPECT_EQ(K.StaticSharedBytes, 4u + 256 * 4);
  for (uint32_t Block : {256u, 64u, 1u}) {
    const uint32_t Blocks = 37;
    std::vector<int32_t> In(Blocks * Block), Out(Blocks, 0);
    std::mt19937 R(Block);
    for (int32_t &V : In)
      V = int32_t(R() % 1000) - 500;
    Params P;
    P.add(In.data()).add(Out.data());
    Status S = launch(K, {Blocks, 1, 1}, {Block, 1, 1}, P);
    ASSERT_TRUE(S) << S.message();
    for (uint32_t B = 0; B < Blocks; ++B)
      EXPECT_EQ(Out[B], std::accumulate(In.begin() + B * Block, In.begin() + (B + 1) * Block, 0))
          << "block " << B << " of size " << Block;
  }
}

TEST_F(HostExec, EarlyExitBeforeBarrier) {
  const HostKernel &K = kernel("early_exit.ll", "early_exit");
  const uint32_t Threads = 128, Live = 77;
  std::vector<int32_t> Out(Threads, -1);
  Params P;
  P.add(Out.data()).add(Live);
  Status S = launch(K, {2, 1, 1}, {Threads, 1, 1}, P);
  ASSERT_TRUE(S) << S.message();
  for (uint32_t T = 0; T < Threads; ++T)
    EXPECT_EQ(Out[T], T < Live ? int32_t((T + 1) % Live + 1) : -1) << "thread " << T;
}

TEST_F(HostExec, BarrierReductionsAndNamedBarriers) {
  const HostKernel &Red = kernel("barriers.ll", "barred");
  const uint32_t N = 100;
  std::vector<int32_t> Out(N * 3, -1);
  Params P;
  P.add(Out.data());
  ASSERT_TRUE(launch(Red, {2, 1, 1}, {N, 1, 1}, P));
  for (uint32_t T = 0; T < N; ++T) {
    EXPECT_EQ(Out[T * 3], 34) << T; // tid % 3 == 0 for 0, 3, ..., 99.
    EXPECT_EQ(Out[T * 3 + 1], 1) << T;
    EXPECT_EQ(Out[T * 3 + 2], 1) << T;
  }
  const HostKernel &Named = kernel("barriers.ll", "named");
  std::vector<int32_t> Copy(32, -1);
  Params Q;
  Q.add(Copy.data());
  ASSERT_TRUE(launch(Named, {3, 1, 1}, {64, 1, 1}, Q));
  for (int32_t I = 0; I < 32; ++I)
    EXPECT_EQ(Copy[I], I * 10);
}

TEST_F(HostExec, DeadlockFailsInsteadOfHanging) {
  Params P;
  P.add<void *>(nullptr);
  Status S = launch(kernel("barriers.ll", "deadlock"), {1, 1, 1}, {64, 1, 1}, P);
  EXPECT_EQ(S.code(), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_NE(S.message().find("deadlock"), std::string::npos) << S.message();
  Status Over = launch(kernel("barriers.ll", "overcount"), {1, 1, 1}, {32, 1, 1}, P);
  EXPECT_EQ(Over.code(), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_NE(Over.message().find("deadlock"), std::string::npos) << Over.message();
}

TEST_F(HostExec, WarpShufflesWithDivergence) {
  const HostKernel &K = kernel("shfl.ll", "shfl");
  const uint32_t N = 64;
  std::vector<int32_t> In(N), Idx(N, -1), Scan(N, -1), Down(N, -1), Xor(N, -1);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = int32_t(I * 7 % 23) + 1;
  Params P;
  P.add(In.data()).add(Idx.data()).add(Scan.data()).add(Down.data()).add(Xor.data());
  Status S = launch(K, {1, 1, 1}, {N, 1, 1}, P);
  ASSERT_TRUE(S) << S.message();
  for (uint32_t W = 0; W < N / 32; ++W) {
    int32_t Prefix = 0, Lo = 0, Hi = 0;
    for (uint32_t L = 0; L < 16; ++L)
      Lo += In[W * 32 + L];
    for (uint32_t L = 16; L < 32; ++L)
      Hi += In[W * 32 + L];
    for (uint32_t L = 0; L < 32; ++L) {
      uint32_t T = W * 32 + L;
      Prefix += In[T];
      EXPECT_EQ(Idx[T], In[W * 32 + 5]) << "idx, thread " << T;
      EXPECT_EQ(Scan[T], Prefix) << "scan, thread " << T;
      if (L < 16)
        EXPECT_EQ(Xor[T], -1) << "upper-half store ran in lower lane " << T;
      else
        EXPECT_EQ(Xor[T], Hi) << "butterfly, thread " << T;
    }
    EXPECT_EQ(Down[W * 32], Lo) << "down-tree, warp " << W;
    // Lane 15 has no lane above it in its segment: it keeps adding itself.
    EXPECT_EQ(Down[W * 32 + 15], In[W * 32 + 15] * 16);
  }
}

TEST_F(HostExec, VotesMatchReduxElect) {
  const HostKernel &K = kernel("vote.ll", "vote");
  const uint32_t N = 48; // The second warp has 16 lanes.
  std::vector<int32_t> In(N);
  std::mt19937 R(7);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = int32_t(R() % 90) + 1;
  In[40] = 500; // Only warp 1 has a value > 100.
  std::vector<int32_t> Out(N * 20, -1);
  Params P;
  P.add(In.data()).add(Out.data());
  Status S = launch(K, {1, 1, 1}, {N, 1, 1}, P);
  ASSERT_TRUE(S) << S.message();
  for (uint32_t W = 0; W < 2; ++W) {
    uint32_t First = W * 32, Count = std::min<uint32_t>(32, N - First);
    uint32_t Full = Count == 32 ? ~0u : (1u << Count) - 1;
    uint32_t Ballot = 0, And = ~0u, Or = 0, Xor = 0, Sum = 0, UMin = ~0u, UMax = 0;
    int32_t SMin = INT32_MAX, SMax = INT32_MIN;
    bool AnyBig = false, AllEqual = true;
    for (uint32_t L = 0; L < Count; ++L) {
      uint32_t V = uint32_t(In[First + L]);
      Ballot |= (V & 1) << L;
      And &= V;
      Or |= V;
      Xor ^= V;
      Sum += V;
      UMin = std::min(UMin, V);
      UMax = std::max(UMax, V);
      SMin = std::min(SMin, int32_t(V) - 50);
      SMax = std::max(SMax, int32_t(V) - 50);
      AnyBig |= V > 100;
      AllEqual &= V == uint32_t(In[First]);
    }
    for (uint32_t L = 0; L < Count; ++L) {
      const int32_t *O = &Out[(First + L) * 20];
      uint32_t Match = 0;
      for (uint32_t M = 0; M < Count; ++M)
        if (In[First + M] % 4 == In[First + L] % 4)
          Match |= 1u << M;
      SCOPED_TRACE("warp " + std::to_string(W) + " lane " + std::to_string(L));
      EXPECT_EQ(uint32_t(O[0]), Ballot);
      EXPECT_EQ(O[1], 1);
      EXPECT_EQ(O[2], AnyBig ? 1 : 0);
      EXPECT_EQ(O[3], 1);
      EXPECT_EQ(uint32_t(O[4]), Match);
      EXPECT_EQ(uint32_t(O[5]), Full);
      EXPECT_EQ(O[6], 1);
      EXPECT_EQ(O[7], AllEqual ? 1 : 0);
      EXPECT_EQ(uint32_t(O[8]), Sum);
      EXPECT_EQ(uint32_t(O[9]), UMin);
      EXPECT_EQ(uint32_t(O[10]), UMax);
      EXPECT_EQ(O[11], SMin);
      EXPECT_EQ(O[12], SMax);
      EXPECT_EQ(uint32_t(O[13]), And);
      EXPECT_EQ(uint32_t(O[14]), Or);
      EXPECT_EQ(uint32_t(O[15]), Xor);
      EXPECT_EQ(uint32_t(O[16]), Full);
      EXPECT_EQ(O[17], 0);
      EXPECT_EQ(O[18], L == 0 ? 1 : 0);
      EXPECT_EQ(O[19], 1);
    }
  }
}

TEST_F(HostExec, AtomicContention) {
  for (const char *Name : {"atomics", "atomics_fast"}) {
    const HostKernel &K = kernel("atomics.ll", Name);
    uint32_t Counter = 0, Total = 0;
    float FSum = 0;
    Params P;
    P.add(&Counter).add(&FSum).add(&Total);
    const uint32_t Blocks = 96, Threads = 128;
    Status S = launch(K, {Blocks, 1, 1}, {Threads, 1, 1}, P);
    ASSERT_TRUE(S) << S.message();
    EXPECT_EQ(Counter, Blocks * Threads) << Name;
    EXPECT_EQ(FSum, float(Blocks * Threads)) << Name;
    if (std::string(Name) == "atomics") {
      EXPECT_EQ(Total, Blocks * Threads);
    }
  }
}

TEST_F(HostExec, PrintfFormatting) {
  const HostKernel &K = kernel("printf.ll", "printf_k");
  int32_t Result = -1;
  Params P;
  P.add(&Result);
  testing::internal::CaptureStdout();
  Status S = launch(K, {1, 1, 1}, {4, 1, 1}, P);
  std::string Out = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(S) << S.message();
  EXPECT_EQ(Result, 12); // CUDA's printf returns the number of arguments.
  std::string Expected = "-7 4000000000 -123456789012 3.250000 str beef Z| 2.50|42  |%|9000000000|1.234e+03|FF\n";
  EXPECT_NE(Out.find(Expected), std::string::npos) << Out;
  for (int T = 0; T < 4; ++T)
    EXPECT_NE(Out.find("t" + std::to_string(T) + "\n"), std::string::npos) << Out;
}

TEST_F(HostExec, TrapThenRecover) {
  const HostKernel &K = kernel("faults.ll", "trap_k");
  int32_t Out = 0;
  Params P;
  P.add(&Out).add<void *>(nullptr).add(0);
  Status S = launch(K, {4, 1, 1}, {8, 1, 1}, P);
  EXPECT_EQ(S.code(), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_NE(S.message().find("block: [1,0,0], thread: [3,0,0]"), std::string::npos) << S.message();
  // The executor is still usable.
  const HostKernel &V = kernel("vecadd.ll", "vecadd");
  float A = 1, B = 2, C = 0;
  Params Q;
  Q.add(&A).add(&B).add(&C).add(1u);
  ASSERT_TRUE(launch(V, {1, 1, 1}, {32, 1, 1}, Q));
  EXPECT_EQ(C, 3.0f);
}

TEST_F(HostExec, OutOfBoundsFaultsThenRecover) {
  for (const char *Name : {"oob_fast", "oob_fiber"}) {
    const HostKernel &K = kernel("faults.ll", Name);
    int32_t Out = 0;
    Params P;
    P.add(&Out).add(reinterpret_cast<void *>(uintptr_t(16))).add(0);
    Status S = launch(K, {64, 1, 1}, {32, 1, 1}, P);
    EXPECT_EQ(S.code(), CUDA_ERROR_ILLEGAL_ADDRESS) << Name << ": " << S.message();
    // A later good launch of the same kernel works.
    int32_t Good[64] = {};
    Params Q;
    Q.add(&Out).add(static_cast<void *>(Good)).add(0);
    Status S2 = launch(K, {1, 1, 1}, {32, 1, 1}, Q);
    EXPECT_TRUE(S2) << Name << ": " << S2.message();
  }
}

TEST_F(HostExec, StackOverflowIsCaught) {
  const HostKernel &K = kernel("faults.ll", "overflow");
  int32_t Out = -1;
  Params P;
  P.add(&Out).add<void *>(nullptr).add(1000);
  Status S = launch(K, {1, 1, 1}, {1, 1, 1}, P);
  EXPECT_EQ(S.code(), CUDA_ERROR_HARDWARE_STACK_ERROR) << S.message();
  Params Q;
  Q.add(&Out).add<void *>(nullptr).add(4);
  ASSERT_TRUE(launch(K, {1, 1, 1}, {1, 1, 1}, Q));
  EXPECT_EQ(Out, 4);
}

TEST_F(HostExec, DivisionTrapIsCaught) {
  const HostKernel &K = kernel("faults.ll", "divzero");
  int32_t Out = 0;
  Params P;
  P.add(&Out).add<void *>(nullptr).add(0);
  Status S = launch(K, {1, 1, 1}, {4, 1, 1}, P);
  EXPECT_EQ(S.code(), CUDA_ERROR_LAUNCH_FAILED) << S.message();
}

TEST_F(HostExec, AssertReportsLikeCuda) {
  const HostKernel &K = kernel("faults.ll", "assert_k");
  Params P;
  P.add<void *>(nullptr).add<void *>(nullptr).add(0);
  testing::internal::CaptureStderr();
  Status S = launch(K, {2, 1, 1}, {4, 1, 1}, P);
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(S.code(), CUDA_ERROR_ASSERT);
  EXPECT_NE(Err.find("kern.cu:42: void check(int *, int): block: [0,0,0], thread: [2,0,0] "
                     "Assertion `x < 3` failed."),
            std::string::npos)
      << Err;
}

// Every thread that fails an assert is reported, in block then thread
// order whatever worker ran which block, on both execution paths; the
// threads that did not fail run to their end.
TEST_F(HostExec, AssertReportsEveryFailingThreadInOrder) {
  const uint32_t Blocks = 3, Threads = 40; // Two warps, the second partial.
  std::string Want;
  for (uint32_t B = 0; B < Blocks; B += 2)
    for (uint32_t T = 3; T < Threads; T += 7)
      Want += "kern.cu:42: void check(int *, int): block: [" + std::to_string(B) +
              ",0,0], thread: [" + std::to_string(T) + ",0,0] Assertion `x < 3` failed.\n";
  struct Path {
    bool Fast;
    uint32_t Flags;
    const char *Name;
  };
  for (Path Pa : {Path{true, 0, "warp functions"}, Path{true, LaunchNoWarp, "block loop"},
                  Path{false, 0, "fibers"}}) {
    bool Fast = Pa.Fast;
    const HostKernel &K = kernel("faults.ll", "assert_many", Fast);
    std::vector<int32_t> Out(Blocks * 64, 0);
    Params P;
    P.add(Out.data()).add<void *>(nullptr).add(0);
    testing::internal::CaptureStderr();
    Status S = launch(K, {Blocks, 1, 1}, {Threads, 1, 1}, P, 0, Pa.Flags);
    std::string Captured = testing::internal::GetCapturedStderr(), Err;
    // ferry's own log lines (the launch's error) go to stderr as well.
    for (size_t At = 0, End; At < Captured.size(); At = End + 1) {
      End = Captured.find('\n', At);
      if (End == std::string::npos)
        End = Captured.size();
      if (Captured.compare(At, 6, "ferry[") != 0)
        Err += Captured.substr(At, End - At) + "\n";
    }
    EXPECT_EQ(S.code(), CUDA_ERROR_ASSERT) << Pa.Name;
    EXPECT_EQ(Err, Want) << Pa.Name;
    EXPECT_NE(S.message().find("(and 11 more failing threads)"), std::string::npos) << S.message();
    for (uint32_t B = 0; B < Blocks; ++B)
      for (uint32_t T = 0; T < Threads; ++T) {
        bool Failed = B % 2 == 0 && T % 7 == 3;
        EXPECT_EQ(Out[B * 64 + T], Failed ? 0 : 1) << Pa.Name << ": block " << B << " thread " << T;
      }
  }
}

TEST_F(HostExec, DynamicSharedMemory) {
  const HostKernel &K = kernel("misc.ll", "dynsmem");
  EXPECT_EQ(K.StaticSharedBytes, 12u);
  const uint32_t N = 200;
  std::vector<int32_t> In(N), Out(N, -1);
  int32_t Info[2] = {0, 0};
  for (uint32_t I = 0; I < N; ++I)
    In[I] = int32_t(I * I);
  Params P;
  P.add(In.data()).add(Out.data()).add(&Info[0]);
  Status S = launch(K, {3, 1, 1}, {N, 1, 1}, P, N * 4);
  ASSERT_TRUE(S) << S.message();
  for (uint32_t I = 0; I < N; ++I)
    EXPECT_EQ(Out[I], In[N - 1 - I]);
  EXPECT_EQ(Info[0], 666);
  EXPECT_EQ(Info[1], int32_t(N * 4));
}

TEST_F(HostExec, Geometry3D) {
  for (bool Fast : {true, false}) {
    const HostKernel &K = kernel("misc.ll", "geometry", Fast);
    std::array<uint32_t, 3> G{2, 3, 4}, B{5, 3, 4};
    uint32_t PerBlock = B[0] * B[1] * B[2], Total = PerBlock * G[0] * G[1] * G[2];
    std::vector<int32_t> Out(size_t(Total) * 14, -1);
    Params P;
    P.add(Out.data());
    Status S = launch(K, G, B, P);
    ASSERT_TRUE(S) << S.message();
    uint32_t Index = 0;
    for (uint32_t Cz = 0; Cz < G[2]; ++Cz)
      for (uint32_t Cy = 0; Cy < G[1]; ++Cy)
        for (uint32_t Cx = 0; Cx < G[0]; ++Cx)
          for (uint32_t Tz = 0; Tz < B[2]; ++Tz)
            for (uint32_t Ty = 0; Ty < B[1]; ++Ty)
              for (uint32_t Tx = 0; Tx < B[0]; ++Tx, ++Index) {
                uint32_t Lin = Tx + B[0] * (Ty + B[1] * Tz);
                int32_t Want[14] = {int32_t(Tx), int32_t(Ty), int32_t(Tz), int32_t(Cx),
                                    int32_t(Cy), int32_t(Cz), int32_t(B[0]), int32_t(B[1]),
                                    int32_t(B[2]), int32_t(G[0]), int32_t(G[1]), int32_t(G[2]),
                                    int32_t(Lin % 32), int32_t(Lin / 32)};
                for (int F = 0; F < 14; ++F)
                  ASSERT_EQ(Out[size_t(Index) * 14 + F], Want[F])
                      << "thread " << Index << " field " << F << (Fast ? " block loop" : " fibers");
              }
  }
}

TEST_F(HostExec, CooperativeGridSync) {
  const HostKernel &K = kernel("misc.ll", "gridsum");
  const uint32_t Blocks = 9;
  std::vector<int32_t> Data(Blocks, 0), Out(Blocks, 0);
  Params P;
  P.add(Data.data()).add(Out.data());
  Status S = launch(K, {Blocks, 1, 1}, {64, 1, 1}, P, 0, LaunchCooperative);
  ASSERT_TRUE(S) << S.message();
  for (uint32_t B = 0; B < Blocks; ++B)
    EXPECT_EQ(Out[B], int32_t(Blocks * (Blocks + 1) / 2)) << "block " << B;
  // Without the cooperative flag a multi-block grid sync is an error.
  Status S2 = launch(K, {Blocks, 1, 1}, {64, 1, 1}, P);
  EXPECT_EQ(S2.code(), CUDA_ERROR_LAUNCH_FAILED);
  Status S3 = launch(K, {100000, 1, 1}, {64, 1, 1}, P, 0, LaunchCooperative);
  EXPECT_EQ(S3.code(), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
}

TEST_F(HostExec, DeviceMalloc) {
  const HostKernel &K = kernel("misc.ll", "mallocs");
  std::vector<int32_t> Out(256, -1);
  Params P;
  P.add(Out.data());
  ASSERT_TRUE(launch(K, {1, 1, 1}, {256, 1, 1}, P));
  for (int32_t T = 0; T < 256; ++T)
    EXPECT_EQ(Out[T], T * 3);
}

TEST_F(HostExec, ModuleVariablesAreHostWritable) {
  const CompiledModule &M = module("misc.ll");
  std::optional<CompiledModule::Global> G = M.global("gval"), C = M.global("cval");
  ASSERT_TRUE(G && C);
  EXPECT_EQ(G->Bytes, 4u);
  EXPECT_EQ(C->Bytes, 16u);
  EXPECT_EQ(*static_cast<int32_t *>(G->Address), 7); // The initializer.
  EXPECT_FALSE(M.global("nope"));
  *static_cast<int32_t *>(G->Address) = 100;
  int32_t NewConst[4] = {10, 20, 30, 40};
  std::memcpy(C->Address, NewConst, 16);
  int32_t Out[4] = {};
  Params P;
  P.add(&Out[0]);
  ASSERT_TRUE(launch(*M.kernel("globals"), {1, 1, 1}, {4, 1, 1}, P));
  for (int I = 0; I < 4; ++I)
    EXPECT_EQ(Out[I], 110 + 10 * I);
}

TEST_F(HostExec, BadLaunchConfigurations) {
  const HostKernel &K = kernel("vecadd.ll", "vecadd");
  Params P;
  P.add<void *>(nullptr).add<void *>(nullptr).add<void *>(nullptr).add(0u);
  EXPECT_EQ(launch(K, {1, 1, 1}, {1025, 1, 1}, P).code(), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(K, {1, 1, 1}, {32, 32, 2}, P).code(), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(K, {1, 1, 1}, {1, 1, 65}, P).code(), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(K, {0, 1, 1}, {1, 1, 1}, P).code(), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(K, {1, 65536, 1}, {1, 1, 1}, P).code(), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(K, {1, 1, 1}, {1, 1, 1}, P, 1 << 20).code(), CUDA_ERROR_INVALID_VALUE);
  // n = 0: nothing is touched, so null pointers are fine.
  EXPECT_TRUE(launch(K, {1, 1, 1}, {1024, 1, 1}, P));
}

TEST_F(HostExec, CompileErrorsAreClear) {
  HostCompiler &C = **Exec->compiler();
  auto Bad = C.compileIR("this is not IR", "bad.ll");
  ASSERT_FALSE(Bad);
  EXPECT_EQ(Bad.code(), CUDA_ERROR_INVALID_PTX);
  auto Unknown = C.compileIR(R"(
declare i32 @ferry.frobnicate()
define void @k(ptr %p) {
  %x = call i32 @ferry.frobnicate()
  ret void
}
!ferry.kernels = !{!0}
!0 = !{ptr @k}
)",
                             "unknown.ll");
  ASSERT_FALSE(Unknown);
  EXPECT_EQ(Unknown.code(), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_NE(Unknown.error().message().find("ferry.frobnicate"), std::string::npos);
  auto TwoArgs = C.compileIR(R"(
define void @k(ptr %p, i32 %n) {
  ret void
}
!ferry.kernels = !{!0}
!0 = !{ptr @k}
)",
                             "twoargs.ll");
  ASSERT_FALSE(TwoArgs);
  EXPECT_EQ(TwoArgs.code(), CUDA_ERROR_INVALID_PTX);
}

// Pre-Volta warp-synchronous code (kernels/lockstep.ll): lanes trading
// values through volatile shared memory with no warp barrier get the
// lockstep answer on the warp path and on the per-thread path, where the
// fibers of a warp take turns at each volatile access.
TEST_F(HostExec, VolatileWarpSynchronousCode) {
  const uint32_t Blocks = 23, N = Blocks * 64;
  std::mt19937 R(2024);
  std::vector<int32_t> In(N);
  for (int32_t &V : In)
    V = int32_t(R() % 2001) - 1000;
  std::vector<int32_t> Sum(Blocks), Scan(N), Vote(Blocks * 2);
  for (uint32_t I = 0; I < N; ++I) {
    Sum[I / 64] += In[I];
    Scan[I] = In[I] + (I % 32 ? Scan[I - 1] : 0);
    Vote[I / 32] += In[I] > 0;
  }
  struct Case {
    const char *Kernel;
    const std::vector<int32_t> &Want;
  } Cases[] = {{"last_warp_sum", Sum}, {"guarded_scan", Scan}, {"smem_vote", Vote}};
  for (const Case &C : Cases)
    for (uint32_t Flags : {0u, uint32_t(LaunchNoWarp)}) {
      const HostKernel &K = kernel("lockstep.ll", C.Kernel);
      const char *Path = Flags ? " (per-thread path)" : " (default path)";
      std::vector<int32_t> Out(C.Want.size(), INT32_MIN);
      Params P;
      P.add(In.data()).add(Out.data());
      Status S = launch(K, {Blocks, 1, 1}, {64, 1, 1}, P, 0, Flags);
      ASSERT_TRUE(S) << C.Kernel << Path << ": " << S.message();
      uint32_t Wrong = 0;
      size_t First = 0;
      for (size_t I = Out.size(); I-- > 0;)
        if (Out[I] != C.Want[I])
          ++Wrong, First = I;
      EXPECT_EQ(Wrong, 0u) << C.Kernel << Path << ": first wrong at " << First << ": " << Out[First]
                           << ", want " << C.Want[First];
    }
}

// A module whose link fails (a symbol nothing defines) is an error naming
// the symbol, and the JIT links and runs the next modules. The executor is
// a fresh one, so the failed link is the first in its JIT, the one that
// opened its memory reservation: LLVM 19 abandoned it by unmapping the
// whole reservation, whose rest the next link (here a cached module, which
// needs no code generation in between) then wrote into.
TEST_F(HostExec, FailedLinkLeavesTheJitUsable) {
  std::string Cached = module("vecadd.ll").serialized();
  HostExecutor Fresh;
  Expected<HostCompiler *> C = Fresh.compiler();
  ASSERT_TRUE(C) << (C ? "" : C.error().message());
  auto Unresolved = (*C)->compileIR(R"(
declare void @ferry_test_symbol_nothing_defines(ptr)
define void @k(ptr noalias dereferenceable(8) %params) {
  %p = load ptr, ptr %params, align 8
  call void @ferry_test_symbol_nothing_defines(ptr %p)
  ret void
}
!ferry.kernels = !{!0}
!0 = !{ptr @k}
)",
                                    "unresolved.ll");
  ASSERT_FALSE(Unresolved);
  EXPECT_EQ(Unresolved.code(), CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(Unresolved.error().message().find("ferry_test_symbol_nothing_defines"), std::string::npos)
      << Unresolved.error().message();
  std::vector<std::unique_ptr<CompiledModule>> Live;
  for (int Round = 0; Round < 3; ++Round) {
    Expected<std::unique_ptr<CompiledModule>> M =
        Round == 1 ? (*C)->compileIR(readKernelFile("vecadd.ll"), "vecadd.ll") : (*C)->load(Cached);
    ASSERT_TRUE(M) << M.error().message();
    const HostKernel *K = (*M)->kernel("vecadd");
    ASSERT_NE(K, nullptr);
    float A[7] = {1, 2, 3, 4, 5, 6, 7}, B[7] = {0.5f, 1, -3, 8, 2, 9, -1}, Out[7] = {};
    Params P;
    P.add(&A[0]).add(&B[0]).add(&Out[0]).add(7u);
    Status S = Fresh.launch(*K, {1, 1, 1}, {7, 1, 1}, 0, P.data(), 0);
    ASSERT_TRUE(S) << S.message();
    for (int I = 0; I < 7; ++I)
      EXPECT_EQ(Out[I], A[I] + B[I]) << "round " << Round << " at " << I;
    Live.push_back(std::move(*M));
  }
}

TEST_F(HostExec, BlockLoopIsVectorised) {
  test::ScopedDump Dump("ir,asm", "ferry-host-dump-test");
  const std::string &Dir = Dump.dir();
  HostCompileOptions O;
  O.DumpName = "vecadd-dump";
  auto M = (*Exec->compiler())->compileIR(readKernelFile("vecadd.ll"), "vecadd.ll", O);
  Dump.stop();
  ASSERT_TRUE(M) << M.error().message();
  std::string Asm = Dump.read(".s");
  ASSERT_FALSE(Asm.empty());
  EXPECT_TRUE(std::filesystem::exists(Dir + "/vecadd-dump.host.ll"));
  // Packed single-precision adds on ymm or zmm registers.
  bool Vector = Asm.find("vaddps\t%ymm") != std::string::npos ||
                Asm.find("vaddps\t%zmm") != std::string::npos ||
                Asm.find("vaddps\t(") != std::string::npos;
  EXPECT_TRUE(Vector) << "no packed adds in the block loop (see " << Dir << ")";
  if (Vector)
    Dump.remove();
}

/// Figures for the report; run with FERRY_HOST_BENCH=1.
TEST_F(HostExec, Bench) {
  if (!std::getenv("FERRY_HOST_BENCH"))
    GTEST_SKIP() << "set FERRY_HOST_BENCH=1";
  HostExecutor &E = HostExecutor::instance();
  auto M = (*E.compiler())->compileIR(readKernelFile("vecadd.ll"), "vecadd.ll");
  ASSERT_TRUE(M);
  const HostKernel &K = *(*M)->kernel("vecadd");
  const uint32_t N = 16u << 20;
  std::vector<float> A(N, 1.0f), B(N, 2.0f), C(N, 0.0f);
  Params P;
  P.add(A.data()).add(B.data()).add(C.data()).add(N);
  ASSERT_TRUE(E.launch(K, {N / 256, 1, 1}, {256, 1, 1}, 0, P.data()));
  auto T0 = std::chrono::steady_clock::now();
  const int Reps = 10;
  for (int I = 0; I < Reps; ++I)
    ASSERT_TRUE(E.launch(K, {N / 256, 1, 1}, {256, 1, 1}, 0, P.data()));
  double Sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count() / Reps;
  std::printf("vecadd 16M floats: %.2f ms, %.1f GB/s (%u threads)\n", Sec * 1e3,
              3.0 * N * 4 / Sec / 1e9, E.threads());
  Params Empty;
  Empty.add<void *>(nullptr).add<void *>(nullptr).add<void *>(nullptr).add(0u);
  T0 = std::chrono::steady_clock::now();
  for (int I = 0; I < 10000; ++I)
    ASSERT_TRUE(E.launch(K, {1, 1, 1}, {1, 1, 1}, 0, Empty.data()));
  double Lat = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count() / 10000;
  std::printf("empty launch: %.2f us\n", Lat * 1e6);
  auto R = (*E.compiler())->compileIR(readKernelFile("reduce.ll"), "reduce.ll");
  ASSERT_TRUE(R);
  const uint32_t RN = 1u << 20;
  std::vector<int32_t> In(RN, 1), Out(RN / 256);
  Params Q;
  Q.add(In.data()).add(Out.data());
  T0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(E.launch(*(*R)->kernel("reduce"), {RN / 256, 1, 1}, {256, 1, 1}, 0, Q.data()));
  Sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  std::printf("fiber reduce 1M ints (256-thread blocks, 9 barriers): %.1f ms, %.1f M threads/s\n",
              Sec * 1e3, RN / Sec / 1e6);
}

} // namespace
