/// \file
/// Copies and fills: 1-D, 2-D and 3-D memcpy (sync and async, peer), and
/// the memset family. Synchronous forms run on the default stream (legacy,
/// or per-thread in the `_ptds` forms) and wait for it; async forms enqueue
/// on the given stream (`_ptsz`: stream 0 is the per-thread stream).
#include "libcuda/api/Common.h"
#include "libcuda/core/Texture.h"
#include "libcuda/core/Graph.h"

#include <cstring>
#include <memory>
#include <vector>

using namespace ferry;
using namespace ferry::api;

static void *ptr(CUdeviceptr P) { return reinterpret_cast<void *>(uintptr_t(P)); }

/// Which sides of a copy name device memory (explicit-direction forms, and
/// arrays): those are validated against the allocation table, as NVIDIA
/// does, and are never pageable.
enum DeviceSides : unsigned { NoDeviceSide = 0, DeviceDst = 1, DeviceSrc = 2, DeviceBoth = 3 };

/// Pageable host memory: memory that no allocation holds (device, pinned,
/// registered and managed memory and module variables all are held).
static bool pageable(const void *P) { return !core::alloctable::find(uintptr_t(P)); }

/// Above this, an async copy from pageable memory waits for its stream
/// rather than staging a copy of the source (NVIDIA's driver may do either).
constexpr size_t MaxStagedBytes = size_t(64) << 20;

/// Enqueues Rect on the stream and, when Sync, waits for it.
///
/// An async copy with a pageable side keeps the synchronization NVIDIA
/// documents for it (CUDA's "API synchronization behavior"), which
/// programs rely on: to pageable memory it returns only once the copy is
/// done (Numba's copy_to_host on a stream reads the array right after);
/// from pageable memory it has read the source when it returns, so the
/// caller may free or reuse it at once (Numba copies from temporaries).
/// Ferry stages such a source in a buffer the stream frees after the copy.
/// A capturing stream records the copy as it is (a graph node).
static CUresult submitCopy(const char *Fn, CUstream hStream, bool PerThread, bool Sync,
                           const CopyRect &Rect, unsigned Known = NoDeviceSide) {
  auto S = streamArg(hStream, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (Status St = (*S)->context().stickyError(); !St)
    return done(Fn, std::move(St));
  if (Rect.WidthBytes == 0 || Rect.Height == 0 || Rect.Depth == 0)
    return CUDA_SUCCESS;
  if (!Rect.Dst || !Rect.Src)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "null source or destination");
  if (Status St = Sync ? core::capture::checkStreamWait(**S, Fn) : Status::ok(); !St)
    return done(Fn, std::move(St)); // Synchronous copies are illegal during capture.
  CopyRect R = Rect;
  bool Wait = Sync;
  std::shared_ptr<std::vector<char>> Staged;
  if (!Sync && !core::capture::capturingGraph(**S)) {
    bool PageableSrc = !(Known & DeviceSrc) && pageable(R.Src);
    size_t Bytes = R.WidthBytes * R.Height * R.Depth;
    if ((!(Known & DeviceDst) && pageable(R.Dst)) || (PageableSrc && Bytes > MaxStagedBytes)) {
      Wait = true;
    } else if (PageableSrc) {
      Staged = std::make_shared<std::vector<char>>(Bytes);
      char *Out = Staged->data();
      const char *In = static_cast<const char *>(R.Src);
      for (size_t Z = 0; Z < R.Depth; ++Z)
        for (size_t Y = 0; Y < R.Height; ++Y, Out += R.WidthBytes)
          std::memcpy(Out, In + Z * R.SrcSlicePitch + Y * R.SrcPitch, R.WidthBytes);
      R.Src = Staged->data();
      R.SrcPitch = R.WidthBytes;
      R.SrcSlicePitch = R.WidthBytes * R.Height;
    }
  }
  Status St = (*S)->submit([&](Queue &Q) {
    Status C = Q.enqueueCopy(R);
    if (!C || !Staged)
      return C;
    return Q.enqueueHostFunction([Staged](CUresult) {}); // frees the staging buffer
  });
  if (!St)
    return fail(Fn, St.takeError());
  if (Wait)
    return done(Fn, (*S)->synchronize());
  return CUDA_SUCCESS;
}

static CUresult copy1D(const char *Fn, void *Dst, const void *Src, size_t N, CUstream hStream,
                       bool PerThread, bool Sync, unsigned Sides = NoDeviceSide) {
  if (N && Dst && Src) {
    if (Sides & DeviceDst)
      if (Status St = core::checkDeviceRange(Dst, N, "the destination"); !St)
        return done(Fn, std::move(St));
    if (Sides & DeviceSrc)
      if (Status St = core::checkDeviceRange(Src, N, "the source"); !St)
        return done(Fn, std::move(St));
  }
  CopyRect R;
  R.Dst = Dst;
  R.Src = Src;
  R.WidthBytes = N;
  return submitCopy(Fn, hStream, PerThread, Sync, R, Sides);
}

// clang-format off
FERRY_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy1D(__func__, ptr(dst), ptr(src), n, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy1D(__func__, ptr(dst), ptr(src), n, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) { return copy1D(__func__, ptr(dst), src, n, nullptr, false, true, DeviceDst); }
FERRY_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t n) { return copy1D(__func__, ptr(dst), src, n, nullptr, true, true, DeviceDst); }
FERRY_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { return copy1D(__func__, dst, ptr(src), n, nullptr, false, true, DeviceSrc); }
FERRY_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t n) { return copy1D(__func__, dst, ptr(src), n, nullptr, true, true, DeviceSrc); }
FERRY_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy1D(__func__, ptr(dst), ptr(src), n, nullptr, false, true, DeviceBoth); }
FERRY_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) { return copy1D(__func__, ptr(dst), ptr(src), n, nullptr, true, true, DeviceBoth); }
FERRY_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return copy1D(__func__, ptr(dst), ptr(src), n, s, false, false); }
FERRY_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return copy1D(__func__, ptr(dst), ptr(src), n, s, true, false); }
FERRY_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) { return copy1D(__func__, ptr(dst), src, n, s, false, false, DeviceDst); }
FERRY_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t n, CUstream s) { return copy1D(__func__, ptr(dst), src, n, s, true, false, DeviceDst); }
FERRY_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) { return copy1D(__func__, dst, ptr(src), n, s, false, false, DeviceSrc); }
FERRY_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t n, CUstream s) { return copy1D(__func__, dst, ptr(src), n, s, true, false, DeviceSrc); }
FERRY_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return copy1D(__func__, ptr(dst), ptr(src), n, s, false, false, DeviceBoth); }
FERRY_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return copy1D(__func__, ptr(dst), ptr(src), n, s, true, false, DeviceBoth); }
// clang-format on

/// Peer copies: all ferry devices share the host address space, so a peer
/// copy is an ordinary copy once both contexts are checked.
static CUresult copyPeer(const char *Fn, CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src,
                         CUcontext srcCtx, size_t n, CUstream s, bool PerThread, bool Sync) {
  for (CUcontext C : {dstCtx, srcCtx}) {
    auto R = core::resolve<core::Context>(C, CUDA_ERROR_INVALID_CONTEXT);
    if (!R)
      return fail(Fn, R.error());
  }
  return copy1D(Fn, ptr(dst), ptr(src), n, s, PerThread, Sync, DeviceBoth);
}

// clang-format off
FERRY_EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n) { return copyPeer(__func__, dst, dc, src, sc, n, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpyPeer_ptds(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n) { return copyPeer(__func__, dst, dc, src, sc, n, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s) { return copyPeer(__func__, dst, dc, src, sc, n, s, false, false); }
FERRY_EXPORT CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream s) { return copyPeer(__func__, dst, dc, src, sc, n, s, true, false); }
// clang-format on

/// One side of a 2-D/3-D copy: where it starts, its row pitch and rows per
/// slice (0: take them from the copy's pitch/height fields), and for an
/// array, its extent in bytes/rows/slices for the bounds check.
struct CopySide {
  uintptr_t Base = 0;
  core::Ref<core::Array> Arr;
};

static Expected<CopySide> copySide(CUmemorytype Type, const void *Host, CUdeviceptr Device,
                                   CUarray Array) {
  switch (Type) {
  case CU_MEMORYTYPE_HOST:
    return CopySide{uintptr_t(Host), nullptr};
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED:
    return CopySide{uintptr_t(Device), nullptr};
  case CU_MEMORYTYPE_ARRAY: {
    auto A = core::resolve<core::Array>(Array);
    if (!A)
      return A.takeError();
    return CopySide{uintptr_t((*A)->data()), *A};
  }
  }
  return makeError(CUDA_ERROR_INVALID_VALUE, "unknown memory type " + std::to_string(int(Type)));
}

/// Arrays are stored densely (core/Texture.h): their pitch and slice height
/// replace the copy's, and the box must lie inside the array.
static Status fitArray(const CopySide &S, const CUDA_MEMCPY3D &P, size_t X, size_t Y, size_t Z,
                       size_t &Pitch, size_t &Rows) {
  if (!S.Arr)
    return Status::ok();
  const core::Array &A = *S.Arr;
  Pitch = A.pitch();
  Rows = A.rows();
  if (X % A.elementBytes() || P.WidthInBytes % A.elementBytes())
    return makeError(CUDA_ERROR_INVALID_VALUE, "array offset or width is not a whole number of elements");
  if (X + P.WidthInBytes > A.pitch() || Y + P.Height > A.rows() || Z + P.Depth > A.slices())
    return makeError(CUDA_ERROR_INVALID_VALUE, "the copy extends beyond the array");
  return Status::ok();
}

static CUresult copy3D(const char *Fn, const CUDA_MEMCPY3D &P, CUstream s, bool PerThread, bool Sync) {
  auto SrcB = copySide(P.srcMemoryType, P.srcHost, P.srcDevice, P.srcArray);
  if (!SrcB)
    return fail(Fn, SrcB.error());
  auto DstB = copySide(P.dstMemoryType, P.dstHost, P.dstDevice, P.dstArray);
  if (!DstB)
    return fail(Fn, DstB.error());
  if (P.srcLOD || P.dstLOD)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "LOD must be 0");
  size_t SrcPitch = P.srcPitch ? P.srcPitch : P.WidthInBytes;
  size_t DstPitch = P.dstPitch ? P.dstPitch : P.WidthInBytes;
  size_t SrcH = P.srcHeight ? P.srcHeight : P.Height;
  size_t DstH = P.dstHeight ? P.dstHeight : P.Height;
  if (Status St = fitArray(*SrcB, P, P.srcXInBytes, P.srcY, P.srcZ, SrcPitch, SrcH); !St)
    return fail(Fn, St.takeError());
  if (Status St = fitArray(*DstB, P, P.dstXInBytes, P.dstY, P.dstZ, DstPitch, DstH); !St)
    return fail(Fn, St.takeError());
  if ((P.Height > 1 || P.Depth > 1) && (SrcPitch < P.WidthInBytes || DstPitch < P.WidthInBytes))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pitch is smaller than WidthInBytes");
  if (P.Depth > 1 && (SrcH < P.Height || DstH < P.Height))
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "slice height is smaller than Height");
  CopyRect R;
  R.Src = reinterpret_cast<const void *>(SrcB->Base + P.srcXInBytes + P.srcY * SrcPitch +
                                         P.srcZ * SrcPitch * SrcH);
  R.Dst = reinterpret_cast<void *>(DstB->Base + P.dstXInBytes + P.dstY * DstPitch + P.dstZ * DstPitch * DstH);
  R.WidthBytes = P.WidthInBytes;
  R.Height = P.Height;
  R.Depth = P.Depth;
  R.SrcPitch = SrcPitch;
  R.DstPitch = DstPitch;
  R.SrcSlicePitch = SrcPitch * SrcH;
  R.DstSlicePitch = DstPitch * DstH;
  if (R.WidthBytes && R.Height && R.Depth) {
    auto Extent = [&](size_t Pitch, size_t Slice) {
      return (R.Depth - 1) * Slice + (R.Height - 1) * Pitch + R.WidthBytes;
    };
    if (P.srcMemoryType == CU_MEMORYTYPE_DEVICE)
      if (Status St = core::checkDeviceRange(R.Src, Extent(R.SrcPitch, R.SrcSlicePitch), "the source"); !St)
        return done(Fn, std::move(St));
    if (P.dstMemoryType == CU_MEMORYTYPE_DEVICE)
      if (Status St = core::checkDeviceRange(R.Dst, Extent(R.DstPitch, R.DstSlicePitch), "the destination"); !St)
        return done(Fn, std::move(St));
  }
  unsigned Known = (SrcB->Arr || P.srcMemoryType == CU_MEMORYTYPE_DEVICE ? DeviceSrc : NoDeviceSide) |
                   (DstB->Arr || P.dstMemoryType == CU_MEMORYTYPE_DEVICE ? DeviceDst : NoDeviceSide);
  return submitCopy(Fn, s, PerThread, Sync, R, Known);
}

static CUresult copy2D(const char *Fn, const CUDA_MEMCPY2D *P, CUstream s, bool PerThread, bool Sync) {
  if (!P)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pCopy is null");
  CUDA_MEMCPY3D Q{};
  Q.srcXInBytes = P->srcXInBytes;
  Q.srcY = P->srcY;
  Q.srcMemoryType = P->srcMemoryType;
  Q.srcHost = P->srcHost;
  Q.srcDevice = P->srcDevice;
  Q.srcArray = P->srcArray;
  Q.srcPitch = P->srcPitch;
  Q.dstXInBytes = P->dstXInBytes;
  Q.dstY = P->dstY;
  Q.dstMemoryType = P->dstMemoryType;
  Q.dstHost = P->dstHost;
  Q.dstDevice = P->dstDevice;
  Q.dstArray = P->dstArray;
  Q.dstPitch = P->dstPitch;
  Q.WidthInBytes = P->WidthInBytes;
  Q.Height = P->Height;
  Q.Depth = 1;
  return copy3D(Fn, Q, s, PerThread, Sync);
}

static CUresult copy3DPtr(const char *Fn, const CUDA_MEMCPY3D *P, CUstream s, bool PerThread, bool Sync) {
  if (!P)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pCopy is null");
  return copy3D(Fn, *P, s, PerThread, Sync);
}

// clang-format off
FERRY_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) { return copy2D(__func__, p, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *p) { return copy2D(__func__, p, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p) { return copy2D(__func__, p, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *p) { return copy2D(__func__, p, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream s) { return copy2D(__func__, p, s, false, false); }
FERRY_EXPORT CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *p, CUstream s) { return copy2D(__func__, p, s, true, false); }
FERRY_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) { return copy3DPtr(__func__, p, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *p) { return copy3DPtr(__func__, p, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream s) { return copy3DPtr(__func__, p, s, false, false); }
FERRY_EXPORT CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *p, CUstream s) { return copy3DPtr(__func__, p, s, true, false); }
// clang-format on

//===----------------------------------------------------------------------===//
// Memset
//===----------------------------------------------------------------------===//

static CUresult fill(const char *Fn, CUdeviceptr dst, size_t Pitch, uint32_t Value, unsigned Elem,
                     size_t Width, size_t Height, CUstream s, bool PerThread, bool Sync) {
  auto S = streamArg(s, PerThread);
  if (!S)
    return fail(Fn, S.error());
  if (Status St = (*S)->context().stickyError(); !St)
    return done(Fn, std::move(St));
  if (Width == 0 || Height == 0)
    return CUDA_SUCCESS;
  if (!dst)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "destination is null");
  if (dst % Elem)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "destination is not aligned to the element size");
  if (Height <= 1 || Pitch >= Width * Elem)
    if (Status St = core::checkDeviceRange(ptr(dst), (Height - 1) * Pitch + Width * Elem, "the destination"); !St)
      return done(Fn, std::move(St));
  if (Height > 1 && Pitch < Width * Elem)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "pitch is smaller than the row");
  FillRect R;
  R.Dst = ptr(dst);
  R.Value = Value;
  R.ElemBytes = Elem;
  R.Width = Width;
  R.Height = Height;
  R.Pitch = Pitch;
  if (Status St = Sync ? core::capture::checkStreamWait(**S, Fn) : Status::ok(); !St)
    return done(Fn, std::move(St)); // Synchronous memsets are illegal during capture.
  if (Status St = (*S)->submit([&](Queue &Q) { return Q.enqueueFill(R); }); !St)
    return fail(Fn, St.takeError());
  if (Sync)
    return done(Fn, (*S)->synchronize());
  return CUDA_SUCCESS;
}

// clang-format off
FERRY_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { return fill(__func__, d, n, v, 1, n, 1, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n) { return fill(__func__, d, n, v, 1, n, 1, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n) { return fill(__func__, d, 2 * n, v, 2, n, 1, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n) { return fill(__func__, d, 2 * n, v, 2, n, 1, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n) { return fill(__func__, d, 4 * n, v, 4, n, 1, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n) { return fill(__func__, d, 4 * n, v, 4, n, 1, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h) { return fill(__func__, d, p, v, 1, w, h, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h) { return fill(__func__, d, p, v, 1, w, h, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h) { return fill(__func__, d, p, v, 2, w, h, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h) { return fill(__func__, d, p, v, 2, w, h, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h) { return fill(__func__, d, p, v, 4, w, h, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h) { return fill(__func__, d, p, v, 4, w, h, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return fill(__func__, d, n, v, 1, n, 1, s, false, false); }
FERRY_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return fill(__func__, d, n, v, 1, n, 1, s, true, false); }
FERRY_EXPORT CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { return fill(__func__, d, 2 * n, v, 2, n, 1, s, false, false); }
FERRY_EXPORT CUresult cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { return fill(__func__, d, 2 * n, v, 2, n, 1, s, true, false); }
FERRY_EXPORT CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { return fill(__func__, d, 4 * n, v, 4, n, 1, s, false, false); }
FERRY_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { return fill(__func__, d, 4 * n, v, 4, n, 1, s, true, false); }
FERRY_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h, CUstream s) { return fill(__func__, d, p, v, 1, w, h, s, false, false); }
FERRY_EXPORT CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h, CUstream s) { return fill(__func__, d, p, v, 1, w, h, s, true, false); }
FERRY_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h, CUstream s) { return fill(__func__, d, p, v, 2, w, h, s, false, false); }
FERRY_EXPORT CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h, CUstream s) { return fill(__func__, d, p, v, 2, w, h, s, true, false); }
FERRY_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h, CUstream s) { return fill(__func__, d, p, v, 4, w, h, s, false, false); }
FERRY_EXPORT CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h, CUstream s) { return fill(__func__, d, p, v, 4, w, h, s, true, false); }
// clang-format on

//===----------------------------------------------------------------------===//
// 1-D copies to and from arrays
//===----------------------------------------------------------------------===//

/// The byte address Offset into array H, for N bytes. Array storage is
/// dense (core/Texture.h), so a byte range of a 2-D or 3-D array is its
/// row-major bytes, which is also what NVIDIA's 1-D array copies address.
static Expected<void *> arrayBytes(CUarray H, size_t Offset, size_t N) {
  auto A = core::resolve<core::Array>(H);
  if (!A)
    return A.takeError();
  if (Offset > (*A)->bytes() || N > (*A)->bytes() - Offset)
    return makeError(CUDA_ERROR_INVALID_VALUE, "the copy extends beyond the array");
  return static_cast<void *>((*A)->data() + Offset);
}

static CUresult copyArray1D(const char *Fn, CUarray DstA, size_t DstOff, void *Dst, CUarray SrcA,
                            size_t SrcOff, const void *Src, size_t N, CUstream s, bool PerThread,
                            bool Sync) {
  if (DstA) {
    auto P = arrayBytes(DstA, DstOff, N);
    if (!P)
      return fail(Fn, P.error());
    Dst = *P;
  }
  if (SrcA) {
    auto P = arrayBytes(SrcA, SrcOff, N);
    if (!P)
      return fail(Fn, P.error());
    Src = *P;
  }
  return copy1D(Fn, Dst, Src, N, s, PerThread, Sync);
}

// clang-format off
FERRY_EXPORT CUresult cuMemcpyHtoA_v2(CUarray d, size_t o, const void *src, size_t n) { return copyArray1D(__func__, d, o, nullptr, nullptr, 0, src, n, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpyHtoA_v2_ptds(CUarray d, size_t o, const void *src, size_t n) { return copyArray1D(__func__, d, o, nullptr, nullptr, 0, src, n, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpyHtoAAsync_v2(CUarray d, size_t o, const void *src, size_t n, CUstream s) { return copyArray1D(__func__, d, o, nullptr, nullptr, 0, src, n, s, false, false); }
FERRY_EXPORT CUresult cuMemcpyHtoAAsync_v2_ptsz(CUarray d, size_t o, const void *src, size_t n, CUstream s) { return copyArray1D(__func__, d, o, nullptr, nullptr, 0, src, n, s, true, false); }
FERRY_EXPORT CUresult cuMemcpyAtoH_v2(void *dst, CUarray a, size_t o, size_t n) { return copyArray1D(__func__, nullptr, 0, dst, a, o, nullptr, n, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpyAtoH_v2_ptds(void *dst, CUarray a, size_t o, size_t n) { return copyArray1D(__func__, nullptr, 0, dst, a, o, nullptr, n, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpyAtoHAsync_v2(void *dst, CUarray a, size_t o, size_t n, CUstream s) { return copyArray1D(__func__, nullptr, 0, dst, a, o, nullptr, n, s, false, false); }
FERRY_EXPORT CUresult cuMemcpyAtoHAsync_v2_ptsz(void *dst, CUarray a, size_t o, size_t n, CUstream s) { return copyArray1D(__func__, nullptr, 0, dst, a, o, nullptr, n, s, true, false); }
FERRY_EXPORT CUresult cuMemcpyDtoA_v2(CUarray d, size_t o, CUdeviceptr src, size_t n) { return copyArray1D(__func__, d, o, nullptr, nullptr, 0, ptr(src), n, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpyDtoA_v2_ptds(CUarray d, size_t o, CUdeviceptr src, size_t n) { return copyArray1D(__func__, d, o, nullptr, nullptr, 0, ptr(src), n, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray a, size_t o, size_t n) { return copyArray1D(__func__, nullptr, 0, ptr(dst), a, o, nullptr, n, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpyAtoD_v2_ptds(CUdeviceptr dst, CUarray a, size_t o, size_t n) { return copyArray1D(__func__, nullptr, 0, ptr(dst), a, o, nullptr, n, nullptr, true, true); }
FERRY_EXPORT CUresult cuMemcpyAtoA_v2(CUarray d, size_t od, CUarray a, size_t os, size_t n) { return copyArray1D(__func__, d, od, nullptr, a, os, nullptr, n, nullptr, false, true); }
FERRY_EXPORT CUresult cuMemcpyAtoA_v2_ptds(CUarray d, size_t od, CUarray a, size_t os, size_t n) { return copyArray1D(__func__, d, od, nullptr, a, os, nullptr, n, nullptr, true, true); }
// clang-format on
