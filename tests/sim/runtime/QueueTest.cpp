/// \file
/// AQL queues of the HSA runtime stand-in: barrier packets, the publication
/// protocol (header last, doorbell), retirement (header INVALID, read index,
/// completion signal), profiling timestamps, and protocol errors reaching
/// the error callback and stopping the queue.
#include "SimTest.h"

#include <thread>

using namespace simtest;

namespace {

class SimQueue : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_queue_create(S.Gpus[0], 64, HSA_QUEUE_TYPE_MULTI, ErrorLog::callback, &Log,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (Q) {
      EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
    }
    for (hsa_signal_t X : Signals)
      hsa_signal_destroy(X);
  }
  hsa_signal_t signal(int64_t V) {
    hsa_signal_t X;
    EXPECT_EQ(hsa_signal_create(V, 0, nullptr, &X), HSA_STATUS_SUCCESS);
    Signals.push_back(X);
    return X;
  }
  static bool waitZero(hsa_signal_t X, uint64_t Ns = 2'000'000'000) {
    return hsa_signal_wait_scacquire(X, HSA_SIGNAL_CONDITION_EQ, 0, Ns, HSA_WAIT_STATE_BLOCKED) ==
           0;
  }
  /// A packet of Type with the completion signal at byte 56.
  uint64_t raw(uint16_t Type, hsa_signal_t Completion, bool Ring = true) {
    hsa_barrier_and_packet_t P{};
    P.completion_signal = Completion;
    return submit(Q, P, header(hsa_packet_type_t(Type)), 0, Ring);
  }

  Sim S{"gfx942"};
  ErrorLog Log;
  hsa_queue_t *Q = nullptr;
  std::vector<hsa_signal_t> Signals;
};

TEST_F(SimQueue, Shape) {
  EXPECT_EQ(Q->size, 64u);
  EXPECT_NE(Q->base_address, nullptr);
  EXPECT_NE(Q->doorbell_signal.handle, 0u);
  EXPECT_EQ(Q->type, HSA_QUEUE_TYPE_MULTI);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Q), 0u);
  EXPECT_EQ(hsa_queue_load_write_index_relaxed(Q), 0u);
  // Every slot starts INVALID.
  for (unsigned I = 0; I < 64; ++I)
    EXPECT_EQ(static_cast<uint16_t *>(Q->base_address)[I * 32] & 0xff, HSA_PACKET_TYPE_INVALID);
  hsa_queue_t *Bad = nullptr;
  EXPECT_EQ(hsa_queue_create(S.Cpus[0], 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &Bad),
            HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  EXPECT_EQ(hsa_queue_create(S.Gpus[0], 100, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &Bad),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_F(SimQueue, BarrierAndWaitsForAllDependencies) {
  hsa_signal_t A = signal(1), B = signal(1), Done = signal(1);
  hsa_barrier_and_packet_t P{};
  P.dep_signal[0] = A;
  P.dep_signal[3] = B;
  P.completion_signal = Done;
  uint64_t Index = submit(Q, P, header(HSA_PACKET_TYPE_BARRIER_AND));
  EXPECT_FALSE(waitZero(Done, 20'000'000));
  hsa_signal_store_screlease(A, 0);
  EXPECT_FALSE(waitZero(Done, 20'000'000));
  hsa_signal_store_screlease(B, 0);
  EXPECT_TRUE(waitZero(Done));
  // Retired before the signal: the slot is INVALID and the read index moved.
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Q), Index + 1);
  EXPECT_EQ(static_cast<uint16_t *>(Q->base_address)[Index * 32] & 0xff, HSA_PACKET_TYPE_INVALID);
  EXPECT_EQ(Log.first(0), HSA_STATUS_SUCCESS);
}

TEST_F(SimQueue, BarrierOrWaitsForAnyDependency) {
  hsa_signal_t A = signal(1), B = signal(1), Done = signal(1);
  hsa_barrier_or_packet_t P{};
  P.dep_signal[1] = A;
  P.dep_signal[4] = B;
  P.completion_signal = Done;
  submit(Q, P, header(HSA_PACKET_TYPE_BARRIER_OR));
  EXPECT_FALSE(waitZero(Done, 20'000'000));
  hsa_signal_store_screlease(B, 0);
  EXPECT_TRUE(waitZero(Done));
}

TEST_F(SimQueue, PacketsRunInOrderAndWrapAround) {
  // Three times around the 64-slot ring; each packet waits on the previous.
  hsa_signal_t Prev = signal(0);
  std::vector<hsa_signal_t> Done;
  for (int I = 0; I < 200; ++I) {
    hsa_signal_t D = signal(1);
    hsa_barrier_and_packet_t P{};
    P.dep_signal[0] = Prev;
    P.completion_signal = D;
    submit(Q, P, header(HSA_PACKET_TYPE_BARRIER_AND));
    Done.push_back(D);
    Prev = D;
  }
  EXPECT_TRUE(waitZero(Done.back()));
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Q), 200u);
}

TEST_F(SimQueue, TakesAPacketOnlyOnceItsHeaderIsPublished) {
  hsa_signal_t Done = signal(1);
  uint64_t Index = hsa_queue_add_write_index_screlease(Q, 1);
  auto *Slot = static_cast<uint8_t *>(Q->base_address) + (Index % Q->size) * 64;
  hsa_barrier_and_packet_t P{};
  P.completion_signal = Done;
  std::memcpy(Slot + 4, reinterpret_cast<uint8_t *>(&P) + 4, 60);
  // Doorbell first (wrong order): nothing may run until the header appears.
  hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
  EXPECT_FALSE(waitZero(Done, 20'000'000));
  __atomic_store_n(reinterpret_cast<uint32_t *>(Slot), uint32_t(header(HSA_PACKET_TYPE_BARRIER_AND)),
                   __ATOMIC_RELEASE);
  EXPECT_TRUE(waitZero(Done));
}

TEST_F(SimQueue, WaitsForTheDoorbell) {
  hsa_signal_t Done = signal(1);
  uint64_t Index = raw(HSA_PACKET_TYPE_BARRIER_AND, Done, /*Ring=*/false);
  EXPECT_FALSE(waitZero(Done, 20'000'000));
  hsa_signal_store_relaxed(Q->doorbell_signal, int64_t(Index));
  EXPECT_TRUE(waitZero(Done));
}

TEST_F(SimQueue, ProfilingTimestamps) {
  ASSERT_EQ(hsa_amd_profiling_set_profiler_enabled(Q, 1), HSA_STATUS_SUCCESS);
  hsa_signal_t Done = signal(1);
  uint64_t Before = 0, After = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &Before);
  raw(HSA_PACKET_TYPE_BARRIER_AND, Done);
  ASSERT_TRUE(waitZero(Done));
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &After);
  hsa_amd_profiling_dispatch_time_t T{};
  ASSERT_EQ(hsa_amd_profiling_get_dispatch_time(S.Gpus[0], Done, &T), HSA_STATUS_SUCCESS);
  EXPECT_LE(Before, T.start);
  EXPECT_LE(T.start, T.end);
  EXPECT_LE(T.end, After);
}

TEST_F(SimQueue, BadPacketTypeStopsTheQueue) {
  hsa_signal_t Done = signal(1), Later = signal(1);
  raw(HSA_PACKET_TYPE_AGENT_DISPATCH, Done);
  EXPECT_EQ(Log.first(), HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  // The queue is stopped: later packets never run, the failed one never
  // signals (as with ROCr).
  raw(HSA_PACKET_TYPE_BARRIER_AND, Later);
  EXPECT_FALSE(waitZero(Later, 50'000'000));
  EXPECT_EQ(hsa_signal_load_relaxed(Done), 1);
  EXPECT_EQ(hsa_queue_load_read_index_relaxed(Q), 0u);
}

TEST_F(SimQueue, VendorPacketIsRefused) {
  raw(HSA_PACKET_TYPE_VENDOR_SPECIFIC, signal(1));
  EXPECT_EQ(Log.first(), HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
}

TEST_F(SimQueue, DoorbellBeyondTheWriteIndex) {
  hsa_signal_store_screlease(Q->doorbell_signal, 5);
  EXPECT_EQ(Log.first(), HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
}

TEST_F(SimQueue, UnknownCompletionSignal) {
  raw(HSA_PACKET_TYPE_BARRIER_AND, hsa_signal_t{0x1234});
  EXPECT_EQ(Log.first(), HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
}

/// A dispatch packet that is well-formed except where Mutate says.
hsa_kernel_dispatch_packet_t dispatchPacket() {
  hsa_kernel_dispatch_packet_t P{};
  P.workgroup_size_x = 64;
  P.workgroup_size_y = P.workgroup_size_z = 1;
  P.grid_size_x = 256;
  P.grid_size_y = P.grid_size_z = 1;
  P.kernel_object = 0x1000; // Checked after the sizes.
  return P;
}

struct MalformedCase {
  const char *Name;
  void (*Mutate)(hsa_kernel_dispatch_packet_t &, uint16_t &Setup);
  hsa_status_t Want;
};

class SimMalformedDispatch : public SimQueue,
                             public ::testing::WithParamInterface<MalformedCase> {};

TEST_P(SimMalformedDispatch, ReachesTheCallback) {
  hsa_kernel_dispatch_packet_t P = dispatchPacket();
  P.completion_signal = signal(1);
  uint16_t Setup = 1;
  GetParam().Mutate(P, Setup);
  submit(Q, P, header(HSA_PACKET_TYPE_KERNEL_DISPATCH), Setup);
  EXPECT_EQ(Log.first(), GetParam().Want);
  EXPECT_EQ(hsa_signal_load_relaxed(P.completion_signal), 1);
}

const MalformedCase Malformed[] = {
    {"ZeroWorkgroup", [](auto &P, auto &) { P.workgroup_size_x = 0; },
     HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
    {"ZeroGrid", [](auto &P, auto &) { P.grid_size_x = 0; },
     HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
    {"TooManyWorkItems",
     [](auto &P, auto &S) {
       S = 2;
       P.workgroup_size_x = 64;
       P.workgroup_size_y = 32;
       P.grid_size_y = 32;
     },
     HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
    {"ZeroDimensions", [](auto &, auto &S) { S = 0; }, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
    {"UnusedDimensionNotOne", [](auto &P, auto &) { P.grid_size_y = 2; },
     HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
    {"TooMuchLds", [](auto &P, auto &) { P.group_segment_size = 65537; },
     HSA_STATUS_ERROR_INVALID_ALLOCATION},
    {"NotAKernelObject", [](auto &, auto &) {}, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
    {"NullKernelObject", [](auto &P, auto &) { P.kernel_object = 0; },
     HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
};

INSTANTIATE_TEST_SUITE_P(Protocol, SimMalformedDispatch, ::testing::ValuesIn(Malformed),
                         [](const auto &Info) { return std::string(Info.param.Name); });

TEST(SimQueueLife, DestroyWhileWaiting) {
  Sim S("gfx1100");
  ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
  hsa_queue_t *Q = nullptr;
  ASSERT_EQ(hsa_queue_create(S.Gpus[0], 128, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &Q),
            HSA_STATUS_SUCCESS);
  hsa_signal_t Never, Done;
  hsa_signal_create(1, 0, nullptr, &Never);
  hsa_signal_create(1, 0, nullptr, &Done);
  hsa_barrier_and_packet_t P{};
  P.dep_signal[0] = Never;
  P.completion_signal = Done;
  submit(Q, P, header(HSA_PACKET_TYPE_BARRIER_AND));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // The processor is blocked on Never; destroy must still return.
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_signal_load_relaxed(Done), 1);
  hsa_signal_destroy(Never);
  hsa_signal_destroy(Done);
  // And a queue left alive is torn down by hsa_shut_down.
  ASSERT_EQ(hsa_queue_create(S.Gpus[0], 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &Q),
            HSA_STATUS_SUCCESS);
}

} // namespace
