/// \file
/// Execution tests of the warp vectorizer (host/jit/Vectorize.cpp). Every
/// kernel of kernels.ptx (nvcc output of kernels.cu) is lowered to SIMT IR
/// and compiled by the host JIT; then each launch:
/// - checks that the kernel has a warp function for the launch's thread
///   layout (the vectorizer accepted it), unless the layout has none by
///   design (blockDim.x neither a multiple of 32 nor 16 or 8);
/// - runs on the warp path and on the per-thread path (LaunchNoWarp), each
///   from the same initial buffers;
/// - compares both with a C++ reference of what a GPU computes, warp
///   collectives included (the lanes a GPU has active on each side of a
///   branch). A path that differs is named in the failure message.
/// FERRY_LOG=jit:debug says why the vectorizer refused a kernel.
#include "host/exec/ExecInternal.h"
#include "host/exec/HostExecutor.h"
#include "ptx/lower/Lower.h"
#include "support/Settings.h"
#include "tests/common/ScopedDump.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ferry;
using namespace ferry::host;

namespace {

constexpr uint32_t Full = 0xffffffffu;

struct Dim3 {
  uint32_t X = 1, Y = 1, Z = 1;
  uint32_t count() const { return X * Y * Z; }
  std::string str() const {
    return "(" + std::to_string(X) + "," + std::to_string(Y) + "," + std::to_string(Z) + ")";
  }
};

/// Deterministic inputs (xorshift64*).
struct Rng {
  uint64_t S;
  explicit Rng(uint64_t Seed) : S(Seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    S ^= S >> 12, S ^= S << 25, S ^= S >> 27;
    return S * 0x2545F4914F6CDD1Dull;
  }
  /// Uniform in [Lo, Hi].
  int range(int Lo, int Hi) { return Lo + int(next() % uint64_t(Hi - Lo + 1)); }
};

template <typename T> std::vector<T> randomInts(size_t N, int Lo, int Hi, uint64_t Seed) {
  Rng G(Seed);
  std::vector<T> V(N);
  for (T &X : V)
    X = T(G.range(Lo, Hi));
  return V;
}

/// Device memory as cudaMalloc hands it out: 256-byte aligned (streaming
/// stores need 64-byte aligned warp accesses).
template <typename T> struct DeviceAllocator {
  using value_type = T;
  DeviceAllocator() = default;
  template <typename U> DeviceAllocator(const DeviceAllocator<U> &) {}
  T *allocate(size_t N) {
    void *P = ::operator new(N * sizeof(T) + 1, std::align_val_t(256));
    return static_cast<T *>(P);
  }
  void deallocate(T *P, size_t) { ::operator delete(P, std::align_val_t(256)); }
  bool operator==(const DeviceAllocator &) const { return true; }
};
using Buffer = std::vector<char, DeviceAllocator<char>>;

/// Launch arguments in kernel parameter order, packed as CUDA packs
/// kernelParams. Buffers are copied for every run so that both paths start
/// from the same contents.
class Args {
public:
  template <typename T> Args &buf(const std::vector<T> &V) {
    const char *P = reinterpret_cast<const char *>(V.data());
    Bufs.emplace_back(P, P + V.size() * sizeof(T));
    Items.push_back({true, Bufs.size() - 1, 0});
    return *this;
  }
  Args &i32(int32_t V) {
    Items.push_back({false, 0, V});
    return *this;
  }
  /// Captures stdout during the launch (device printf).
  Args &captureStdout() {
    Capture = true;
    return *this;
  }

  struct Item {
    bool IsBuf;
    size_t Buf;
    int32_t Value;
  };
  std::vector<Item> Items;
  std::vector<Buffer> Bufs;
  bool Capture = false;
};

/// One run of a kernel on one path: the buffers afterwards.
struct Result {
  std::string Where;      ///< "kernel on the warp path, grid (4,1,1), block (16,16,1)".
  bool PerThread = false; ///< Run with LaunchNoWarp.
  std::string Error;      ///< Why the launch failed; empty when it ran.
  std::vector<Buffer> Bufs;
  std::string Stdout;

  template <typename T> std::vector<T> get(size_t Buf) const {
    std::vector<T> V(Bufs[Buf].size() / sizeof(T));
    std::memcpy(V.data(), Bufs[Buf].data(), V.size() * sizeof(T));
    return V;
  }
};

std::string show(int32_t V) { return std::to_string(V); }
std::string show(uint32_t V) {
  char S[16];
  std::snprintf(S, sizeof S, "0x%08x", V);
  return S;
}
std::string show(float V) {
  char S[64];
  std::snprintf(S, sizeof S, "%g (%a)", double(V), double(V));
  return S;
}
std::string show(double V) {
  char S[64];
  std::snprintf(S, sizeof S, "%.17g (%a)", V, V);
  return S;
}

/// Buffer Buf of R against Want, bit for bit; PerThread elements belong to
/// each thread (element I is field I % PerThread of thread I / PerThread).
/// Fields whose bit is set in Unchecked are not compared.
template <typename T>
::testing::AssertionResult same(const Result &R, size_t Buf, const std::vector<T> &Want,
                                unsigned PerThread = 1, const char *Name = "out",
                                uint32_t Unchecked = 0) {
  if (!R.Error.empty())
    return ::testing::AssertionFailure() << R.Where << ": launch failed: " << R.Error;
  std::vector<T> Got = R.get<T>(Buf);
  if (Got.size() != Want.size())
    return ::testing::AssertionFailure() << R.Where << ": " << Name << " has " << Got.size()
                                         << " elements, the reference " << Want.size();
  std::ostringstream Msg;
  size_t Bad = 0;
  for (size_t I = 0; I < Got.size(); ++I) {
    if (std::memcmp(&Got[I], &Want[I], sizeof(T)) == 0 || (Unchecked >> (I % PerThread) & 1))
      continue;
    if (Bad++ < 8) {
      Msg << "\n  " << Name << "[" << I << "]";
      if (PerThread > 1)
        Msg << " (thread " << I / PerThread << ", field " << I % PerThread << ")";
      Msg << ": got " << show(Got[I]) << ", want " << show(Want[I]);
    }
  }
  if (!Bad)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << R.Where << ": " << Bad << " of " << Got.size() << " elements of " << Name
         << " differ from the reference:" << Msg.str();
}

class WarpExec : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    HostExecutorOptions O;
    O.Threads = 2;
    // Launches that write 4 KiB or more take streaming stores where the
    // kernel allows them (BlockCtx::StreamMin), so the comparisons below
    // cover that path, not only the cached one.
    O.StreamBytes = 4096;
    Exec = new HostExecutor(O);
    std::ifstream In(std::string(FERRY_SOURCE_DIR) + "/tests/warp/kernels.ptx");
    std::stringstream S;
    S << In.rdbuf();
    Ptx = S.str();
    if (Ptx.empty())
      SetupError = "cannot read tests/warp/kernels.ptx";
  }
  static void TearDownTestSuite() {
    Modules.clear();
    delete Exec;
    Exec = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(SetupError.empty()) << SetupError; }

  /// The compiled kernel Name, or null with Error set. Under ctest every
  /// test is a process of its own, so each compiles only the kernel it
  /// launches: the lowered module is pruned to that kernel (the JIT of the
  /// whole file would cost every test seconds).
  static const HostKernel *kernel(const std::string &Name, std::string &Error) {
    std::unique_ptr<CompiledModule> &Mod = Modules[Name];
    if (!Mod) {
      auto Ctx = std::make_unique<llvm::LLVMContext>();
      llvm::Expected<ptx::LowerResult> R = ptx::lowerText(Ptx, "kernels.ptx", *Ctx);
      if (!R) {
        Error = llvm::toString(R.takeError());
        return nullptr;
      }
      for (const ptx::KernelError &E : R->Errors)
        Error += E.format("kernels.ptx") + "\n";
      llvm::NamedMDNode *List = R->M->getNamedMetadata("ferry.kernels");
      if (!List) {
        Error += "no !ferry.kernels in the lowered module";
        return nullptr;
      }
      std::vector<llvm::MDNode *> Keep;
      std::vector<llvm::Function *> Drop;
      for (llvm::MDNode *Op : List->operands()) {
        auto *F = llvm::mdconst::dyn_extract_or_null<llvm::Function>(Op->getOperand(0));
        if (F && F->getName() == Name)
          Keep.push_back(Op);
        else if (F && F->use_empty())
          Drop.push_back(F);
      }
      List->clearOperands();
      for (llvm::MDNode *Op : Keep)
        List->addOperand(Op);
      for (llvm::Function *F : Drop)
        F->eraseFromParent();
      Expected<HostCompiler *> C = Exec->compiler();
      if (!C) {
        Error += C.error().message();
        return nullptr;
      }
      Expected<std::unique_ptr<CompiledModule>> M = (*C)->compile(std::move(Ctx), std::move(R->M));
      if (!M) {
        Error += M.error().message();
        return nullptr;
      }
      Mod = std::move(*M);
    }
    const HostKernel *K = Mod->kernel(Name);
    if (!K)
      Error += "no kernel " + Name;
    return K;
  }

  /// The 32-lane warp layout WarpRunner picks for Block, 0 where none fits.
  static uint32_t warpWidth(Dim3 Block) {
    if (Block.X % 32 == 0 || (Block.Y == 1 && Block.Z == 1))
      return 32;
    for (const WarpLayout &Lay : WarpLayouts)
      if (Lay.Built && Lay.Lanes == 32 && Block.X == Lay.X && (Block.Z == 1 || (Block.X * Block.Y) % 32 == 0))
        return Block.X;
    return 0;
  }

  /// Runs Name on the warp path and on the per-thread path. Where Block has
  /// a warp layout, the kernel must have a warp function for it.
  /// WantWarp false: the kernel is meant to have no warp function.
  static std::vector<Result> both(const char *Name, Dim3 Grid, Dim3 Block, const Args &A,
                                  bool WantWarp = true) {
    std::string Error;
    const HostKernel *K = kernel(Name, Error);
    if (!K) {
      ADD_FAILURE() << Name << ": " << Error;
      return {};
    }
    if (uint32_t Width = WantWarp ? warpWidth(Block) : 0) {
      bool Has = false;
      for (const HostKernel::WarpEntry &E : K->Warps)
        Has |= E.Fn && E.X == Width;
      EXPECT_TRUE(Has) << Name << ": no warp function for the " << Width << "-wide layout of block "
                       << Block.str()
                       << " (the vectorizer refused it; FERRY_LOG=jit:debug says why)";
    }
    std::vector<Result> Out;
    // Where a group function (128 or 256 lanes) takes the block, the 32-lane warp
    // function runs too (LaunchNoGroup).
    uint32_t B3[3] = {Block.X, Block.Y, Block.Z};
    const HostKernel::WarpEntry *Chosen = WarpRunner::choose(*K, B3, true);
    std::vector<uint32_t> Paths = {0u, uint32_t(LaunchNoWarp)};
    if (Chosen && Chosen->Lanes > 32)
      Paths.push_back(LaunchNoGroup);
    for (uint32_t Flags : Paths) {
      Result R;
      R.Where = std::string(Name) +
                (Flags == LaunchNoWarp    ? " on the per-thread path"
                 : Flags == LaunchNoGroup ? " on the 32-lane warp path"
                 : Chosen                 ? " on the " + std::to_string(Chosen->Lanes) + "-lane warp path"
                                          : " on the warp path (none fits)") +
                ", grid " + Grid.str() + ", block " + Block.str();
      R.PerThread = Flags & LaunchNoWarp;
      R.Bufs = A.Bufs;
      std::vector<char> P;
      auto Put = [&](const void *V, size_t Bytes) {
        P.resize((P.size() + Bytes - 1) / Bytes * Bytes);
        P.insert(P.end(), static_cast<const char *>(V), static_cast<const char *>(V) + Bytes);
      };
      for (const Args::Item &It : A.Items) {
        if (It.IsBuf) {
          void *Ptr = R.Bufs[It.Buf].data();
          Put(&Ptr, sizeof Ptr);
        } else {
          Put(&It.Value, sizeof It.Value);
        }
      }
      if (A.Capture)
        testing::internal::CaptureStdout();
      Status S = Exec->launch(*K, {Grid.X, Grid.Y, Grid.Z}, {Block.X, Block.Y, Block.Z}, 0,
                              P.data(), Flags);
      if (A.Capture)
        R.Stdout = testing::internal::GetCapturedStdout();
      if (!S)
        R.Error = S.message();
      Out.push_back(std::move(R));
    }
    return Out;
  }

  static HostExecutor *Exec;
  static std::map<std::string, std::unique_ptr<CompiledModule>> Modules;
  static std::string Ptx, SetupError;
};
HostExecutor *WarpExec::Exec = nullptr;
std::map<std::string, std::unique_ptr<CompiledModule>> WarpExec::Modules;
std::string WarpExec::Ptx, WarpExec::SetupError;

//===----------------------------------------------------------------------===//
// Warp-level references. Threads are numbered x-fastest within a block and
// a warp is 32 consecutive threads of one block; Lanes(W) says which exist.
//===----------------------------------------------------------------------===//

/// PTX ISA shfl.sync for lane Lane of 32 values: mode 0 up, 1 down, 2 bfly,
/// 3 idx; b and c as the instruction takes them. A lane out of range gets
/// its own value.
int32_t shfl(const int32_t *V, unsigned Lane, unsigned Mode, uint32_t B, uint32_t C) {
  int32_t L = int32_t(Lane), Bv = int32_t(B & 31), Cv = int32_t(C & 31),
          Seg = int32_t((C >> 8) & 31);
  int32_t MaxLane = (L & Seg) | (Cv & ~Seg), MinLane = L & Seg, J;
  bool P;
  switch (Mode) {
  case 0:
    J = L - Bv;
    P = J >= MaxLane;
    break;
  case 1:
    J = L + Bv;
    P = J <= MaxLane;
    break;
  case 2:
    J = L ^ Bv;
    P = J <= MaxLane;
    break;
  default:
    J = MinLane | (Bv & ~Seg);
    P = J <= MaxLane;
    break;
  }
  return P ? V[J] : V[L];
}
/// The c operand of CUDA's __shfl*_sync(…, width).
uint32_t shflC(unsigned Mode, uint32_t Width) {
  return ((32 - Width) << 8) | (Mode == 0 ? 0 : 0x1f);
}
enum { Up = 0, Down = 1, Bfly = 2, Idx = 3 };


/// Lanes of L (bit per lane) whose Pred holds.
template <typename F> uint32_t lanesWhere(uint32_t L, F Pred) {
  uint32_t M = 0;
  for (unsigned I = 0; I < 32; ++I)
    if ((L >> I & 1) && Pred(I))
      M |= 1u << I;
  return M;
}

//===----------------------------------------------------------------------===//
// Control flow.
//===----------------------------------------------------------------------===//

TEST_F(WarpExec, DivergentIfElse) {
  const int N = 1000;
  std::vector<int32_t> In = randomInts<int32_t>(N, -100, 100, 1), Out(2 * N, -7), Ref = Out;
  for (int I = 0; I < N; ++I) {
    int X = In[I], Y, Z = 1;
    if (X % 3 == 0) {
      Y = X * 2;
      Z = (X & 4) ? X - 11 : X ^ 0x55;
    } else if (X % 3 == 1) {
      Y = X - 7;
      Z = Y * Y;
    } else {
      Y = -X;
    }
    Ref[2 * I] = Y + Z;
    Ref[2 * I + 1] = X > 50 ? Y : Z;
  }
  for (const Result &R : both("divergent_ifelse", {8}, {128}, Args().buf(In).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 1, Ref, 2));
}

TEST_F(WarpExec, NestedLoopsBreakContinueLiveOut) {
  const int N = 500;
  std::vector<int32_t> Trip = randomInts<int32_t>(N, 0, 40, 2), Out(4 * N, -7), Ref = Out;
  for (int I = 0; I < N; ++I) {
    int T = Trip[I], Acc = 0, Last = -1, A;
    for (A = 0; A < T; ++A) {
      if ((A + I) % 5 == 0)
        continue;
      int Inner = (T ^ A) % 7;
      for (int B = 0; B < Inner; ++B) {
        if (B * A > 20 + I % 13)
          break;
        if (((B + I) & 3) == 1)
          continue;
        Acc += A * 3 + B;
        Last = B;
      }
      if (Acc > 200 + I)
        break;
    }
    unsigned C = unsigned(T) + 1, Steps = 0;
    while (C != 1 && Steps < 500) {
      C = (C & 1) ? 3 * C + 1 : C / 2;
      ++Steps;
    }
    Ref[4 * I] = Acc, Ref[4 * I + 1] = Last, Ref[4 * I + 2] = A, Ref[4 * I + 3] = int(Steps);
  }
  for (const Result &R : both("nested_loops", {6}, {96}, Args().buf(Trip).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 1, Ref, 4));
}

TEST_F(WarpExec, EarlyReturnBeforeBarrier) {
  const int Nt = 128, Blocks = 4, N = Nt * Blocks;
  std::vector<int32_t> In = randomInts<int32_t>(N, -40, 100, 3);
  for (int T = 33; T <= 64; ++T) // every thread of block 2's warp 1 returns
    In[2 * Nt + T] = -5;
  for (int T = 0; T < Nt; ++T) // none of block 3 does
    In[3 * Nt + T] = std::abs(In[3 * Nt + T]);
  std::vector<int32_t> Out(N, -7), Out2(N, -7), Ref = Out, Ref2 = Out2;
  for (int B = 0; B < Blocks; ++B)
    for (int T = 0; T < Nt; ++T) {
      auto V = [&](int U) { return In[B * Nt + (U + 1) % Nt]; };
      if (V(T) < 0)
        continue;
      Ref[B * Nt + T] = V(T) * 3 + 1;
      int W = V((T + 3) % Nt);
      Ref2[B * Nt + T] = W < 0 ? -1 : W * 2;
    }
  for (const Result &R :
       both("early_return_sync", {Blocks}, {Nt}, Args().buf(In).buf(Out).buf(Out2))) {
    EXPECT_TRUE(same(R, 1, Ref, 1, "Out"));
    EXPECT_TRUE(same(R, 2, Ref2, 1, "Out2"));
  }
}

TEST_F(WarpExec, SwitchOnLaneValue) {
  const int N = 1000;
  std::vector<int32_t> In = randomInts<int32_t>(N, -200, 200, 4), Out(N, -7), Ref(N);
  for (int I = 0; I < N; ++I) {
    int X = In[I], R;
    switch (X & 7) {
    case 0:
      R = X * 5;
      break;
    case 1:
      R = X + 100;
      break;
    case 2:
      X += 3;
      [[fallthrough]];
    case 3:
      R = X * X;
      break;
    case 5:
      R = -X;
      break;
    default:
      R = X >> 1;
      break;
    }
    Ref[I] = R;
  }
  for (const Result &R : both("switch_lane", {8}, {128}, Args().buf(In).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 1, Ref));
}

TEST_F(WarpExec, UniformLoopDivergentBody) {
  const int N = 777, Iters = 37;
  Rng G(5);
  std::vector<float> In(N), Out(N, -1.0f), Ref(N);
  for (float &X : In)
    X = float(G.range(0, 160)) / 8.0f;
  for (int I = 0; I < N; ++I) {
    float X = In[I];
    for (int K = 0; K < Iters; ++K) {
      if (((I + K) & 3) == 0)
        X = std::fma(X, 0.5f, float(K));
      else if (X > 10.0f)
        X -= 3.0f;
      else
        X += 1.0f;
    }
    Ref[I] = X;
  }
  for (const Result &R :
       both("uniform_loop", {7}, {128}, Args().buf(In).buf(Out).i32(Iters).i32(N)))
    EXPECT_TRUE(same(R, 1, Ref));
}

TEST_F(WarpExec, PrivateArrayLaneIndex) {
  const int N = 700;
  std::vector<int32_t> In = randomInts<int32_t>(N, -1000, 1000, 6), Out(2 * N, -7), Ref = Out;
  for (int I = 0; I < N; ++I) {
    int A[16], X = In[I];
    for (int K = 0; K < 16; ++K)
      A[K] = X * K + K * K;
    int Idx = X & 15, J = (Idx * 7) & 15;
    std::swap(A[Idx], A[J]);
    if (X & 16)
      A[(X >> 5) & 15] += 1000;
    int Sum = 0;
    for (int K = 0; K < 16; ++K)
      Sum += A[K] * (K + 1);
    Ref[2 * I] = Sum;
    Ref[2 * I + 1] = A[(Idx + 3) & 15];
  }
  for (const Result &R : both("private_array", {11}, {64}, Args().buf(In).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 1, Ref, 2));
}

TEST_F(WarpExec, GridStrideLoop) {
  const int N = 10007;
  Rng G(7);
  std::vector<float> A(N), B(N), Out(N, -1.0f), Ref(N);
  for (int I = 0; I < N; ++I) {
    A[I] = float(G.range(-1000, 1000)) / 4.0f;
    B[I] = float(G.range(-1000, 1000)) / 8.0f;
    Ref[I] = A[I] * 2.0f + B[I];
  }
  for (const Result &R : both("grid_stride", {5}, {128}, Args().buf(A).buf(B).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 2, Ref));
}

/// The benchmark's reduction: a grid-stride sum, shuffles, one atomicAdd
/// per warp; on both x-contiguous groups (256- and 128-thread blocks). The
/// inputs are small integers, so the float sum is exact in any order.
TEST_F(WarpExec, GridStrideSum) {
  const int N = 100003;
  Rng G(11);
  std::vector<float> In(N);
  float Sum = 0;
  for (int I = 0; I < N; ++I) {
    In[I] = float(G.range(-8, 8));
    Sum += In[I];
  }
  std::vector<float> Ref = {Sum}, Out = {0.0f};
  std::string Error;
  const HostKernel *K = kernel("grid_stride_sum", Error);
  ASSERT_TRUE(K) << Error;
  for (uint32_t Lanes : {256u, 128u}) {
    uint32_t Block[3] = {Lanes, 1, 1};
    const HostKernel::WarpEntry *Chosen = WarpRunner::choose(*K, Block, true);
    EXPECT_TRUE(Chosen && Chosen->Lanes == Lanes && Chosen->X == 32)
        << "a " << Lanes << "-thread block takes the " << (Chosen ? Chosen->Lanes : 0)
        << "-lane function (FERRY_LOG=jit:debug says why)";
  }
  for (uint32_t Nt : {256u, 128u})
    for (const Result &R : both("grid_stride_sum", {7}, {Nt}, Args().buf(In).buf(Out).i32(N)))
      EXPECT_TRUE(same(R, 1, Ref));
}

/// The copy of a grid-stride loop that runs while every lane is in it is
/// entered from a test that also leads to the general copy (no preheader);
/// it must get the software prefetches too, or a strided loop waits on
/// memory at every step (the hardware prefetchers do not follow 1 MiB
/// strides).
TEST_F(WarpExec, GridStrideFastLoopPrefetches) {
  test::ScopedDump Dump("ir", "ferry-warp-prefetch-test");
  const std::string &Dir = Dump.dir();
  Modules.erase("grid_stride_sum");
  std::string Error;
  const HostKernel *K = kernel("grid_stride_sum", Error);
  Dump.stop();
  ASSERT_TRUE(K) << Error;
  std::string Ir = Dump.read(".ll");
  for (const char *Fn : {"@grid_stride_sum.ferry.group32(", "@grid_stride_sum.ferry.group32x256("}) {
    size_t Begin = Ir.find(std::string("define void ") + Fn);
    if (Begin == std::string::npos)
      Begin = Ir.find(Fn);
    ASSERT_NE(Begin, std::string::npos) << "no " << Fn << " in the dump (" << Dir << ")";
    std::string Body = Ir.substr(Begin, Ir.find("\n}\n", Begin) - Begin);
    // The fast copy's blocks: labels with ".fast" up to the next label.
    unsigned FastBlocks = 0, WithPrefetch = 0;
    std::istringstream Lines(Body);
    bool InFast = false, Seen = false;
    for (std::string Line; std::getline(Lines, Line);) {
      bool Label = !Line.empty() && Line[0] != ' ' && Line.find(':') != std::string::npos &&
                   Line.find("define") != 0;
      if (Label) {
        if (InFast)
          WithPrefetch += Seen;
        InFast = Line.find(".fast") != std::string::npos;
        FastBlocks += InFast;
        Seen = false;
      } else if (InFast && Line.find("@llvm.prefetch") != std::string::npos) {
        Seen = true;
      }
    }
    if (InFast)
      WithPrefetch += Seen;
    EXPECT_GT(FastBlocks, 0u) << Fn << ": no fast copy of the loop (" << Dir << ")";
    EXPECT_GT(WithPrefetch, 0u) << Fn << ": the fast copy of the grid-stride loop has no prefetch (" << Dir
                                << ")";
  }
  if (!HasFailure())
    Dump.remove();
}

TEST_F(WarpExec, ReturnFromInsideLoop) {
  const int N = 900, Len = 50;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 120, 20),
                       Table = randomInts<int32_t>(Len, 0, 120, 21);
  std::vector<int32_t> Out(N, -7777), Ref(N);
  for (int I = 0; I < N; ++I) {
    Ref[I] = -1 - In[I];
    for (int K = 0; K < Len; ++K)
      if (Table[K] == In[I]) {
        Ref[I] = K * 2 + (In[I] & 1);
        break;
      }
  }
  for (const Result &R :
       both("loop_return", {8}, {128}, Args().buf(In).buf(Table).buf(Out).i32(Len).i32(N)))
    EXPECT_TRUE(same(R, 2, Ref));
}

/// Registers rotated in a loop and read after it (hotspot3D's column walk):
/// the values after the loop are the header phis of the last iteration. A
/// uniform exit used to read them after the latch had stored the next
/// iteration's, so "below" came out as "here" and "here" as "above".
TEST_F(WarpExec, RotatedRegistersLiveOut) {
  const int N = 300, MaxLen = 7;
  std::vector<float> In(N * MaxLen);
  Rng G(31);
  for (float &X : In)
    X = float(G.range(-100, 100));
  for (int Len : {3, 4, 7}) {
    std::vector<float> Out(N * MaxLen, -7.0f), Ref = Out;
    for (int I = 0; I < N; ++I) {
      float Below = In[I], Here = In[I + N], Above = In[I + 2 * N];
      int Z = 3;
      for (; Z < Len; ++Z) {
        Below = Here;
        Here = Above;
        Above = In[I + Z * N];
        Ref[I + Z * N] = Below + 2.0f * Here + 4.0f * Above; // small integers: exact
      }
      Ref[I] = Below;
      Ref[I + N] = Here;
      Ref[I + 2 * N] = Above + float(Z);
    }
    for (uint32_t Nt : {128u, 32u})
      for (const Result &R :
           both("rotate_live_out", {(N + Nt - 1) / Nt}, {Nt}, Args().buf(In).buf(Out).i32(Len).i32(N)))
        EXPECT_TRUE(same(R, 1, Ref)) << "Len " << Len;
  }
}

TEST_F(WarpExec, SharedStridedReads) {
  const int Nt = 256, Blocks = 3, N = Nt * Blocks;
  std::vector<int32_t> In = randomInts<int32_t>(N, -1000, 1000, 22), Out(4 * N, -7), Ref = Out;
  for (int B = 0; B < Blocks; ++B) {
    std::vector<int32_t> S(512);
    for (int T = 0; T < Nt; ++T)
      S[T] = In[B * Nt + T], S[T + 256] = In[B * Nt + T] * 3;
    for (int T = 0; T < Nt; ++T) {
      int32_t *O = &Ref[4 * (B * Nt + T)];
      O[0] = S[2 * T], O[1] = S[T + 1], O[2] = S[255 - T];
      O[3] = (T & 1) ? S[(T * 5) & 511] : S[T + 200];
    }
  }
  for (const Result &R : both("shared_strided", {Blocks}, {Nt}, Args().buf(In).buf(Out)))
    EXPECT_TRUE(same(R, 1, Ref, 4));
}

TEST_F(WarpExec, SharedScanMaskedWrap) {
  const int Nt = 1024, N = 1000;
  std::vector<int32_t> In = randomInts<int32_t>(Nt, -1000, 1000, 23), Out(Nt, -7), Ref = Out;
  int32_t Sum = 0;
  for (int T = 0; T < N; ++T) {
    Ref[T] = Sum; // exclusive prefix sum
    Sum += In[T];
  }
  for (const Result &R : both("shared_scan", {1}, {Nt}, Args().buf(In).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 1, Ref, 1));
}

//===----------------------------------------------------------------------===//
// Warp collectives.
//===----------------------------------------------------------------------===//

TEST_F(WarpExec, ShuffleConstantOffsets) {
  const int N = 256;
  std::vector<int32_t> In = randomInts<int32_t>(N, -100000, 100000, 8), Out(10 * N, -7), Ref = Out;
  std::vector<double> OutD(N, -1.0), RefD(N);
  for (int W = 0; W < N; W += 32) {
    const int32_t *V = &In[W];
    int32_t F[32];
    for (int L = 0; L < 32; ++L) {
      float X = float(V[L]) * 0.25f;
      std::memcpy(&F[L], &X, 4);
    }
    for (unsigned L = 0; L < 32; ++L) {
      int32_t *O = &Ref[10 * (W + L)];
      O[0] = shfl(V, L, Idx, 3, shflC(Idx, 32));
      O[1] = shfl(V, L, Up, 1, shflC(Up, 32));
      O[2] = shfl(V, L, Down, 5, shflC(Down, 32));
      O[3] = shfl(V, L, Bfly, 6, shflC(Bfly, 32));
      O[4] = shfl(V, L, Idx, 2, shflC(Idx, 8));
      O[5] = shfl(V, L, Up, 3, shflC(Up, 16));
      O[6] = shfl(V, L, Down, 1, shflC(Down, 4));
      O[7] = shfl(V, L, Bfly, 1, shflC(Bfly, 8));
      O[8] = shfl(F, L, Bfly, 17, shflC(Bfly, 32));
      O[9] = shfl(V, L, Idx, 37, shflC(Idx, 32));
      RefD[W + L] = double(V[L + 7 <= 31 ? L + 7 : L]) * 1.5 + 1e10;
    }
  }
  for (const Result &R : both("shfl_const", {4}, {64}, Args().buf(In).buf(Out).buf(OutD))) {
    EXPECT_TRUE(same(R, 1, Ref, 10));
    EXPECT_TRUE(same(R, 2, RefD, 1, "OutD"));
  }
}

TEST_F(WarpExec, ShuffleRuntimeOffsetsAndPartialMasks) {
  const int N = 192, U = 3, Wd = 8;
  std::vector<int32_t> In = randomInts<int32_t>(N, -1000, 1000, 9),
                       Offs = randomInts<int32_t>(N, 0, 40, 10);
  std::vector<int32_t> Out(10 * N, -7), Ref = Out;
  for (int W = 0; W < N; W += 32) {
    const int32_t *V = &In[W];
    int32_t V10[32];
    for (int L = 0; L < 32; ++L)
      V10[L] = V[L] * 10;
    uint32_t Odd = lanesWhere(Full, [&](unsigned L) { return V[L] & 1; });
    for (unsigned L = 0; L < 32; ++L) {
      int32_t *O = &Ref[10 * (W + L)];
      uint32_t Off = uint32_t(Offs[W + L]);
      O[0] = shfl(V, L, Idx, Off, shflC(Idx, 32));
      O[1] = shfl(V, L, Up, Off & 7, shflC(Up, 32));
      O[2] = shfl(V, L, Down, U, shflC(Down, 32));
      O[3] = shfl(V, L, Bfly, U, shflC(Bfly, Wd));
      O[4] = shfl(V, L, Idx, Off, shflC(Idx, Wd));
      O[5] = shfl(V, L, Bfly, Off & 3, shflC(Bfly, 1u << (L % 6)));
      O[6] = L < 16 ? shfl(V, L, Bfly, 1, shflC(Bfly, 32)) : shfl(V, L, Down, 2, shflC(Down, 16));
      O[7] = shfl(V, L, Up, U, shflC(Up, Wd));
      O[8] = L % 3 == 0 ? shfl(V, L, Idx, (L + 3) % 33, shflC(Idx, 32)) : -1;
      O[9] = V[L] & 1 ? V10[std::countr_zero(Odd)] : 0;
    }
  }
  for (const Result &R :
       both("shfl_var", {2}, {96}, Args().buf(In).buf(Offs).buf(Out).i32(U).i32(Wd)))
    EXPECT_TRUE(same(R, 2, Ref, 10, "out"));
}

TEST_F(WarpExec, VotesAndActiveMaskInBranches) {
  const int N = 192;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 100, 11);
  for (int L = 0; L < 32; ++L) // a warp whose V % 3 == 0 side has every lane
    In[64 + L] = 3 * (L % 27);
  std::vector<uint32_t> Out(6 * N, 0xdeadbeef), Ref = Out;
  for (int W = 0; W < N; W += 32) {
    const int32_t *V = &In[W];
    uint32_t Odd = lanesWhere(Full, [&](unsigned L) { return V[L] & 1; });
    uint32_t Side = lanesWhere(Full, [&](unsigned L) { return V[L] % 3 == 0; });
    bool AllNonNeg = lanesWhere(Full, [&](unsigned L) { return V[L] >= 0; }) == Full;
    for (unsigned L = 0; L < 32; ++L) {
      uint32_t *O = &Ref[6 * (W + L)];
      O[0] = Odd;
      if (V[L] % 3 == 0) {
        O[1] = Side;
        O[2] = lanesWhere(Side, [&](unsigned K) { return V[K] > 50; });
        O[3] = lanesWhere(Side, [&](unsigned K) { return V[K] > 90; }) != 0;
        O[4] = lanesWhere(Side, [&](unsigned K) { return V[K] < 80; }) == Side;
      } else {
        O[1] = ~Side;
        O[2] = lanesWhere(~Side, [&](unsigned K) { return V[K] < 20; });
        O[3] = lanesWhere(~Side, [&](unsigned K) { return V[K] == 7; }) != 0;
        O[4] = lanesWhere(~Side, [&](unsigned K) { return V[K] != 1000; }) == ~Side;
      }
      O[5] = AllNonNeg;
    }
  }
  for (const Result &R : both("votes", {3}, {64}, Args().buf(In).buf(Out)))
    EXPECT_TRUE(same(R, 1, Ref, 6, "out"));
}

TEST_F(WarpExec, MatchAnyAll) {
  const int N = 128;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 40, 12);
  for (int L = 0; L < 32; ++L) // a warp where match.all of V >> 4 holds
    In[64 + L] = 16 + L % 7;
  std::vector<uint32_t> Out(5 * N, 0xdeadbeef), Ref = Out;
  for (int W = 0; W < N; W += 32) {
    const int32_t *V = &In[W];
    uint32_t Two = lanesWhere(Full, [&](unsigned L) { return V[L] & 2; });
    bool AllHi = lanesWhere(Full, [&](unsigned L) { return (V[L] >> 4) == (V[0] >> 4); }) == Full;
    for (unsigned L = 0; L < 32; ++L) {
      uint32_t *O = &Ref[5 * (W + L)];
      O[0] = lanesWhere(Full, [&](unsigned K) { return V[K] == V[L]; });
      O[1] = AllHi ? Full : 0;
      O[2] = AllHi;
      if (V[L] & 2) {
        O[3] = lanesWhere(Two, [&](unsigned K) { return (V[K] & 1) == (V[L] & 1); });
        O[4] = Two | 1;
      } else {
        O[3] = lanesWhere(~Two, [&](unsigned K) { return V[K] % 3 == V[L] % 3; });
        O[4] = 7;
      }
    }
  }
  for (const Result &R : both("matches", {2}, {64}, Args().buf(In).buf(Out)))
    EXPECT_TRUE(same(R, 1, Ref, 5, "out"));
}

TEST_F(WarpExec, CollectivesInLoopOnGroups) {
  const int Nt = 256, Blocks = 3, N = Nt * Blocks, Iters = 9;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 100, 21), Out(7 * N, -7), Ref = Out;
  for (int W = 0; W < N; W += 32) {
    int32_t Sh[32] = {}, Var[32] = {}, Act[32] = {};
    int32_t Any = 0, All = 0, Red = 0;
    uint32_t Bal = 0;
    for (int K = 0; K < Iters; ++K) {
      int32_t V[32];
      for (int L = 0; L < 32; ++L)
        V[L] = In[(W + L + K * 37) % N];
      int Bd = 1 + K % 3;
      uint32_t Odd = lanesWhere(Full, [&](unsigned L) { return V[L] & 1; });
      for (int L = 0; L < 32; ++L) {
        Sh[L] += (L + Bd <= 31 ? V[L + Bd] : V[L]) + V[L ^ 4];
        Var[L] += V[(L * 7 + K) & 31];
        if (V[L] & 1)
          Act[L] ^= int32_t(Odd);
      }
      Bal ^= lanesWhere(Full, [&](unsigned L) { return (V[L] + K) & 1; });
      Any += lanesWhere(Full, [&](unsigned L) { return V[L] > 90 + K; }) != 0;
      All += lanesWhere(Full, [&](unsigned L) { return V[L] > K; }) == Full;
      for (int L = 0; L < 32; ++L)
        Red += V[L];
    }
    for (int L = 0; L < 32; ++L) {
      int32_t *O = &Ref[7 * (W + L)];
      O[0] = Sh[L], O[1] = Var[L], O[2] = int32_t(Bal), O[3] = Any, O[4] = All, O[5] = Red, O[6] = Act[L];
    }
  }
  const HostKernel *K = nullptr;
  {
    std::string Error;
    K = kernel("loop_collectives", Error);
    ASSERT_TRUE(K) << Error;
  }
  bool HasGroup = false;
  for (const HostKernel::WarpEntry &E : K->Warps)
    HasGroup |= E.Fn && E.Lanes == 128 && E.X == 32;
  EXPECT_TRUE(HasGroup) << "loop_collectives: no 128-lane group function (FERRY_LOG=jit:debug says why)";
  // The same threads as 256- and as 128-thread blocks.
  for (uint32_t Nb : {256u, 128u})
    for (const Result &R : both("loop_collectives", {uint32_t(N) / Nb}, {Nb}, Args().buf(In).buf(Out).i32(Iters)))
      EXPECT_TRUE(same(R, 1, Ref, 7, "out"));
}

TEST_F(WarpExec, ReduxInBranches) {
  const int N = 128;
  std::vector<int32_t> In = randomInts<int32_t>(N, -50, 50, 13), Out(8 * N, -7), Ref = Out;
  for (int W = 0; W < N; W += 32) {
    const int32_t *V = &In[W];
    int32_t Sum = 0, Min = INT_MAX, Max = INT_MIN, PSum = 0, NMax = INT_MIN, NMin = INT_MAX;
    uint32_t UMin = ~0u, UMax = 0, And = ~0u, Or = 0, Xor = 0;
    for (int L = 0; L < 32; ++L) {
      Sum += V[L], Min = std::min(Min, V[L]), Max = std::max(Max, V[L]);
      UMin = std::min(UMin, uint32_t(V[L])), UMax = std::max(UMax, uint32_t(V[L]));
      if (V[L] > 0)
        PSum += V[L], And &= uint32_t(V[L]), Or |= uint32_t(V[L]), Xor ^= uint32_t(V[L]);
      else
        NMax = std::max(NMax, V[L]), NMin = std::min(NMin, V[L]);
    }
    for (int L = 0; L < 32; ++L) {
      int32_t *O = &Ref[8 * (W + L)];
      O[0] = Sum, O[1] = Min, O[2] = Max, O[3] = int32_t(UMin), O[4] = int32_t(UMax);
      if (V[L] > 0)
        O[5] = PSum, O[6] = int32_t(And), O[7] = int32_t(Or ^ Xor);
      else
        O[5] = NMax, O[6] = NMin, O[7] = 0;
    }
  }
  for (const Result &R : both("reduxes", {2}, {64}, Args().buf(In).buf(Out)))
    EXPECT_TRUE(same(R, 1, Ref, 8, "out"));
}

//===----------------------------------------------------------------------===//
// Memory: atomics, shared tiles with barriers.
//===----------------------------------------------------------------------===//

TEST_F(WarpExec, AtomicsFromDivergentCode) {
  const int Nt = 128, Blocks = 4, N = Nt * Blocks;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 999, 14);
  std::vector<int32_t> Hist(9, 0), Sum(1, 0), Max(1, INT_MIN), Tickets(N, -1), Counter(1, 0);
  Hist[8] = INT_MIN;
  std::vector<uint32_t> Xor(1, 0x12345678u);
  std::vector<int32_t> RHist = Hist, RSum = Sum, RMax = Max, RTickets;
  std::vector<uint32_t> RXor = Xor;
  for (int I = 0; I < N; ++I) {
    int V = In[I];
    if (V & 1)
      ++RHist[V & 7], RSum[0] += V;
    else
      RMax[0] = std::max(RMax[0], V), RHist[8] = std::max(RHist[8], V);
    if (V % 5 == 0)
      RXor[0] ^= uint32_t(V) * 2654435761u;
    if (V % 4 != 3)
      RTickets.push_back(I);
  }
  Args A;
  A.buf(In).buf(Hist).buf(Sum).buf(Max).buf(Xor).buf(Tickets).buf(Counter);
  for (const Result &R : both("atomics", {Blocks}, {Nt}, A)) {
    EXPECT_TRUE(same(R, 1, RHist, 1, "Hist"));
    EXPECT_TRUE(same(R, 2, RSum, 1, "Sum"));
    EXPECT_TRUE(same(R, 3, RMax, 1, "Max"));
    EXPECT_TRUE(same(R, 4, RXor, 1, "Xor"));
    EXPECT_TRUE(same(R, 6, std::vector<int32_t>{int32_t(RTickets.size())}, 1, "Counter"));
    if (!R.Error.empty())
      continue;
    // Tickets: every thread that took one appears once, in any order.
    std::vector<int32_t> Got = R.get<int32_t>(5);
    std::vector<int32_t> Taken(Got.begin(), Got.begin() + std::min(RTickets.size(), Got.size()));
    std::sort(Taken.begin(), Taken.end());
    EXPECT_EQ(Taken, RTickets) << R.Where << ": the tickets are not each thread once";
    for (size_t I = RTickets.size(); I < Got.size(); ++I)
      EXPECT_EQ(Got[I], -1) << R.Where << ": Tickets[" << I << "] written past the count";
  }
}

/// The launch shapes of the tile kernels: three with a warp layout, one
/// without (blockDim.x 12).
const Dim3 TileBlocks[] = {{16, 16}, {8, 8}, {32, 8}, {12, 5}};

TEST_F(WarpExec, TiledMatmulSharedBarriers) {
  const int M = 40, N = 72, K = 50;
  Rng G(15);
  std::vector<float> A(M * K), B(K * N), C(M * N, -1.0f), Ref(M * N, 0.0f);
  for (float &X : A)
    X = float(G.range(-4, 4));
  for (float &X : B)
    X = float(G.range(-4, 4));
  for (int R = 0; R < M; ++R)
    for (int Cc = 0; Cc < N; ++Cc) {
      float Acc = 0; // small integers: exact in any order
      for (int Kk = 0; Kk < K; ++Kk)
        Acc += A[R * K + Kk] * B[Kk * N + Cc];
      Ref[R * N + Cc] = Acc;
    }
  for (Dim3 Bl : TileBlocks) {
    Dim3 Gr = {(N + Bl.X - 1) / Bl.X, (M + Bl.Y - 1) / Bl.Y};
    for (const Result &R :
         both("tiled_matmul", Gr, Bl, Args().buf(A).buf(B).buf(C).i32(M).i32(N).i32(K)))
      EXPECT_TRUE(same(R, 2, Ref, 1, "C"));
  }
}

TEST_F(WarpExec, WholeBlockGroupSkipsBarriers) {
  // A 16x16 block is one 256-lane group function, the block's only fiber:
  // its barriers are skipped. Same results on the group, 32-lane warp and
  // per-thread paths.
  std::string Error;
  const HostKernel *K = kernel("tile16_matmul", Error);
  ASSERT_TRUE(K) << Error;
  uint32_t Whole[3] = {16, 16, 1};
  const HostKernel::WarpEntry *Group = WarpRunner::choose(*K, Whole, true);
  EXPECT_TRUE(Group && Group->Lanes == 256 && Group->X == 16)
      << "tile16_matmul: no 256-lane group function for 16x16 blocks (FERRY_LOG=jit:debug says why)";
  const int M = 64, N = 48, Kd = 80;
  Rng G(21);
  std::vector<float> A(M * Kd), B(Kd * N), C(M * N, -1.0f), Ref(M * N, 0.0f);
  for (float &X : A)
    X = float(G.range(-4, 4));
  for (float &X : B)
    X = float(G.range(-4, 4));
  for (int R = 0; R < M; ++R)
    for (int Cc = 0; Cc < N; ++Cc) {
      float Acc = 0; // small integers: exact in any order
      for (int K0 = 0; K0 < Kd; K0 += 16) {
        float ColSum = 0;
        for (int Kk = K0; Kk < K0 + 16; ++Kk) {
          Acc += A[R * Kd + Kk] * B[Kk * N + Cc];
          ColSum += B[Kk * N + Cc];
        }
        Acc += ColSum;
      }
      Ref[R * N + Cc] = Acc;
    }
  for (const Result &R :
       both("tile16_matmul", {N / 16, M / 16}, {16, 16}, Args().buf(A).buf(B).buf(C).i32(N).i32(Kd)))
    EXPECT_TRUE(same(R, 2, Ref, 1, "C"));
}

TEST_F(WarpExec, TiledTransposeSharedBarriers) {
  const int Rows = 45, Cols = 70;
  std::vector<int32_t> In(Rows * Cols), Out(Rows * Cols, -7), Ref(Rows * Cols);
  for (int R = 0; R < Rows; ++R)
    for (int Cc = 0; Cc < Cols; ++Cc) {
      In[R * Cols + Cc] = R * 1000 + Cc;
      Ref[Cc * Rows + R] = R * 1000 + Cc;
    }
  for (Dim3 Bl : TileBlocks) {
    Dim3 Gr = {(Cols + Bl.X - 1) / Bl.X, (Rows + Bl.Y - 1) / Bl.Y};
    for (const Result &R :
         both("tiled_transpose", Gr, Bl, Args().buf(In).buf(Out).i32(Rows).i32(Cols)))
      EXPECT_TRUE(same(R, 1, Ref));
  }
}

//===----------------------------------------------------------------------===//
// Thread layouts.
//===----------------------------------------------------------------------===//

TEST_F(WarpExec, PartialLastWarp) {
  const int N = 1000, Nt = 48, Blocks = (N + Nt - 1) / Nt;
  std::vector<int32_t> In = randomInts<int32_t>(N, -100, 100, 16), Out(4 * N, -7), Ref = Out;
  for (int B = 0; B < Blocks; ++B)
    for (int W = 0; W < Nt; W += 32) {
      int Base = B * Nt + W;
      int Count = std::min({32, Nt - W, N - Base});
      if (Count <= 0)
        continue;
      uint32_t M = Count == 32 ? Full : (1u << Count) - 1;
      const int32_t *V = &In[Base];
      uint32_t Pos = lanesWhere(M, [&](unsigned L) { return V[L] > 0; });
      int32_t Sum = 0;
      for (int L = 0; L < Count; ++L)
        Sum += V[L];
      for (int L = 0; L < Count; ++L) {
        int32_t *O = &Ref[4 * (Base + L)];
        unsigned T = unsigned(W + L);
        int Src = std::countr_zero(M) + int(((T + 1) & 31) % unsigned(std::popcount(M)));
        O[0] = int32_t(M), O[1] = int32_t(Pos), O[2] = Sum, O[3] = V[Src];
      }
    }
  for (const Result &R : both("partial_warp", {Blocks}, {Nt}, Args().buf(In).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 1, Ref, 4));
}

TEST_F(WarpExec, ThreeDimensionalBlocks) {
  for (Dim3 Bl : {Dim3{8, 4, 2}, Dim3{32, 2, 2}}) {
    Dim3 Gr = {3, 2};
    int Nt = int(Bl.count()), Blocks = int(Gr.count());
    std::vector<int32_t> Out(3 * Nt * Blocks, -7), Ref = Out;
    for (int B = 0; B < Blocks; ++B) {
      auto Val = [&](int Lin) {
        int X = Lin % int(Bl.X), Y = Lin / int(Bl.X) % int(Bl.Y), Z = Lin / int(Bl.X * Bl.Y);
        return Z * 100 + Y * 10 + X + 1000 * B;
      };
      for (int Lin = 0; Lin < Nt; ++Lin) {
        int32_t *O = &Ref[3 * (B * Nt + Lin)];
        O[0] = Val(Lin), O[1] = Val(Nt - 1 - Lin), O[2] = Val(Lin ^ 9);
      }
    }
    for (const Result &R : both("block3d", Gr, Bl, Args().buf(Out)))
      EXPECT_TRUE(same(R, 0, Ref, 3));
  }
}

//===----------------------------------------------------------------------===//
// Arithmetic in lanes, printf.
//===----------------------------------------------------------------------===//

uint16_t halfBits(_Float16 H) {
  uint16_t B;
  std::memcpy(&B, &H, 2);
  return B;
}
_Float16 bitsHalf(uint16_t B) {
  _Float16 H;
  std::memcpy(&H, &B, 2);
  return H;
}

TEST_F(WarpExec, Half2Arithmetic) {
  const int N = 1000;
  Rng G(17);
  // Halves k/8 in [-4, 4]: a*b+c is exact in double, so one rounding of it
  // is the f16 fma.
  auto Pack = [&] {
    return uint32_t(halfBits(_Float16(G.range(-32, 32) / 8.0))) |
           uint32_t(halfBits(_Float16(G.range(-32, 32) / 8.0))) << 16;
  };
  std::vector<uint32_t> A(N), B(N), C(N), Out(N, 0xdeadbeef), Ref(N);
  for (int I = 0; I < N; ++I)
    A[I] = Pack(), B[I] = Pack(), C[I] = Pack();
  for (int I = 0; I < N; ++I) {
    uint32_t R = 0;
    for (int H = 0; H < 2; ++H) {
      double a = double(bitsHalf(uint16_t(A[I] >> 16 * H))),
             b = double(bitsHalf(uint16_t(B[I] >> 16 * H))),
             c = double(bitsHalf(uint16_t(C[I] >> 16 * H)));
      _Float16 X = _Float16(a * b + c);
      X = _Float16(double(X) + double(_Float16(a * a)));
      if (I & 1)
        X = _Float16(double(X) - b);
      R |= uint32_t(halfBits(X)) << 16 * H;
    }
    Ref[I] = R;
  }
  for (const Result &R :
       both("half2_math", {8}, {128}, Args().buf(A).buf(B).buf(C).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 3, Ref));
}

TEST_F(WarpExec, DoubleMathInLanes) {
  const int N = 1000;
  Rng G(18);
  std::vector<double> A(N), B(N), Out(2 * N, -1.0), Ref(2 * N);
  for (int I = 0; I < N; ++I) {
    A[I] = std::ldexp(double(int64_t(G.next() >> 11)) - double(1ull << 52), -50);
    B[I] = std::ldexp(double(G.next() >> 11) + 1.0, -52) * (I % 3 == 0 ? -1.0 : 1.0);
    double R = A[I] > 0.0 ? std::sqrt(A[I]) : std::fma(A[I], B[I], 1.0);
    Ref[2 * I] = R / B[I];
    Ref[2 * I + 1] = std::fma(R, R, -A[I]);
  }
  for (const Result &R : both("double_math", {8}, {128}, Args().buf(A).buf(B).buf(Out).i32(N)))
    EXPECT_TRUE(same(R, 2, Ref, 2));
}

TEST_F(WarpExec, PrintfFromDivergentLanes) {
  const int N = 300;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 60, 19);
  In[5] = 11, In[40] = 11;
  std::vector<std::string> Ref;
  for (int I = 0; I < N; ++I) {
    if (In[I] % 7 == 3)
      Ref.push_back("warp-test lane " + std::to_string(I) + " v=" + std::to_string(In[I]));
    else if (In[I] == 11)
      Ref.push_back("warp-test eleven at " + std::to_string(I));
  }
  std::sort(Ref.begin(), Ref.end());
  for (const Result &R : both("printf_lanes", {5}, {64}, Args().buf(In).i32(N).captureStdout())) {
    ASSERT_TRUE(R.Error.empty()) << R.Where << ": launch failed: " << R.Error;
    // Lines in any order (threads print concurrently on a GPU).
    std::vector<std::string> Got;
    std::istringstream S(R.Stdout);
    for (std::string L; std::getline(S, L);)
      if (L.rfind("warp-test", 0) == 0)
        Got.push_back(L);
    std::sort(Got.begin(), Got.end());
    EXPECT_EQ(Got, Ref) << R.Where << ": printed\n" << R.Stdout;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Code nobody here wrote: uniform exits from nested loops, shuffles reading
// lanes that take no part.
//===----------------------------------------------------------------------===//

int searchSplit(int Index) {
  int N = 0;
  for (int I = 0; I <= 16; ++I)
    for (int J = I; J <= 16; ++J)
      for (int K = J; K <= 16; ++K)
        if (N++ == Index)
          return I * 10000 + J * 100 + K;
  return 17 * 10000 + 17 * 100 + 17;
}

TEST_F(WarpExec, UniformReturnFromNestedLoops) {
  // Indices whose K (or J and K) loop exits in its first step, where a
  // latch that moved on would leave the last loop's end values.
  std::vector<int32_t> Idx = {0, 153, 288, 409, 506, 815, 968, 2000};
  const int Nt = 64, Blocks = int(Idx.size());
  std::vector<int32_t> Out(2 * Nt * Blocks, -7), Ref(Out.size());
  for (int B = 0; B < Blocks; ++B)
    for (int T = 0; T < Nt; ++T) {
      Ref[2 * (B * Nt + T)] = searchSplit(Idx[B]);
      Ref[2 * (B * Nt + T) + 1] = T == Idx[B] % Nt ? searchSplit(Idx[B] + 7) : -1;
    }
  for (const Result &R : both("uniform_search_return", {uint32_t(Blocks)}, {Nt}, Args().buf(Idx).buf(Out)))
    EXPECT_TRUE(same(R, 1, Ref, 2));
}

TEST_F(WarpExec, ShuffleFromAbsentLanes) {
  for (uint32_t Nt : {16u, 32u, 64u})
    for (int Ext : {1, 5, 16}) {
      SCOPED_TRACE("block " + std::to_string(Nt) + ", lanes below " + std::to_string(Ext));
      std::vector<int32_t> In = randomInts<int32_t>(2 * Nt, -1000, 1000, 30 + Nt + Ext);
      std::vector<int32_t> Out(2 * In.size(), -7), Ref = Out;
      for (uint32_t W = 0; W < In.size(); W += std::min<uint32_t>(32, Nt)) {
        uint32_t Count = std::min<uint32_t>(32, Nt - W % Nt);
        // What a GPU gives: a present lane's value, 0 from an absent one,
        // the lane's own value past lane 31.
        auto Sum = [&](uint32_t Present, int32_t *Out, uint32_t Stride) {
          int32_t S[32] = {};
          for (uint32_t L = 0; L < Count; ++L)
            S[L] = (Present >> L & 1) ? In[W + L] : 0;
          for (uint32_t Off = 16; Off > 0; Off /= 2) {
            int32_t Next[32];
            for (uint32_t L = 0; L < 32; ++L) {
              uint32_t J = L + Off;
              Next[L] = S[L] + (J > 31 ? S[L] : (Present >> J & 1) ? S[J] : 0);
            }
            std::copy(Next, Next + 32, S);
          }
          for (uint32_t L = 0; L < Count; ++L)
            Out[Stride * L] = S[L];
        };
        uint32_t Exists = Count == 32 ? Full : (1u << Count) - 1;
        uint32_t Below = Exists & ((1u << Ext) - 1);
        Sum(Below, &Ref[2 * W], 2);
        for (uint32_t L = 0; L < Count; ++L)
          if (!(Below >> L & 1))
            Ref[2 * (W + L)] = -1;
        Sum(Exists, &Ref[2 * W + 1], 2);
      }
      for (const Result &R : both("shfl_absent_sources", {2}, {Nt}, Args().buf(In).buf(Out).i32(Ext)))
        EXPECT_TRUE(same(R, 1, Ref, 2));
    }
}

//===----------------------------------------------------------------------===//
// Memory access shapes of library kernels (CUB, copy samples).
//===----------------------------------------------------------------------===//

TEST_F(WarpExec, UnsignedStrideWrapsInMaskedLane) {
  const int N = 300;
  const unsigned Stride = 37;
  std::vector<int32_t> In = randomInts<int32_t>(size_t(N) * Stride, -1000, 1000, 41), Out(N, -7), Ref = Out;
  for (int I = 1; I < N; ++I)
    Ref[I] = In[size_t(I) * Stride - 1];
  for (Dim3 Block : {Dim3{128}, Dim3{256}, Dim3{32}})
    for (const Result &R : both("unsigned_stride_wrap", {(N + Block.X - 1) / Block.X}, Block,
                                Args().buf(In).buf(Out).i32(int32_t(Stride)).i32(N)))
      EXPECT_TRUE(same(R, 1, Ref));
}

TEST_F(WarpExec, VectorAccessesAtScatteredAddresses) {
  const int N = 5003; // 32-byte elements, eight floats each
  std::vector<float> In(size_t(N) * 8), Out(In.size(), -1.0f);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = float(I) * 0.5f - 7.0f;
  for (auto [Grid, Block] : {std::pair{Dim3{7}, Dim3{128}}, {Dim3{3}, Dim3{256}}, {Dim3{5}, Dim3{96}}})
    for (const Result &R : both("struct32_grid_copy", Grid, Block, Args().buf(In).buf(Out).i32(N)))
      EXPECT_TRUE(same(R, 1, In));
  // Element gathers keep the 256-lane group's frame small; lane by lane it
  // passed MaxWarpFrameBytes and the group was left out.
  std::string Error;
  const HostKernel *K = kernel("struct32_grid_copy", Error);
  ASSERT_TRUE(K) << Error;
  uint32_t Wide[3] = {256, 1, 1};
  const HostKernel::WarpEntry *Chosen = WarpRunner::choose(*K, Wide, true);
  ASSERT_NE(Chosen, nullptr);
  EXPECT_EQ(Chosen->Lanes, 256u);
}

TEST_F(WarpExec, WarpFunctionsOverTheFrameLimitAreLeftOut) {
  std::string Error;
  const HostKernel *K = kernel("big_private_array", Error);
  ASSERT_TRUE(K) << Error;
  for (const HostKernel::WarpEntry &E : K->Warps)
    EXPECT_EQ(E.Fn, nullptr) << "the " << E.Lanes << "-lane variant for " << E.X
                             << "-wide blocks was kept: its private arrays pass MaxWarpFrameBytes";
  const int N = 150;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 1000, 43), Out(N, -7), Ref(N);
  for (int I = 0; I < N; ++I) {
    int32_t Sum = 0;
    for (int J = 0; J < 64; ++J) {
      int32_t Idx = (In[I] + 61 * J) & 4095;
      Sum += In[I] * Idx + (Idx ^ I);
    }
    Ref[I] = Sum;
  }
  for (const Result &R : both("big_private_array", {3}, {64}, Args().buf(In).buf(Out).i32(N), false))
    EXPECT_TRUE(same(R, 1, Ref));
}

/// Byte and 16-bit accesses at addresses that vary freely over the lanes
/// (nvcc's unrolled grid-stride loop, a permutation): gathered as the
/// 32-bit words that hold them and scattered by a loop over the elements.
/// Checked on every x-contiguous layout, with partial masks, and at every
/// byte offset within a word; then the warp and group functions must hold
/// no byte or 16-bit gather or scatter, which x86 lacks and LLVM expands
/// into a branch per element (minutes of code generation for 256 lanes).
TEST_F(WarpExec, SubWordGathersAndScatters) {
  const int N = 10007;
  std::vector<uint8_t> In8 = randomInts<uint8_t>(N, 0, 255, 51), Out8(N, 0xa5);
  std::vector<uint16_t> In16 = randomInts<uint16_t>(N / 2, 0, 65535, 52), Out16(N / 2, 0x5a5a);
  std::vector<uint8_t> In2 = randomInts<uint8_t>(N / 2 * 2, 0, 255, 53), Out2(In2.size(), 0x3c);
  for (auto [Grid, Block] : {std::pair{Dim3{3}, Dim3{256}}, {Dim3{7}, Dim3{128}}, {Dim3{5}, Dim3{96}},
                             {Dim3{1}, Dim3{32}}})
    for (const Result &R : both("subword_grid_copy", Grid, Block,
                                Args().buf(In8).buf(Out8).buf(In16).buf(Out16).buf(In2).buf(Out2).i32(N))) {
      EXPECT_TRUE(same(R, 1, In8, 1, "u8"));
      EXPECT_TRUE(same(R, 3, In16, 1, "u16"));
      EXPECT_TRUE(same(R, 5, In2, 1, "two-byte struct"));
    }

  // A permutation whose image is every index but the ones it leaves out
  // (P ^ 1 stays in range: N even).
  const int M = 5000;
  Rng G(54);
  std::vector<int32_t> Perm(M);
  for (int I = 0; I < M; ++I)
    Perm[I] = I;
  for (int I = M - 1; I > 0; --I)
    std::swap(Perm[I], Perm[G.next() % uint64_t(I + 1)]);
  std::vector<uint8_t> P8 = randomInts<uint8_t>(M, 0, 255, 55), Q8(M, 0x11), Ref8 = Q8;
  std::vector<uint16_t> PH(M), QH(M, 0x2222), RefH = QH;
  std::vector<int16_t> P16 = randomInts<int16_t>(M, -30000, 30000, 56), Q16(M, 0x3333), Ref16 = Q16;
  for (int I = 0; I < M; ++I)
    PH[I] = halfBits(_Float16(G.range(-64, 64) / 4.0));
  for (int I = 0; I < M; ++I) {
    int P = Perm[I];
    if (P % 3 != 0) {
      Ref8[P ^ 1] = uint8_t(P8[P] + 1);
      RefH[P ^ 1] = halfBits(_Float16(bitsHalf(PH[P]) + _Float16(1.0f)));
    } else {
      Ref16[P ^ 1] = int16_t(P16[P] - 3);
    }
  }
  for (Dim3 Block : {Dim3{256}, Dim3{128}, Dim3{32}})
    for (const Result &R :
         both("subword_permute", {(M + Block.X - 1) / Block.X}, Block,
              Args().buf(P8).buf(Q8).buf(PH).buf(QH).buf(P16).buf(Q16).buf(Perm).i32(M))) {
      EXPECT_TRUE(same(R, 1, Ref8, 1, "u8"));
      EXPECT_TRUE(same(R, 3, RefH, 1, "half"));
      EXPECT_TRUE(same(R, 5, Ref16, 1, "s16"));
    }

  test::ScopedDump Dump("ir", "ferry-warp-subword-test");
  const std::string &Dir = Dump.dir();
  Modules.erase("subword_grid_copy");
  std::string Error;
  const HostKernel *K = kernel("subword_grid_copy", Error);
  Dump.stop();
  ASSERT_TRUE(K) << Error;
  std::string Ir = Dump.read(".ll");
  unsigned Functions = 0;
  for (const char *Fn : {"@subword_grid_copy.ferry.warp32(", "@subword_grid_copy.ferry.group32(",
                         "@subword_grid_copy.ferry.group32x256("}) {
    size_t At = Ir.find(Fn);
    if (At == std::string::npos)
      continue;
    ++Functions;
    std::string Body = Ir.substr(At, Ir.find("\n}\n", At) - At);
    for (std::string Op : {"@llvm.masked.gather.v", "@llvm.masked.scatter.v"})
      for (size_t P = Body.find(Op); P != std::string::npos; P = Body.find(Op, P + 1)) {
        std::string Ty = Body.substr(P + Op.size(), Body.find('.', P + Op.size()) - P - Op.size());
        bool Narrow = Ty.ends_with("i8") || Ty.ends_with("i16") || Ty.ends_with("f16");
        EXPECT_FALSE(Narrow) << Fn << " has a sub-word " << Op.substr(6) << Ty << " (" << Dir << ")";
      }
  }
  EXPECT_GE(Functions, 3u) << "no warp or group functions in the dump (" << Dir << ")";
  if (!HasFailure())
    Dump.remove();
}

/// A kernel calling a recursive device function: the vectorizer refuses it
/// before inlining (it used to inline the recursion 2000 times over, a JIT
/// of minutes that looked like a hang to the program), and the per-thread
/// path gives the recursion's result. The time bound only guards against
/// the old behaviour (compilation takes well under a second here).
TEST_F(WarpExec, RecursiveDeviceFunctionIsRefusedQuickly) {
  auto Start = std::chrono::steady_clock::now();
  std::string Error;
  const HostKernel *K = kernel("recursive_device_function", Error);
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  ASSERT_TRUE(K) << Error;
  EXPECT_LT(Seconds, 30.0) << "compiling a kernel with a recursive callee took " << Seconds << " s";
  for (const HostKernel::WarpEntry &E : K->Warps)
    EXPECT_EQ(E.Fn, nullptr) << "a " << E.Lanes << "-lane warp function was built for a recursive kernel";
  const int N = 300;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 1 << 20, 61), Out(N, -7), Ref(N);
  std::function<int32_t(int32_t, int32_t)> Walk = [&](int32_t X, int32_t Depth) -> int32_t {
    if (Depth == 0)
      return X & 0xff;
    int32_t Left = Walk(int32_t(uint32_t(X) * 3u + 1u), Depth - 1);
    return (Left ^ (X >> 2)) + Depth;
  };
  for (int I = 0; I < N; ++I)
    Ref[I] = Walk(In[I], In[I] % 24);
  for (const Result &R : both("recursive_device_function", {3}, {128}, Args().buf(In).buf(Out).i32(N), false))
    EXPECT_TRUE(same(R, 1, Ref));
}

/// A shuffle after an if, reached first by the lanes that skipped the if
/// while the others still run a loop of shuffles over the if's active mask:
/// on the per-thread path the later shuffle took the earlier ones' waiting
/// lanes into its group (it could not tell the call sites apart) and read
/// their operands; both sides of the if's __activemask() also got each
/// other's lanes. Each collective now completes with the lanes at its own
/// call site.
TEST_F(WarpExec, CollectiveAfterBranchWaitsForItsOwnSite) {
  const int N = 256;
  std::vector<int32_t> In = randomInts<int32_t>(N, 0, 1000, 62), Out(2 * N, -7), Ref(2 * N);
  for (int W = 0; W < N; W += 32) {
    int32_t Sum = 0;
    for (int L = 0; L < 32; ++L)
      if (In[W + L] % 3 != 0)
        Sum += In[W + L];
    for (int L = 0; L < 32; ++L) {
      Ref[2 * (W + L)] = In[W + L] % 3 != 0 ? Sum : 0;
      Ref[2 * (W + L) + 1] = In[W + (L ^ 1)];
    }
  }
  for (const Result &R : both("collective_after_branch", {2}, {128}, Args().buf(In).buf(Out)))
    EXPECT_TRUE(same(R, 1, Ref, 2));
}
