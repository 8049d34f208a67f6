/// \file
/// cuFFT's multi-GPU API (cufftXtSetGPUs, cufftXtMalloc/Memcpy/Free,
/// cufftXtExecDescriptor*, cufftXtQueryPlan) over FFTW, for complex
/// transforms (C2C, Z2Z) in the basic layout. Real transforms and advanced
/// layouts on several GPUs answer CUFFT_NOT_SUPPORTED with a log line.
///
/// Each GPU's part of a descriptor is memory of that GPU (cuMemAlloc in its
/// primary context) and holds what NVIDIA's documentation ("Multiple GPU
/// Data Organization") says it holds, since programs read and write
/// descriptor->data[i] themselves:
///  - batched plans (batch > 1): whole transforms dealt out in order, the
///    first batch % nGPUs GPUs one more; in natural order before and after.
///  - a single 2D/3D transform: natural order splits x (the slowest axis),
///    the first nx % nGPUs GPUs one plane more; the transform leaves the data
///    split on y (CUFFT_XT_FORMAT_INPLACE_SHUFFLED), each GPU holding
///    [x][its y range][z], and a transform of shuffled data returns it to
///    natural order.
///  - a single 1D transform (power of 2): natural order is n/nGPUs points a
///    GPU; the result is in "strings" of factor2 substrings, each substring
///    factor1 points after the previous, the strings in order over the GPUs
///    (the documentation's permuted2Linear, with cufftXtQueryPlan's factors).
/// The factors and the CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED order are not in
/// the documentation: they were measured on the H100 (a plan on GPUs {0, 0},
/// tests/cufft/CufftXtProbe.cu; libs/README.md).
///
/// The transform itself gathers every part into one host array (device
/// memory is host memory on the host backend), runs FFTW and scatters the
/// result: as a host task on the plan's stream where cufftSetStream gave
/// one, else at once after waiting for every GPU of the plan (each one's
/// default stream). cufftXtMemcpy is synchronous, as the documentation says:
/// it waits for every GPU of the plan, and the plan's stream, first.
#include "libs/common/Driver.h"
#include "libs/cufft/Internal.h"

#include <fftw3.h>

#include <algorithm>
#include <cstdarg>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace {

using namespace ferry::cufft;
using ferry::libs::DriverTable;

void logMessage(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
void logMessage(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  ferry::libs::vlogMessage("cufft", Fmt, Ap);
  va_end(Ap);
}

enum class Spread { Batches, Line, Slabs };

/// cufftXtQueryPlan's factors of a single 1D transform: n = Factor1 *
/// Factor2, in Strings strings of Factor2 substrings.
struct Factors {
  long long Factor1 = 0, Factor2 = 0, Strings = 0;
};

struct XtPlan {
  std::vector<int> Gpus;
  bool Made = false;
  Spread How = Spread::Batches;
  int Rank = 1;
  long long N[3] = {1, 1, 1};
  long long Batch = 1;
  bool Double = false;
  Factors F;

  int gpus() const { return static_cast<int>(Gpus.size()); }
  long long points() const { return N[0] * N[1] * N[2]; }
  size_t elementBytes() const { return Double ? 16 : 8; }
};

std::mutex XtLock;
std::map<cufftHandle, XtPlan> &xtPlans() {
  static auto *M = new std::map<cufftHandle, XtPlan>; // never destroyed: atexit order
  return *M;
}
/// Descriptors cufftXtMalloc made (programs make their own too; those are
/// used but never freed here).
std::set<cudaLibXtDesc *> &ownDescriptors() {
  static auto *S = new std::set<cudaLibXtDesc *>;
  return *S;
}

bool findXt(cufftHandle H, XtPlan &Out) {
  std::lock_guard<std::mutex> G(XtLock);
  auto It = xtPlans().find(H);
  if (It == xtPlans().end())
    return false;
  Out = It->second;
  return true;
}

bool powerOf2(long long V) { return V > 0 && (V & (V - 1)) == 0; }
int log2Of(long long V) {
  int K = 0;
  while ((1LL << K) < V)
    ++K;
  return K;
}

/// The split NVIDIA documents for batches and slabs: Total over G parts,
/// the first Total % G one larger.
void split(long long Total, int G, int Part, long long &Start, long long &Count) {
  long long Base = Total / G, Extra = Total % G;
  Count = Base + (Part < Extra ? 1 : 0);
  Start = Part * Base + std::min<long long>(Part, Extra);
}

/// A 1D transform's factors: log2(factor2) for 2^6 .. 2^27 points, as the
/// H100 chose them to 2^22 (two parts on GPUs {0, 0}) and a public
/// measurement of two RTX 3060s to 2^27 (the two agree where both exist);
/// factor1 = n / factor2; 8 strings (2 for 64 points), at least one a GPU.
Factors factorsOf(long long N, int Gpus) {
  static const int Factor2Log[] = {2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6,
                                   6, 6, 7, 8, 9, 9, 9, 8, 9, 9, 9};
  int K = std::min(std::max(log2Of(N), 6), 27);
  Factors F;
  F.Factor2 = 1LL << Factor2Log[K - 6];
  F.Factor1 = N / F.Factor2;
  F.Strings = std::max<long long>(K == 6 ? 2 : 8, Gpus);
  return F;
}

bool shuffledFormat(int Format) { return Format == CUFFT_XT_FORMAT_INPLACE_SHUFFLED; }

/// Elements of GPU Part's share of a descriptor in Format (in order), and
/// what it allocates (a slab plan's part holds either order).
long long partLength(const XtPlan &P, int Format, int Part) {
  long long Start, Count;
  switch (P.How) {
  case Spread::Batches:
    split(P.Batch, P.gpus(), Part, Start, Count);
    return Count * P.points();
  case Spread::Line:
    return P.N[0] / P.gpus();
  case Spread::Slabs: {
    long long Inner = P.points() / (P.N[0] * P.N[1]);
    split(shuffledFormat(Format) ? P.N[1] : P.N[0], P.gpus(), Part, Start, Count);
    return shuffledFormat(Format) ? P.N[0] * Count * Inner : Count * P.N[1] * Inner;
  }
  }
  return 0;
}

long long partCapacity(const XtPlan &P, int Part) {
  if (P.How != Spread::Slabs)
    return partLength(P, CUFFT_XT_FORMAT_INPLACE, Part);
  return std::max(partLength(P, CUFFT_XT_FORMAT_INPLACE, Part),
                  partLength(P, CUFFT_XT_FORMAT_INPLACE_SHUFFLED, Part));
}

/// Where local element I of GPU Part's share (Format) sits in the natural
/// array (batches one after another, each row-major).
long long naturalIndex(const XtPlan &P, int Format, int Part, long long I) {
  long long Start, Count;
  switch (P.How) {
  case Spread::Batches:
    split(P.Batch, P.gpus(), Part, Start, Count);
    return Start * P.points() + I;
  case Spread::Line: {
    long long N = P.N[0], G = P.gpus();
    const Factors &F = P.F;
    if (Format == CUFFT_XT_FORMAT_INPLACE_SHUFFLED) {
      // permuted2Linear: the low bits are the place in the substring, the
      // next the substring (factor1 apart), the next the string.
      long long StringLength = N / F.Strings, SubLength = StringLength / F.Factor2;
      long long String = Part * (F.Strings / G) + I / StringLength;
      long long Sub = (I % StringLength) / SubLength;
      return I % SubLength + String * SubLength + Sub * F.Factor1;
    }
    if (Format == CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED) {
      // Point a + factor2 * b (b < factor1) on the GPU owning residue a;
      // each string holds Q residues, b-major.
      long long PerGpu = F.Factor2 / G, StringsPerGpu = std::max<long long>(1, F.Strings / G);
      long long Q = std::max<long long>(1, PerGpu / StringsPerGpu);
      long long String = I / (Q * F.Factor1), Rest = I % (Q * F.Factor1);
      long long A = Part * PerGpu + String * Q + Rest % Q, B = Rest / Q;
      return A + F.Factor2 * B;
    }
    return Part * (N / G) + I;
  }
  case Spread::Slabs: {
    long long Inner = P.points() / (P.N[0] * P.N[1]);
    if (shuffledFormat(Format)) {
      split(P.N[1], P.gpus(), Part, Start, Count);
      long long X = I / (Count * Inner), Y = Start + (I / Inner) % Count;
      return (X * P.N[1] + Y) * Inner + I % Inner;
    }
    split(P.N[0], P.gpus(), Part, Start, Count);
    return Start * P.N[1] * Inner + I;
  }
  }
  return I;
}

/// Copies between the natural array and the descriptor's parts, runs of
/// consecutive natural indices at a time.
struct Parts {
  int Format = CUFFT_XT_FORMAT_INPLACE;
  std::vector<char *> Data;
};

template <bool ToParts> void copyParts(const XtPlan &P, const Parts &D, char *Natural) {
  size_t E = P.elementBytes();
  for (int G = 0; G < P.gpus(); ++G) {
    long long Length = partLength(P, D.Format, G);
    for (long long I = 0; I < Length;) {
      long long At = naturalIndex(P, D.Format, G, I), Run = 1;
      while (I + Run < Length && naturalIndex(P, D.Format, G, I + Run) == At + Run)
        ++Run;
      char *Local = D.Data[G] + I * E;
      if (ToParts)
        std::memcpy(Local, Natural + At * E, Run * E);
      else
        std::memcpy(Natural + At * E, Local, Run * E);
      I += Run;
    }
  }
}

/// The descriptor's parts, checked against the plan: nGPUs must match and
/// each part hold its share in Format.
bool partsOf(const XtPlan &P, const cudaLibXtDesc *D, int Format, Parts &Out) {
  if (!D || !D->descriptor || D->descriptor->nGPUs != P.gpus())
    return false;
  Out.Format = Format;
  Out.Data.assign(P.gpus(), nullptr);
  for (int G = 0; G < P.gpus(); ++G) {
    size_t Need = partLength(P, Format, G) * P.elementBytes();
    if (Need && (!D->descriptor->data[G] || D->descriptor->size[G] < Need))
      return false;
    Out.Data[G] = static_cast<char *>(D->descriptor->data[G]);
  }
  return true;
}

/// The whole transform on a natural array, in place.
void fftwInPlace(const XtPlan &P, char *Data, int Sign) {
  int N[3];
  for (int K = 0; K < P.Rank; ++K)
    N[K] = static_cast<int>(P.N[K]);
  int Dist = static_cast<int>(P.points()), HowMany = static_cast<int>(P.Batch);
  if (P.Double) {
    fftw_plan F;
    {
      std::lock_guard<std::mutex> G(fftwPlannerLock());
      auto *C = reinterpret_cast<fftw_complex *>(Data);
      F = fftw_plan_many_dft(P.Rank, N, HowMany, C, nullptr, 1, Dist, C, nullptr, 1, Dist, Sign,
                             FFTW_ESTIMATE);
    }
    fftw_execute(F);
    std::lock_guard<std::mutex> G(fftwPlannerLock());
    fftw_destroy_plan(F);
  } else {
    fftwf_plan F;
    {
      std::lock_guard<std::mutex> G(fftwPlannerLock());
      auto *C = reinterpret_cast<fftwf_complex *>(Data);
      F = fftwf_plan_many_dft(P.Rank, N, HowMany, C, nullptr, 1, Dist, C, nullptr, 1, Dist, Sign,
                              FFTW_ESTIMATE);
    }
    fftwf_execute(F);
    std::lock_guard<std::mutex> G(fftwPlannerLock());
    fftwf_destroy_plan(F);
  }
}

/// Runs F(G, Device) with each of the plan's GPUs' primary context current
/// in turn, the caller's context restored after.
template <typename Fn> void onEachGpu(const DriverTable &D, const XtPlan &P, Fn F) {
  CUcontext Saved = nullptr;
  D.CtxGetCurrent(&Saved);
  for (int G = 0; G < P.gpus(); ++G) {
    CUdevice Dev;
    CUcontext C;
    if (D.DeviceGet(&Dev, P.Gpus[G]) != CUDA_SUCCESS || D.PrimaryCtxRetain(&C, Dev) != CUDA_SUCCESS)
      continue;
    D.CtxSetCurrent(C);
    F(G, Dev);
    D.PrimaryCtxRelease(Dev);
  }
  D.CtxSetCurrent(Saved);
}

/// Waits for every GPU of the plan (each one's null stream, which waits
/// for its blocking streams) and the plan's stream.
void synchronizeAll(const XtPlan &P, cudaStream_t Stream) {
  const DriverTable *D = ferry::libs::driver();
  if (!D)
    return;
  D->StreamSynchronize(nullptr); // the caller's device too
  onEachGpu(*D, P, [&](int, CUdevice) { D->StreamSynchronize(nullptr); });
  if (Stream)
    D->StreamSynchronize(reinterpret_cast<CUstream>(Stream));
}

/// A made multi-GPU plan and its view, or the status to answer.
cufftResult madeXt(cufftHandle H, XtPlan &X, PlanView &V) {
  if (!viewPlan(H, V) || !V.Made)
    return CUFFT_INVALID_PLAN;
  if (!findXt(H, X) || !X.Made)
    return CUFFT_INVALID_PLAN;
  return CUFFT_SUCCESS;
}

bool hostReaches(PlanView &V) {
  if (V.Kept->hostReachesDeviceMemory())
    return true;
  ferry::libs::logNoHostAccess("cufft", "CUFFT_NOT_SUPPORTED");
  return false;
}

cufftResult execDescriptor(cufftHandle H, cudaLibXtDesc *In, cudaLibXtDesc *Out, int Sign,
                           bool AnyType, cufftType Want) {
  PlanView V;
  if (!viewPlan(H, V) || !V.Made)
    return CUFFT_INVALID_PLAN;
  if (!In || !Out)
    return CUFFT_INVALID_PLAN;
  if (!AnyType && V.Type != Want)
    return CUFFT_INVALID_PLAN;
  XtPlan X;
  if (!findXt(H, X) || !X.Made) {
    logMessage("cufftXtExecDescriptor on single-GPU plan %d: descriptors need cufftXtSetGPUs "
               "(CUFFT_EXEC_FAILED)",
               H);
    return CUFFT_EXEC_FAILED;
  }
  if (Sign != CUFFT_FORWARD && Sign != CUFFT_INVERSE)
    return CUFFT_INVALID_VALUE;
  int InFormat = In->subFormat, OutFormat = Out->subFormat;
  if (X.How == Spread::Line) {
    // Natural or input-shuffled data in, strings out, in place only.
    if (InFormat != CUFFT_XT_FORMAT_INPLACE && InFormat != CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED)
      return CUFFT_INVALID_TYPE;
    if (In != Out)
      return CUFFT_EXEC_FAILED;
    OutFormat = CUFFT_XT_FORMAT_INPLACE_SHUFFLED;
  } else if (X.How == Spread::Slabs) {
    if (InFormat != CUFFT_XT_FORMAT_INPLACE && InFormat != CUFFT_XT_FORMAT_INPLACE_SHUFFLED)
      return CUFFT_INTERNAL_ERROR;
    if (In != Out)
      return CUFFT_EXEC_FAILED;
    OutFormat =
        shuffledFormat(InFormat) ? CUFFT_XT_FORMAT_INPLACE : CUFFT_XT_FORMAT_INPLACE_SHUFFLED;
  } else {
    // Batches stay where they are: every format is natural order.
    InFormat = OutFormat = CUFFT_XT_FORMAT_INPLACE;
  }
  Parts Src, Dst;
  if (!partsOf(X, In, InFormat, Src) || !partsOf(X, Out, OutFormat, Dst)) {
    logMessage("cufftXtExecDescriptor: a descriptor's nGPUs or part sizes do not fit plan %d "
               "(CUFFT_INVALID_VALUE)",
               H);
    return CUFFT_INVALID_VALUE;
  }
  if (!hostReaches(V))
    return CUFFT_NOT_SUPPORTED;
  if (X.How != Spread::Batches)
    Out->subFormat = OutFormat; // as NVIDIA's: the descriptor now says shuffled (or natural again)
  auto Work = [X, Src, Dst, Sign] {
    std::vector<char> Natural(X.points() * X.Batch * X.elementBytes());
    copyParts<false>(X, Src, Natural.data());
    fftwInPlace(X, Natural.data(), Sign);
    copyParts<true>(X, Dst, Natural.data());
  };
  if (!V.Stream) {
    // No stream set: the transform is ordered after, and before, the work
    // of every GPU's default stream, so it runs now, after all of it.
    synchronizeAll(X, nullptr);
    Work();
    return CUFFT_SUCCESS;
  }
  switch (
      ferry::libs::enqueueHostTask("cufft", reinterpret_cast<CUstream>(V.Stream), *V.Kept, Work)) {
  case ferry::libs::EnqueueResult::Ok:
    return CUFFT_SUCCESS;
  case ferry::libs::EnqueueResult::NoMemory:
    return CUFFT_ALLOC_FAILED;
  case ferry::libs::EnqueueResult::NoHostAccess:
    return CUFFT_NOT_SUPPORTED;
  default:
    return CUFFT_EXEC_FAILED;
  }
}

} // namespace

int ferry::cufft::xtGpuCount(cufftHandle H) {
  std::lock_guard<std::mutex> G(XtLock);
  auto It = xtPlans().find(H);
  return It == xtPlans().end() ? 0 : It->second.gpus();
}

cufftResult ferry::cufft::xtMake(cufftHandle H, int Rank, const long long *N, bool Advanced,
                                 cufftType Type, long long Batch, size_t *WorkSize) {
  std::lock_guard<std::mutex> G(XtLock);
  auto It = xtPlans().find(H);
  if (It == xtPlans().end())
    return CUFFT_SUCCESS;
  XtPlan &X = It->second;
  if (Type != CUFFT_C2C && Type != CUFFT_Z2Z) {
    if (Batch == 1 && Rank == 1)
      return CUFFT_INVALID_SIZE; // a single 1D multi-GPU transform is complex only
    logMessage("multi-GPU real-to-complex and complex-to-real plans are not implemented "
               "(CUFFT_NOT_SUPPORTED)");
    return CUFFT_NOT_SUPPORTED;
  }
  if (Advanced) {
    logMessage("multi-GPU plans with an advanced layout (inembed/onembed) are not implemented "
               "(CUFFT_NOT_SUPPORTED)");
    return CUFFT_NOT_SUPPORTED;
  }
  X.Rank = Rank;
  X.N[0] = X.N[1] = X.N[2] = 1;
  for (int K = 0; K < Rank; ++K)
    X.N[K] = N[K];
  X.Batch = Batch;
  X.Double = Type == CUFFT_Z2Z;
  long long Points = X.points();
  if (Points == 0)
    return CUFFT_INVALID_SIZE;
  if (Points * Batch > (1LL << 31) - 1) {
    logMessage("multi-GPU plans of 2^31 points or more are not implemented (CUFFT_NOT_SUPPORTED)");
    return CUFFT_NOT_SUPPORTED;
  }
  int Gpus = X.gpus();
  if (Batch > 1) {
    X.How = Spread::Batches;
  } else if (Rank == 1) {
    // The documented limits of a single 1D transform: a power of 2 on 2, 4,
    // 8 or 16 GPUs, at least 64 points (128 on 8 GPUs, 1024 on 16).
    long long Least = Gpus >= 16 ? 1024 : Gpus >= 8 ? 128 : 64;
    if (!powerOf2(N[0]) || N[0] < Least || !powerOf2(Gpus) || Gpus > 16)
      return CUFFT_INVALID_SIZE;
    X.How = Spread::Line;
    X.F = factorsOf(N[0], Gpus);
  } else {
    // A single 2D/3D transform: the two slowest axes at least 32 long.
    if (N[0] < 32 || N[1] < 32)
      return CUFFT_INVALID_SIZE;
    X.How = Spread::Slabs;
  }
  X.Made = true;
  if (WorkSize)
    for (int K = 0; K < Gpus; ++K)
      WorkSize[K] = 0;
  return CUFFT_SUCCESS;
}

void ferry::cufft::xtWorkSizes(cufftHandle H, size_t *WorkSize) {
  int Gpus = xtGpuCount(H);
  if (WorkSize)
    for (int K = 0; K < Gpus; ++K)
      WorkSize[K] = 0;
}

void ferry::cufft::xtForget(cufftHandle H) {
  std::lock_guard<std::mutex> G(XtLock);
  xtPlans().erase(H);
}

extern "C" {

cufftResult cufftXtSetGPUs(cufftHandle handle, int nGPUs, int *whichGPUs) {
  PlanView V;
  if (!viewPlan(handle, V) || V.Made)
    return CUFFT_INVALID_PLAN;
  if (nGPUs < 2 || !whichGPUs)
    return CUFFT_INVALID_VALUE;
  if (nGPUs > 16) {
    logMessage("cufftXtSetGPUs: cuFFT takes at most 16 GPUs (%d given; CUFFT_INVALID_VALUE)",
               nGPUs);
    return CUFFT_INVALID_VALUE;
  }
  int Count = 0;
  const DriverTable *D = ferry::libs::driver();
  if (!D || !ferry::libs::ensureContext() || D->DeviceGetCount(&Count) != CUDA_SUCCESS)
    return CUFFT_INVALID_DEVICE;
  for (int K = 0; K < nGPUs; ++K)
    if (whichGPUs[K] < 0 || whichGPUs[K] >= Count)
      return CUFFT_INVALID_DEVICE;
  std::lock_guard<std::mutex> G(XtLock);
  XtPlan &X = xtPlans()[handle];
  X = XtPlan();
  X.Gpus.assign(whichGPUs, whichGPUs + nGPUs);
  return CUFFT_SUCCESS;
}

cufftResult cufftXtSetWorkArea(cufftHandle plan, void **workArea) {
  PlanView V;
  if (!viewPlan(plan, V))
    return CUFFT_INVALID_PLAN;
  if (xtGpuCount(plan) > 0)
    return CUFFT_SUCCESS; // FFTW needs no work area on any GPU
  if (!workArea)
    return CUFFT_INVALID_VALUE;
  return cufftSetWorkArea(plan, workArea[0]);
}

cufftResult cufftXtMalloc(cufftHandle plan, cudaLibXtDesc **descriptor, cufftXtSubFormat format) {
  PlanView V;
  if (!viewPlan(plan, V) || !V.Made)
    return CUFFT_INVALID_PLAN;
  if (!descriptor)
    return CUFFT_INVALID_VALUE;
  XtPlan X;
  bool Multi = findXt(plan, X) && X.Made;
  if (Multi) {
    if (format < 0)
      return CUFFT_INVALID_VALUE;
    // Which formats each kind of plan has an order for.
    if (X.How == Spread::Batches || X.How == Spread::Slabs) {
      if (format == CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED)
        return CUFFT_INVALID_PLAN;
      if (X.How == Spread::Batches && format > CUFFT_XT_FORMAT_INPLACE)
        return CUFFT_INVALID_VALUE;
      if (X.How == Spread::Slabs && format > CUFFT_XT_FORMAT_INPLACE_SHUFFLED)
        return CUFFT_INVALID_VALUE;
    } else if (format > CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED) {
      return CUFFT_INVALID_VALUE;
    }
  }
  const DriverTable *D = ferry::libs::driver();
  if (!D || !ferry::libs::ensureContext())
    return CUFFT_INVALID_DEVICE;
  auto Lib = std::make_unique<cudaLibXtDesc>();
  auto Desc = std::make_unique<cudaXtDesc>();
  std::memset(Lib.get(), 0, sizeof(cudaLibXtDesc));
  std::memset(Desc.get(), 0, sizeof(cudaXtDesc));
  Lib->library = 0; // LIB_FORMAT_CUFFT
  Lib->subFormat = format;
  if (!Multi) {
    // A single-GPU plan's descriptor: one empty part on the current device.
    CUdevice Dev = 0;
    D->CtxGetDevice(&Dev, nullptr);
    Desc->nGPUs = 1;
    Desc->GPUs[0] = Dev;
  } else {
    Desc->nGPUs = X.gpus();
    bool Failed = false;
    std::vector<bool> Held(X.gpus(), false);
    onEachGpu(*D, X, [&](int G, CUdevice Dev) {
      CUcontext C;
      Held[G] = D->PrimaryCtxRetain(&C, Dev) == CUDA_SUCCESS; // until cufftXtFree
      Desc->GPUs[G] = X.Gpus[G];
      size_t Bytes = partCapacity(X, G) * X.elementBytes();
      CUdeviceptr Ptr = 0;
      if (Failed || !Bytes)
        return;
      if (D->MemAlloc(&Ptr, Bytes) != CUDA_SUCCESS) {
        Failed = true;
        return;
      }
      Desc->data[G] = reinterpret_cast<void *>(Ptr);
      Desc->size[G] = Bytes;
    });
    for (int G = 0; G < X.gpus(); ++G)
      if (!Held[G])
        Failed = true; // a device without a context
    if (Failed) {
      onEachGpu(*D, X, [&](int G, CUdevice Dev) {
        if (Desc->data[G])
          D->MemFree(reinterpret_cast<CUdeviceptr>(Desc->data[G]));
        if (Held[G])
          D->PrimaryCtxRelease(Dev);
      });
      return CUFFT_ALLOC_FAILED;
    }
  }
  Lib->descriptor = Desc.release();
  Lib->libDescriptor = Multi ? Lib.get() : nullptr; // NVIDIA's points it at state of its own
  *descriptor = Lib.release();
  std::lock_guard<std::mutex> G(XtLock);
  ownDescriptors().insert(*descriptor);
  return CUFFT_SUCCESS;
}

cufftResult cufftXtFree(cudaLibXtDesc *descriptor) {
  if (!descriptor)
    return CUFFT_SUCCESS;
  {
    std::lock_guard<std::mutex> G(XtLock);
    if (!ownDescriptors().erase(descriptor)) {
      logMessage("cufftXtFree: descriptor %p was not made by cufftXtMalloc (CUFFT_INVALID_VALUE)",
                 static_cast<void *>(descriptor));
      return CUFFT_INVALID_VALUE;
    }
  }
  cudaXtDesc *Desc = descriptor->descriptor;
  const DriverTable *D = ferry::libs::driver();
  if (D && Desc) {
    XtPlan Owners;
    for (int G = 0; G < Desc->nGPUs; ++G)
      Owners.Gpus.push_back(Desc->GPUs[G]);
    bool Multi = descriptor->libDescriptor != nullptr; // parts of several GPUs, each context held
    onEachGpu(*D, Owners, [&](int G, CUdevice Dev) {
      if (Desc->data[G])
        D->MemFree(reinterpret_cast<CUdeviceptr>(Desc->data[G]));
      if (Multi)
        D->PrimaryCtxRelease(Dev);
    });
  }
  delete Desc;
  delete descriptor;
  return CUFFT_SUCCESS;
}

cufftResult cufftXtMemcpy(cufftHandle plan, void *dstPointer, void *srcPointer,
                          cufftXtCopyType type) {
  PlanView V;
  if (!viewPlan(plan, V) || !V.Made)
    return CUFFT_INVALID_PLAN;
  if (type != CUFFT_COPY_HOST_TO_DEVICE && type != CUFFT_COPY_DEVICE_TO_HOST &&
      type != CUFFT_COPY_DEVICE_TO_DEVICE)
    return CUFFT_INVALID_VALUE;
  if (!dstPointer || !srcPointer)
    return CUFFT_INVALID_VALUE;
  XtPlan X;
  if (!findXt(plan, X) || !X.Made)
    return CUFFT_SUCCESS; // a single-GPU plan's descriptors hold nothing
  auto *DstDesc = static_cast<cudaLibXtDesc *>(dstPointer);
  auto *SrcDesc = static_cast<cudaLibXtDesc *>(srcPointer);
  // Which order each side is in (batches: always natural).
  auto orderOf = [&](const cudaLibXtDesc *D) {
    return X.How == Spread::Batches ? int(CUFFT_XT_FORMAT_INPLACE) : D->subFormat;
  };
  bool ToDevice = type != CUFFT_COPY_DEVICE_TO_HOST, FromDevice = type != CUFFT_COPY_HOST_TO_DEVICE;
  if (ToDevice && X.How == Spread::Line && DstDesc->subFormat == CUFFT_XT_FORMAT_INPLACE_SHUFFLED)
    return CUFFT_INVALID_TYPE; // strings are a transform's output only
  if (FromDevice && X.How == Spread::Line &&
      SrcDesc->subFormat == CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED)
    return CUFFT_INVALID_TYPE; // input-shuffled data only goes to a transform
  int DstFormat = ToDevice ? orderOf(DstDesc) : 0;
  if (type == CUFFT_COPY_DEVICE_TO_DEVICE && X.How == Spread::Batches) {
    // Measured on the H100: SUCCESS, and nothing copied (batches have one
    // order only, so there is nothing to redistribute).
    logMessage("cufftXtMemcpy device to device on batched plan %d copies nothing, as NVIDIA's cuFFT", plan);
    return CUFFT_SUCCESS;
  }
  if (type == CUFFT_COPY_DEVICE_TO_DEVICE) {
    // Redistributes into natural order.
    if (X.How != Spread::Batches && DstDesc->subFormat == CUFFT_XT_FORMAT_INPLACE_SHUFFLED)
      return CUFFT_INTERNAL_ERROR;
    DstFormat = CUFFT_XT_FORMAT_INPLACE;
  }
  Parts Src, Dst;
  if ((FromDevice && !partsOf(X, SrcDesc, orderOf(SrcDesc), Src)) ||
      (ToDevice && !partsOf(X, DstDesc, DstFormat, Dst))) {
    logMessage("cufftXtMemcpy: a descriptor's nGPUs or part sizes do not fit plan %d "
               "(CUFFT_INVALID_VALUE)",
               plan);
    return CUFFT_INVALID_VALUE;
  }
  if (!hostReaches(V))
    return CUFFT_NOT_SUPPORTED;
  synchronizeAll(X, V.Stream);
  size_t Bytes = X.points() * X.Batch * X.elementBytes();
  if (type == CUFFT_COPY_HOST_TO_DEVICE) {
    copyParts<true>(X, Dst, static_cast<char *>(srcPointer));
  } else if (type == CUFFT_COPY_DEVICE_TO_HOST) {
    copyParts<false>(X, Src, static_cast<char *>(dstPointer));
  } else {
    std::vector<char> Natural(Bytes);
    copyParts<false>(X, Src, Natural.data());
    copyParts<true>(X, Dst, Natural.data());
    if (X.How != Spread::Batches)
      DstDesc->subFormat = CUFFT_XT_FORMAT_INPLACE;
  }
  return CUFFT_SUCCESS;
}

cufftResult cufftXtExecDescriptor(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output,
                                  int direction) {
  PlanView V;
  if (!viewPlan(plan, V))
    return CUFFT_INVALID_PLAN;
  if (V.Type != CUFFT_C2C && V.Type != CUFFT_Z2Z)
    direction = V.Type == CUFFT_R2C || V.Type == CUFFT_D2Z ? CUFFT_FORWARD : CUFFT_INVERSE;
  return execDescriptor(plan, input, output, direction, true, V.Type);
}
cufftResult cufftXtExecDescriptorC2C(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output,
                                     int direction) {
  return execDescriptor(plan, input, output, direction, false, CUFFT_C2C);
}
cufftResult cufftXtExecDescriptorZ2Z(cufftHandle plan, cudaLibXtDesc *input, cudaLibXtDesc *output,
                                     int direction) {
  return execDescriptor(plan, input, output, direction, false, CUFFT_Z2Z);
}
cufftResult cufftXtExecDescriptorR2C(cufftHandle plan, cudaLibXtDesc *input,
                                     cudaLibXtDesc *output) {
  return execDescriptor(plan, input, output, CUFFT_FORWARD, false, CUFFT_R2C);
}
cufftResult cufftXtExecDescriptorD2Z(cufftHandle plan, cudaLibXtDesc *input,
                                     cudaLibXtDesc *output) {
  return execDescriptor(plan, input, output, CUFFT_FORWARD, false, CUFFT_D2Z);
}
cufftResult cufftXtExecDescriptorC2R(cufftHandle plan, cudaLibXtDesc *input,
                                     cudaLibXtDesc *output) {
  return execDescriptor(plan, input, output, CUFFT_INVERSE, false, CUFFT_C2R);
}
cufftResult cufftXtExecDescriptorZ2D(cufftHandle plan, cudaLibXtDesc *input,
                                     cudaLibXtDesc *output) {
  return execDescriptor(plan, input, output, CUFFT_INVERSE, false, CUFFT_Z2D);
}

cufftResult cufftXtQueryPlan(cufftHandle plan, void *queryStruct, cufftXtQueryType queryType) {
  if (!queryStruct || queryType != CUFFT_QUERY_1D_FACTORS)
    return CUFFT_INVALID_VALUE;
  XtPlan X;
  PlanView V;
  if (madeXt(plan, X, V) != CUFFT_SUCCESS || X.How != Spread::Line)
    return CUFFT_INVALID_PLAN;
  auto *Q = static_cast<cufftXt1dFactors *>(queryStruct);
  long long N = X.N[0];
  Q->size = N;
  Q->stringCount = X.F.Strings;
  Q->stringLength = N / X.F.Strings;
  Q->substringLength = Q->stringLength / X.F.Factor2;
  Q->factor1 = X.F.Factor1;
  Q->factor2 = X.F.Factor2;
  // Power-of-2 sizes: each mask is length - 1, each shift its log2.
  Q->stringMask = Q->stringLength - 1;
  Q->substringMask = Q->substringLength - 1;
  Q->factor1Mask = Q->factor1 - 1;
  Q->factor2Mask = Q->factor2 - 1;
  Q->stringShift = log2Of(Q->stringLength);
  Q->substringShift = log2Of(Q->substringLength);
  Q->factor1Shift = log2Of(Q->factor1);
  Q->factor2Shift = log2Of(Q->factor2);
  return CUFFT_SUCCESS;
}

} // extern "C"
