/// \file
/// Forwarding cuFFT transforms to rocFFT (see RocFft.h). The declarations
/// below are the rocFFT entry points and enum values used, written from
/// AMD's public rocFFT API reference (rocfft.h: rocfft_status,
/// rocfft_transform_type, rocfft_precision, rocfft_result_placement and
/// rocfft_array_type are plain C enums counted from 0). rocFFT computes
/// what cuFFT does: exponent sign - forward, + backward, unnormalised
/// ("FFT computation" in its documentation); its lengths, strides and
/// distances count elements, innermost dimension first.
#include "libs/cufft/RocFft.h"
#include "libs/common/Driver.h"
#include "libs/common/Rocm.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <utility>

namespace ferry::cufft {

namespace {

using RocStatus = int; // rocfft_status: 0 is success
constexpr int PlaceInplace = 0, PlaceNotInplace = 1;
constexpr int ComplexForward = 0, ComplexInverse = 1, RealForward = 2, RealInverse = 3;
constexpr int PrecisionSingle = 0, PrecisionDouble = 1;
constexpr int ArrayComplexInterleaved = 0, ArrayReal = 2, ArrayHermitianInterleaved = 3;

struct RocFftApi {
  RocStatus (*Setup)() = nullptr;
  RocStatus (*PlanCreate)(void **Plan, int Placement, int TransformType, int Precision, size_t Dimensions,
                          const size_t *Lengths, size_t Transforms, void *Description) = nullptr;
  RocStatus (*PlanDestroy)(void *Plan) = nullptr;
  RocStatus (*PlanWorkBufferSize)(void *Plan, size_t *Bytes) = nullptr;
  RocStatus (*DescriptionCreate)(void **Description) = nullptr;
  RocStatus (*DescriptionDestroy)(void *Description) = nullptr;
  RocStatus (*SetDataLayout)(void *Description, int InArrayType, int OutArrayType, const size_t *InOffsets,
                             const size_t *OutOffsets, size_t InStridesSize, const size_t *InStrides,
                             size_t InDistance, size_t OutStridesSize, const size_t *OutStrides,
                             size_t OutDistance) = nullptr;
  RocStatus (*InfoCreate)(void **Info) = nullptr;
  RocStatus (*InfoDestroy)(void *Info) = nullptr;
  RocStatus (*InfoSetStream)(void *Info, void *Stream) = nullptr;
  RocStatus (*InfoSetWorkBuffer)(void *Info, void *Buffer, size_t Bytes) = nullptr;
  RocStatus (*Execute)(void *Plan, void **InBuffers, void **OutBuffers, void *Info) = nullptr;
};

/// rocFFT, loaded and set up once; null with WhyNot when it (or a call) is
/// missing.
const RocFftApi *rocFft(std::string &WhyNot) {
  static libs::RocmEntries<RocFftApi> Entries;
  return Entries.get(WhyNot, [](RocFftApi &Api, std::string &Why) {
    // Newest first: rocFFT has kept soname 0 through ROCm 5-7.
    static const char *const Names[] = {"librocfft.so.1", "librocfft.so.0", "librocfft.so", nullptr};
    std::string W;
    void *Lib = libs::openRocmLibrary(Names, W);
    bool Ok =
        Lib && libs::findRocmSymbol(Lib, "rocfft_setup", Api.Setup, W) &&
        libs::findRocmSymbol(Lib, "rocfft_plan_create", Api.PlanCreate, W) &&
        libs::findRocmSymbol(Lib, "rocfft_plan_destroy", Api.PlanDestroy, W) &&
        libs::findRocmSymbol(Lib, "rocfft_plan_get_work_buffer_size", Api.PlanWorkBufferSize, W) &&
        libs::findRocmSymbol(Lib, "rocfft_plan_description_create", Api.DescriptionCreate, W) &&
        libs::findRocmSymbol(Lib, "rocfft_plan_description_destroy", Api.DescriptionDestroy, W) &&
        libs::findRocmSymbol(Lib, "rocfft_plan_description_set_data_layout", Api.SetDataLayout,
                             W) &&
        libs::findRocmSymbol(Lib, "rocfft_execution_info_create", Api.InfoCreate, W) &&
        libs::findRocmSymbol(Lib, "rocfft_execution_info_destroy", Api.InfoDestroy, W) &&
        libs::findRocmSymbol(Lib, "rocfft_execution_info_set_stream", Api.InfoSetStream, W) &&
        libs::findRocmSymbol(Lib, "rocfft_execution_info_set_work_buffer", Api.InfoSetWorkBuffer,
                             W) &&
        libs::findRocmSymbol(Lib, "rocfft_execute", Api.Execute, W);
    if (Ok && Api.Setup() != 0) {
      Ok = false;
      W = "rocfft_setup failed";
    }
    if (!Ok)
      Why = "rocFFT: " + W;
    return Ok;
  });
}

bool isDouble(cufftType T) { return T == CUFFT_Z2Z || T == CUFFT_D2Z || T == CUFFT_Z2D; }

} // namespace

struct RocPlans {
  const RocFftApi *Api = nullptr;
  const libs::HipRuntime *Hip = nullptr;
  void *Stream = nullptr; // hipStream_t
  struct One {
    void *Plan = nullptr;
    CUdeviceptr Work = 0; // cuMemAlloc'ed: the plan's work area, as cuFFT's auto-allocation
    size_t WorkBytes = 0;
  };
  /// By (in place, sign): rocFFT fixes both at plan creation.
  std::map<std::pair<bool, int>, One> Plans;
  std::mutex Lock;

  ~RocPlans() {
    const libs::DriverTable *D = libs::driver();
    for (auto &[Key, P] : Plans) {
      Api->PlanDestroy(P.Plan);
      if (P.Work && D)
        D->MemFree(P.Work);
    }
    if (Stream)
      Hip->StreamDestroy(Stream);
  }
};

namespace {

cufftResult refuse(const std::string &Why) {
  libs::logNoHostAccess("cufft", "CUFFT_NOT_SUPPORTED", ("no rocFFT forwarding: " + Why).c_str());
  return CUFFT_NOT_SUPPORTED;
}

/// The rocFFT plan for T's placement and direction, made on first use
/// (the caller holds S.Lock). Null with Why when rocFFT refuses it.
RocPlans::One *planFor(RocPlans &S, const RocTransform &T, std::string &Why) {
  auto Key = std::make_pair(T.InPlace, T.Type == CUFFT_C2C || T.Type == CUFFT_Z2Z ? T.Sign : 0);
  if (auto It = S.Plans.find(Key); It != S.Plans.end())
    return &It->second;
  size_t Lengths[3], IStrides[3], OStrides[3];
  for (int K = 0; K < T.Rank; ++K) {
    int R = T.Rank - 1 - K; // rocFFT's dimension 0 is cuFFT's last
    if (T.N[K] <= 0 || T.IStride[K] < 0 || T.OStride[K] < 0) {
      Why = "a negative stride";
      return nullptr;
    }
    Lengths[R] = size_t(T.N[K]);
    IStrides[R] = size_t(T.IStride[K]);
    OStrides[R] = size_t(T.OStride[K]);
  }
  if (T.IDist < 0 || T.ODist < 0 || T.Batch <= 0) {
    Why = "a negative batch distance";
    return nullptr;
  }
  int Kind, InArray, OutArray;
  switch (T.Type) {
  case CUFFT_C2C:
  case CUFFT_Z2Z:
    Kind = T.Sign == CUFFT_FORWARD ? ComplexForward : ComplexInverse;
    InArray = OutArray = ArrayComplexInterleaved;
    break;
  case CUFFT_R2C:
  case CUFFT_D2Z:
    Kind = RealForward;
    InArray = ArrayReal;
    OutArray = ArrayHermitianInterleaved;
    break;
  default:
    Kind = RealInverse;
    InArray = ArrayHermitianInterleaved;
    OutArray = ArrayReal;
    break;
  }
  const RocFftApi &A = *S.Api;
  void *Desc = nullptr;
  if (RocStatus St = A.DescriptionCreate(&Desc); St != 0) {
    Why = "rocfft_plan_description_create failed (" + std::to_string(St) + ")";
    return nullptr;
  }
  RocPlans::One P;
  RocStatus St = A.SetDataLayout(Desc, InArray, OutArray, nullptr, nullptr, size_t(T.Rank), IStrides,
                                 size_t(T.IDist), size_t(T.Rank), OStrides, size_t(T.ODist));
  if (St == 0)
    St = A.PlanCreate(&P.Plan, T.InPlace ? PlaceInplace : PlaceNotInplace, Kind,
                      isDouble(T.Type) ? PrecisionDouble : PrecisionSingle, size_t(T.Rank), Lengths, size_t(T.Batch),
                      Desc);
  A.DescriptionDestroy(Desc);
  if (St != 0) {
    Why = "rocFFT refused the plan's layout (rocfft_status " + std::to_string(St) + ")";
    return nullptr;
  }
  if (A.PlanWorkBufferSize(P.Plan, &P.WorkBytes) != 0)
    P.WorkBytes = 0;
  const libs::DriverTable *D = libs::driver();
  if (P.WorkBytes && (!D || D->MemAlloc(&P.Work, P.WorkBytes) != CUDA_SUCCESS)) {
    A.PlanDestroy(P.Plan);
    Why = "no device memory for rocFFT's work buffer (" + std::to_string(P.WorkBytes) + " bytes)";
    return nullptr;
  }
  return &S.Plans.emplace(Key, P).first->second;
}

} // namespace

cufftResult forwardTransform(std::shared_ptr<RocPlans> &State, CUstream Stream, libs::TaskKeeper &Kept,
                             const RocTransform &T, void *In, void *Out) {
  std::string Why;
  const RocFftApi *Api = rocFft(Why);
  const libs::HipRuntime *Hip = Api ? libs::hipRuntime(Why) : nullptr;
  if (!Api || !Hip)
    return refuse(Why);
  static std::mutex StateLock; // plans may be shared between threads
  std::shared_ptr<RocPlans> S;
  {
    std::lock_guard<std::mutex> L(StateLock);
    if (!State) {
      auto New = std::make_shared<RocPlans>();
      New->Api = Api;
      New->Hip = Hip;
      if (Hip->StreamCreate(&New->Stream) != 0) {
        New->Stream = nullptr;
        return refuse("hipStreamCreate failed");
      }
      State = New;
    }
    S = State;
  }
  RocPlans::One P;
  {
    std::lock_guard<std::mutex> L(S->Lock);
    RocPlans::One *Made = planFor(*S, T, Why);
    if (!Made)
      return refuse(Why);
    P = *Made; // lives as long as S
  }
  bool InPlace = T.InPlace;
  auto Work = [S, P, InPlace, In, Out] {
    const RocFftApi &A = *S->Api;
    void *Info = nullptr;
    RocStatus St = A.InfoCreate(&Info);
    if (St == 0)
      St = A.InfoSetStream(Info, S->Stream);
    if (St == 0 && P.WorkBytes)
      St = A.InfoSetWorkBuffer(Info, reinterpret_cast<void *>(P.Work), P.WorkBytes);
    void *InBuf[1] = {In}, *OutBuf[1] = {Out};
    if (St == 0)
      St = A.Execute(P.Plan, InBuf, InPlace ? nullptr : OutBuf, Info);
    int Sync = S->Hip->StreamSynchronize(S->Stream);
    if (Info)
      A.InfoDestroy(Info);
    if (St != 0 || Sync != 0)
      libs::logMessage("cufft", "rocfft_execute failed (rocFFT status %d, HIP error %d); the output is not written",
                       St, Sync);
  };
  try {
    switch (libs::enqueueHostTask("cufft", Stream, Kept, std::function<void()>(std::move(Work)),
                                  /*ReadsDeviceMemory=*/false)) {
    case libs::EnqueueResult::Ok:
      return CUFFT_SUCCESS;
    case libs::EnqueueResult::NoMemory:
      return CUFFT_ALLOC_FAILED;
    default:
      return CUFFT_EXEC_FAILED;
    }
  } catch (const std::bad_alloc &) {
    return CUFFT_ALLOC_FAILED;
  }
}

} // namespace ferry::cufft
