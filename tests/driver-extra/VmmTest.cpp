/// \file
/// Virtual memory management through the driver API: reserve, create, map,
/// set and get access, copies, memsets and a kernel over a range made of two
/// allocations, pointer attributes, aliasing (one allocation mapped twice),
/// retained handles, the fixed-address hint, POSIX fd export and import,
/// unmap and free, and invalid arguments.
#include "Fixture.h"

#include <unistd.h>

#include <vector>

namespace {

using ferry::test::Driver;

const char *IncPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry inc(.param .u64 p, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p, %r5, %r1;
  @%p bra DONE;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.u32 %r2, %r2, 1;
  st.global.u32 [%rd3], %r2;
DONE:
  ret;
}
)";

class Vmm : public Driver {
protected:
  void SetUp() override {
    Driver::SetUp();
    Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    Prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    Prop.location.id = 0;
    ASSERT_EQ(cuMemGetAllocationGranularity(&Gran, &Prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
    Rw.location = Prop.location;
    Rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  CUmemAllocationProp Prop{};
  CUmemAccessDesc Rw{};
  size_t Gran = 0;
};

TEST_F(Vmm, AttributeAndGranularity) {
  int V = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 1);
  ASSERT_EQ(cuDeviceGetAttribute(&V, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0), CUDA_SUCCESS);
  EXPECT_EQ(V, 1);
  EXPECT_EQ(Gran, 2u << 20);
  size_t Min = 0;
  ASSERT_EQ(cuMemGetAllocationGranularity(&Min, &Prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
  EXPECT_EQ(Min, size_t(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(Gran % Min, 0u);
}

TEST_F(Vmm, MapTwoAllocationsCopyKernelUnmap) {
  CUdeviceptr Base = 0;
  ASSERT_EQ(cuMemAddressReserve(&Base, 2 * Gran, Gran, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(Base % Gran, 0u);
  CUmemGenericAllocationHandle H[2];
  for (auto &X : H)
    ASSERT_EQ(cuMemCreate(&X, Gran, &Prop, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(Base, Gran, 0, H[0], 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(Base + Gran, Gran, 0, H[1], 0), CUDA_SUCCESS);
  unsigned long long Flags = 99;
  ASSERT_EQ(cuMemGetAccess(&Flags, &Prop.location, Base), CUDA_SUCCESS);
  EXPECT_EQ(Flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
  ASSERT_EQ(cuMemSetAccess(Base, 2 * Gran, &Rw, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetAccess(&Flags, &Prop.location, Base + Gran + 8), CUDA_SUCCESS);
  EXPECT_EQ(Flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  // The handles may go while mapped: the memory stays until unmapped.
  EXPECT_EQ(cuMemRelease(H[0]), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(H[1]), CUDA_SUCCESS);

  // One contiguous range across both allocations.
  const unsigned N = unsigned(2 * Gran / 4);
  ASSERT_EQ(cuMemsetD32_v2(Base, 5, N), CUDA_SUCCESS);
  std::vector<uint32_t> Host(N);
  for (unsigned I = 0; I < N; I += 1000)
    Host[I] = I;
  ASSERT_EQ(cuMemcpyHtoD_v2(Base + 4, Host.data() + 1, 4 * 999), CUDA_SUCCESS); // over nothing special
  CUmodule M = nullptr;
  ASSERT_EQ(cuModuleLoadData(&M, IncPtx), CUDA_SUCCESS);
  CUfunction F = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "inc"), CUDA_SUCCESS);
  unsigned Count = N;
  void *Params[] = {&Base, &Count};
  ASSERT_EQ(cuLaunchKernel(F, N / 256, 1, 1, 256, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<uint32_t> Out(N);
  ASSERT_EQ(cuMemcpyDtoH_v2(Out.data(), Base, 4 * N), CUDA_SUCCESS);
  unsigned Bad = 0;
  for (unsigned I = 0; I < N; ++I)
    Bad += Out[I] != (I >= 1 && I < 1000 ? 1u : 6u);
  EXPECT_EQ(Bad, 0u);

  // Device-to-device copy between the two halves.
  ASSERT_EQ(cuMemcpyDtoD_v2(Base + Gran, Base, 64), CUDA_SUCCESS);
  uint32_t Word[16];
  ASSERT_EQ(cuMemcpyDtoH_v2(Word, Base + Gran, 64), CUDA_SUCCESS);
  EXPECT_EQ(Word[0], 6u);
  EXPECT_EQ(Word[1], 1u);

  // Pointer attributes see device memory of device 0, one range per map.
  unsigned Type = 0;
  ASSERT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Base + Gran + 100), CUDA_SUCCESS);
  EXPECT_EQ(Type, unsigned(CU_MEMORYTYPE_DEVICE));
  size_t RangeSize = 0;
  ASSERT_EQ(cuPointerGetAttribute(&RangeSize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, Base + 100), CUDA_SUCCESS);
  EXPECT_EQ(RangeSize, Gran);
  int Ordinal = -1;
  ASSERT_EQ(cuPointerGetAttribute(&Ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, Base), CUDA_SUCCESS);
  EXPECT_EQ(Ordinal, 0);
  // cuMemFree does not own VMM memory.
  EXPECT_EQ(cuMemFree_v2(Base), CUDA_ERROR_INVALID_VALUE);

  // Unmap needs whole mappings; both at once is fine.
  EXPECT_EQ(cuMemUnmap(Base, Gran / 2), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemUnmap(Base, 2 * Gran), CUDA_SUCCESS);
  EXPECT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Base), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemGetAccess(&Flags, &Prop.location, Base), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAddressFree(Base, Gran), CUDA_ERROR_INVALID_VALUE); // wrong size
  ASSERT_EQ(cuMemAddressFree(Base, 2 * Gran), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(Base, 2 * Gran), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

TEST_F(Vmm, AliasRetainPropertiesAndHint) {
  CUdeviceptr Base = 0;
  ASSERT_EQ(cuMemAddressReserve(&Base, 2 * Gran, 0, 0, 0), CUDA_SUCCESS);
  CUmemGenericAllocationHandle H;
  ASSERT_EQ(cuMemCreate(&H, Gran, &Prop, 0), CUDA_SUCCESS);
  // The same allocation at two addresses.
  ASSERT_EQ(cuMemMap(Base, Gran, 0, H, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(Base + Gran, Gran, 0, H, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemMap(Base, Gran, 0, H, 0), CUDA_ERROR_ALREADY_MAPPED);
  ASSERT_EQ(cuMemSetAccess(Base, 2 * Gran, &Rw, 1), CUDA_SUCCESS);
  uint64_t V = 0x0123456789abcdefull, Got = 0;
  ASSERT_EQ(cuMemcpyHtoD_v2(Base + 256, &V, 8), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(&Got, Base + Gran + 256, 8), CUDA_SUCCESS);
  EXPECT_EQ(Got, V);

  CUmemGenericAllocationHandle R = 0;
  ASSERT_EQ(cuMemRetainAllocationHandle(&R, reinterpret_cast<void *>(Base + Gran + 12)), CUDA_SUCCESS);
  EXPECT_EQ(R, H);
  CUmemAllocationProp P{};
  ASSERT_EQ(cuMemGetAllocationPropertiesFromHandle(&P, R), CUDA_SUCCESS);
  EXPECT_EQ(P.type, CU_MEM_ALLOCATION_TYPE_PINNED);
  EXPECT_EQ(P.location.type, CU_MEM_LOCATION_TYPE_DEVICE);
  EXPECT_EQ(P.location.id, 0);
  EXPECT_EQ(cuMemRelease(R), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(H), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(H), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemGetAllocationPropertiesFromHandle(&P, H), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemRetainAllocationHandle(&R, reinterpret_cast<void *>(Base + 12)), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(R), CUDA_SUCCESS);
  ASSERT_EQ(cuMemUnmap(Base, Gran), CUDA_SUCCESS);
  ASSERT_EQ(cuMemUnmap(Base + Gran, Gran), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAddressFree(Base, 2 * Gran), CUDA_SUCCESS);

  // The address argument is a hint that is honoured when the range is free.
  CUdeviceptr Again = 0;
  ASSERT_EQ(cuMemAddressReserve(&Again, Gran, Gran, Base, 0), CUDA_SUCCESS);
  EXPECT_EQ(Again, Base);
  ASSERT_EQ(cuMemAddressFree(Again, Gran), CUDA_SUCCESS);
}

TEST_F(Vmm, PosixFdExportImport) {
  CUmemAllocationProp Shareable = Prop;
  Shareable.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CUmemGenericAllocationHandle H, Plain, Imported;
  ASSERT_EQ(cuMemCreate(&H, Gran, &Shareable, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemCreate(&Plain, Gran, &Prop, 0), CUDA_SUCCESS);
  int Fd = -1;
  EXPECT_EQ(cuMemExportToShareableHandle(&Fd, Plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemExportToShareableHandle(&Fd, H, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
  ASSERT_GE(Fd, 0);
  ASSERT_EQ(cuMemImportFromShareableHandle(&Imported, reinterpret_cast<void *>(uintptr_t(Fd)),
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            CUDA_SUCCESS);
  close(Fd);
  CUdeviceptr A = 0, B = 0;
  ASSERT_EQ(cuMemAddressReserve(&A, Gran, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAddressReserve(&B, Gran, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(A, Gran, 0, H, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(B, Gran, 0, Imported, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemSetAccess(A, Gran, &Rw, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemSetAccess(B, Gran, &Rw, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(A, 0xfeedface, 16), CUDA_SUCCESS);
  uint32_t Got = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&Got, B + 60, 4), CUDA_SUCCESS);
  EXPECT_EQ(Got, 0xfeedfaceu);
  for (CUdeviceptr P : {A, B}) {
    EXPECT_EQ(cuMemUnmap(P, Gran), CUDA_SUCCESS);
    EXPECT_EQ(cuMemAddressFree(P, Gran), CUDA_SUCCESS);
  }
  for (auto X : {H, Plain, Imported})
    EXPECT_EQ(cuMemRelease(X), CUDA_SUCCESS);
}

TEST_F(Vmm, InvalidArguments) {
  CUdeviceptr Base = 0;
  EXPECT_EQ(cuMemAddressReserve(nullptr, Gran, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAddressReserve(&Base, 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAddressReserve(&Base, 100, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAddressReserve(&Base, Gran, 3, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAddressReserve(&Base, Gran, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
  CUmemGenericAllocationHandle H = 0;
  EXPECT_EQ(cuMemCreate(&H, 100, &Prop, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemCreate(&H, Gran, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CUmemAllocationProp Bad = Prop;
  Bad.location.id = 99;
  EXPECT_EQ(cuMemCreate(&H, Gran, &Bad, 0), CUDA_ERROR_INVALID_VALUE);
  Bad = Prop;
  Bad.type = CU_MEM_ALLOCATION_TYPE_INVALID;
  EXPECT_EQ(cuMemCreate(&H, Gran, &Bad, 0), CUDA_ERROR_INVALID_VALUE);
  size_t G = 0;
  EXPECT_EQ(cuMemGetAllocationGranularity(&G, &Bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemGetAllocationGranularity(&G, &Prop, CUmemAllocationGranularity_flags(7)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemRelease(0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemRelease(0xdeadbeef), CUDA_ERROR_INVALID_VALUE);

  ASSERT_EQ(cuMemAddressReserve(&Base, Gran, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemCreate(&H, Gran, &Prop, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemMap(Base, Gran, 0, 0xdeadbeef, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemMap(Base + 1, Gran, 0, H, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemMap(Base, 2 * Gran, 0, H, 0), CUDA_ERROR_INVALID_VALUE);   // past the allocation
  EXPECT_EQ(cuMemMap(Base + Gran, Gran, 0, H, 0), CUDA_ERROR_INVALID_VALUE); // outside the reservation
  EXPECT_EQ(cuMemMap(Base, Gran, 0, H, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemSetAccess(Base, Gran, &Rw, 1), CUDA_ERROR_INVALID_VALUE); // not mapped yet
  ASSERT_EQ(cuMemMap(Base, Gran, 0, H, 0), CUDA_SUCCESS);
  CUmemAccessDesc BadAccess = Rw;
  BadAccess.flags = CUmemAccess_flags(2);
  EXPECT_EQ(cuMemSetAccess(Base, Gran, &BadAccess, 1), CUDA_ERROR_INVALID_VALUE);
  BadAccess = Rw;
  BadAccess.location.id = 99;
  EXPECT_EQ(cuMemSetAccess(Base, Gran, &BadAccess, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemSetAccess(Base, Gran, nullptr, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemGetAccess(nullptr, &Prop.location, Base), CUDA_ERROR_INVALID_VALUE);
  CUmemGenericAllocationHandle R;
  EXPECT_EQ(cuMemRetainAllocationHandle(&R, reinterpret_cast<void *>(16)), CUDA_ERROR_INVALID_VALUE);
  int Fd;
  EXPECT_EQ(cuMemExportToShareableHandle(&Fd, H, CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuMemImportFromShareableHandle(&R, reinterpret_cast<void *>(uintptr_t(9999)),
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemUnmap(Base + Gran, Gran), CUDA_ERROR_INVALID_VALUE);
  // Freeing the range with a mapping left inside still releases everything.
  EXPECT_EQ(cuMemRelease(H), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(Base, Gran), CUDA_SUCCESS);
  unsigned Type = 0;
  EXPECT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Base), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
