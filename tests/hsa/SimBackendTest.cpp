/// \file
/// ferry's AMD backend (hsa/) through libcuda's seams, over sim/'s HSA
/// runtime stand-in on a simulated gfx942 (FERRY_HSA_LIBRARY names it, as
/// `ferry run` does when FERRY_SIM is set): the first time hsa/ executed.
/// Each test pins bugs that run found:
///  - kernels got a zeroed parameter buffer: HsaCodeObject gave the core no
///    per-parameter layout, so kernelParams were never packed;
///  - copies from pageable host memory went to the DMA engine, which cannot
///    reach it (ROCr: a fault); then a copy relied on another copy's
///    temporary lock, which that copy's completion released;
///  - signals still named by a queued barrier packet or copy were destroyed
///    when the queue's latest signal moved on (use after free in ROCr);
///  - after a kernel fault, waits blocked forever (ROCr never completes the
///    signals of a stopped queue), and every fault read LAUNCH_FAILED;
///  - a kernel's static shared size included ferry's own LDS, so a kernel
///    declaring exactly 48 KiB (thrust's radix sort) was refused;
///  - with GPUs of two targets, code was compiled for the first only and the
///    other device could load nothing.
#include "hsa/HsaBackend.h"
#include "hsa/HsaRuntime.h"
#include "ptx/lower/Lower.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <cstring>

using namespace ferry::hsa;

namespace {

// y[i] = a * x[i] + y[i] for i < n: parameters of three sizes and alignments.
const char *AxpyPtx = R"(
.version 7.0
.target sm_75
.address_size 64

.visible .entry axpy(.param .u64 axpy_x, .param .f32 axpy_a, .param .u64 axpy_y,
                     .param .u32 axpy_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [axpy_x];
  ld.param.f32 %f1, [axpy_a];
  ld.param.u64 %rd2, [axpy_y];
  ld.param.u32 %r1, [axpy_n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f3, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f3;
DONE:
  ret;
}

// 48 KiB of .shared plus __syncthreads_count (bar.red.popc), whose counter
// ferry keeps in LDS of its own: out = popc + buf[1] = 63 + 1 with 64
// threads.
.visible .entry bigshared(.param .u64 bigshared_out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<3>;
  .shared .align 16 .b8 buf[49152];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  setp.ne.u32 %p1, %r1, 0;
  bar.red.popc.u32 %r5, 0, %p1;
  ld.shared.u32 %r6, [%r3+4];
  add.u32 %r7, %r5, %r6;
  ld.param.u64 %rd1, [bigshared_out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r7;
  ret;
}

// Stores far beyond the buffer it is given: a memory fault.
.visible .entry wild(.param .u64 wild_p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [wild_p];
  cvta.to.global.u64 %rd2, %rd1;
  add.s64 %rd3, %rd2, 1099511627776;
  mov.u32 %r1, 7;
  st.global.u32 [%rd3], %r1;
  ret;
}

// A .maxntid kernel: 96 threads at most.
.visible .entry limited(.param .u64 limited_p)
.maxntid 32, 3, 1
{
  ret;
}

// assert(p[tid] >= 0) as nvcc emits it: __assertfail(message, file, line,
// function, char size).
.extern .func __assertfail(.param .b64 a0, .param .b64 a1, .param .b32 a2, .param .b64 a3,
                           .param .b64 a4);
.global .align 1 .b8 amsg[5] = {110, 101, 103, 33, 0};
.global .align 1 .b8 afile[5] = {102, 46, 99, 117, 0};
.global .align 1 .b8 afunc[3] = {102, 110, 0};
.visible .entry checkpos(.param .u64 checkpos_p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [checkpos_p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  setp.ge.s32 %p1, %r2, 0;
  @%p1 bra OK;
  mov.u64 %rd5, amsg;
  cvta.global.u64 %rd6, %rd5;
  mov.u64 %rd7, afile;
  cvta.global.u64 %rd8, %rd7;
  mov.u64 %rd5, afunc;
  cvta.global.u64 %rd9, %rd5;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd6;
  .param .b64 param1;
  st.param.b64 [param1], %rd8;
  .param .b32 param2;
  st.param.b32 [param2], 42;
  .param .b64 param3;
  st.param.b64 [param3], %rd9;
  .param .b64 param4;
  st.param.b64 [param4], 1;
  call.uni __assertfail, (param0, param1, param2, param3, param4);
  }
OK:
  ret;
}
)";

/// Before anything reads the settings or opens the runtime (once per
/// process: ctest runs each test in a process of its own).
void useSimulator(const char *Targets) {
  setenv("FERRY_HSA_LIBRARY", SIM_LIBRARY, 1);
  setenv("FERRY_SIM", Targets, 1);
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  // A kernel that spins forever fails instead of hanging the test (the
  // simulator reads it when the first queue is made).
  setenv("FERRY_SIM_MAX_INSTRUCTIONS", "20000000", 0);
}

class HsaOnSim : public ::testing::Test {
protected:
  static void SetUpTestSuite() { useSimulator("gfx942"); }
  void SetUp() override {
    auto B = createHsaDeviceBackend();
    ASSERT_TRUE(bool(B)) << B.error().message();
    Backend = std::move(*B);
    // gfx942 first (a process that ran HsaOnTwoSims first has gfx1100 too).
    ASSERT_GE(Backend->devices().size(), 1u) << HsaRuntime::get().whyUnavailable();
    Dev = Backend->devices()[0];
    auto R = ferry::ptx::lowerText(AxpyPtx, "axpy.ptx", Ctx);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    auto CO = Backend->compiler()->compile(*R->M, {});
    ASSERT_TRUE(bool(CO)) << CO.error().message();
    Code = std::move(*CO);
    auto L = Dev->load(*Code);
    ASSERT_TRUE(bool(L)) << L.error().message();
    Loaded = std::move(*L);
    auto Q = Dev->createQueue(0);
    ASSERT_TRUE(bool(Q)) << Q.error().message();
    Queue = std::move(*Q);
  }
  void TearDown() override { Queue.reset(); }

  unsigned kernel(const char *Name) {
    for (unsigned I = 0; I < Loaded->info().size(); ++I)
      if (Loaded->info()[I].Name == Name)
        return I;
    ADD_FAILURE() << "no kernel " << Name;
    return 0;
  }
  /// A launch with kernelParams packed as the core packs them.
  ferry::LaunchRequest launch(const char *Name, std::vector<const void *> Values, uint32_t Blocks,
                              uint32_t Threads) {
    ferry::LaunchRequest R;
    R.Code = Loaded.get();
    R.KernelIndex = kernel(Name);
    const ferry::KernelInfo &K = Loaded->info()[R.KernelIndex];
    R.Grid = {Blocks, 1, 1};
    R.Block = {Threads, 1, 1};
    R.Args.assign(K.ParamBytes, std::byte{0});
    EXPECT_EQ(K.Params.size(), Values.size());
    for (size_t I = 0; I < K.Params.size() && I < Values.size(); ++I)
      std::memcpy(R.Args.data() + K.Params[I].Offset, Values[I], K.Params[I].Bytes);
    return R;
  }
  ferry::CopyRect copy(void *Dst, const void *Src, size_t Bytes) {
    ferry::CopyRect R;
    R.Dst = Dst;
    R.Src = Src;
    R.WidthBytes = Bytes;
    return R;
  }

  llvm::LLVMContext Ctx;
  std::unique_ptr<ferry::DeviceBackend> Backend;
  ferry::Device *Dev = nullptr;
  std::unique_ptr<ferry::CodeObject> Code;
  std::unique_ptr<ferry::LoadedCode> Loaded;
  std::unique_ptr<ferry::Queue> Queue;
};

TEST_F(HsaOnSim, ParameterLayoutsReachTheCore) {
  const ferry::KernelInfo &K = Code->kernels()[kernel("axpy")];
  ASSERT_EQ(K.Params.size(), 4u);
  EXPECT_EQ(K.Params[1].Offset, 8u);
  EXPECT_EQ(K.Params[1].Bytes, 4u);
  EXPECT_EQ(K.Params[2].Offset, 16u);
  EXPECT_EQ(K.Params[3].Offset, 24u);
  EXPECT_EQ(K.ParamBytes, 28u);
  // And through the code cache's bytes.
  auto Bytes = Code->serialize();
  ASSERT_TRUE(bool(Bytes));
  auto Back = Backend->compiler()->deserialize(*Bytes);
  ASSERT_TRUE(bool(Back)) << Back.error().message();
  const ferry::KernelInfo &B = (*Back)->kernels()[kernel("axpy")];
  ASSERT_EQ(B.Params.size(), 4u);
  EXPECT_EQ(B.Params[2].Offset, 16u);
  EXPECT_EQ(B.Params[2].Bytes, 8u);
  EXPECT_EQ(B.Params[2].Align, 8u);
  std::vector<std::byte> Cut(Bytes->begin(), Bytes->begin() + 20);
  EXPECT_FALSE(bool(Backend->compiler()->deserialize(Cut)));
}

TEST_F(HsaOnSim, PageableCopiesAndLaunchesInStreamOrder) {
  const uint32_t N = 3000;
  std::vector<float> X(N), Y(N), Out(N, -1);
  for (uint32_t I = 0; I < N; ++I) {
    X[I] = float(I);
    Y[I] = 1.0f;
  }
  auto DX = Dev->allocate(ferry::MemoryKind::Device, N * 4);
  auto DY = Dev->allocate(ferry::MemoryKind::Device, N * 4);
  ASSERT_TRUE(DX && DY);
  // Host vectors are pageable: the backend must not hand them to the DMA
  // engine as they are.
  ASSERT_TRUE(Queue->enqueueCopy(copy(*DX, X.data(), N * 4)));
  ASSERT_TRUE(Queue->enqueueCopy(copy(*DY, Y.data(), N * 4)));
  // Launches and copies interleaved: each command's signals must live until
  // the packets and copies that name them are done.
  const float A = 2.0f;
  const int Rounds = 8;
  for (int I = 0; I < Rounds; ++I) {
    ASSERT_TRUE(Queue->enqueueLaunch(launch("axpy", {&*DX, &A, &*DY, &N}, (N + 255) / 256, 256)));
    ASSERT_TRUE(Queue->enqueueCopy(copy(Out.data(), *DY, N * 4)));
  }
  Queue->drain();
  ferry::Status F = Dev->fault();
  ASSERT_TRUE(bool(F)) << F.message();
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], 1.0f + Rounds * A * float(I)) << I;
  // A strided 2-D copy from pageable memory too.
  std::vector<float> Rows(4 * 64, 5.0f);
  ferry::CopyRect R;
  R.Dst = *DY;
  R.Src = Rows.data();
  R.WidthBytes = 16 * 4;
  R.Height = 4;
  R.DstPitch = 16 * 4;
  R.SrcPitch = 64 * 4;
  ASSERT_TRUE(Queue->enqueueCopy(R));
  ASSERT_TRUE(Queue->enqueueCopy(copy(Out.data(), *DY, 64 * 4)));
  Queue->drain();
  EXPECT_EQ(Out[63], 5.0f);
  EXPECT_TRUE(bool(Dev->fault()));
  (void)Dev->release(ferry::MemoryKind::Device, *DX, N * 4);
  (void)Dev->release(ferry::MemoryKind::Device, *DY, N * 4);
}

TEST_F(HsaOnSim, APageableRangeStaysLockedForEveryCopyUsingIt) {
  // Copy A (from Y) locks Y; copy B (into Y) is queued while A still holds
  // that lock; A completes and a later enqueue reclaims A's lock while B
  // still waits. B must hold a lock of its own, or the DMA engine finds Y
  // unlocked (the stand-in then copies nothing).
  const uint32_t N = 256;
  std::vector<float> Y(N, 4.0f), Ones(N, 9.0f);
  auto DX = Dev->allocate(ferry::MemoryKind::Device, N * 4);
  auto DY = Dev->allocate(ferry::MemoryKind::Device, N * 4);
  ASSERT_TRUE(DX && DY);
  ASSERT_TRUE(Queue->enqueueCopy(copy(*DY, Ones.data(), N * 4)));
  std::atomic<bool> Gate1{false}, Gate2{false};
  auto Wait = [](std::atomic<bool> &G) {
    return [&G](CUresult) {
      while (!G.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
  };
  ASSERT_TRUE(Queue->enqueueHostFunction(Wait(Gate1)));
  ASSERT_TRUE(Queue->enqueueCopy(copy(*DX, Y.data(), N * 4))); // A
  auto AfterA = Queue->enqueueSignal();
  ASSERT_TRUE(bool(AfterA));
  ASSERT_TRUE(Queue->enqueueHostFunction(Wait(Gate2)));
  ASSERT_TRUE(Queue->enqueueCopy(copy(Y.data(), *DY, N * 4))); // B
  Gate1 = true;
  (*AfterA)->wait();
  ASSERT_TRUE(Queue->enqueueCopy(copy(*DX, *DY, 4))); // Reclaims A's lock.
  Gate2 = true;
  Queue->drain();
  EXPECT_TRUE(bool(Dev->fault()));
  EXPECT_EQ(Y[N - 1], 9.0f);
  (void)Dev->release(ferry::MemoryKind::Device, *DX, N * 4);
  (void)Dev->release(ferry::MemoryKind::Device, *DY, N * 4);
}

TEST_F(HsaOnSim, SharedMemoryIsTheProgramsNotFerrys) {
  // thrust's radix sort declares exactly 48 KiB; ferry's bar.red counter
  // made it 48 KiB + 4 and the core refused the launch.
  const ferry::KernelInfo &K = Code->kernels()[kernel("bigshared")];
  EXPECT_EQ(K.StaticSharedBytes, 49152u);
  auto Back = Backend->compiler()->deserialize(*Code->serialize());
  ASSERT_TRUE(bool(Back)) << Back.error().message();
  EXPECT_EQ((*Back)->kernels()[kernel("bigshared")].StaticSharedBytes, 49152u);
  auto Out = Dev->allocate(ferry::MemoryKind::Device, 4);
  ASSERT_TRUE(bool(Out));
  ASSERT_TRUE(Queue->enqueueLaunch(launch("bigshared", {&*Out}, 1, 64)));
  uint32_t Got = 0;
  ASSERT_TRUE(Queue->enqueueCopy(copy(&Got, *Out, 4)));
  Queue->drain();
  ferry::Status F = Dev->fault();
  ASSERT_TRUE(bool(F)) << F.message();
  EXPECT_EQ(Got, 64u);
  // More than the CU's 64 KiB once ferry's LDS is added: refused at launch
  // rather than failing in the packet processor.
  ferry::LaunchRequest Big = launch("bigshared", {&*Out}, 1, 64);
  Big.DynamicSharedBytes = 16384;
  EXPECT_FALSE(bool(Queue->enqueueLaunch(Big)));
  (void)Dev->release(ferry::MemoryKind::Device, *Out, 4);
}

TEST_F(HsaOnSim, KernelFaultIsStickyAndEndsWaits) {
  auto P = Dev->allocate(ferry::MemoryKind::Device, 64);
  ASSERT_TRUE(bool(P));
  ASSERT_TRUE(Queue->enqueueLaunch(launch("wild", {&*P}, 1, 1)));
  std::vector<float> Host(16);
  // Queued behind the faulting launch, or refused when the fault came first
  // (the simulated GPU may run the dispatch before this is enqueued).
  (void)Queue->enqueueCopy(copy(Host.data(), *P, 64));
  auto T0 = std::chrono::steady_clock::now();
  Queue->drain(); // Must return: the stopped queue's signals never complete.
  EXPECT_LT(std::chrono::steady_clock::now() - T0, std::chrono::seconds(30));
  ferry::Status F = Dev->fault();
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(F.code(), CUDA_ERROR_ILLEGAL_ADDRESS) << F.message();
  // The stopped queue refuses more work instead of queueing it forever.
  EXPECT_FALSE(bool(Queue->enqueueLaunch(launch("wild", {&*P}, 1, 1))));
  (void)Dev->release(ferry::MemoryKind::Device, *P, 64);
}

TEST_F(HsaOnSim, DeviceAssertIsCudaErrorAssertWithCudasMessage) {
  // Was a bare trap: LAUNCH_FAILED and no message. The first failing thread
  // records itself in __ferry_assert before s_trap.
  std::vector<int32_t> Host(64, 1);
  Host[37] = -4;
  auto P = Dev->allocate(ferry::MemoryKind::Device, Host.size() * 4);
  ASSERT_TRUE(bool(P));
  ASSERT_TRUE(Queue->enqueueCopy(copy(*P, Host.data(), Host.size() * 4)));
  ASSERT_TRUE(Queue->enqueueLaunch(launch("checkpos", {&*P}, 1, 64)));
  Queue->drain();
  ferry::Status F = Dev->fault();
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(F.code(), CUDA_ERROR_ASSERT) << F.message();
  EXPECT_NE(F.message().find("f.cu:42: fn: block: [0,0,0], thread: [37,0,0] Assertion `neg!` failed."),
            std::string::npos)
      << F.message();
  (void)Dev->release(ferry::MemoryKind::Device, *P, Host.size() * 4);
}

TEST_F(HsaOnSim, MaxntidIsTheReportedBlockLimit) {
  // MAX_THREADS_PER_BLOCK said 1024 for every kernel: a program sizing its
  // blocks from it overran a .maxntid 128 kernel's shared arrays.
  EXPECT_EQ(Code->kernels()[kernel("limited")].MaxThreadsPerBlock, 96u);
  EXPECT_EQ(Code->kernels()[kernel("axpy")].MaxThreadsPerBlock, 1024u);
  EXPECT_EQ(Loaded->info()[kernel("limited")].MaxThreadsPerBlock, 96u);
  auto Back = Backend->compiler()->deserialize(*Code->serialize());
  ASSERT_TRUE(bool(Back)) << Back.error().message();
  EXPECT_EQ((*Back)->kernels()[kernel("limited")].MaxThreadsPerBlock, 96u);
}

TEST_F(HsaOnSim, OccupancyIsTheAmdResourceModels) {
  // cuOccupancy* applied NVIDIA's register arithmetic to the VGPR count
  // (0 blocks per SM for a kernel with many VGPRs: CUB divided by it). The
  // loaded kernel carries the AMD model; the core asks it.
  const ferry::KernelInfo &I = Loaded->info()[kernel("axpy")];
  ASSERT_TRUE(bool(I.ResidentBlocks));
  // gfx942: a small kernel of 64 threads (one wave64) fills 4 SIMDs x 8.
  EXPECT_EQ(I.ResidentBlocks(64, 0), 32);
  EXPECT_EQ(I.ResidentBlocks(1024, 0), 2); // 16 waves: 2 of 32 slots.
  EXPECT_GE(I.ResidentBlocks(1024, 0), 1);
  EXPECT_EQ(I.ResidentBlocks(256, 40 * 1024), 1); // 64 KiB of LDS a CU.
  EXPECT_EQ(I.ResidentBlocks(256, 80 * 1024), 0); // Cannot run at all.
}

// Warp 0 publishes a flag the other warps spin on; then the warps take
// turns in reverse order on a shared counter (nvcc -O2 -ptx of a CUDA
// kernel; libcudacxx's message passing does the same).
const char *TurnsPtx = R"(
.version 9.0
.target sm_75
.address_size 64
.visible .entry turns(
	.param .u64 turns_param_0
)
{
	.reg .pred 	%p<7>;
	.reg .b32 	%r<22>;
	.reg .b64 	%rd<5>;
	.shared .align 4 .u32 _ZZ5turnsE4Flag;
	.shared .align 4 .u32 _ZZ5turnsE4Turn;
	ld.param.u64 	%rd2, [turns_param_0];
	mov.u32 	%r1, %tid.x;
	shr.s32 	%r4, %r1, 31;
	shr.u32 	%r5, %r4, 27;
	add.s32 	%r6, %r1, %r5;
	shr.s32 	%r2, %r6, 5;
	setp.ne.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_2;
	mov.u32 	%r7, 0;
	st.volatile.shared.u32 	[_ZZ5turnsE4Flag], %r7;
	st.shared.u32 	[_ZZ5turnsE4Turn], %r7;
$L__BB0_2:
	bar.sync 	0;
	add.s32 	%r8, %r1, 31;
	setp.lt.u32 	%p2, %r8, 63;
	@%p2 bra 	$L__BB0_5;
	bra.uni 	$L__BB0_3;
$L__BB0_5:
	@%p1 bra 	$L__BB0_7;
	mov.u32 	%r11, _ZZ5turnsE4Flag;
	atom.shared.exch.b32 	%r12, [%r11], 1;
	bra.uni 	$L__BB0_7;
$L__BB0_3:
	mov.u32 	%r9, _ZZ5turnsE4Flag;
$L__BB0_4:
	atom.shared.add.u32 	%r10, [%r9], 0;
	setp.eq.s32 	%p3, %r10, 0;
	@%p3 bra 	$L__BB0_4;
$L__BB0_7:
	not.b32 	%r13, %r2;
	mov.u32 	%r14, %ntid.x;
	shr.u32 	%r15, %r14, 5;
	add.s32 	%r3, %r15, %r13;
	cvta.to.global.u64 	%rd1, %rd2;
	mov.u32 	%r16, _ZZ5turnsE4Turn;
$L__BB0_8:
	atom.shared.add.u32 	%r17, [%r16], 0;
	setp.ne.s32 	%p5, %r17, %r3;
	@%p5 bra 	$L__BB0_8;
	and.b32  	%r18, %r1, 31;
	setp.ne.s32 	%p6, %r18, 0;
	@%p6 bra 	$L__BB0_11;
	atom.shared.add.u32 	%r20, [%r16], 0;
	mul.wide.s32 	%rd3, %r20, 4;
	add.s64 	%rd4, %rd1, %rd3;
	st.global.u32 	[%rd4], %r2;
	atom.shared.add.u32 	%r21, [%r16], 1;
$L__BB0_11:
	ret;
}
)";

TEST_F(HsaOnSim, WarpsOfOneWave64SpinOnEachOther) {
  // On gfx942 a wavefront holds warps 0 and 1 (2 and 3): lanes that left a
  // divergent loop waited for the lanes still spinning, which waited for
  // them (the turn loop), and the structurizer ran the spinning side of an
  // if/else before the side that sets the flag: the kernel hung
  // (apps/libcudacxx). FERRY_SIM_MAX_INSTRUCTIONS (useSimulator) makes a
  // hang a failure.
  auto R = ferry::ptx::lowerText(TurnsPtx, "turns.ptx", Ctx);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto CO = Backend->compiler()->compile(*R->M, {});
  ASSERT_TRUE(bool(CO)) << CO.error().message();
  auto L = Dev->load(**CO);
  ASSERT_TRUE(bool(L)) << L.error().message();
  auto Out = Dev->allocate(ferry::MemoryKind::Device, 4 * 4);
  ASSERT_TRUE(bool(Out));
  std::vector<int> Host(4, -1);
  ASSERT_TRUE(Queue->enqueueCopy(copy(*Out, Host.data(), 4 * 4)));
  ferry::LaunchRequest Launch;
  Launch.Code = L->get();
  Launch.Grid = {1, 1, 1};
  Launch.Block = {128, 1, 1};
  const ferry::KernelInfo &K = (*L)->info()[0];
  Launch.Args.assign(K.ParamBytes, std::byte{0});
  std::memcpy(Launch.Args.data() + K.Params[0].Offset, &*Out, 8);
  ASSERT_TRUE(Queue->enqueueLaunch(Launch));
  ASSERT_TRUE(Queue->enqueueCopy(copy(Host.data(), *Out, 4 * 4)));
  Queue->drain();
  ferry::Status F = Dev->fault();
  ASSERT_TRUE(bool(F)) << F.message();
  EXPECT_EQ(Host, (std::vector<int>{3, 2, 1, 0}));
  (void)Dev->release(ferry::MemoryKind::Device, *Out, 4 * 4);
}

TEST_F(HsaOnSim, AHostFunctionsCapturesAreGoneWhenItsWorkIsDone) {
  // A graph launch keeps its allocations alive with a host function that
  // captures them; they were released only after the command completed, so
  // cudaDeviceGraphMemTrim right after a synchronize still found them held
  // (graph_mem_nodes on simulated gfx1100).
  struct Slow {
    std::atomic<bool> *Gone;
    ~Slow() {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      *Gone = true;
    }
  };
  std::atomic<bool> Gone{false};
  std::shared_ptr<Slow> Held(new Slow{&Gone});
  ASSERT_TRUE(Queue->enqueueHostFunction([Keep = std::move(Held)](CUresult) {}));
  Queue->drain();
  EXPECT_TRUE(Gone.load());
}

TEST(HsaOnTwoSims, EachDeviceRunsItsOwnTarget) {
  useSimulator("gfx942,gfx1100");
  auto B = createHsaDeviceBackend();
  ASSERT_TRUE(bool(B)) << B.error().message();
  if ((*B)->devices().size() < 2)
    GTEST_SKIP() << "this process opened the runtime with one GPU already";
  EXPECT_EQ((*B)->compiler()->target(), "amdgcn-gfx942+gfx1100");
  llvm::LLVMContext Ctx;
  auto R = ferry::ptx::lowerText(AxpyPtx, "axpy.ptx", Ctx);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto CO = (*B)->compiler()->compile(*R->M, {});
  ASSERT_TRUE(bool(CO)) << CO.error().message();
  auto Back = (*B)->compiler()->deserialize(*(*CO)->serialize());
  ASSERT_TRUE(bool(Back)) << Back.error().message();
  const uint32_t N = 100;
  const float A = 3.0f;
  for (ferry::CodeObject *Code : {CO->get(), Back->get()})
    for (ferry::Device *Dev : (*B)->devices()) {
      auto L = Dev->load(*Code);
      ASSERT_TRUE(bool(L)) << Dev->properties().Name << ": " << L.error().message();
      auto Q = Dev->createQueue(0);
      ASSERT_TRUE(bool(Q));
      std::vector<float> X(N, 2.0f), Y(N, 1.0f);
      void *DX = *Dev->allocate(ferry::MemoryKind::Device, N * 4);
      void *DY = *Dev->allocate(ferry::MemoryKind::Device, N * 4);
      ferry::CopyRect C;
      C.WidthBytes = N * 4;
      C.Dst = DX, C.Src = X.data();
      ASSERT_TRUE((*Q)->enqueueCopy(C));
      C.Dst = DY, C.Src = Y.data();
      ASSERT_TRUE((*Q)->enqueueCopy(C));
      ferry::LaunchRequest Launch;
      Launch.Code = L->get();
      Launch.Grid = {1, 1, 1};
      Launch.Block = {128, 1, 1};
      const ferry::KernelInfo &K = (*L)->info()[0];
      ASSERT_EQ(K.Name, "axpy");
      Launch.Args.assign(K.ParamBytes, std::byte{0});
      const void *Values[] = {&DX, &A, &DY, &N};
      for (size_t I = 0; I < 4; ++I)
        std::memcpy(Launch.Args.data() + K.Params[I].Offset, Values[I], K.Params[I].Bytes);
      ASSERT_TRUE((*Q)->enqueueLaunch(Launch));
      C.Dst = Y.data(), C.Src = DY;
      ASSERT_TRUE((*Q)->enqueueCopy(C));
      (*Q)->drain();
      EXPECT_TRUE(bool(Dev->fault()));
      EXPECT_EQ(Y[N - 1], 7.0f) << Dev->properties().Name;
      Q->reset();
      (void)Dev->release(ferry::MemoryKind::Device, DX, N * 4);
      (void)Dev->release(ferry::MemoryKind::Device, DY, N * 4);
    }
}

} // namespace
