// A test double for rocFFT (librocfft.so.0): the entry points ferry's
// libcufft forwards transforms to (libs/cufft/RocFft.cpp), computing with
// FFTW on host memory, which the simulated GPU's device memory is. Written
// from AMD's documented signatures and enum values (rocfft.h); it refuses
// what a real rocFFT would (unknown enums, array types that do not fit the
// transform, a stream that is not the fake HIP runtime's) and insists on
// the work buffer its plans ask for, so a wrong mapping shows as a failed
// call or a wrong result. Each plan and execution is logged on stderr for
// check-no-host-access.
#include <fftw3.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace {
constexpr int Success = 0, Failure = 1, InvalidArgValue = 2, InvalidDimensions = 3, InvalidArrayType = 4,
              InvalidStrides = 5, InvalidWorkBuffer = 8;

/// A stream of FakeHip.cpp's: it starts with that magic word.
bool fakeHipStreamValid(void *S) { return S && *static_cast<const uint32_t *>(S) == 0x48495053; }

struct Layout {
  int InArray = 5, OutArray = 5; // rocfft_array_type_unset
  size_t InStrides[3] = {0, 0, 0}, OutStrides[3] = {0, 0, 0};
  size_t InDist = 0, OutDist = 0;
  bool Strides = false;
};
struct Description {
  uint32_t Magic = 0x44455343; // "DESC"
  Layout L;
};
struct Plan {
  uint32_t Magic = 0x504c414e; // "PLAN"
  int Placement, Type, Precision;
  size_t Rank, Lengths[3], Batch;
  Layout L;
  size_t WorkBytes;
};
struct Info {
  uint32_t Magic = 0x494e464f; // "INFO"
  void *Stream = nullptr;
  void *Work = nullptr;
  size_t WorkBytes = 0;
};
template <typename T> T *checked(void *P, uint32_t Magic) {
  auto *X = static_cast<T *>(P);
  return X && X->Magic == Magic ? X : nullptr;
}

std::string list(const size_t *V, size_t N) {
  std::string S;
  for (size_t I = 0; I < N; ++I) {
    if (I)
      S.push_back(',');
    S.append(std::to_string(V[I]));
  }
  return S;
}

/// FFTW's guru dimensions for a plan: FFTW's are outermost first.
void guru(const Plan &P, fftw_iodim64 *Dims, fftw_iodim64 &HowMany) {
  for (size_t K = 0; K < P.Rank; ++K) {
    size_t R = P.Rank - 1 - K;
    Dims[K].n = static_cast<ptrdiff_t>(P.Lengths[R]);
    Dims[K].is = static_cast<ptrdiff_t>(P.L.InStrides[R]);
    Dims[K].os = static_cast<ptrdiff_t>(P.L.OutStrides[R]);
  }
  HowMany.n = static_cast<ptrdiff_t>(P.Batch);
  HowMany.is = static_cast<ptrdiff_t>(P.L.InDist);
  HowMany.os = static_cast<ptrdiff_t>(P.L.OutDist);
}

template <bool Dbl> int run(const Plan &P, void *In, void *Out) {
  fftw_iodim64 Dims[3], HowMany;
  guru(P, Dims, HowMany);
  int Rank = static_cast<int>(P.Rank);
  if constexpr (Dbl) {
    fftw_plan F = nullptr;
    if (P.Type <= 1)
      F = fftw_plan_guru64_dft(Rank, Dims, 1, &HowMany, static_cast<fftw_complex *>(In),
                               static_cast<fftw_complex *>(Out), P.Type == 0 ? FFTW_FORWARD : FFTW_BACKWARD,
                               FFTW_ESTIMATE);
    else if (P.Type == 2)
      F = fftw_plan_guru64_dft_r2c(Rank, Dims, 1, &HowMany, static_cast<double *>(In),
                                   static_cast<fftw_complex *>(Out), FFTW_ESTIMATE);
    else
      F = fftw_plan_guru64_dft_c2r(Rank, Dims, 1, &HowMany, static_cast<fftw_complex *>(In),
                                   static_cast<double *>(Out), FFTW_ESTIMATE);
    if (!F)
      return Failure;
    fftw_execute(F);
    fftw_destroy_plan(F);
  } else {
    fftwf_plan F = nullptr;
    if (P.Type <= 1)
      F = fftwf_plan_guru64_dft(Rank, Dims, 1, &HowMany, static_cast<fftwf_complex *>(In),
                                static_cast<fftwf_complex *>(Out), P.Type == 0 ? FFTW_FORWARD : FFTW_BACKWARD,
                                FFTW_ESTIMATE);
    else if (P.Type == 2)
      F = fftwf_plan_guru64_dft_r2c(Rank, Dims, 1, &HowMany, static_cast<float *>(In),
                                    static_cast<fftwf_complex *>(Out), FFTW_ESTIMATE);
    else
      F = fftwf_plan_guru64_dft_c2r(Rank, Dims, 1, &HowMany, static_cast<fftwf_complex *>(In),
                                    static_cast<float *>(Out), FFTW_ESTIMATE);
    if (!F)
      return Failure;
    fftwf_execute(F);
    fftwf_destroy_plan(F);
  }
  return Success;
}
} // namespace

extern "C" {
int rocfft_setup() { return Success; }
int rocfft_cleanup() { return Success; }

int rocfft_plan_description_create(void **Out) {
  if (!Out)
    return InvalidArgValue;
  *Out = new Description;
  return Success;
}
int rocfft_plan_description_destroy(void *D) {
  if (!checked<Description>(D, 0x44455343))
    return InvalidArgValue;
  static_cast<Description *>(D)->Magic = 0;
  delete static_cast<Description *>(D);
  return Success;
}
int rocfft_plan_description_set_data_layout(void *D, int InArray, int OutArray, const size_t *InOffsets,
                                            const size_t *OutOffsets, size_t InStridesSize, const size_t *InStrides,
                                            size_t InDist, size_t OutStridesSize, const size_t *OutStrides,
                                            size_t OutDist) {
  auto *Desc = checked<Description>(D, 0x44455343);
  if (!Desc)
    return InvalidArgValue;
  if (InArray < 0 || InArray > 5 || OutArray < 0 || OutArray > 5)
    return InvalidArrayType;
  if ((InOffsets && *InOffsets) || (OutOffsets && *OutOffsets))
    return InvalidArgValue; // ferry passes none
  if (!InStrides || !OutStrides || InStridesSize != OutStridesSize || InStridesSize < 1 || InStridesSize > 3)
    return InvalidStrides; // ferry always gives them (a real rocFFT would default)
  Layout &L = Desc->L;
  L.InArray = InArray;
  L.OutArray = OutArray;
  for (size_t K = 0; K < InStridesSize; ++K) {
    L.InStrides[K] = InStrides[K];
    L.OutStrides[K] = OutStrides[K];
  }
  L.InDist = InDist;
  L.OutDist = OutDist;
  L.Strides = true;
  return Success;
}

int rocfft_plan_create(void **Out, int Placement, int Type, int Precision, size_t Rank, const size_t *Lengths,
                       size_t Batch, void *D) {
  if (!Out || !Lengths)
    return InvalidArgValue;
  if (Rank < 1 || Rank > 3)
    return InvalidDimensions;
  if (Placement < 0 || Placement > 1 || Type < 0 || Type > 3 || Precision < 0 || Precision > 1 || Batch < 1)
    return InvalidArgValue;
  auto *Desc = checked<Description>(D, 0x44455343);
  if (!Desc || !Desc->L.Strides)
    return InvalidStrides; // ferry always describes its layout
  const Layout &L = Desc->L;
  bool Fits = Type <= 1 ? L.InArray == 0 && L.OutArray == 0
                        : Type == 2 ? L.InArray == 2 && L.OutArray == 3 : L.InArray == 3 && L.OutArray == 2;
  if (!Fits)
    return InvalidArrayType;
  auto *P = new Plan;
  P->Placement = Placement;
  P->Type = Type;
  P->Precision = Precision;
  P->Rank = Rank;
  for (size_t K = 0; K < Rank; ++K)
    P->Lengths[K] = Lengths[K];
  P->Batch = Batch;
  P->L = L;
  P->WorkBytes = 256 * Rank; // asked for, so ferry's work buffer is checked
  std::fprintf(stderr,
               "fake rocFFT: plan type %d precision %d placement %d lengths %s batch %zu in %d strides %s dist %zu "
               "out %d strides %s dist %zu\n",
               Type, Precision, Placement, list(Lengths, Rank).c_str(), Batch, L.InArray,
               list(L.InStrides, Rank).c_str(), L.InDist, L.OutArray, list(L.OutStrides, Rank).c_str(), L.OutDist);
  *Out = P;
  return Success;
}
int rocfft_plan_destroy(void *P) {
  if (!checked<Plan>(P, 0x504c414e))
    return InvalidArgValue;
  static_cast<Plan *>(P)->Magic = 0;
  delete static_cast<Plan *>(P);
  return Success;
}
int rocfft_plan_get_work_buffer_size(void *P, size_t *Bytes) {
  auto *X = checked<Plan>(P, 0x504c414e);
  if (!X || !Bytes)
    return InvalidArgValue;
  *Bytes = X->WorkBytes;
  return Success;
}

int rocfft_execution_info_create(void **Out) {
  if (!Out)
    return InvalidArgValue;
  *Out = new Info;
  return Success;
}
int rocfft_execution_info_destroy(void *I) {
  if (!checked<Info>(I, 0x494e464f))
    return InvalidArgValue;
  static_cast<Info *>(I)->Magic = 0;
  delete static_cast<Info *>(I);
  return Success;
}
int rocfft_execution_info_set_stream(void *I, void *Stream) {
  auto *X = checked<Info>(I, 0x494e464f);
  if (!X || !fakeHipStreamValid(Stream))
    return InvalidArgValue;
  X->Stream = Stream;
  return Success;
}
int rocfft_execution_info_set_work_buffer(void *I, void *Work, size_t Bytes) {
  auto *X = checked<Info>(I, 0x494e464f);
  if (!X || !Work)
    return InvalidWorkBuffer;
  X->Work = Work;
  X->WorkBytes = Bytes;
  return Success;
}

int rocfft_execute(void *P, void **In, void **Out, void *I) {
  auto *Pl = checked<Plan>(P, 0x504c414e);
  auto *X = checked<Info>(I, 0x494e464f);
  if (!Pl || !X || !X->Stream || !In || !In[0])
    return InvalidArgValue;
  if (X->WorkBytes < Pl->WorkBytes)
    return InvalidWorkBuffer; // a real rocFFT would allocate one; ferry gives its own
  void *Dst = Pl->Placement == 0 ? In[0] : Out && Out[0] ? Out[0] : nullptr;
  if (!Dst)
    return InvalidArgValue;
  int St = Pl->Precision ? run<true>(*Pl, In[0], Dst) : run<false>(*Pl, In[0], Dst);
  std::fprintf(stderr, "fake rocFFT: executed type %d lengths %s batch %zu (%s)\n", Pl->Type,
               list(Pl->Lengths, Pl->Rank).c_str(), Pl->Batch, Pl->Placement ? "out of place" : "in place");
  return St;
}
}
