/// \file
/// cuSOLVER cases printing one line per observable: `NAME status N` for a
/// call's status, `NAME info N` for what devInfo holds afterwards (set to
/// 777 before each call, so an untouched devInfo shows), and `NAME int N`
/// for other integers. Bad arguments come first (null and destroyed
/// handles, negative sizes, leading dimensions below the minimum, invalid
/// fill modes, operations, jobs and data types, too small workspaces);
/// then devInfo for a singular matrix, a non-SPD one and zero pivots; the
/// null-devInfo case comes last, since a library may fault on it. Each
/// group of cases runs in its own process (the program runs itself with the
/// group's name), so a library that crashes on one case (NVIDIA's did, on
/// the H100) costs only the rest of that group: the line `GROUP crash
/// signal N` records it. The
/// output recorded on the H100 with NVIDIA's cuSOLVER is goldens/
/// CusolverCases.out; tests/cusolver/compare-goldens compares ferry's.
#define DISABLE_CUSOLVER_DEPRECATED
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusolverRf.h>
#include <cusolverSp.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

static int *Info;
static double *DA, *DB, *DW, *Tau, *DS;
static int *Piv;

static void st(const char *Name, cusolverStatus_t S) { std::printf("%s status %d\n", Name, (int)S); }

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

/// A status and the devInfo after it.
#define CASE(Name, Call)                                                                                               \
  do {                                                                                                                 \
    resetInfo();                                                                                                       \
    st(Name, Call);                                                                                                    \
    info(Name);                                                                                                        \
  } while (0)

static void upload(const std::vector<double> &A) {
  cudaMemcpy(DA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice);
}

static const int N = 8;
static cusolverDnHandle_t H;
static std::vector<double> Id;

/// The buffers and handle every group with a device uses.
static void setup() {
  cudaMalloc(&Info, sizeof(int));
  cudaMalloc(&DA, 64 * 64 * sizeof(double));
  cudaMalloc(&DB, 64 * 64 * sizeof(double));
  cudaMalloc(&DW, 1 << 20);
  cudaMalloc(&Tau, 64 * sizeof(double));
  cudaMalloc(&DS, 64 * sizeof(double));
  cudaMalloc(&Piv, 64 * sizeof(int64_t));
  Id.assign(N * N, 0.0);
  for (int I = 0; I < N; ++I)
    Id[I * N + I] = 2.0;
  upload(Id);
  st("create", cusolverDnCreate(&H));
}

static void versions() {
  int V = 0;
  st("getversion", cusolverGetVersion(&V));
  std::printf("version int %d\n", V);
  st("getproperty.major", cusolverGetProperty(MAJOR_VERSION, &V));
  std::printf("major int %d\n", V);
}

// Null handles, one process each (no device work needed).
static void destroyNull() { st("destroy.null", cusolverDnDestroy(nullptr)); }
static void setStreamNull() { st("setstream.null", cusolverDnSetStream(nullptr, nullptr)); }
static void getrfNullHandle() {
  int *I = nullptr;
  cudaMalloc(&I, sizeof(int));
  double *A = nullptr;
  cudaMalloc(&A, 64 * sizeof(double));
  st("getrf.nullhandle", cusolverDnDgetrf(nullptr, N, N, A, N, A, I, I));
}
static void xgetrfNullHandle() {
  int *I = nullptr;
  cudaMalloc(&I, sizeof(int));
  double *A = nullptr;
  cudaMalloc(&A, 1024 * sizeof(double));
  st("Xgetrf.nullhandle", cusolverDnXgetrf(nullptr, nullptr, N, N, CUDA_R_64F, A, N, (int64_t *)A, CUDA_R_64F, A,
                                           1024, nullptr, 0, I));
}
static void spDestroyNull() { st("sp.destroy.null", cusolverSpDestroy(nullptr)); }
static void spSetStreamNull() { st("sp.setstream.null", cusolverSpSetStream(nullptr, nullptr)); }
static void rfDestroyNull() { st("rf.destroy.null", cusolverRfDestroy(nullptr)); }

static void handles() {
  setup();
  cudaStream_t Got = (cudaStream_t)1;
  st("getstream.default", cusolverDnGetStream(H, &Got));
  std::printf("getstream.default int %d\n", Got == nullptr ? 0 : 1);
  int Lwork = -5;
  st("getrf_bufferSize", cusolverDnDgetrf_bufferSize(H, N, N, DA, N, &Lwork));
  std::printf("getrf_bufferSize.positive int %d\n", Lwork > 0 ? 1 : 0);

}

/// getrf with bad sizes: NVIDIA's answers success (and a getrs after them
/// on the same handle failed with EXECUTION_FAILED), so they run apart.
static void luBad() {
  setup();
  int Lwork = 0;
  CASE("getrf.mneg", cusolverDnDgetrf(H, -1, N, DA, N, DW, Piv, Info));
  CASE("getrf.nneg", cusolverDnDgetrf(H, N, -1, DA, N, DW, Piv, Info));
  CASE("getrf.lda", cusolverDnDgetrf(H, N, N, DA, N - 1, DW, Piv, Info));
  st("getrf_bufferSize.lda", cusolverDnDgetrf_bufferSize(H, N, N, DA, N - 1, &Lwork));
  st("getrf_bufferSize.mneg", cusolverDnDgetrf_bufferSize(H, -2, N, DA, N, &Lwork));
}

static void lu() {
  setup();
  CASE("getrf.m0", cusolverDnDgetrf(H, 0, N, DA, 1, DW, Piv, Info));
  upload(Id);
  CASE("getrf.ok", cusolverDnDgetrf(H, N, N, DA, N, DW, Piv, Info));
  std::vector<double> B(N, 1.0);
  cudaMemcpy(DB, B.data(), N * sizeof(double), cudaMemcpyHostToDevice);
  CASE("getrs.ok", cusolverDnDgetrs(H, CUBLAS_OP_N, N, 1, DA, N, Piv, DB, N, Info));
  CASE("getrs.trans", cusolverDnDgetrs(H, (cublasOperation_t)7, N, 1, DA, N, Piv, DB, N, Info));
  CASE("getrs.nneg", cusolverDnDgetrs(H, CUBLAS_OP_N, -1, 1, DA, N, Piv, DB, N, Info));
  CASE("getrs.nrhsneg", cusolverDnDgetrs(H, CUBLAS_OP_N, N, -1, DA, N, Piv, DB, N, Info));
  CASE("getrs.lda", cusolverDnDgetrs(H, CUBLAS_OP_N, N, 1, DA, N - 1, Piv, DB, N, Info));
  CASE("getrs.ldb", cusolverDnDgetrs(H, CUBLAS_OP_N, N, 1, DA, N, Piv, DB, N - 1, Info));
  CASE("getrs.ok2", cusolverDnDgetrs(H, CUBLAS_OP_T, N, 1, DA, N, Piv, DB, N, Info));
}

/// The 64-bit getrf with bad sizes, apart for the same reason.
static void api64Bad() {
  setup();
  cusolverDnParams_t P;
  cusolverDnCreateParams(&P);
  upload(Id);
  CASE("Xgetrf.lda", cusolverDnXgetrf(H, P, N, N, CUDA_R_64F, DA, 2, (int64_t *)Piv, CUDA_R_64F, DW, 1 << 20,
                                      nullptr, 0, Info));
  CASE("Xgetrf.mneg", cusolverDnXgetrf(H, P, -1, N, CUDA_R_64F, DA, N, (int64_t *)Piv, CUDA_R_64F, DW, 1 << 20,
                                       nullptr, 0, Info));
  CASE("Xgetrf.nneg", cusolverDnXgetrf(H, P, N, -1, CUDA_R_64F, DA, N, (int64_t *)Piv, CUDA_R_64F, DW, 1 << 20,
                                       nullptr, 0, Info));
}

static void cholesky() {
  setup();
  int Lwork = 0;
  upload(Id);
  CASE("potrf.uplo", cusolverDnDpotrf(H, CUBLAS_FILL_MODE_FULL, N, DA, N, DW, 1024, Info));
  CASE("potrf.nneg", cusolverDnDpotrf(H, CUBLAS_FILL_MODE_LOWER, -1, DA, N, DW, 1024, Info));
  CASE("potrf.lda", cusolverDnDpotrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N - 1, DW, 1024, Info));
  st("potrf_bufferSize.uplo", cusolverDnDpotrf_bufferSize(H, (cublasFillMode_t)5, N, DA, N, &Lwork));
  CASE("potrs.nrhsneg", cusolverDnDpotrs(H, CUBLAS_FILL_MODE_LOWER, N, -1, DA, N, DB, N, Info));
  CASE("potri.uplo", cusolverDnDpotri(H, (cublasFillMode_t)2, N, DA, N, DW, 1024, Info));
  CASE("sytrf.uplo", cusolverDnDsytrf(H, (cublasFillMode_t)2, N, DA, N, Piv, DW, 1024, Info));
  CASE("sytrf.lda", cusolverDnDsytrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, 3, Piv, DW, 1024, Info));
  CASE("potrs.ldb", cusolverDnDpotrs(H, CUBLAS_FILL_MODE_LOWER, N, 1, DA, N, DB, 2, Info));
  {
    double **PA, **PB;
    cudaMalloc(&PA, 4 * sizeof(double *));
    cudaMalloc(&PB, 4 * sizeof(double *));
    std::vector<double *> Ptrs(4, DA), PtrsB(4, DB);
    cudaMemcpy(PA, Ptrs.data(), 4 * sizeof(double *), cudaMemcpyHostToDevice);
    cudaMemcpy(PB, PtrsB.data(), 4 * sizeof(double *), cudaMemcpyHostToDevice);
    CASE("potrfBatched.batchneg", cusolverDnDpotrfBatched(H, CUBLAS_FILL_MODE_LOWER, N, PA, N, Info, -1));
    CASE("potrfBatched.uplo", cusolverDnDpotrfBatched(H, (cublasFillMode_t)3, N, PA, N, Info, 1));
    CASE("potrfBatched.nneg", cusolverDnDpotrfBatched(H, CUBLAS_FILL_MODE_LOWER, -1, PA, N, Info, 1));
    CASE("potrfBatched.lda", cusolverDnDpotrfBatched(H, CUBLAS_FILL_MODE_LOWER, N, PA, 2, Info, 1));
    CASE("potrsBatched.batchneg", cusolverDnDpotrsBatched(H, CUBLAS_FILL_MODE_LOWER, N, 1, PA, N, PB, N, Info, -1));
    CASE("potrsBatched.nrhs2", cusolverDnDpotrsBatched(H, CUBLAS_FILL_MODE_LOWER, N, 2, PA, N, PB, N, Info, 1));
    CASE("potrsBatched.ldb", cusolverDnDpotrsBatched(H, CUBLAS_FILL_MODE_LOWER, N, 1, PA, N, PB, 1, Info, 1));
    cudaFree(PA);
    cudaFree(PB);
  }

}

static void qr() {
  setup();
  upload(Id);
  CASE("geqrf.mneg", cusolverDnDgeqrf(H, -1, N, DA, N, Tau, DW, 1024, Info));
  CASE("geqrf.lda", cusolverDnDgeqrf(H, N, N, DA, 3, Tau, DW, 1024, Info));
  CASE("geqrf.lwork0", cusolverDnDgeqrf(H, N, N, DA, N, Tau, DW, 0, Info));
  CASE("geqrf.ok", cusolverDnDgeqrf(H, N, N, DA, N, Tau, DW, 1024, Info));
  CASE("ormqr.side", cusolverDnDormqr(H, (cublasSideMode_t)4, CUBLAS_OP_T, N, 1, N, DA, N, Tau, DB, N, DW, 1024, Info));
  CASE("ormqr.transC", cusolverDnDormqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_C, N, 1, N, DA, N, Tau, DB, N, DW, 1024, Info));
  CASE("ormqr.kbig", cusolverDnDormqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, N, 1, N + 1, DA, N, Tau, DB, N, DW, 1024, Info));
  CASE("ormqr.ldc", cusolverDnDormqr(H, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, N, 1, N, DA, N, Tau, DB, 2, DW, 1024, Info));
  CASE("orgqr.ngtm", cusolverDnDorgqr(H, 4, N, 4, DA, N, Tau, DW, 1024, Info));
  CASE("orgqr.kgtn", cusolverDnDorgqr(H, N, 4, 5, DA, N, Tau, DW, 1024, Info));

}

static void svdEigen() {
  setup();
  int Lwork = 0;
  upload(Id);
  CASE("gesvd.mltn", cusolverDnDgesvd(H, 'A', 'A', 4, N, DA, N, DS, DB, N, DW, N, DW, 1024, nullptr, Info));
  CASE("gesvd.jobu", cusolverDnDgesvd(H, 'X', 'A', N, N, DA, N, DS, DB, N, DW, N, DW, 1024, nullptr, Info));
  CASE("gesvd.jobvt", cusolverDnDgesvd(H, 'A', 'Q', N, N, DA, N, DS, DB, N, DW, N, DW, 1024, nullptr, Info));
  CASE("gesvd.ldu", cusolverDnDgesvd(H, 'A', 'A', N, N, DA, N, DS, DB, 2, DW, N, DW, 1024, nullptr, Info));
  CASE("gesvd.lda", cusolverDnDgesvd(H, 'N', 'N', N, N, DA, 2, DS, DB, N, DW, N, DW, 1024, nullptr, Info));
  st("gesvd_bufferSize.nneg", cusolverDnDgesvd_bufferSize(H, N, -1, &Lwork));
  CASE("syevd.jobz", cusolverDnDsyevd(H, (cusolverEigMode_t)3, CUBLAS_FILL_MODE_LOWER, N, DA, N, DS, DW, 1024, Info));
  CASE("syevd.uplo", cusolverDnDsyevd(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_FULL, N, DA, N, DS, DW, 1024, Info));
  CASE("syevd.nneg", cusolverDnDsyevd(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, -3, DA, N, DS, DW, 1024, Info));
  CASE("syevd.lda", cusolverDnDsyevd(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, 1, DS, DW, 1024, Info));

}

static void api64() {
  setup();
  cusolverDnParams_t P;
  st("createparams", cusolverDnCreateParams(&P));
  size_t DevBytes = 0, HostBytes = 0;
  st("Xgetrf_bufferSize.half",
     cusolverDnXgetrf_bufferSize(H, P, N, N, CUDA_R_16F, DA, N, CUDA_R_16F, &DevBytes, &HostBytes));
  st("Xgetrf_bufferSize.mneg",
     cusolverDnXgetrf_bufferSize(H, P, -1, N, CUDA_R_64F, DA, N, CUDA_R_64F, &DevBytes, &HostBytes));
  st("Xgetrf_bufferSize.ok",
     cusolverDnXgetrf_bufferSize(H, P, N, N, CUDA_R_64F, DA, N, CUDA_R_64F, &DevBytes, &HostBytes));
  upload(Id);
  CASE("Xgetrs.ldb", cusolverDnXgetrs(H, P, CUBLAS_OP_N, N, 1, CUDA_R_64F, DA, N, (int64_t *)Piv, CUDA_R_64F, DB, 2,
                                      Info));
  CASE("Xgeqrf.lda", cusolverDnXgeqrf(H, P, N, N, CUDA_R_64F, DA, 2, CUDA_R_64F, Tau, CUDA_R_64F, DW, 1 << 20, nullptr,
                                      0, Info));
  CASE("Xsyevd.uplo", cusolverDnXsyevd(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_FULL, N, CUDA_R_64F, DA, N,
                                       CUDA_R_64F, DS, CUDA_R_64F, DW, 1 << 20, nullptr, 0, Info));
  CASE("Xgesvd.jobu", cusolverDnXgesvd(H, P, 'Z', 'N', N, N, CUDA_R_64F, DA, N, CUDA_R_64F, DS, CUDA_R_64F, DB, N,
                                       CUDA_R_64F, DW, N, CUDA_R_64F, DW, 1 << 20, nullptr, 0, Info));
  CASE("Xpotrf.uplo", cusolverDnXpotrf(H, P, CUBLAS_FILL_MODE_FULL, N, CUDA_R_64F, DA, N, CUDA_R_64F, DW, 1 << 20,
                                       nullptr, 0, Info));
  CASE("Xpotrs.nrhsneg",
       cusolverDnXpotrs(H, P, CUBLAS_FILL_MODE_LOWER, N, -1, CUDA_R_64F, DA, N, CUDA_R_64F, DB, N, Info));
  CASE("Xgetrs.trans", cusolverDnXgetrs(H, P, (cublasOperation_t)9, N, 1, CUDA_R_64F, DA, N, (int64_t *)Piv,
                                        CUDA_R_64F, DB, N, Info));
  CASE("Xsyevd.wtype", cusolverDnXsyevd(H, P, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, CUDA_R_64F, DA, N,
                                        CUDA_R_32F, DS, CUDA_R_64F, DW, 1 << 20, nullptr, 0, Info));
  CASE("Xgesvd.mltn", cusolverDnXgesvd(H, P, 'N', 'N', 4, N, CUDA_R_64F, DA, N, CUDA_R_64F, DS, CUDA_R_64F, DB, N,
                                       CUDA_R_64F, DW, N, CUDA_R_64F, DW, 1 << 20, nullptr, 0, Info));
  upload(Id);
  CASE("Xpotrf.workspace0", cusolverDnXpotrf(H, P, CUBLAS_FILL_MODE_LOWER, N, CUDA_R_64F, DA, N, CUDA_R_64F, DW, 0,
                                             nullptr, 0, Info));
  upload(Id);
  CASE("Xgetrf.workspace0", cusolverDnXgetrf(H, P, N, N, CUDA_R_64F, DA, N, (int64_t *)Piv, CUDA_R_64F, DW, 0,
                                             nullptr, 0, Info));
  upload(Id);
  CASE("Xgetrf.nullparams", cusolverDnXgetrf(H, nullptr, N, N, CUDA_R_64F, DA, N, (int64_t *)Piv, CUDA_R_64F, DW,
                                             1 << 20, nullptr, 0, Info));
  st("destroyparams", cusolverDnDestroyParams(P));

}

static void sparseRf() {
  cusolverSpHandle_t Sp;
  st("sp.create", cusolverSpCreate(&Sp));
  st("sp.destroy", cusolverSpDestroy(Sp));
  cusolverRfHandle_t Rf;
  st("rf.create", cusolverRfCreate(&Rf));
  st("rf.setnumeric", cusolverRfSetNumericProperties(Rf, 1e-14, 1e-10));
  double Zero = -1, Boost = -1;
  st("rf.getnumeric", cusolverRfGetNumericProperties(Rf, &Zero, &Boost));
  std::printf("rf.numeric int %d\n", (Zero == 1e-14 && Boost == 1e-10) ? 1 : 0);
  cusolverRfFactorization_t Fa;
  cusolverRfTriangularSolve_t Sa;
  st("rf.getalgs", cusolverRfGetAlgs(Rf, &Fa, &Sa));
  std::printf("rf.algs int %d %d\n", (int)Fa, (int)Sa);
  cusolverRfMatrixFormat_t Fmt;
  cusolverRfUnitDiagonal_t Dg;
  st("rf.getformat", cusolverRfGetMatrixFormat(Rf, &Fmt, &Dg));
  std::printf("rf.format int %d %d\n", (int)Fmt, (int)Dg);
  cusolverRfResetValuesFastMode_t Fast;
  st("rf.getfastmode", cusolverRfGetResetValuesFastMode(Rf, &Fast));
  std::printf("rf.fastmode int %d\n", (int)Fast);
  st("rf.destroy", cusolverRfDestroy(Rf));

}

static void devInfo() {
  setup();
  // devInfo for singular and non-SPD matrices, and zero pivots.
  {
    std::vector<double> A(N * N, 0.0);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        A[J * N + I] = J == 4 ? 0.0 : (double)((I * 5 + J * 3) % 7) + (I == J ? 8.0 : 0.0);
    upload(A);
    CASE("getrf.zerocol5", cusolverDnDgetrf(H, N, N, DA, N, DW, Piv, Info));
    upload(A);
    CASE("getrf.nopiv.zerocol5", cusolverDnDgetrf(H, N, N, DA, N, DW, nullptr, Info));
    std::vector<double> Z(N * N, 0.0);
    upload(Z);
    CASE("getrf.zero", cusolverDnDgetrf(H, N, N, DA, N, DW, Piv, Info));
    std::vector<double> S(Id);
    S[6 * N + 6] = -1.0;
    upload(S);
    CASE("potrf.notspd7", cusolverDnDpotrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, 1024, Info));
    upload(S);
    CASE("potrf.upper.notspd7", cusolverDnDpotrf(H, CUBLAS_FILL_MODE_UPPER, N, DA, N, DW, 1024, Info));
    upload(Z);
    CASE("potrf.zero", cusolverDnDpotrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, 1024, Info));
    upload(Z);
    int L = 0;
    st("sytrf_bufferSize", cusolverDnDsytrf_bufferSize(H, N, DA, N, &L));
    CASE("sytrf.zero", cusolverDnDsytrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, Piv, DW, 1 << 16, Info));
    upload(Id);
    CASE("sytrf.ok", cusolverDnDsytrf(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, Piv, DW, 1 << 16, Info));
    upload(Id);
    CASE("syevd.ok", cusolverDnDsyevd(H, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, N, DA, N, DS, DW, 1 << 16,
                                      Info));
    upload(S);
    CASE("potri.notspd", cusolverDnDpotri(H, CUBLAS_FILL_MODE_LOWER, N, DA, N, DW, 1 << 16, Info));
  }

  st("destroy", cusolverDnDestroy(H));
}

/// Last: a null devInfo (a library may write through it on the GPU).
static void nullInfo() {
  setup();
  st("getrf.nullinfo", cusolverDnDgetrf(H, N, N, DA, N, DW, Piv, nullptr));
  std::printf("getrf.nullinfo.sync cuda %d\n", (int)cudaDeviceSynchronize());
}

struct Group {
  const char *Name;
  void (*Run)();
};

static const Group Groups[] = {
    {"versions", versions},       {"destroy.null", destroyNull},
    {"setstream.null", setStreamNull}, {"getrf.nullhandle", getrfNullHandle},
    {"Xgetrf.nullhandle", xgetrfNullHandle}, {"sp.destroy.null", spDestroyNull},
    {"sp.setstream.null", spSetStreamNull}, {"rf.destroy.null", rfDestroyNull},
    {"handles", handles},         {"lu-bad", luBad},
    {"lu", lu},                   {"api64-bad", api64Bad},
    {"cholesky", cholesky},       {"qr", qr},
    {"svd-eigen", svdEigen},      {"api64", api64},
    {"sparse-rf", sparseRf},      {"devinfo", devInfo},
    {"nullinfo", nullInfo},
};

int main(int Argc, char **Argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (Argc == 2) {
    for (const Group &G : Groups)
      if (!std::strcmp(G.Name, Argv[1])) {
        G.Run();
        return 0;
      }
    return 2;
  }
  for (const Group &G : Groups) {
    std::fflush(stdout);
    pid_t Child = fork();
    if (Child == 0) {
      execl("/proc/self/exe", Argv[0], G.Name, (char *)nullptr);
      _exit(127);
    }
    int Status = 0;
    waitpid(Child, &Status, 0);
    if (WIFSIGNALED(Status))
      std::printf("%s crash signal %d\n", G.Name, WTERMSIG(Status));
    else if (WEXITSTATUS(Status))
      std::printf("%s exit %d\n", G.Name, WEXITSTATUS(Status));
  }
  std::printf("done\n");
  return 0;
}
