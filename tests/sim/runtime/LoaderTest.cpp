/// \file
/// The stand-in's code object loader on objects clang-19 built from
/// kernels.cl: symbols and their facts, the dynamic relocation, ISA
/// compatibility, and malformed objects (never a crash, always an HSA
/// error). Then kernels dispatched through the HSA API on simulated gfx942
/// and gfx1100, when this build has the ISA simulator.
#include "SimTest.h"

#include <random>

using namespace simtest;

namespace {

struct Loaded {
  hsa_code_object_reader_t Reader{0};
  hsa_executable_t Exec{0};
  hsa_status_t Status = HSA_STATUS_ERROR;
  Loaded(hsa_agent_t Agent, const std::vector<uint8_t> &Bytes, bool Freeze = true) {
    if (hsa_code_object_reader_create_from_memory(Bytes.data(), Bytes.size(), &Reader) !=
        HSA_STATUS_SUCCESS)
      return;
    if (hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, "",
                                  &Exec) != HSA_STATUS_SUCCESS)
      return;
    Status = hsa_executable_load_agent_code_object(Exec, Agent, Reader, "", nullptr);
    if (Status == HSA_STATUS_SUCCESS && Freeze)
      Status = hsa_executable_freeze(Exec, "");
  }
  ~Loaded() {
    if (Exec.handle) {
      EXPECT_EQ(hsa_executable_destroy(Exec), HSA_STATUS_SUCCESS);
    }
    if (Reader.handle) {
      EXPECT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
    }
  }
  hsa_executable_symbol_t symbol(const char *Name, hsa_agent_t A) {
    hsa_executable_symbol_t S{0};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(Exec, Name, &A, &S), HSA_STATUS_SUCCESS) << Name;
    return S;
  }
};

template <typename T> T info(hsa_executable_symbol_t S, hsa_executable_symbol_info_t Attr) {
  T V{};
  EXPECT_EQ(hsa_executable_symbol_get_info(S, Attr, &V), HSA_STATUS_SUCCESS) << int(Attr);
  return V;
}

TEST(SimLoader, SymbolsAndTheirFacts) {
  Sim S("gfx942");
  ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
  Loaded L(S.Gpus[0], readFile(kernelPath("k-gfx942.hsaco")));
  ASSERT_EQ(L.Status, HSA_STATUS_SUCCESS);
  hsa_executable_symbol_t K = L.symbol("vadd.kd", S.Gpus[0]);
  EXPECT_EQ(info<hsa_symbol_kind_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_TYPE), HSA_SYMBOL_KIND_KERNEL);
  uint64_t Object = info<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
  EXPECT_NE(Object, 0u);
  EXPECT_EQ(Object % 64, 0u);
  // Explicit arguments: three pointers and a uint.
  EXPECT_GE(info<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE), 28u);
  EXPECT_GE(info<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT), 16u);
  EXPECT_EQ(info<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE), 0u);
  EXPECT_EQ(info<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE), 0u);
  EXPECT_FALSE(info<bool>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK));
  EXPECT_EQ(info<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH), 7u);
  char Name[16] = {};
  ASSERT_EQ(hsa_executable_symbol_get_info(K, HSA_EXECUTABLE_SYMBOL_INFO_NAME, Name),
            HSA_STATUS_SUCCESS);
  EXPECT_STREQ(Name, "vadd.kd");
  EXPECT_EQ(info<hsa_agent_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_AGENT).handle, S.Gpus[0].handle);
  // The descriptor is in the loaded image: its kernel_code_entry_byte_offset
  // (bytes 16..23) points into the same object.
  int64_t Entry = 0;
  std::memcpy(&Entry, reinterpret_cast<const void *>(Object + 16), 8);
  EXPECT_NE(Entry, 0);

  // The variable and the relocated pointer to it.
  hsa_executable_symbol_t Counter = L.symbol("counter", S.Gpus[0]);
  hsa_executable_symbol_t Ptr = L.symbol("counter_ptr", S.Gpus[0]);
  EXPECT_EQ(info<hsa_symbol_kind_t>(Counter, HSA_EXECUTABLE_SYMBOL_INFO_TYPE),
            HSA_SYMBOL_KIND_VARIABLE);
  uint64_t CounterAddr = info<uint64_t>(Counter, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS);
  uint64_t PtrAddr = info<uint64_t>(Ptr, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS);
  EXPECT_EQ(info<uint32_t>(Counter, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE), 4u);
  EXPECT_EQ(*reinterpret_cast<const int *>(CounterAddr), 5);
  EXPECT_EQ(*reinterpret_cast<const uint64_t *>(PtrAddr), CounterAddr); // R_AMDGPU_RELATIVE64
  EXPECT_EQ(hsa_executable_symbol_get_info(Counter, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                           Name),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  hsa_executable_symbol_t None;
  EXPECT_EQ(hsa_executable_get_symbol_by_name(L.Exec, "vadd", &S.Gpus[0], &None),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  unsigned Count = 0;
  hsa_executable_iterate_symbols(
      L.Exec,
      [](hsa_executable_t, hsa_executable_symbol_t, void *Data) {
        ++*static_cast<unsigned *>(Data);
        return HSA_STATUS_SUCCESS;
      },
      &Count);
  EXPECT_EQ(Count, 6u); // Four kernels, two variables.
  // Frozen: no more loading.
  EXPECT_EQ(hsa_executable_load_agent_code_object(L.Exec, S.Gpus[0], L.Reader, "", nullptr),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
}

TEST(SimLoader, SymbolsGoWithTheExecutable) {
  Sim S("gfx942");
  ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
  hsa_executable_symbol_t K;
  {
    Loaded L(S.Gpus[0], readFile(kernelPath("k-gfx942.hsaco")));
    ASSERT_EQ(L.Status, HSA_STATUS_SUCCESS);
    K = L.symbol("vadd.kd", S.Gpus[0]);
  }
  uint64_t Object;
  EXPECT_EQ(hsa_executable_symbol_get_info(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object),
            HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
}

TEST(SimLoader, IsaMustMatchTheAgent) {
  Sim S("gfx942,gfx1100,gfx90a");
  ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
  auto G942 = readFile(kernelPath("k-gfx942.hsaco")), G1100 = readFile(kernelPath("k-gfx1100.hsaco"));
  EXPECT_EQ(Loaded(S.Gpus[0], G1100).Status, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  EXPECT_EQ(Loaded(S.Gpus[1], G942).Status, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  EXPECT_EQ(Loaded(S.Gpus[2], G942).Status, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  EXPECT_EQ(Loaded(S.Gpus[1], G1100).Status, HSA_STATUS_SUCCESS);
  EXPECT_EQ(Loaded(S.Gpus[2], readFile(kernelPath("k-gfx90a.hsaco"))).Status, HSA_STATUS_SUCCESS);
  // xnack+ code on an xnack- agent: e_flags (at byte 48) bits 8-9 = 3 (on).
  auto Xnack = G942;
  Xnack[49] |= 0x03;
  EXPECT_EQ(Loaded(S.Gpus[0], Xnack).Status, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  // Code objects only for GPU agents.
  EXPECT_EQ(Loaded(S.Cpus[0], G942).Status, HSA_STATUS_ERROR_INVALID_AGENT);
}

TEST(SimLoader, MalformedObjectsAreErrors) {
  Sim S("gfx942");
  ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
  auto Good = readFile(kernelPath("k-gfx942.hsaco"));
  ASSERT_GT(Good.size(), 1000u);
  auto Expect = [&](std::vector<uint8_t> Bytes, hsa_status_t Want, const char *What) {
    EXPECT_EQ(Loaded(S.Gpus[0], Bytes).Status, Want) << What;
  };
  Expect(std::vector<uint8_t>(64, 0), HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "zeros");
  Expect(std::vector<uint8_t>(Good.begin(), Good.begin() + 40), HSA_STATUS_ERROR_INVALID_CODE_OBJECT,
         "truncated header");
  Expect(std::vector<uint8_t>(Good.begin(), Good.begin() + Good.size() / 2),
         HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "truncated body");
  auto Rel = readFile(kernelPath("k-gfx942.o"));
  Expect(Rel, HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "relocatable object (ET_REL)");
  auto X86 = readFile("/proc/self/exe");
  X86.resize(std::min<size_t>(X86.size(), 1 << 20));
  Expect(X86, HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "x86-64 executable");
  auto Machine = Good;
  Machine[18] = 62; // EM_X86_64
  Expect(Machine, HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "e_machine");
  auto Abi = Good;
  Abi[8] = 0; // v2
  Expect(Abi, HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "ABI version");
  auto Class = Good;
  Class[4] = 1; // ELFCLASS32
  Expect(Class, HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "ELF class");
  auto Phoff = Good;
  Phoff[32] = 0xf0; // e_phoff far outside
  Phoff[35] = 0x7f;
  Expect(Phoff, HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "program headers outside the file");
  hsa_code_object_reader_t R;
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(nullptr, 10, &R),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_reader_destroy(hsa_code_object_reader_t{77}),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  EXPECT_EQ(hsa_executable_freeze(hsa_executable_t{77}, ""), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
}

TEST(SimLoader, CorruptedBytesNeverCrash) {
  Sim S("gfx942");
  ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
  auto Good = readFile(kernelPath("k-gfx942.hsaco"));
  std::mt19937 Rng(15);
  unsigned Loaded = 0;
  for (int I = 0; I < 300; ++I) {
    auto Bytes = Good;
    // Corrupt headers and tables more often than code: a few bytes in the
    // first 4 KiB, sometimes one anywhere.
    for (int J = 0; J < 4; ++J) {
      size_t At = Rng() % (J == 3 ? Bytes.size() : std::min<size_t>(Bytes.size(), 4096));
      Bytes[At] = uint8_t(Rng());
    }
    struct ::Loaded L(S.Gpus[0], Bytes);
    Loaded += L.Status == HSA_STATUS_SUCCESS;
  }
  // Most corruptions hit bytes the loader does not read; what matters is
  // that this test got here.
  EXPECT_GT(Loaded, 0u);
}

//===----------------------------------------------------------------------===//
// Dispatch, end to end.
//===----------------------------------------------------------------------===//

struct Dispatcher {
  Sim &S;
  hsa_agent_t Gpu;
  ErrorLog Log;
  hsa_queue_t *Q = nullptr;
  hsa_amd_memory_pool_t Device, Kernarg;

  Dispatcher(Sim &S, hsa_agent_t Gpu) : S(S), Gpu(Gpu) {
    EXPECT_EQ(hsa_queue_create(Gpu, 256, HSA_QUEUE_TYPE_MULTI, ErrorLog::callback, &Log, 0, 0, &Q),
              HSA_STATUS_SUCCESS);
    Device = findPool(Gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    Kernarg = findPool(S.Cpus[0], HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT);
  }
  ~Dispatcher() { hsa_queue_destroy(Q); }
  void *deviceAlloc(size_t N) {
    void *P = nullptr;
    EXPECT_EQ(hsa_amd_memory_pool_allocate(Device, N, 0, &P), HSA_STATUS_SUCCESS);
    return P;
  }
  /// Runs Kernel over Items work-items in groups of Group; true when it
  /// completed (false: it failed or timed out).
  bool run(Loaded &L, const char *Kernel, const void *Args, size_t ArgBytes, uint32_t Items,
           uint16_t Group) {
    hsa_executable_symbol_t K = L.symbol(Kernel, Gpu);
    uint32_t Size = info<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
    void *KA = nullptr;
    EXPECT_EQ(hsa_amd_memory_pool_allocate(Kernarg, std::max<size_t>(Size, 16), 0, &KA),
              HSA_STATUS_SUCCESS);
    std::memset(KA, 0, std::max<size_t>(Size, 16));
    std::memcpy(KA, Args, ArgBytes);
    hsa_signal_t Done;
    hsa_signal_create(1, 0, nullptr, &Done);
    hsa_kernel_dispatch_packet_t P{};
    P.workgroup_size_x = Group;
    P.workgroup_size_y = P.workgroup_size_z = 1;
    P.grid_size_x = Items;
    P.grid_size_y = P.grid_size_z = 1;
    P.kernel_object = info<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
    P.group_segment_size = info<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE);
    P.private_segment_size =
        info<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
    P.kernarg_address = KA;
    P.completion_signal = Done;
    submit(Q, P, header(HSA_PACKET_TYPE_KERNEL_DISPATCH), 1);
    // A failed packet never signals: stop waiting once the callback spoke.
    bool Ok = false;
    for (int Tries = 0; Tries < 1200 && !Ok; ++Tries) {
      Ok = hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0, 50'000'000,
                                     HSA_WAIT_STATE_BLOCKED) == 0;
      std::lock_guard<std::mutex> G(Log.M);
      if (!Log.Errors.empty())
        break;
    }
    hsa_signal_destroy(Done);
    hsa_amd_memory_pool_free(KA);
    return Ok;
  }
};

class SimDispatch : public ::testing::TestWithParam<const char *> {};

TEST_P(SimDispatch, VectorAddAndRelocatedGlobal) {
  std::string Target = GetParam();
  Sim S(Target.c_str());
  ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
  Loaded L(S.Gpus[0], readFile(kernelPath("k-" + Target + ".hsaco")));
  ASSERT_EQ(L.Status, HSA_STATUS_SUCCESS);
  Dispatcher D(S, S.Gpus[0]);
  const uint32_t N = 1000;
  auto *A = static_cast<float *>(D.deviceAlloc(N * 4));
  auto *B = static_cast<float *>(D.deviceAlloc(N * 4));
  auto *C = static_cast<float *>(D.deviceAlloc(N * 4));
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = float(I);
    B[I] = 0.5f * float(I);
    C[I] = -1;
  }
  struct {
    const float *A, *B;
    float *C;
    uint32_t N;
  } Args{A, B, C, N};
#if SIM_HAVE_ISA
  ASSERT_TRUE(D.run(L, "vadd.kd", &Args, sizeof Args, 1024, 128)) << "queue error "
                                                                   << D.Log.first(0);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(C[I], 1.5f * float(I)) << I;
  auto *Out = static_cast<int *>(D.deviceAlloc(64 * 4));
  ASSERT_TRUE(D.run(L, "bump.kd", &Out, sizeof Out, 64, 64));
  for (int I = 0; I < 64; ++I)
    ASSERT_EQ(Out[I], 5 + I);
#else
  // No simulator in this build: the dispatch is refused through the callback.
  EXPECT_FALSE(D.run(L, "vadd.kd", &Args, sizeof Args, 1024, 128));
  EXPECT_EQ(D.Log.first(), HSA_STATUS_ERROR_INVALID_ISA);
#endif
}

#if SIM_HAVE_ISA
TEST_P(SimDispatch, FaultsReachTheCallback) {
  std::string Target = GetParam();
  Sim S(Target.c_str());
  ASSERT_EQ(S.Status, HSA_STATUS_SUCCESS);
  Loaded L(S.Gpus[0], readFile(kernelPath("k-" + Target + ".hsaco")));
  ASSERT_EQ(L.Status, HSA_STATUS_SUCCESS);
  {
    Dispatcher D(S, S.Gpus[0]);
    void *P = D.deviceAlloc(64);
    EXPECT_FALSE(D.run(L, "oob.kd", &P, sizeof P, 1, 1));
    EXPECT_EQ(D.Log.first(), hsa_status_t(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION));
  }
  {
    Dispatcher D(S, S.Gpus[0]);
    EXPECT_FALSE(D.run(L, "trapper.kd", nullptr, 0, 1, 1));
    EXPECT_EQ(D.Log.first(), HSA_STATUS_ERROR_EXCEPTION);
  }
}
#endif

INSTANTIATE_TEST_SUITE_P(Targets, SimDispatch, ::testing::Values("gfx942", "gfx1100"),
                         [](const auto &Info) { return std::string(Info.param); });

} // namespace
