/// \file
/// ferry's cuFFT over FFTW (Debian's libfftw3/libfftw3f, DESIGN.md "libs"):
/// plans of rank 1-3 in cuFFT's basic and advanced layouts, single and
/// double precision, complex-to-complex and real/complex both ways, batched
/// and strided, in and out of place. cuFFT and FFTW define the transforms
/// alike (unnormalised, forward exponent -1), so a plan is one FFTW guru
/// plan whose dimensions and strides are cuFFT's layout.
///
/// Execution is stream ordered: cufftExec* checks its arguments, then
/// enqueues the transform on the plan's stream (libs/common's host tasks).
/// FFTW needs no scratch memory of ours, so every work-area size is 0, which
/// is also what NVIDIA's cuFFT reported for the sizes recorded on the H100
/// (tests/cufft/goldens). Statuses for bad arguments follow those goldens.
/// Of cufftXt, the single-GPU plan and exec calls over cudaDataType
/// (cufftXtMakePlanMany, cufftXtGetSizeMany, cufftXtExec) are implemented
/// for single and double precision; half precision and callbacks are not:
/// CUFFT_NOT_SUPPORTED with a log line. The multi-GPU calls (cufftXtSetGPUs,
/// descriptors, cufftXtExecDescriptor*) are Xt.cpp's.
#include "ferry/generated/CufftApi.h"
#include "libs/common/Driver.h"
#include "libs/common/HostTask.h"
#include "libs/cufft/Internal.h"
#include "libs/cufft/RocFft.h"

#include <fftw3.h>

#include <cstdarg>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <tuple>

namespace {

void logMessage(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
void logMessage(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  ferry::libs::vlogMessage("cufft", Fmt, Ap);
  va_end(Ap);
}

/// FFTW's planner is not thread safe; its plans' execution is.
std::mutex PlannerLock;

struct Plan {
  bool Made = false;
  int Rank = 0;
  long long N[3] = {1, 1, 1};
  long long Batch = 1;
  cufftType Type = CUFFT_C2C;
  bool Advanced = false; // inembed/onembed given
  long long InEmbed[3] = {0, 0, 0}, OutEmbed[3] = {0, 0, 0};
  long long IStride = 1, IDist = 0, OStride = 1, ODist = 0;
  cudaStream_t Stream = nullptr;
  bool AutoAllocate = true;
  void *WorkArea = nullptr;
  /// FFTW plans by (in place, input alignment, output alignment): FFTW's
  /// new-array execution needs those to match the planned arrays.
  std::mutex Lock;
  std::map<std::tuple<bool, int, int>, void *> Fftw;
  ferry::libs::TaskKeeper Kept;
  /// rocFFT's plans, where the host cannot reach device memory (RocFft.h).
  std::shared_ptr<ferry::cufft::RocPlans> Roc;

  ~Plan() {
    std::lock_guard<std::mutex> G(PlannerLock);
    for (auto &[K, P] : Fftw)
      if (isDouble())
        fftw_destroy_plan(static_cast<fftw_plan>(P));
      else
        fftwf_destroy_plan(static_cast<fftwf_plan>(P));
  }
  bool isDouble() const { return Type == CUFFT_Z2Z || Type == CUFFT_D2Z || Type == CUFFT_Z2D; }
  bool isReal() const { return Type != CUFFT_C2C && Type != CUFFT_Z2Z; }
  bool isForwardReal() const { return Type == CUFFT_R2C || Type == CUFFT_D2Z; }
};

std::mutex RegistryLock;
std::map<int, std::unique_ptr<Plan>> &registry() {
  static auto *R = new std::map<int, std::unique_ptr<Plan>>; // never destroyed: atexit order
  return *R;
}
int NextHandle = 1;

Plan *lookup(cufftHandle H) {
  std::lock_guard<std::mutex> G(RegistryLock);
  auto It = registry().find(H);
  return It == registry().end() ? nullptr : It->second.get();
}

} // namespace

bool ferry::cufft::viewPlan(cufftHandle H, PlanView &V) {
  Plan *P = lookup(H);
  if (!P)
    return false;
  V.Made = P->Made;
  V.Type = P->Type;
  V.Rank = P->Rank;
  for (int K = 0; K < 3; ++K)
    V.N[K] = P->N[K];
  V.Batch = P->Batch;
  V.Advanced = P->Advanced;
  V.Stream = P->Stream;
  V.Kept = &P->Kept;
  return true;
}

std::mutex &ferry::cufft::fftwPlannerLock() { return PlannerLock; }

namespace {

bool validType(cufftType T) {
  switch (T) {
  case CUFFT_R2C:
  case CUFFT_C2R:
  case CUFFT_C2C:
  case CUFFT_D2Z:
  case CUFFT_Z2D:
  case CUFFT_Z2Z:
    return true;
  }
  return false;
}

/// One FFTW guru dimension set for a plan, for in place or not (cuFFT's
/// basic layout pads a real array's rows in place, to n/2+1 complex).
void guruDims(const Plan &P, bool InPlace, fftw_iodim64 *Dims, fftw_iodim64 &HowMany) {
  long long Logical[3], In[3], Out[3];
  for (int K = 0; K < P.Rank; ++K)
    Logical[K] = In[K] = Out[K] = P.N[K];
  int Last = P.Rank - 1;
  long long IStride = 1, OStride = 1, IDist, ODist;
  if (P.Advanced) {
    for (int K = 0; K < P.Rank; ++K) {
      In[K] = P.InEmbed[K];
      Out[K] = P.OutEmbed[K];
    }
    IStride = P.IStride;
    OStride = P.OStride;
    IDist = P.IDist;
    ODist = P.ODist;
  } else {
    long long Half = P.N[Last] / 2 + 1;
    if (P.isForwardReal()) {
      Out[Last] = Half;
      if (InPlace)
        In[Last] = 2 * Half;
    } else if (P.isReal()) {
      In[Last] = Half;
      if (InPlace)
        Out[Last] = 2 * Half;
    }
    IDist = ODist = 1;
    for (int K = 0; K < P.Rank; ++K) {
      IDist *= In[K];
      ODist *= Out[K];
    }
  }
  // Strides of dimension K: the element stride times the embedding's
  // extent of every later dimension (cuFFT ignores inembed[0]).
  long long Is = IStride, Os = OStride;
  for (int K = Last; K >= 0; --K) {
    Dims[K].n = Logical[K];
    Dims[K].is = Is;
    Dims[K].os = Os;
    Is *= In[K];
    Os *= Out[K];
  }
  HowMany.n = P.Batch;
  HowMany.is = IDist;
  HowMany.os = ODist;
}

void *makeFftw(const Plan &P, void *In, void *Out, int Sign) {
  fftw_iodim64 Dims[3], HowMany;
  guruDims(P, In == Out, Dims, HowMany);
  unsigned Flags = FFTW_ESTIMATE;
  std::lock_guard<std::mutex> G(PlannerLock);
  switch (P.Type) {
  case CUFFT_C2C:
    return fftwf_plan_guru64_dft(P.Rank, Dims, 1, &HowMany, static_cast<fftwf_complex *>(In),
                                 static_cast<fftwf_complex *>(Out), Sign, Flags);
  case CUFFT_Z2Z:
    return fftw_plan_guru64_dft(P.Rank, Dims, 1, &HowMany, static_cast<fftw_complex *>(In),
                                static_cast<fftw_complex *>(Out), Sign, Flags);
  case CUFFT_R2C:
    return fftwf_plan_guru64_dft_r2c(P.Rank, Dims, 1, &HowMany, static_cast<float *>(In),
                                     static_cast<fftwf_complex *>(Out), Flags);
  case CUFFT_D2Z:
    return fftw_plan_guru64_dft_r2c(P.Rank, Dims, 1, &HowMany, static_cast<double *>(In),
                                    static_cast<fftw_complex *>(Out), Flags);
  case CUFFT_C2R:
    return fftwf_plan_guru64_dft_c2r(P.Rank, Dims, 1, &HowMany, static_cast<fftwf_complex *>(In),
                                     static_cast<float *>(Out), Flags);
  case CUFFT_Z2D:
    return fftw_plan_guru64_dft_c2r(P.Rank, Dims, 1, &HowMany, static_cast<fftw_complex *>(In),
                                    static_cast<double *>(Out), Flags);
  }
  return nullptr;
}

/// Runs on the stream: plans (once per in-place-ness and alignment and
/// direction) and executes.
void transform(Plan &P, void *In, void *Out, int Sign) {
  bool Dbl = P.isDouble();
  int Ia = Dbl ? fftw_alignment_of(static_cast<double *>(In)) : fftwf_alignment_of(static_cast<float *>(In));
  int Oa = Dbl ? fftw_alignment_of(static_cast<double *>(Out)) : fftwf_alignment_of(static_cast<float *>(Out));
  void *F = nullptr;
  {
    std::lock_guard<std::mutex> G(P.Lock);
    // The sign is part of a complex plan: key it in with the alignments.
    auto Key = std::make_tuple(In == Out, Ia * 4 + (Sign > 0 ? 1 : 0), Oa);
    auto It = P.Fftw.find(Key);
    if (It == P.Fftw.end())
      It = P.Fftw.emplace(Key, makeFftw(P, In, Out, Sign)).first;
    F = It->second;
  }
  if (!F) {
    logMessage("FFTW could not plan this transform; the output is unchanged");
    return;
  }
  switch (P.Type) {
  case CUFFT_C2C:
    fftwf_execute_dft(static_cast<fftwf_plan>(F), static_cast<fftwf_complex *>(In), static_cast<fftwf_complex *>(Out));
    break;
  case CUFFT_Z2Z:
    fftw_execute_dft(static_cast<fftw_plan>(F), static_cast<fftw_complex *>(In), static_cast<fftw_complex *>(Out));
    break;
  case CUFFT_R2C:
    fftwf_execute_dft_r2c(static_cast<fftwf_plan>(F), static_cast<float *>(In), static_cast<fftwf_complex *>(Out));
    break;
  case CUFFT_D2Z:
    fftw_execute_dft_r2c(static_cast<fftw_plan>(F), static_cast<double *>(In), static_cast<fftw_complex *>(Out));
    break;
  case CUFFT_C2R:
    fftwf_execute_dft_c2r(static_cast<fftwf_plan>(F), static_cast<fftwf_complex *>(In), static_cast<float *>(Out));
    break;
  case CUFFT_Z2D:
    fftw_execute_dft_c2r(static_cast<fftw_plan>(F), static_cast<fftw_complex *>(In), static_cast<double *>(Out));
    break;
  }
}

/// A GPU whose memory the host cannot reach: the transform goes to rocFFT
/// with the layout FFTW would get (libs/README.md, "The AMD backend").
cufftResult forwardToRocfft(Plan &P, void *In, void *Out, int Sign) {
  fftw_iodim64 Dims[3], HowMany;
  guruDims(P, In == Out, Dims, HowMany);
  ferry::cufft::RocTransform T;
  T.Rank = P.Rank;
  for (int K = 0; K < P.Rank; ++K) {
    T.N[K] = Dims[K].n;
    T.IStride[K] = Dims[K].is;
    T.OStride[K] = Dims[K].os;
  }
  T.Batch = HowMany.n;
  T.IDist = HowMany.is;
  T.ODist = HowMany.os;
  T.Type = P.Type;
  T.InPlace = In == Out;
  T.Sign = Sign;
  return ferry::cufft::forwardTransform(P.Roc, reinterpret_cast<CUstream>(P.Stream), P.Kept, T, In, Out);
}

cufftResult exec(cufftHandle H, cufftType Want, void *In, void *Out, int Sign) {
  Plan *P = lookup(H);
  if (!P || !P->Made)
    return CUFFT_INVALID_PLAN;
  if (P->Type != Want) {
    // Measured: NVIDIA answers an inverse real transform on another plan's
    // type with INVALID_VALUE, and the other mismatches with SUCCESS
    // (computing nothing useful); ferry computes nothing and says so.
    if (Want == CUFFT_C2R || Want == CUFFT_Z2D)
      return CUFFT_INVALID_VALUE;
    logMessage("plan %d is not of the type its exec call asks for; nothing computed", H);
    return CUFFT_SUCCESS;
  }
  if ((Want == CUFFT_C2C || Want == CUFFT_Z2Z) && Sign != CUFFT_FORWARD && Sign != CUFFT_INVERSE)
    return CUFFT_INVALID_VALUE;
  if (!In || !Out)
    return CUFFT_INVALID_VALUE;
  if (ferry::cufft::xtGpuCount(H) > 0) {
    // NVIDIA's answered INVALID_TYPE (H100, a plan on GPUs {0, 0}).
    logMessage("cufftExec*/cufftXtExec on multi-GPU plan %d: a multi-GPU plan runs through "
               "cufftXtExecDescriptor* only (CUFFT_INVALID_TYPE)",
               H);
    return CUFFT_INVALID_TYPE;
  }
  for (int K = 0; K < P->Rank; ++K)
    if (P->N[K] == 0)
      return CUFFT_SUCCESS; // an empty transform (Plan3d accepts a 0 extent)
  if (!P->Kept.hostReachesDeviceMemory())
    return forwardToRocfft(*P, In, Out, Sign);
  switch (ferry::libs::enqueueHostTask("cufft", reinterpret_cast<CUstream>(P->Stream), P->Kept,
                                       [P, In, Out, Sign] { transform(*P, In, Out, Sign); })) {
  case ferry::libs::EnqueueResult::Ok:
    return CUFFT_SUCCESS;
  case ferry::libs::EnqueueResult::NoMemory:
    return CUFFT_ALLOC_FAILED;
  case ferry::libs::EnqueueResult::NoHostAccess:
    ferry::libs::logNoHostAccess("cufft", "CUFFT_NOT_SUPPORTED");
    return CUFFT_NOT_SUPPORTED;
  default:
    return CUFFT_EXEC_FAILED;
  }
}

/// Sizes and layout into a created, unmade plan. Negative extents and
/// batches are INVALID_SIZE; so are zero ones except in Plan3d's shape,
/// where NVIDIA's cuFFT accepted one (recorded: cufftPlan3d(4, 4, 0)).
cufftResult make(cufftHandle H, int Rank, const long long *N, const long long *InEmbed, long long IStride,
                 long long IDist, const long long *OutEmbed, long long OStride, long long ODist, cufftType Type,
                 long long Batch, size_t *WorkSize, bool AllowZero = false) {
  Plan *P = lookup(H);
  if (!P || P->Made)
    return CUFFT_INVALID_PLAN;
  if (Rank < 1 || Rank > 3)
    return CUFFT_INVALID_VALUE;
  if (!validType(Type))
    return CUFFT_INVALID_TYPE;
  if (Batch <= 0)
    return CUFFT_INVALID_SIZE;
  for (int K = 0; K < Rank; ++K)
    if (N[K] < 0 || (N[K] == 0 && !AllowZero))
      return CUFFT_INVALID_SIZE;
  if (ferry::cufft::xtGpuCount(H) > 0)
    if (cufftResult R = ferry::cufft::xtMake(H, Rank, N, InEmbed && OutEmbed, Type, Batch, WorkSize);
        R != CUFFT_SUCCESS)
      return R;
  P->Rank = Rank;
  P->Type = Type;
  P->Batch = Batch;
  for (int K = 0; K < Rank; ++K)
    P->N[K] = N[K];
  // cuFFT: both embeddings null means the basic layout (strides ignored).
  P->Advanced = InEmbed && OutEmbed;
  if (P->Advanced) {
    for (int K = 0; K < Rank; ++K) {
      P->InEmbed[K] = InEmbed[K];
      P->OutEmbed[K] = OutEmbed[K];
    }
    P->IStride = IStride;
    P->OStride = OStride;
    P->IDist = IDist;
    P->ODist = ODist;
  }
  P->Made = true;
  if (WorkSize)
    *WorkSize = 0;
  ferry::cufft::xtWorkSizes(H, WorkSize);
  return CUFFT_SUCCESS;
}

cufftResult checkSizes(int Rank, const long long *N, cufftType Type, long long Batch, size_t *WorkSize) {
  if (Rank < 1 || Rank > 3)
    return CUFFT_INVALID_VALUE;
  if (!validType(Type))
    return CUFFT_INVALID_TYPE;
  if (Batch <= 0)
    return CUFFT_INVALID_SIZE;
  for (int K = 0; K < Rank; ++K)
    if (N[K] <= 0)
      return CUFFT_INVALID_SIZE;
  if (WorkSize)
    *WorkSize = 0;
  return CUFFT_SUCCESS;
}

/// A GetSize* answer for a plan that may have several GPUs: a work size
/// of 0 for each (cufftXtSetGPUs' plans take an array).
cufftResult withXtWorkSizes(cufftHandle H, size_t *WorkSize, cufftResult R) {
  if (R == CUFFT_SUCCESS)
    ferry::cufft::xtWorkSizes(H, WorkSize);
  return R;
}

template <typename I> void widen(int Rank, const I *In, long long *Out) {
  for (int K = 0; K < Rank && K < 3; ++K)
    Out[K] = In[K];
}

/// cufftPlan*: create and make in one, the handle released on failure.
template <typename F> cufftResult createAndMake(cufftHandle *Out, F Make) {
  if (!Out)
    return CUFFT_INVALID_VALUE;
  cufftHandle H;
  if (cufftResult R = cufftCreate(&H); R != CUFFT_SUCCESS)
    return R;
  if (cufftResult R = Make(H); R != CUFFT_SUCCESS) {
    cufftDestroy(H);
    return R;
  }
  *Out = H;
  return CUFFT_SUCCESS;
}

} // namespace

extern "C" {

cufftResult cufftCreate(cufftHandle *handle) {
  if (!handle)
    return CUFFT_INVALID_VALUE;
  try {
    auto P = std::make_unique<Plan>();
    std::lock_guard<std::mutex> G(RegistryLock);
    int H = NextHandle++;
    registry().emplace(H, std::move(P));
    *handle = H;
  } catch (const std::bad_alloc &) {
    return CUFFT_ALLOC_FAILED;
  }
  return CUFFT_SUCCESS;
}

cufftResult cufftDestroy(cufftHandle plan) {
  std::unique_ptr<Plan> Gone;
  {
    std::lock_guard<std::mutex> G(RegistryLock);
    auto It = registry().find(plan);
    if (It == registry().end())
      return CUFFT_INVALID_PLAN;
    Gone = std::move(It->second);
    registry().erase(It);
  }
  ferry::cufft::xtForget(plan);
  // Queued transforms use the plan: let them finish first.
  if (const ferry::libs::DriverTable *D = ferry::libs::driver())
    D->StreamSynchronize(reinterpret_cast<CUstream>(Gone->Stream));
  return CUFFT_SUCCESS;
}

cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize) {
  long long N[1] = {nx};
  return make(plan, 1, N, nullptr, 1, 0, nullptr, 1, 0, type, batch, workSize);
}

cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize) {
  long long N[2] = {nx, ny};
  return make(plan, 2, N, nullptr, 1, 0, nullptr, 1, 0, type, 1, workSize);
}

cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t *workSize) {
  long long N[3] = {nx, ny, nz};
  return make(plan, 3, N, nullptr, 1, 0, nullptr, 1, 0, type, 1, workSize, true);
}

cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                long long int istride, long long int idist, long long int *onembed,
                                long long int ostride, long long int odist, cufftType type, long long int batch,
                                size_t *workSize) {
  if (!n || rank < 1 || rank > 3)
    return CUFFT_INVALID_VALUE;
  return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
}

cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                              int ostride, int odist, cufftType type, int batch, size_t *workSize) {
  if (!n || rank < 1 || rank > 3)
    return CUFFT_INVALID_VALUE;
  long long N[3], Ie[3], Oe[3];
  widen(rank, n, N);
  if (inembed)
    widen(rank, inembed, Ie);
  if (onembed)
    widen(rank, onembed, Oe);
  return make(plan, rank, N, inembed ? Ie : nullptr, istride, idist, onembed ? Oe : nullptr, ostride, odist, type,
              batch, workSize);
}

cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch) {
  return createAndMake(plan, [&](cufftHandle H) { return cufftMakePlan1d(H, nx, type, batch, nullptr); });
}

cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type) {
  return createAndMake(plan, [&](cufftHandle H) { return cufftMakePlan2d(H, nx, ny, type, nullptr); });
}

cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type) {
  return createAndMake(plan, [&](cufftHandle H) { return cufftMakePlan3d(H, nx, ny, nz, type, nullptr); });
}

cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                          int ostride, int odist, cufftType type, int batch) {
  return createAndMake(plan, [&](cufftHandle H) {
    return cufftMakePlanMany(H, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, nullptr);
  });
}

cufftResult cufftEstimate1d(int nx, cufftType type, int batch, size_t *workSize) {
  long long N[1] = {nx};
  return checkSizes(1, N, type, batch, workSize);
}

cufftResult cufftEstimate2d(int nx, int ny, cufftType type, size_t *workSize) {
  long long N[2] = {nx, ny};
  return checkSizes(2, N, type, 1, workSize);
}

cufftResult cufftEstimate3d(int nx, int ny, int nz, cufftType type, size_t *workSize) {
  long long N[3] = {nx, ny, nz};
  return checkSizes(3, N, type, 1, workSize);
}

cufftResult cufftEstimateMany(int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride,
                              int odist, cufftType type, int batch, size_t *workSize) {
  if (!n || rank < 1 || rank > 3)
    return CUFFT_INVALID_VALUE;
  long long N[3];
  widen(rank, n, N);
  return checkSizes(rank, N, type, batch, workSize);
}

cufftResult cufftGetSize1d(cufftHandle handle, int nx, cufftType type, int batch, size_t *workSize) {
  if (!lookup(handle))
    return CUFFT_INVALID_PLAN;
  return withXtWorkSizes(handle, workSize, cufftEstimate1d(nx, type, batch, workSize));
}

cufftResult cufftGetSize2d(cufftHandle handle, int nx, int ny, cufftType type, size_t *workSize) {
  if (!lookup(handle))
    return CUFFT_INVALID_PLAN;
  return withXtWorkSizes(handle, workSize, cufftEstimate2d(nx, ny, type, workSize));
}

cufftResult cufftGetSize3d(cufftHandle handle, int nx, int ny, int nz, cufftType type, size_t *workSize) {
  if (!lookup(handle))
    return CUFFT_INVALID_PLAN;
  return withXtWorkSizes(handle, workSize, cufftEstimate3d(nx, ny, nz, type, workSize));
}

cufftResult cufftGetSizeMany(cufftHandle handle, int rank, int *n, int *inembed, int istride, int idist,
                             int *onembed, int ostride, int odist, cufftType type, int batch, size_t *workArea) {
  if (!lookup(handle))
    return CUFFT_INVALID_PLAN;
  return withXtWorkSizes(
      handle, workArea,
      cufftEstimateMany(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workArea));
}

cufftResult cufftGetSizeMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                               long long int istride, long long int idist, long long int *onembed,
                               long long int ostride, long long int odist, cufftType type, long long int batch,
                               size_t *workSize) {
  if (!lookup(plan))
    return CUFFT_INVALID_PLAN;
  if (!n)
    return CUFFT_INVALID_VALUE;
  return withXtWorkSizes(plan, workSize, checkSizes(rank, n, type, batch, workSize));
}

cufftResult cufftGetSize(cufftHandle handle, size_t *workSize) {
  Plan *P = lookup(handle);
  if (!P || !P->Made)
    return CUFFT_INVALID_PLAN;
  if (workSize)
    *workSize = 0;
  ferry::cufft::xtWorkSizes(handle, workSize);
  return CUFFT_SUCCESS;
}

cufftResult cufftSetWorkArea(cufftHandle plan, void *workArea) {
  Plan *P = lookup(plan);
  if (!P)
    return CUFFT_INVALID_PLAN;
  P->WorkArea = workArea; // FFTW needs none; kept for the record
  return CUFFT_SUCCESS;
}

cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate) {
  Plan *P = lookup(plan);
  if (!P)
    return CUFFT_INVALID_PLAN;
  P->AutoAllocate = autoAllocate != 0;
  return CUFFT_SUCCESS;
}

cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream) {
  Plan *P = lookup(plan);
  if (!P)
    return CUFFT_INVALID_PLAN;
  P->Stream = stream;
  return CUFFT_SUCCESS;
}

cufftResult cufftGetVersion(int *version) {
  if (!version)
    return CUFFT_INVALID_VALUE;
  *version = CUFFT_VERSION;
  return CUFFT_SUCCESS;
}

cufftResult cufftGetProperty(libraryPropertyType type, int *value) {
  if (!value)
    return CUFFT_INVALID_VALUE;
  switch (type) {
  case MAJOR_VERSION:
    *value = CUFFT_VER_MAJOR;
    return CUFFT_SUCCESS;
  case MINOR_VERSION:
    *value = CUFFT_VER_MINOR;
    return CUFFT_SUCCESS;
  case PATCH_LEVEL:
    *value = CUFFT_VER_PATCH;
    return CUFFT_SUCCESS;
  }
  return CUFFT_INVALID_TYPE;
}

cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction) {
  return exec(plan, CUFFT_C2C, idata, odata, direction);
}
cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction) {
  return exec(plan, CUFFT_Z2Z, idata, odata, direction);
}
cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata) {
  return exec(plan, CUFFT_R2C, idata, odata, CUFFT_FORWARD);
}
cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata) {
  return exec(plan, CUFFT_D2Z, idata, odata, CUFFT_FORWARD);
}
cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata) {
  return exec(plan, CUFFT_C2R, idata, odata, CUFFT_INVERSE);
}
cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata) {
  return exec(plan, CUFFT_Z2D, idata, odata, CUFFT_INVERSE);
}

/// cufftXt's types: input, output and execution types name one of the six
/// transforms (half precision: not supported).
static cufftResult xtType(cudaDataType In, cudaDataType Out, cudaDataType Exec, cufftType &Type) {
  if (In == CUDA_C_32F && Out == CUDA_C_32F && Exec == CUDA_C_32F)
    Type = CUFFT_C2C;
  else if (In == CUDA_R_32F && Out == CUDA_C_32F && Exec == CUDA_C_32F)
    Type = CUFFT_R2C;
  else if (In == CUDA_C_32F && Out == CUDA_R_32F && Exec == CUDA_C_32F)
    Type = CUFFT_C2R;
  else if (In == CUDA_C_64F && Out == CUDA_C_64F && Exec == CUDA_C_64F)
    Type = CUFFT_Z2Z;
  else if (In == CUDA_R_64F && Out == CUDA_C_64F && Exec == CUDA_C_64F)
    Type = CUFFT_D2Z;
  else if (In == CUDA_C_64F && Out == CUDA_R_64F && Exec == CUDA_C_64F)
    Type = CUFFT_Z2D;
  else if (In == CUDA_R_16F || In == CUDA_C_16F || In == CUDA_R_16BF || In == CUDA_C_16BF) {
    logMessage("half-precision transforms are not implemented (CUFFT_NOT_SUPPORTED)");
    return CUFFT_NOT_SUPPORTED;
  } else
    return CUFFT_INVALID_TYPE;
  return CUFFT_SUCCESS;
}

cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                long long int istride, long long int idist, cudaDataType inputtype,
                                long long int *onembed, long long int ostride, long long int odist,
                                cudaDataType outputtype, long long int batch, size_t *workSize,
                                cudaDataType executiontype) {
  cufftType Type;
  if (cufftResult R = xtType(inputtype, outputtype, executiontype, Type); R != CUFFT_SUCCESS)
    return R;
  return cufftMakePlanMany64(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, Type, batch,
                             workSize);
}

cufftResult cufftXtGetSizeMany(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                               long long int istride, long long int idist, cudaDataType inputtype,
                               long long int *onembed, long long int ostride, long long int odist,
                               cudaDataType outputtype, long long int batch, size_t *workSize,
                               cudaDataType executiontype) {
  cufftType Type;
  if (cufftResult R = xtType(inputtype, outputtype, executiontype, Type); R != CUFFT_SUCCESS)
    return R;
  return cufftGetSizeMany64(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, Type, batch, workSize);
}

cufftResult cufftXtExec(cufftHandle plan, void *input, void *output, int direction) {
  Plan *P = lookup(plan);
  if (!P || !P->Made)
    return CUFFT_INVALID_PLAN;
  return exec(plan, P->Type, input, output, P->isReal() ? (P->isForwardReal() ? CUFFT_FORWARD : CUFFT_INVERSE)
                                                        : direction);
}

} // extern "C"
