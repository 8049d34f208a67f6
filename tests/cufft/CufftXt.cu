// cuFFT's multi-GPU API over ferry's libcufft: cufftXtSetGPUs, cufftXtMalloc,
// cufftXtMemcpy (all three directions), cufftXtExecDescriptor* and
// cufftXtQueryPlan, with every transform checked against a direct DFT
// computed here, and every GPU's part of a descriptor checked against the
// layout NVIDIA's documentation gives ("Multiple GPU Data Organization"):
// batches dealt out in order, a single 2D transform split on x and left
// split on y, a single 1D transform's result in strings (the documentation's
// permuted2Linear over cufftXtQueryPlan's factors). Needs two devices (four
// for the 4-GPU cases, skipped with fewer). Prints "CufftXt: PASS".
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <vector>

using Cd = std::complex<double>;

static int Failures = 0;

static void check(bool Ok, const char *What, double Err = 0) {
  std::printf("%-4s %s (%.2e)\n", Ok ? "ok" : "FAIL", What, Err);
  if (!Ok)
    ++Failures;
}

static void status(cufftResult Got, cufftResult Want, const char *What) {
  char Line[200];
  std::snprintf(Line, sizeof Line, "%s: status %d (want %d)", What, int(Got), int(Want));
  check(Got == Want, Line);
}

#define CF(X)                                                                                      \
  do {                                                                                             \
    cufftResult R_ = (X);                                                                          \
    if (R_ != CUFFT_SUCCESS) {                                                                     \
      std::printf("FAIL %s = %d (line %d)\n", #X, int(R_), __LINE__);                              \
      ++Failures;                                                                                  \
      return;                                                                                      \
    }                                                                                              \
  } while (0)

/// Batch transforms of the row-major dims, unnormalised, exponent Sign.
static std::vector<Cd> dft(const std::vector<Cd> &X, std::vector<long> Dims, long Batch, int Sign) {
  std::vector<Cd> Cur = X;
  long Total = 1;
  for (long D : Dims)
    Total *= D;
  long Inner = 1;
  for (int K = int(Dims.size()) - 1; K >= 0; --K) {
    long N = Dims[K];
    std::vector<Cd> Next(Cur.size());
    for (long B = 0; B < Batch; ++B)
      for (long I = 0; I < Total; ++I) {
        long Pos = (I / Inner) % N, Base = I - Pos * Inner;
        Cd Sum = 0;
        for (long J = 0; J < N; ++J)
          Sum += Cur[B * Total + Base + J * Inner] *
                 std::polar(1.0, Sign * 2 * M_PI * double(J * Pos % N) / N);
        Next[B * Total + I] = Sum;
      }
    Cur = Next;
    Inner *= N;
  }
  return Cur;
}

static std::vector<Cd> input(long Count, int Seed) {
  std::vector<Cd> V(Count);
  for (long I = 0; I < Count; ++I)
    V[I] = Cd(std::sin(0.37 * I + Seed) + 0.25 * ((I * 7 + Seed) % 5),
              std::cos(0.11 * I * Seed) - 0.5);
  return V;
}

template <typename T> struct Prec;
template <> struct Prec<cufftComplex> {
  static constexpr double Tol = 2e-5;
  static constexpr cufftType Type = CUFFT_C2C;
};
template <> struct Prec<cufftDoubleComplex> {
  static constexpr double Tol = 1e-11;
  static constexpr cufftType Type = CUFFT_Z2Z;
};

template <typename T> static std::vector<T> toHost(const std::vector<Cd> &V) {
  std::vector<T> Out(V.size());
  for (size_t I = 0; I < V.size(); ++I) {
    Out[I].x = V[I].real();
    Out[I].y = V[I].imag();
  }
  return Out;
}

/// Largest |got - want| over the largest |want|.
template <typename T> static double relErr(const T *Got, const Cd *Want, long Count) {
  double Err = 0, Scale = 1e-30;
  for (long I = 0; I < Count; ++I) {
    Err = std::fmax(Err, std::abs(Cd(Got[I].x, Got[I].y) - Want[I]));
    Scale = std::fmax(Scale, std::abs(Want[I]));
  }
  return Err / Scale;
}

template <typename T> static std::vector<T> part(const cudaLibXtDesc *D, int G, long Count) {
  std::vector<T> Out(Count);
  cudaMemcpy(Out.data(), D->descriptor->data[G], Count * sizeof(T), cudaMemcpyDefault);
  return Out;
}

template <typename T>
static cufftResult execDesc(cufftHandle P, cudaLibXtDesc *In, cudaLibXtDesc *Out, int Dir) {
  if constexpr (Prec<T>::Type == CUFFT_C2C)
    return cufftXtExecDescriptorC2C(P, In, Out, Dir);
  else
    return cufftXtExecDescriptorZ2Z(P, In, Out, Dir);
}

/// The documentation's permuted2Linear: local index I on GPU G of a 1D
/// result to its natural index (strings split evenly over the GPUs).
static long permutedToLinear(const cufftXt1dFactors &F, long I, int G, int Gpus) {
  long InSub = I & F.substringMask;
  long Sub = (I >> F.substringShift) & F.factor2Mask;
  long String = (I >> F.stringShift) + G * (F.stringCount / Gpus);
  return InSub + (String << F.substringShift) + (Sub << F.factor1Shift);
}

/// A single 1D transform on Gpus GPUs: scatter, natural parts, forward,
/// strings, gather, device-to-device back to natural, inverse.
template <typename T> static void single1d(long N, int Gpus, bool InputShuffled, bool Streamed) {
  char Name[160];
  std::snprintf(Name, sizeof Name, "1D %s n=%ld on %d GPUs%s%s",
                Prec<T>::Type == CUFFT_C2C ? "C2C" : "Z2Z", N, Gpus,
                InputShuffled ? ", 1D_INPUT_SHUFFLED" : "", Streamed ? ", stream" : "");
  std::vector<int> Which;
  for (int G = 0; G < Gpus; ++G)
    Which.push_back(G);
  cufftHandle P;
  CF(cufftCreate(&P));
  CF(cufftXtSetGPUs(P, Gpus, Which.data()));
  std::vector<size_t> Work(Gpus, 12345);
  CF(cufftMakePlan1d(P, int(N), Prec<T>::Type, 1, Work.data()));
  bool Zero = true;
  for (size_t W : Work)
    Zero = Zero && W == 0;
  check(Zero, "work size written for every GPU");
  std::vector<size_t> Sizes1d(Gpus, 999), SizesAll(Gpus, 999);
  CF(cufftGetSize1d(P, int(N), Prec<T>::Type, 1, Sizes1d.data()));
  CF(cufftGetSize(P, SizesAll.data()));
  for (int G = 0; G < Gpus; ++G)
    Zero = Zero && Sizes1d[G] == 0 && SizesAll[G] == 0;
  check(Zero, "cufftGetSize1d and cufftGetSize write a size for every GPU");
  cudaStream_t S = nullptr;
  if (Streamed) {
    cudaSetDevice(0);
    cudaStreamCreate(&S);
    CF(cufftSetStream(P, S));
  }
  cufftXt1dFactors F;
  CF(cufftXtQueryPlan(P, &F, CUFFT_QUERY_1D_FACTORS));
  check(F.size == N && F.factor1 * F.factor2 == N && F.stringCount * F.stringLength == N &&
            F.substringLength * F.factor2 == F.stringLength && F.stringCount % Gpus == 0 &&
            (1L << F.substringShift) == F.substringLength && (1L << F.factor1Shift) == F.factor1,
        "cufftXtQueryPlan's factors are consistent");
  if (N == 1024 && Gpus == 2)
    check(F.factor1 == 64 && F.factor2 == 16 && F.stringCount == 8 && F.substringLength == 8,
          "1024 points on 2 GPUs: the documentation's example factors (64, 16, 8 strings of "
          "substrings of 8)");

  std::vector<Cd> X = input(N, 3);
  std::vector<T> Host = toHost<T>(X);
  cudaLibXtDesc *D;
  CF(cufftXtMalloc(P, &D,
                   InputShuffled ? CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED : CUFFT_XT_FORMAT_INPLACE));
  bool Sizes = D->descriptor->nGPUs == Gpus;
  for (int G = 0; G < Gpus; ++G)
    Sizes = Sizes && D->descriptor->size[G] >= N / Gpus * sizeof(T) && D->descriptor->GPUs[G] == G;
  check(Sizes, "descriptor: one part of n/nGPUs points on each GPU");
  CF(cufftXtMemcpy(P, D, Host.data(), CUFFT_COPY_HOST_TO_DEVICE));
  if (!InputShuffled) {
    double E = 0;
    for (int G = 0; G < Gpus; ++G) {
      std::vector<T> Part = part<T>(D, G, N / Gpus);
      E = std::fmax(E, relErr(Part.data(), X.data() + G * (N / Gpus), N / Gpus));
    }
    check(E < 1e-7, "natural order: GPU g holds points [g*n/G, (g+1)*n/G)", E);
  }
  CF(execDesc<T>(P, D, D, CUFFT_FORWARD));
  if (S)
    cudaStreamSynchronize(S);
  check(D->subFormat == CUFFT_XT_FORMAT_INPLACE_SHUFFLED,
        "the transform leaves the descriptor INPLACE_SHUFFLED");
  std::vector<Cd> Want = dft(X, {N}, 1, -1);
  double E = 0;
  for (int G = 0; G < Gpus; ++G) {
    std::vector<T> Part = part<T>(D, G, N / Gpus);
    for (long I = 0; I < N / Gpus; ++I) {
      Cd Ref = Want[permutedToLinear(F, I, G, Gpus)];
      E = std::fmax(E, std::abs(Cd(Part[I].x, Part[I].y) - Ref) / std::sqrt(double(N)));
    }
  }
  check(E < Prec<T>::Tol * 10,
        (std::string(Name) + ": each GPU's part in strings (permuted2Linear)").c_str(), E);
  std::vector<T> Back(N);
  CF(cufftXtMemcpy(P, Back.data(), D, CUFFT_COPY_DEVICE_TO_HOST));
  E = relErr(Back.data(), Want.data(), N);
  check(E < Prec<T>::Tol, (std::string(Name) + ": forward, gathered in natural order").c_str(), E);

  status(cufftXtMemcpy(P, D, Host.data(), CUFFT_COPY_HOST_TO_DEVICE), CUFFT_INVALID_TYPE,
         "host to an INPLACE_SHUFFLED 1D descriptor");
  cudaLibXtDesc *Nat;
  CF(cufftXtMalloc(P, &Nat, CUFFT_XT_FORMAT_INPLACE));
  CF(cufftXtMemcpy(P, Nat, D, CUFFT_COPY_DEVICE_TO_DEVICE));
  check(Nat->subFormat == CUFFT_XT_FORMAT_INPLACE, "device to device: natural order");
  E = 0;
  for (int G = 0; G < Gpus; ++G) {
    std::vector<T> Part = part<T>(Nat, G, N / Gpus);
    E = std::fmax(E, relErr(Part.data(), Want.data() + G * (N / Gpus), N / Gpus));
  }
  check(E < Prec<T>::Tol, "device to device: GPU g holds the result's points [g*n/G, (g+1)*n/G)",
        E);
  status(cufftXtExecDescriptor(P, D, D, CUFFT_INVERSE), CUFFT_INVALID_TYPE,
         "transforming strings again");
  CF(cufftXtExecDescriptor(P, Nat, Nat, CUFFT_INVERSE));
  if (S)
    cudaStreamSynchronize(S);
  CF(cufftXtMemcpy(P, Back.data(), Nat, CUFFT_COPY_DEVICE_TO_HOST));
  std::vector<Cd> Scaled(N);
  for (long I = 0; I < N; ++I)
    Scaled[I] = X[I] * double(N);
  E = relErr(Back.data(), Scaled.data(), N);
  check(E < Prec<T>::Tol, (std::string(Name) + ": inverse of the forward = n x").c_str(), E);
  cudaLibXtDesc *Fresh;
  CF(cufftXtMalloc(P, &Fresh, CUFFT_XT_FORMAT_INPLACE));
  status(cufftXtExecDescriptor(P, Fresh, Nat, CUFFT_FORWARD), CUFFT_EXEC_FAILED,
         "a single 1D transform out of place");
  CF(cufftXtFree(Fresh));
  CF(cufftXtFree(D));
  CF(cufftXtFree(Nat));
  CF(cufftDestroy(P));
  if (S)
    cudaStreamDestroy(S);
}

/// Batched transforms on two GPUs: the first batch % 2 GPUs one more.
template <typename T> static void batched(std::vector<long> Dims, long Batch, bool InPlace) {
  int Gpus = 2, Which[2] = {0, 1};
  long Points = 1;
  for (long D : Dims)
    Points *= D;
  char Name[160];
  std::snprintf(Name, sizeof Name, "batched %s rank %d (%ld points) x %ld, %s",
                Prec<T>::Type == CUFFT_C2C ? "C2C" : "Z2Z", int(Dims.size()), Points, Batch,
                InPlace ? "in place" : "out of place");
  cufftHandle P;
  CF(cufftCreate(&P));
  CF(cufftXtSetGPUs(P, Gpus, Which));
  std::vector<int> N(Dims.begin(), Dims.end());
  size_t Work[2] = {7, 7};
  CF(cufftMakePlanMany(P, int(N.size()), N.data(), nullptr, 1, 0, nullptr, 1, 0, Prec<T>::Type,
                       int(Batch), Work));
  check(Work[0] == 0 && Work[1] == 0, "work sizes of both GPUs");
  std::vector<Cd> X = input(Points * Batch, 5);
  std::vector<T> Host = toHost<T>(X);
  cudaLibXtDesc *In, *Out;
  CF(cufftXtMalloc(P, &In, CUFFT_XT_FORMAT_INPLACE));
  Out = In;
  if (!InPlace)
    CF(cufftXtMalloc(P, &Out, CUFFT_XT_FORMAT_INPLACE));
  long First = (Batch + 1) / 2, Second = Batch / 2;
  check(In->descriptor->size[0] == First * Points * sizeof(T) &&
            In->descriptor->size[1] == Second * Points * sizeof(T),
        "descriptor parts: ceil(batch/2) and floor(batch/2) transforms");
  CF(cufftXtMemcpy(P, In, Host.data(), CUFFT_COPY_HOST_TO_DEVICE));
  std::vector<T> Part0 = part<T>(In, 0, First * Points), Part1 = part<T>(In, 1, Second * Points);
  check(relErr(Part0.data(), X.data(), First * Points) < 1e-7 &&
            relErr(Part1.data(), X.data() + First * Points, Second * Points) < 1e-7,
        "batches dealt out in order");
  CF(execDesc<T>(P, In, Out, CUFFT_FORWARD));
  check(Out->subFormat == CUFFT_XT_FORMAT_INPLACE, "a batched transform leaves the format natural");
  std::vector<Cd> Want = dft(X, Dims, Batch, -1);
  Part0 = part<T>(Out, 0, First * Points);
  Part1 = part<T>(Out, 1, Second * Points);
  double E = std::fmax(relErr(Part0.data(), Want.data(), First * Points),
                       relErr(Part1.data(), Want.data() + First * Points, Second * Points));
  check(E < Prec<T>::Tol,
        (std::string(Name) + ": each GPU's batches transformed where they are").c_str(), E);
  if (!InPlace) {
    std::vector<T> Kept(Points * Batch);
    CF(cufftXtMemcpy(P, Kept.data(), In, CUFFT_COPY_DEVICE_TO_HOST));
    check(relErr(Kept.data(), X.data(), Points * Batch) < 1e-7, "out of place: the input is kept");
  }
  CF(execDesc<T>(P, Out, Out, CUFFT_INVERSE));
  std::vector<T> Back(Points * Batch);
  CF(cufftXtMemcpy(P, Back.data(), Out, CUFFT_COPY_DEVICE_TO_HOST));
  for (auto &V : X)
    V *= double(Points);
  E = relErr(Back.data(), X.data(), Points * Batch);
  check(E < Prec<T>::Tol, (std::string(Name) + ": inverse = n x, gathered").c_str(), E);
  cufftXt1dFactors F;
  status(cufftXtQueryPlan(P, &F, CUFFT_QUERY_1D_FACTORS), CUFFT_INVALID_PLAN,
         "cufftXtQueryPlan on a batched plan");
  CF(cufftXtFree(In));
  if (!InPlace)
    CF(cufftXtFree(Out));
  CF(cufftDestroy(P));
}

/// A single 2D transform on two GPUs: split on x, left split on y.
template <typename T> static void single2d(long NX, long NY) {
  int Which[2] = {0, 1};
  cufftHandle P;
  CF(cufftCreate(&P));
  CF(cufftXtSetGPUs(P, 2, Which));
  size_t Work[2];
  CF(cufftMakePlan2d(P, int(NX), int(NY), Prec<T>::Type, Work));
  std::vector<Cd> X = input(NX * NY, 9);
  std::vector<T> Host = toHost<T>(X);
  cudaLibXtDesc *D;
  CF(cufftXtMalloc(P, &D, CUFFT_XT_FORMAT_INPLACE));
  CF(cufftXtMemcpy(P, D, Host.data(), CUFFT_COPY_HOST_TO_DEVICE));
  long X0 = (NX + 1) / 2, Y0 = (NY + 1) / 2;
  std::vector<T> A = part<T>(D, 0, X0 * NY), B = part<T>(D, 1, (NX - X0) * NY);
  check(relErr(A.data(), X.data(), X0 * NY) < 1e-7 &&
            relErr(B.data(), X.data() + X0 * NY, (NX - X0) * NY) < 1e-7,
        "2D natural order: GPU 0 rows [0, ceil(nx/2)), GPU 1 the rest");
  CF(execDesc<T>(P, D, D, CUFFT_FORWARD));
  check(D->subFormat == CUFFT_XT_FORMAT_INPLACE_SHUFFLED,
        "2D: the transform leaves the descriptor shuffled");
  std::vector<Cd> Want = dft(X, {NX, NY}, 1, -1);
  A = part<T>(D, 0, NX * Y0);
  B = part<T>(D, 1, NX * (NY - Y0));
  double E = 0, Scale = 0;
  for (long I = 0; I < NX; ++I)
    for (long J = 0; J < NY; ++J) {
      Cd Got = J < Y0 ? Cd(A[I * Y0 + J].x, A[I * Y0 + J].y)
                      : Cd(B[I * (NY - Y0) + J - Y0].x, B[I * (NY - Y0) + J - Y0].y);
      E = std::fmax(E, std::abs(Got - Want[I * NY + J]));
      Scale = std::fmax(Scale, std::abs(Want[I * NY + J]));
    }
  check(E / Scale < Prec<T>::Tol, "2D forward: GPU g holds [x][its y range]", E / Scale);
  std::vector<T> Back(NX * NY);
  CF(cufftXtMemcpy(P, Back.data(), D, CUFFT_COPY_DEVICE_TO_HOST));
  E = relErr(Back.data(), Want.data(), NX * NY);
  check(E < Prec<T>::Tol, "2D forward gathered in natural order", E);
  CF(execDesc<T>(P, D, D, CUFFT_INVERSE));
  check(D->subFormat == CUFFT_XT_FORMAT_INPLACE,
        "2D: transforming shuffled data returns natural order");
  CF(cufftXtMemcpy(P, Back.data(), D, CUFFT_COPY_DEVICE_TO_HOST));
  for (auto &V : X)
    V *= double(NX * NY);
  E = relErr(Back.data(), X.data(), NX * NY);
  check(E < Prec<T>::Tol, "2D inverse of the forward = n x", E);
  CF(cufftXtFree(D));
  CF(cufftDestroy(P));
}

static void statuses() {
  int Two[2] = {0, 1}, Bad[2] = {0, 999};
  cufftHandle P;
  cufftCreate(&P);
  status(cufftXtSetGPUs(P, 1, Two), CUFFT_INVALID_VALUE, "cufftXtSetGPUs with one GPU");
  status(cufftXtSetGPUs(P, 2, nullptr), CUFFT_INVALID_VALUE, "cufftXtSetGPUs without a list");
  status(cufftXtSetGPUs(P, 2, Bad), CUFFT_INVALID_DEVICE, "cufftXtSetGPUs with device 999");
  status(cufftXtSetGPUs(P, 2, Two), CUFFT_SUCCESS, "cufftXtSetGPUs(0, 1)");
  size_t Work[2];
  status(cufftMakePlan1d(P, 100, CUFFT_C2C, 1, Work), CUFFT_INVALID_SIZE,
         "single 1D of 100 points on 2 GPUs");
  status(cufftMakePlan1d(P, 32, CUFFT_C2C, 1, Work), CUFFT_INVALID_SIZE,
         "single 1D of 32 points on 2 GPUs");
  status(cufftMakePlan1d(P, 64, CUFFT_R2C, 1, Work), CUFFT_INVALID_SIZE, "single 1D R2C on 2 GPUs");
  status(cufftMakePlan1d(P, 64, CUFFT_R2C, 4, Work), CUFFT_NOT_SUPPORTED,
         "batched R2C on 2 GPUs (ferry)");
  status(cufftMakePlan1d(P, 64, CUFFT_C2C, 1, Work), CUFFT_SUCCESS,
         "single 1D of 64 points on 2 GPUs");
  status(cufftXtSetGPUs(P, 2, Two), CUFFT_INVALID_PLAN, "cufftXtSetGPUs after the plan is made");
  cudaLibXtDesc *D = nullptr;
  status(cufftXtMalloc(P, &D, cufftXtSubFormat(7)), CUFFT_INVALID_VALUE,
         "cufftXtMalloc with format 7");
  status(cufftXtMalloc(P, nullptr, CUFFT_XT_FORMAT_INPLACE), CUFFT_INVALID_VALUE,
         "cufftXtMalloc without a pointer");
  status(cufftXtMalloc(P, &D, CUFFT_XT_FORMAT_INPLACE), CUFFT_SUCCESS, "cufftXtMalloc");
  status(cufftXtMemcpy(P, D, nullptr, CUFFT_COPY_HOST_TO_DEVICE), CUFFT_INVALID_VALUE,
         "cufftXtMemcpy from NULL");
  status(cufftXtMemcpy(P, D, D, cufftXtCopyType(9)), CUFFT_INVALID_VALUE, "cufftXtMemcpy type 9");
  status(cufftXtExecDescriptorZ2Z(P, D, D, CUFFT_FORWARD), CUFFT_INVALID_PLAN,
         "Z2Z entry on a C2C plan");
  status(cufftXtExecDescriptorC2C(P, D, D, 0), CUFFT_INVALID_VALUE, "direction 0");
  status(cufftXtExecDescriptorC2C(P, nullptr, D, CUFFT_FORWARD), CUFFT_INVALID_PLAN,
         "NULL input descriptor");
  cufftComplex *Raw = nullptr;
  cudaMalloc(&Raw, 64 * sizeof(cufftComplex));
  status(cufftExecC2C(P, Raw, Raw, CUFFT_FORWARD), CUFFT_INVALID_TYPE,
         "cufftExecC2C on a multi-GPU plan");
  cudaFree(Raw);
  cudaLibXtDesc Foreign = *D;
  status(cufftXtFree(&Foreign), CUFFT_INVALID_VALUE,
         "cufftXtFree of a descriptor cufftXtMalloc did not make");
  status(cufftXtFree(D), CUFFT_SUCCESS, "cufftXtFree");
  status(cufftXtFree(nullptr), CUFFT_SUCCESS, "cufftXtFree(NULL)");
  cufftDestroy(P);
  status(cufftXtSetGPUs(P, 2, Two), CUFFT_INVALID_PLAN, "cufftXtSetGPUs on a destroyed plan");
}

int main() {
  int Count = 0;
  cudaGetDeviceCount(&Count);
  std::printf("devices: %d\n", Count);
  if (Count < 2) {
    std::printf("CufftXt: FAIL (needs two devices)\n");
    return 1;
  }
  statuses();
  for (long N : {64L, 256L, 1024L})
    single1d<cufftComplex>(N, 2, false, false);
  single1d<cufftDoubleComplex>(512, 2, false, false);
  single1d<cufftComplex>(1024, 2, true, false);
  single1d<cufftDoubleComplex>(128, 2, true, true);
  if (Count >= 4) {
    single1d<cufftComplex>(256, 4, false, false);
    single1d<cufftDoubleComplex>(64, 4, true, false);
  } else {
    std::printf("skip 4-GPU cases (%d devices)\n", Count);
  }
  batched<cufftComplex>({100}, 5, true);
  batched<cufftDoubleComplex>({48}, 4, false);
  batched<cufftComplex>({6, 10}, 3, true);
  single2d<cufftComplex>(33, 40);
  single2d<cufftDoubleComplex>(32, 35);
  std::printf("CufftXt: %s (%d failures)\n", Failures ? "FAIL" : "PASS", Failures);
  return Failures ? 1 : 0;
}
