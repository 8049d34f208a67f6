/// \file
/// cuSOLVER cases the CuPy test suite runs into, one line per observable
/// (`NAME status N`, `NAME info N`, `NAME int N`, `NAME val ...`), recorded
/// on the H100 with NVIDIA's cuSOLVER (goldens/CusolverGeev.out) and
/// compared by compare-goldens:
/// - the legacy and X buffer-size queries given sizes their computation
///   would refuse (CuPy's qr asks geqrf_bufferSize with lda = n < m): which
///   arguments a buffer-size call checks;
/// - cusolverDnXgeev (CuPy's eig/eigvals): its buffer-size answer's
///   existence, bad arguments, devInfo, and the eigenvalues and right
///   eigenvectors of small real and complex matrices for each accepted type
///   layout (real W as 2n reals, complex W; real VR in LAPACK's packed pair
///   form), printed to 4 significant digits.
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <vector>

#include "../common/ProbeUtil.h"

static cusolverDnHandle_t H;
static cusolverDnParams_t P;
static int *Info;
static void *DA, *DW, *DVL, *DVR, *Work;
static std::vector<char> HostWork(1 << 20);

static void st(const char *Name, cusolverStatus_t S) { std::printf("%s status %d\n", Name, (int)S); }
/// A legacy buffer-size call's status, and whether it left a size (Lwork
/// starts at -1 for each call).
/// Each in its own process (isolated).
#define lw(Name, Call, L)                                                                                              \
  isolated(Name, [&] {                                                                                                 \
    A = (float *)DA;                                                                                                   \
    L = -1;                                                                                                            \
    cusolverStatus_t S_ = Call;                                                                                        \
    st(Name, S_);                                                                                                      \
    std::printf("%s int %d\n", Name, S_ == CUSOLVER_STATUS_SUCCESS && L >= 0 ? 1 : 0);                                 \
  })
#define xst(Name, Call)                                                                                                \
  isolated(Name, [&] {                                                                                                 \
    A = (float *)DA;                                                                                                   \
    st(Name, Call);                                                                                                    \
  })

static void resetInfo() {
  int V = 777;
  cudaMemcpy(Info, &V, sizeof(int), cudaMemcpyHostToDevice);
}
static void info(const char *Name) {
  int V = 0;
  cudaDeviceSynchronize();
  cudaMemcpy(&V, Info, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("%s info %d\n", Name, V);
}

static void setup();

/// Runs Case in a child process of its own (with its own CUDA context), so
/// that a library crashing on one case (NVIDIA's did) costs only that case:
/// the line `NAME crash signal N` records it.
static void isolated(const char *Name, const std::function<void()> &Case) {
  probe::isolated(Name, [&] {
    setup();
    Case();
  });
}

/// Prints V rounded to 4 significant digits (0 for |V| < 1e-5).
static void num(double V) {
  if (std::fabs(V) < 1e-5)
    V = 0;
  std::printf(" %.4g", V);
}

static void legacyBuffers() {
  int L = -1;
  float *A = (float *)DA;
  // geqrf: lda below m (CuPy's call), m < 0, n < 0, lda 0.
  lw("Sgeqrf_bufferSize.lda_lt_m", cusolverDnSgeqrf_bufferSize(H, 5, 4, A, 4, &L), L);
  lw("Dgeqrf_bufferSize.lda_lt_m", cusolverDnDgeqrf_bufferSize(H, 5, 4, (double *)A, 4, &L), L);
  lw("Cgeqrf_bufferSize.lda_lt_m", cusolverDnCgeqrf_bufferSize(H, 5, 4, (cuComplex *)A, 4, &L), L);
  lw("Sgeqrf_bufferSize.mneg", cusolverDnSgeqrf_bufferSize(H, -1, 4, A, 4, &L), L);
  lw("Sgeqrf_bufferSize.nneg", cusolverDnSgeqrf_bufferSize(H, 4, -1, A, 4, &L), L);
  lw("Sgeqrf_bufferSize.lda0", cusolverDnSgeqrf_bufferSize(H, 4, 4, A, 0, &L), L);
  lw("Sgeqrf_bufferSize.ok", cusolverDnSgeqrf_bufferSize(H, 5, 4, A, 5, &L), L);
  // potrf / potri: lda below n, n < 0.
  lw("Spotrf_bufferSize.lda", cusolverDnSpotrf_bufferSize(H, CUBLAS_FILL_MODE_LOWER, 5, A, 4, &L), L);
  lw("Spotrf_bufferSize.nneg", cusolverDnSpotrf_bufferSize(H, CUBLAS_FILL_MODE_LOWER, -1, A, 4, &L), L);
  lw("Spotri_bufferSize.lda", cusolverDnSpotri_bufferSize(H, CUBLAS_FILL_MODE_LOWER, 5, A, 4, &L), L);
  // orgqr / ormqr: lda below m, n > m, k > n.
  lw("Sorgqr_bufferSize.lda", cusolverDnSorgqr_bufferSize(H, 5, 4, 4, A, 4, A, &L), L);
  lw("Sorgqr_bufferSize.ngtm", cusolverDnSorgqr_bufferSize(H, 4, 5, 4, A, 5, A, &L), L);
  lw("Sorgqr_bufferSize.kgtn", cusolverDnSorgqr_bufferSize(H, 5, 4, 5, A, 5, A, &L), L);
  lw("Sormqr_bufferSize.lda",
     cusolverDnSormqr_bufferSize(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, 5, 3, 4, A, 4, A, A, 5, &L), L);
  lw("Sormqr_bufferSize.ldc",
     cusolverDnSormqr_bufferSize(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, 5, 3, 4, A, 5, A, A, 4, &L), L);
  // syevd / sytrf / getrf: lda below n.
  lw("Ssyevd_bufferSize.lda",
     cusolverDnSsyevd_bufferSize(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, 5, A, 4, A, &L), L);
  lw("Ssyevd_bufferSize.jobz",
     cusolverDnSsyevd_bufferSize(H, (cusolverEigMode_t)7, CUBLAS_FILL_MODE_LOWER, 5, A, 5, A, &L), L);
  lw("Ssytrf_bufferSize.lda", cusolverDnSsytrf_bufferSize(H, 5, A, 4, &L), L);
  lw("Sgetrf_bufferSize.lda", cusolverDnSgetrf_bufferSize(H, 5, 4, A, 4, &L), L);
  // X forms.
  size_t Dev = 0, Host = 0;
  xst("Xgeqrf_bufferSize.lda_lt_m", cusolverDnXgeqrf_bufferSize(H, P, 5, 4, CUDA_R_32F, A, 4, CUDA_R_32F, A,
                                                                CUDA_R_32F, &Dev, &Host));
  xst("Xpotrf_bufferSize.lda", cusolverDnXpotrf_bufferSize(H, P, CUBLAS_FILL_MODE_LOWER, 5, CUDA_R_32F, A, 4,
                                                          CUDA_R_32F, &Dev, &Host));
  xst("Xsyevd_bufferSize.lda", cusolverDnXsyevd_bufferSize(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, 5,
                                                          CUDA_R_32F, A, 4, CUDA_R_32F, A, CUDA_R_32F, &Dev, &Host));
  xst("Xgesvd_bufferSize.lda", cusolverDnXgesvd_bufferSize(H, P, 'A', 'A', 5, 4, CUDA_R_32F, A, 4, CUDA_R_32F, A,
                                                          CUDA_R_32F, A, 5, CUDA_R_32F, A, 4, CUDA_R_32F, &Dev,
                                                          &Host));
}

static cusolverStatus_t geevSize(cusolverEigMode_t L, cusolverEigMode_t R, int64_t N, cudaDataType TA, int64_t Lda,
                                 cudaDataType TW, cudaDataType TV, int64_t Ldv, size_t *Dev, size_t *Host) {
  return cusolverDnXgeev_bufferSize(H, P, L, R, N, TA, DA, Lda, TW, DW, TV, DVL, Ldv, TV, DVR, Ldv, TA, Dev, Host);
}
static cusolverStatus_t geev(cusolverEigMode_t L, cusolverEigMode_t R, int64_t N, cudaDataType TA, int64_t Lda,
                             cudaDataType TW, cudaDataType TV, int64_t Ldv, cudaDataType TC = (cudaDataType)-1) {
  return cusolverDnXgeev(H, P, L, R, N, TA, DA, Lda, TW, DW, TV, DVL, Ldv, TV, DVR, Ldv,
                         TC == (cudaDataType)-1 ? TA : TC, Work, 1 << 22, HostWork.data(), HostWork.size(), Info);
}

static const auto NoV = CUSOLVER_EIG_MODE_NOVECTOR, V = CUSOLVER_EIG_MODE_VECTOR;

static void geevArgs() {
  size_t Dev = 0, Host = 0;
  const int N = 4;
  struct {
    const char *Name;
    cusolverEigMode_t L, R;
    int64_t N, Lda;
    cudaDataType TA, TW, TV;
    int64_t Ldv;
  } Cases[] = {
      {"ok.real_complexW", NoV, V, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N},
      {"ok.real_realW", NoV, V, N, N, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, N},
      {"ok.complex", NoV, V, N, N, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, N},
      {"ok.float", NoV, V, N, N, CUDA_R_32F, CUDA_C_32F, CUDA_R_32F, N},
      {"ok.novectors", NoV, NoV, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N},
      {"leftvectors", V, V, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N},
      {"leftonly", V, NoV, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N},
      {"jobvr.bad", NoV, (cusolverEigMode_t)9, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N},
      {"jobvl.bad", (cusolverEigMode_t)9, V, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N},
      {"nneg", NoV, V, -1, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N},
      {"n0", NoV, V, 0, 1, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, 1},
      {"lda", NoV, V, N, N - 1, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N},
      {"ldvr", NoV, V, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, N - 1},
      {"ldvr.novectors", NoV, NoV, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_R_64F, 1},
      {"W.mixedprec", NoV, V, N, N, CUDA_R_64F, CUDA_C_32F, CUDA_R_64F, N},
      {"V.complex_for_real", NoV, V, N, N, CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, N},
      {"W.real_for_complex", NoV, V, N, N, CUDA_C_64F, CUDA_R_64F, CUDA_C_64F, N},
      {"half", NoV, V, N, N, CUDA_R_16F, CUDA_C_16F, CUDA_R_16F, N},
  };
  for (auto &C : Cases)
    isolated(C.Name, [&] {
    char Name[96];
    std::snprintf(Name, sizeof Name, "Xgeev_bufferSize.%s", C.Name);
    Dev = Host = 12345;
    cusolverStatus_t S = geevSize(C.L, C.R, C.N, C.TA, C.Lda, C.TW, C.TV, C.Ldv, &Dev, &Host);
    st(Name, S);
    std::printf("%s int %d\n", Name, S == CUSOLVER_STATUS_SUCCESS && Dev != 12345 ? 1 : 0);
    std::snprintf(Name, sizeof Name, "Xgeev.%s", C.Name);
    std::vector<double> Id(64, 0.0);
    for (int I = 0; I < N; ++I)
      Id[I * N + I] = 1.0 + I;
    cudaMemcpy(DA, Id.data(), Id.size() * sizeof(double), cudaMemcpyHostToDevice);
    resetInfo();
    st(Name, geev(C.L, C.R, C.N, C.TA, C.Lda, C.TW, C.TV, C.Ldv));
    info(Name);
  });
  isolated("Xgeev.compute_mismatch", [&] {
    resetInfo();
    st("Xgeev.compute_mismatch", geev(NoV, V, N, CUDA_R_64F, N, CUDA_C_64F, CUDA_R_64F, N, CUDA_R_32F));
    info("Xgeev.compute_mismatch");
  });
  isolated("Xgeev_bufferSize.nullhandle", [&] {
    st("Xgeev_bufferSize.nullhandle", cusolverDnXgeev_bufferSize(nullptr, P, NoV, V, N, CUDA_R_64F, DA, N,
                                                                 CUDA_C_64F, DW, CUDA_R_64F, DVL, N, CUDA_R_64F, DVR,
                                                                 N, CUDA_R_64F, &Dev, &Host));
  });
  isolated("Xgeev_bufferSize.nullparams", [&] {
    st("Xgeev_bufferSize.nullparams", cusolverDnXgeev_bufferSize(H, nullptr, NoV, V, N, CUDA_R_64F, DA, N,
                                                                 CUDA_C_64F, DW, CUDA_R_64F, DVL, N, CUDA_R_64F, DVR,
                                                                 N, CUDA_R_64F, &Dev, &Host));
  });
  isolated("Xgeev_bufferSize.nullsizes", [&] {
    st("Xgeev_bufferSize.nullsizes", cusolverDnXgeev_bufferSize(H, P, NoV, V, N, CUDA_R_64F, DA, N, CUDA_C_64F, DW,
                                                                CUDA_R_64F, DVL, N, CUDA_R_64F, DVR, N, CUDA_R_64F,
                                                                nullptr, nullptr));
  });
  isolated("Xgeev.nullparams", [&] {
    resetInfo();
    st("Xgeev.nullparams", cusolverDnXgeev(H, nullptr, NoV, V, N, CUDA_R_64F, DA, N, CUDA_C_64F, DW, CUDA_R_64F,
                                           DVL, N, CUDA_R_64F, DVR, N, CUDA_R_64F, Work, 1 << 22, HostWork.data(),
                                           HostWork.size(), Info));
    info("Xgeev.nullparams");
  });
  isolated("Xgeev.nullinfo", [&] {
    st("Xgeev.nullinfo", cusolverDnXgeev(H, P, NoV, V, N, CUDA_R_64F, DA, N, CUDA_C_64F, DW, CUDA_R_64F, DVL, N,
                                         CUDA_R_64F, DVR, N, CUDA_R_64F, Work, 1 << 22, HostWork.data(),
                                         HostWork.size(), nullptr));
    std::printf("Xgeev.nullinfo sync %d\n", (int)cudaDeviceSynchronize());
  });
}

/// Eigenvalues (and right vectors) of a 4x4 real matrix with one complex
/// pair, in each accepted layout, and of a complex 3x3 matrix.
static void geevValues() {
  const int N = 4;
  // Column-major: a 2x2 block with eigenvalues 1 +- sqrt(2) i (vectors with
  // components of unequal size, so their phase is fixed) and a triangular
  // part (eigenvalues 3, -0.5).
  const double A[N * N] = {1, -1, 0, 0, 2, 1, 0, 0, 0.5, 0.25, 3, 0, 1, -1, 2, -0.5};
  for (int Real = 0; Real < 2; ++Real)
    for (int Dbl = 0; Dbl < 2; ++Dbl) {
      size_t E = Dbl ? 8 : 4;
      std::vector<char> Buf(N * N * E);
      for (int I = 0; I < N * N; ++I)
        Dbl ? (void)(((double *)Buf.data())[I] = A[I]) : (void)(((float *)Buf.data())[I] = (float)A[I]);
      cudaMemcpy(DA, Buf.data(), Buf.size(), cudaMemcpyHostToDevice);
      cudaDataType TA = Dbl ? CUDA_R_64F : CUDA_R_32F, TC = Dbl ? CUDA_C_64F : CUDA_C_32F;
      cudaDataType TW = Real ? TA : TC;
      char Name[64];
      std::snprintf(Name, sizeof Name, "Xgeev.values.%s.%s", Dbl ? "D" : "S", Real ? "realW" : "complexW");
      size_t Dev = 0, Host = 0;
      st(Name, geevSize(NoV, V, N, TA, N, TW, TA, N, &Dev, &Host));
      resetInfo();
      st(Name, geev(NoV, V, N, TA, N, TW, TA, N));
      info(Name);
      std::vector<char> W(2 * N * E), VR(N * N * E);
      cudaMemcpy(W.data(), DW, W.size(), cudaMemcpyDeviceToHost);
      cudaMemcpy(VR.data(), DVR, VR.size(), cudaMemcpyDeviceToHost);
      auto At = [&](const std::vector<char> &B, int I) {
        return Dbl ? ((const double *)B.data())[I] : (double)((const float *)B.data())[I];
      };
      std::printf("%s val W", Name);
      for (int I = 0; I < 2 * N; ++I)
        num(At(W, I));
      std::printf("\n%s val VR", Name);
      for (int I = 0; I < N * N; ++I)
        num(std::fabs(At(VR, I))); // signs of eigenvectors are arbitrary
      std::printf("\n");
    }
  // Complex 3x3, upper triangular plus a coupling: eigenvalues on the
  // diagonal.
  const int M = 3;
  std::complex<double> C[M * M] = {{1, 1}, {0, 0}, {0, 0}, {2, -1}, {-1, 0.5}, {0, 0}, {0.5, 0}, {1, 1}, {2, 2}};
  cudaMemcpy(DA, C, sizeof C, cudaMemcpyHostToDevice);
  resetInfo();
  st("Xgeev.values.Z", geev(NoV, V, M, CUDA_C_64F, M, CUDA_C_64F, CUDA_C_64F, M));
  info("Xgeev.values.Z");
  std::complex<double> W[M], VR[M * M];
  cudaMemcpy(W, DW, sizeof W, cudaMemcpyDeviceToHost);
  cudaMemcpy(VR, DVR, sizeof VR, cudaMemcpyDeviceToHost);
  std::printf("Xgeev.values.Z val W");
  for (auto Z : W)
    num(Z.real()), num(Z.imag());
  std::printf("\nXgeev.values.Z val |VR|");
  for (auto Z : VR)
    num(std::abs(Z));
  std::printf("\n");
  // A NaN input: devInfo.
  double Bad[N * N] = {};
  Bad[5] = NAN;
  cudaMemcpy(DA, Bad, sizeof Bad, cudaMemcpyHostToDevice);
  resetInfo();
  st("Xgeev.nan", geev(NoV, V, N, CUDA_R_64F, N, CUDA_C_64F, CUDA_R_64F, N));
  info("Xgeev.nan");
}

static void setup() {
  cudaMalloc(&Info, sizeof(int));
  cudaMalloc(&DA, 1 << 16);
  cudaMalloc(&DW, 1 << 16);
  cudaMalloc(&DVL, 1 << 16);
  cudaMalloc(&DVR, 1 << 16);
  cudaMalloc(&Work, 1 << 22);
  cusolverDnCreate(&H);
  cusolverDnCreateParams(&P);
}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  legacyBuffers();
  geevArgs();
  isolated("values", [] {
    geevValues();
    std::printf("last error int %d\n", (int)cudaDeviceSynchronize());
  });
  return 0;
}
