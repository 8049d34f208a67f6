/// \file
/// Stream memory operations: cuStreamWriteValue32/64, cuStreamWaitValue32/64
/// and cuStreamBatchMemOp, in every _v2/_ptsz form of the API table. Each
/// call becomes one host function on the stream's backend queue, so it is
/// ordered with the stream's other work (and recorded as a node while the
/// stream captures). Every device ferry drives has its memory in the host's
/// address space (Backend.h, "Addresses"), so a write is an atomic store by
/// the queue's thread and a wait polls the word there: it spins briefly, then
/// sleeps with a growing back-off. The host backend gives every queue its own
/// thread, so a waiting stream never holds up another one; the wait gives up
/// when the device faults, since the write it waits for will then never come.
#include "libcuda/api/Common.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace ferry;
using namespace ferry::api;

namespace {

/// One operation, validated and resolved to a host address.
struct MemOp {
  enum Kind { Wait, Write, Barrier } K = Barrier;
  uint64_t *Addr64 = nullptr; ///< Valid when Is64.
  uint32_t *Addr32 = nullptr;
  bool Is64 = false;
  uint64_t Value = 0;
  unsigned Flags = 0;
};

/// The wait condition of CUstreamWaitValue_flags (low bits; FLUSH is a
/// separate bit). GEQ is the cyclic comparison NVIDIA documents:
/// (int32_t)(*addr - value) >= 0, so it is immune to wrap-around.
bool conditionHolds(const MemOp &Op, uint64_t Cur) {
  uint64_t V = Op.Value;
  switch (Op.Flags & 0xf) {
  case CU_STREAM_WAIT_VALUE_GEQ:
    return Op.Is64 ? int64_t(Cur - V) >= 0 : int32_t(uint32_t(Cur) - uint32_t(V)) >= 0;
  case CU_STREAM_WAIT_VALUE_EQ: return Cur == V;
  case CU_STREAM_WAIT_VALUE_AND: return (Cur & V) != 0;
  case CU_STREAM_WAIT_VALUE_NOR: return Op.Is64 ? ~(Cur | V) != 0 : uint32_t(~(Cur | V)) != 0;
  }
  return true; // Rejected by validation.
}

uint64_t load(const MemOp &Op) {
  return Op.Is64 ? __atomic_load_n(Op.Addr64, __ATOMIC_ACQUIRE) : __atomic_load_n(Op.Addr32, __ATOMIC_ACQUIRE);
}

/// Runs one op on the queue thread. False when a wait was abandoned because
/// the device faulted.
bool run(const MemOp &Op, ferry::Device &Dev) {
  switch (Op.K) {
  case MemOp::Write: {
    // The default write orders all earlier work of the stream before it
    // (a release store after a full fence); NO_MEMORY_BARRIER drops that.
    bool Relaxed = Op.Flags & CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER;
    if (!Relaxed)
      std::atomic_thread_fence(std::memory_order_seq_cst);
    int Order = Relaxed ? __ATOMIC_RELAXED : __ATOMIC_RELEASE;
    if (Op.Is64)
      __atomic_store_n(Op.Addr64, Op.Value, Order);
    else
      __atomic_store_n(Op.Addr32, uint32_t(Op.Value), Order);
    return true;
  }
  case MemOp::Barrier: std::atomic_thread_fence(std::memory_order_seq_cst); return true;
  case MemOp::Wait: break;
  }
  for (unsigned Spin = 0; Spin < 2000; ++Spin)
    if (conditionHolds(Op, load(Op)))
      return true;
  auto Sleep = std::chrono::microseconds(5);
  for (;;) {
    if (conditionHolds(Op, load(Op)))
      return true;
    if (!Dev.fault())
      return false;
    std::this_thread::sleep_for(Sleep);
    Sleep = std::min(Sleep * 2, std::chrono::microseconds(1000));
  }
}

/// True when the page holding Addr is mapped in this process. Addresses
/// outside libcuda's allocation table (module globals, for one) are still
/// device memory; this keeps a garbage address from faulting the queue
/// thread.
bool isMapped(uintptr_t Addr, size_t Bytes) {
  static const uintptr_t Page = uintptr_t(sysconf(_SC_PAGESIZE));
  unsigned char Vec[2];
  uintptr_t First = Addr & ~(Page - 1), Last = (Addr + Bytes - 1) & ~(Page - 1);
  return mincore(reinterpret_cast<void *>(First), Last - First + Page, Vec) == 0;
}

Status checkAddress(CUdeviceptr Addr, bool Is64) {
  size_t Bytes = Is64 ? 8 : 4;
  if (Addr == 0)
    return makeError(CUDA_ERROR_INVALID_VALUE, "address is null");
  if (Addr % Bytes)
    return makeError(CUDA_ERROR_INVALID_VALUE, "address " + std::to_string(Addr) + " is not " +
                                                   std::to_string(Bytes) + "-byte aligned");
  if (auto A = core::alloctable::find(uintptr_t(Addr)); A && uintptr_t(Addr) - A->Base + Bytes <= A->Bytes)
    return Status::ok();
  if (!isMapped(uintptr_t(Addr), Bytes))
    return makeError(CUDA_ERROR_INVALID_VALUE, "address is not mapped memory");
  return Status::ok();
}

Expected<MemOp> waitOp(CUdeviceptr Addr, uint64_t Value, unsigned Flags, bool Is64) {
  unsigned Cond = Flags & ~unsigned(CU_STREAM_WAIT_VALUE_FLUSH);
  if (Cond > CU_STREAM_WAIT_VALUE_NOR)
    return makeError(CUDA_ERROR_INVALID_VALUE, "unknown wait flags " + std::to_string(Flags));
  if (Status S = checkAddress(Addr, Is64); !S)
    return S.takeError();
  MemOp Op;
  Op.K = MemOp::Wait;
  Op.Is64 = Is64;
  Op.Addr64 = reinterpret_cast<uint64_t *>(uintptr_t(Addr));
  Op.Addr32 = reinterpret_cast<uint32_t *>(uintptr_t(Addr));
  Op.Value = Is64 ? Value : uint32_t(Value);
  Op.Flags = Cond; // FLUSH: host memory is coherent; acquire loads suffice.
  return Op;
}

Expected<MemOp> writeOp(CUdeviceptr Addr, uint64_t Value, unsigned Flags, bool Is64) {
  if (Flags & ~unsigned(CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER))
    return makeError(CUDA_ERROR_INVALID_VALUE, "unknown write flags " + std::to_string(Flags));
  if (Status S = checkAddress(Addr, Is64); !S)
    return S.takeError();
  MemOp Op;
  Op.K = MemOp::Write;
  Op.Is64 = Is64;
  Op.Addr64 = reinterpret_cast<uint64_t *>(uintptr_t(Addr));
  Op.Addr32 = reinterpret_cast<uint32_t *>(uintptr_t(Addr));
  Op.Value = Value;
  Op.Flags = Flags;
  return Op;
}

CUresult submit(const char *Fn, CUstream H, bool PerThread, std::vector<MemOp> Ops) {
  auto S = streamArg(H, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (Status St = (*S)->context().stickyError(); !St)
    return fail(Fn, St.code(), St.message());
  ferry::Device *Dev = (*S)->context().device().Backend;
  return done(Fn, (*S)->submit([&](Queue &Q) {
    return Q.enqueueHostFunction([Ops = std::move(Ops), Dev](CUresult R) {
      // After a fault the queue's work is skipped, as copies are.
      if (R != CUDA_SUCCESS)
        return;
      for (const MemOp &Op : Ops)
        if (!run(Op, *Dev))
          return;
    });
  }));
}

CUresult single(const char *Fn, CUstream H, bool PerThread, Expected<MemOp> Op) {
  if (!Op)
    return fail(Fn, Op.error());
  return submit(Fn, H, PerThread, {*Op});
}

/// NVIDIA's limit on the operations of one batch.
constexpr unsigned MaxBatch = 256;

CUresult batch(const char *Fn, CUstream H, unsigned Count, const CUstreamBatchMemOpParams *Params, unsigned Flags,
               bool PerThread) {
  if (Count == 0 || Count > MaxBatch)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "count must be in [1, 256], got " + std::to_string(Count));
  if (!Params)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "paramArray is null");
  if (Flags != 0)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  std::vector<MemOp> Ops;
  for (unsigned I = 0; I < Count; ++I) {
    const CUstreamBatchMemOpParams &P = Params[I];
    Expected<MemOp> Op = MemOp();
    switch (P.operation) {
    case CU_STREAM_MEM_OP_WAIT_VALUE_32:
      Op = waitOp(P.waitValue.address, P.waitValue.value, P.waitValue.flags, false);
      break;
    case CU_STREAM_MEM_OP_WAIT_VALUE_64:
      Op = waitOp(P.waitValue.address, P.waitValue.value64, P.waitValue.flags, true);
      break;
    case CU_STREAM_MEM_OP_WRITE_VALUE_32:
      Op = writeOp(P.writeValue.address, P.writeValue.value, P.writeValue.flags, false);
      break;
    case CU_STREAM_MEM_OP_WRITE_VALUE_64:
      Op = writeOp(P.writeValue.address, P.writeValue.value64, P.writeValue.flags, true);
      break;
    case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
      if (P.flushRemoteWrites.flags != 0)
        Op = makeError(CUDA_ERROR_INVALID_VALUE, "flush flags must be 0");
      break;
    case CU_STREAM_MEM_OP_BARRIER:
      if (P.memoryBarrier.flags != CU_STREAM_MEMORY_BARRIER_TYPE_SYS &&
          P.memoryBarrier.flags != CU_STREAM_MEMORY_BARRIER_TYPE_GPU)
        Op = makeError(CUDA_ERROR_INVALID_VALUE, "unknown barrier flags");
      break;
    default: Op = makeError(CUDA_ERROR_INVALID_VALUE, "unknown operation " + std::to_string(int(P.operation)));
    }
    if (!Op)
      return fail(Fn, Op.code(), "operation " + std::to_string(I) + ": " + Op.error().message());
    Ops.push_back(*Op);
  }
  return submit(Fn, H, PerThread, std::move(Ops));
}

} // namespace

// clang-format off
#define FERRY_MEMOPS(Suffix, PT)                                                                            \
  FERRY_EXPORT CUresult cuStreamWriteValue32##Suffix(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned f) { \
    return single(__func__, s, PT, writeOp(a, v, f, false));                                                \
  }                                                                                                         \
  FERRY_EXPORT CUresult cuStreamWriteValue64##Suffix(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned f) { \
    return single(__func__, s, PT, writeOp(a, v, f, true));                                                 \
  }                                                                                                         \
  FERRY_EXPORT CUresult cuStreamWaitValue32##Suffix(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned f) {  \
    return single(__func__, s, PT, waitOp(a, v, f, false));                                                 \
  }                                                                                                         \
  FERRY_EXPORT CUresult cuStreamWaitValue64##Suffix(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned f) {  \
    return single(__func__, s, PT, waitOp(a, v, f, true));                                                  \
  }                                                                                                         \
  FERRY_EXPORT CUresult cuStreamBatchMemOp##Suffix(CUstream s, unsigned n, CUstreamBatchMemOpParams *p,     \
                                                   unsigned f) {                                            \
    return batch(__func__, s, n, p, f, PT);                                                                 \
  }
// clang-format on

// The _v2 forms (CUDA 11.7) kept the v1 signatures and semantics.
FERRY_MEMOPS(, false)
FERRY_MEMOPS(_ptsz, true)
FERRY_MEMOPS(_v2, false)
FERRY_MEMOPS(_v2_ptsz, true)
#undef FERRY_MEMOPS
