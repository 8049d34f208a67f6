/// \file
/// Unit tests of libcuda's object model (linked statically with the host
/// backend): handle validation, the context stack, the allocation range
/// table, context-local storage with destructors, streams/events on the
/// host backend, and the integrity hash against independent vectors.
#include "libcuda/core/Core.h"
#include "libcuda/core/IntegrityHash.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

using namespace ferry;
using namespace ferry::core;

namespace {

class CoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(bool(initialize()));
    ASSERT_GE(deviceCount(), 1);
    Dev = device(0);
    Dev->Primary->retain();
    ctxstack::setCurrent(Dev->Primary);
  }
  void TearDown() override {
    ctxstack::setCurrent(nullptr);
    (void)Dev->Primary->release();
  }
  DeviceEntry *Dev = nullptr;
};

TEST_F(CoreTest, GarbageAndStaleHandlesAreRejected) {
  int Local = 0;
  auto R = resolve<Context>(&Local);
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().code(), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_FALSE(resolve<Context>(reinterpret_cast<void *>(0x1234)));
  EXPECT_FALSE(resolve<Context>(nullptr));
  // Right object, wrong kind.
  auto C = resolve<Context>(static_cast<Object *>(Dev->Primary.get()));
  ASSERT_TRUE(C);
  auto AsStream = resolve<Stream>(static_cast<Object *>(Dev->Primary.get()));
  ASSERT_FALSE(AsStream);
  EXPECT_NE(AsStream.error().message().find("context"), std::string::npos);
  // Destroyed: the handle stops resolving.
  auto E = std::make_shared<Event>(Dev->Primary, 0);
  publish(E);
  const void *H = static_cast<Object *>(E.get());
  EXPECT_TRUE(resolve<Event>(H));
  retire(E.get());
  EXPECT_FALSE(resolve<Event>(H));
}

TEST_F(CoreTest, ContextStackIsPerThread) {
  auto Created = std::make_shared<Context>(*Dev, false, 0u);
  publish(Created);
  size_t Base = ctxstack::depth();
  ctxstack::push(Created);
  EXPECT_EQ(ctxstack::current(), Created);
  std::thread([&] { EXPECT_EQ(ctxstack::current(), nullptr); }).join();
  EXPECT_EQ(ctxstack::pop(), Created);
  EXPECT_EQ(ctxstack::current(), Dev->Primary);
  EXPECT_EQ(ctxstack::depth(), Base);
  ctxstack::push(Created);
  Created->destroy();
  EXPECT_EQ(ctxstack::current(), Dev->Primary) << "destroy pops the context off this thread's stack";
  EXPECT_FALSE(resolve<Context>(static_cast<Object *>(Created.get())));
}

TEST_F(CoreTest, AllocationRangeLookup) {
  auto P = allocate(*Dev->Primary, AllocKind::Device, 1000, 0);
  ASSERT_TRUE(P);
  uintptr_t B = uintptr_t(*P);
  auto Mid = alloctable::find(B + 999);
  ASSERT_TRUE(Mid);
  EXPECT_EQ(Mid->Base, B);
  EXPECT_EQ(Mid->Bytes, 1000u);
  auto Past = alloctable::find(B + 1000);
  EXPECT_TRUE(!Past || Past->Base != B);
  EXPECT_FALSE(alloctable::find(B - 1) && alloctable::find(B - 1)->Base == B);
  // Interior pointers cannot be freed; the base can, once.
  EXPECT_EQ(release(reinterpret_cast<void *>(B + 8), {AllocKind::Device}).code(), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(release(*P, {AllocKind::Host}).code(), CUDA_ERROR_INVALID_VALUE);
  EXPECT_TRUE(bool(release(*P, {AllocKind::Device})));
  EXPECT_FALSE(alloctable::find(B + 10));
  EXPECT_EQ(release(*P, {AllocKind::Device}).code(), CUDA_ERROR_INVALID_VALUE);
}

static int DtorCalls = 0;
static void *DtorValue = nullptr;
static void clsDtor(void *, void *, void *Value) {
  ++DtorCalls;
  DtorValue = Value;
}

TEST_F(CoreTest, ContextLocalStorageRunsDestructorsOnReset) {
  int Key, Value;
  Context &C = *Dev->Primary;
  EXPECT_FALSE(C.clsGet(&Key));
  C.clsInsert(&Key, &Value, clsDtor);
  auto V = C.clsGet(&Key);
  ASSERT_TRUE(V);
  EXPECT_EQ(*V, &Value);
  DtorCalls = 0;
  C.teardown(); // cuDevicePrimaryCtxReset
  EXPECT_EQ(DtorCalls, 1);
  EXPECT_EQ(DtorValue, &Value);
  EXPECT_FALSE(C.clsGet(&Key));
  // Removed entries do not run their destructor.
  C.clsInsert(&Key, &Value, clsDtor);
  EXPECT_TRUE(bool(C.clsRemove(&Key)));
  EXPECT_FALSE(bool(C.clsRemove(&Key)));
  C.teardown();
  EXPECT_EQ(DtorCalls, 1);
  C.retain(); // TearDown releases once.
}

TEST_F(CoreTest, StreamOrderAndEvents) {
  auto S = resolveStream(nullptr, false);
  ASSERT_TRUE(S);
  std::vector<int> Order;
  std::mutex M;
  for (int I = 0; I < 50; ++I)
    ASSERT_TRUE(bool((*S)->submit([&, I](Queue &Q) {
      return Q.enqueueHostFunction([&, I](CUresult) {
        std::lock_guard<std::mutex> L(M);
        Order.push_back(I);
      });
    })));
  auto E1 = std::make_shared<Event>(Dev->Primary, 0), E2 = std::make_shared<Event>(Dev->Primary, 0);
  ASSERT_TRUE(bool(E1->record(**S)));
  ASSERT_TRUE(bool((*S)->submit([](Queue &Q) {
    return Q.enqueueHostFunction([](CUresult) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
  })));
  ASSERT_TRUE(bool(E2->record(**S)));
  ASSERT_TRUE(bool(E2->synchronize()));
  for (int I = 0; I < 50; ++I)
    EXPECT_EQ(Order[I], I);
  auto Ms = Event::elapsed(*E1, *E2);
  ASSERT_TRUE(Ms);
  EXPECT_GE(*Ms, 19.0f);
  EXPECT_LT(*Ms, 2000.0f);
}

TEST_F(CoreTest, LegacyStreamWaitsForBlockingStreams) {
  auto Q = Dev->Backend->createQueue(0);
  ASSERT_TRUE(Q);
  auto Blocking = std::make_shared<Stream>(Dev->Primary, std::move(*Q), Stream::Role::Created, 0u, 0);
  Dev->Primary->addStream(Blocking.get());
  std::atomic<bool> SlowDone{false}, SawDone{false};
  ASSERT_TRUE(bool(Blocking->submit([&](Queue &Qu) {
    return Qu.enqueueHostFunction([&](CUresult) {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      SlowDone = true;
    });
  })));
  auto Legacy = resolveStream(nullptr, false);
  ASSERT_TRUE(Legacy);
  ASSERT_TRUE(bool((*Legacy)->submit(
      [&](Queue &Qu) { return Qu.enqueueHostFunction([&](CUresult) { SawDone = SlowDone.load(); }); })));
  ASSERT_TRUE(bool((*Legacy)->synchronize()));
  EXPECT_TRUE(SawDone) << "work on the legacy stream must wait for earlier work of blocking streams";
}

//===----------------------------------------------------------------------===//
// Integrity hash
//===----------------------------------------------------------------------===//

static std::string hex(const Digest16 &D) {
  std::string S;
  char B[3];
  for (uint8_t X : D) {
    std::snprintf(B, sizeof(B), "%02x", X);
    S += B;
  }
  return S;
}

TEST(IntegrityHash, Md2MatchesRfc1319Vectors) {
  auto Of = [](const char *S) { return hex(Md2::of(std::span(reinterpret_cast<const uint8_t *>(S), std::strlen(S)))); };
  EXPECT_EQ(Of(""), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(Of("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(Of("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(Of("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(Of("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST(IntegrityHash, FixedAnswersForRuntimeVersionsEndingIn0And1) {
  IntegrityInput In;
  In.RuntimeVersion = 13000;
  // 0x8ED383AA1F4CD1E83341181C03CB675C as a little-endian u128.
  EXPECT_EQ(hex(integrityAnswer(In)), "5c67cb031c184133e8d14c1faa83d38e");
  In.RuntimeVersion = 12081;
  EXPECT_EQ(hex(integrityAnswer(In)), "5c67cb031c184118e8d14c1faa83d38e");
}

TEST(IntegrityHash, KeyedHashMatchesPublishedVector) {
  // The sample from ZLUDA's dark-API tests (an NVIDIA driver's answer):
  // expected 0xEAF1313342BFCD84A7C34628F214707A as a little-endian u128.
  IntegrityInput In;
  In.DriverVersion = 12020;
  In.RuntimeVersion = 0x2B4A;
  In.ProcessId = 0x4D08;
  In.ThreadId = 0x2B78;
  In.CudartTable = 0x00007FF8C80717F0;
  In.IntegrityTable = 0x00007FF8C825E4B0;
  In.Function = 0x00007FF8C7DD0AD0;
  In.Timestamp = 0x64A365EE;
  IntegrityDevice D;
  const uint8_t U[16] = {0x67, 0x22, 0xCB, 0xCF, 0xC6, 0x61, 0xF2, 0x92,
                         0x74, 0xD6, 0xED, 0x23, 0x2A, 0x32, 0x13, 0x1C};
  std::memcpy(D.Uuid.data(), U, 16);
  D.PciBus = 4;
  In.Devices.push_back(D);
  EXPECT_EQ(hex(integrityAnswer(In)), "7a7014f22846c3a784cdbf423331f1ea");
  // Every input matters.
  In.Timestamp += 1;
  EXPECT_NE(hex(integrityAnswer(In)), "7a7014f22846c3a784cdbf423331f1ea");
}

} // namespace
