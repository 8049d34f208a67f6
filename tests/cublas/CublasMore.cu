/// \file
/// cuBLAS routines without H100 goldens, each checked against a reference
/// computed here on the host in double precision: the rest of level 2 and 3,
/// Givens rotations, the batched factorizations, the _64 GEMMs, and eight
/// threads each driving its own handle and stream at once. Prints one
/// `NAME ok` or `NAME FAIL ...` line per check and `CublasMore: PASS` when
/// all hold. Built by nvcc with -lcublas; runs unmodified on NVIDIA's too.
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <thread>
#include <vector>

using Cd = std::complex<double>;
static int Failures = 0;

static void check(const char *Name, double Err, double Tol) {
  bool Ok = Err <= Tol;
  std::printf("%s %s", Name, Ok ? "ok\n" : "FAIL");
  if (!Ok) {
    std::printf(" error %g > %g\n", Err, Tol);
    ++Failures;
  }
}
static void checkStatus(const char *Name, cublasStatus_t S, cublasStatus_t Want) {
  if (S != Want) {
    std::printf("%s FAIL status %d, want %d\n", Name, (int)S, (int)Want);
    ++Failures;
  }
}

static double val(int I, int Salt) { return std::sin(I * 1.37 + Salt * 0.71) * 0.9; }

template <typename T> struct Dev {
  T *P = nullptr;
  size_t N;
  explicit Dev(const std::vector<T> &V) : N(V.size()) {
    cudaMalloc(&P, N * sizeof(T) + 16);
    cudaMemcpy(P, V.data(), N * sizeof(T), cudaMemcpyHostToDevice);
  }
  std::vector<T> get() const {
    std::vector<T> V(N);
    cudaDeviceSynchronize();
    cudaMemcpy(V.data(), P, N * sizeof(T), cudaMemcpyDeviceToHost);
    return V;
  }
  ~Dev() { cudaFree(P); }
};

template <typename T> std::vector<T> vec(int N, int Salt) {
  std::vector<T> V(N);
  for (int I = 0; I < N; ++I)
    V[I] = (T)val(I, Salt);
  return V;
}
std::vector<cuComplex> cvec(int N, int Salt) {
  std::vector<cuComplex> V(N);
  for (int I = 0; I < N; ++I)
    V[I] = make_cuComplex((float)val(I, Salt), (float)val(I, Salt + 50));
  return V;
}
static Cd cd(cuComplex C) { return Cd(C.x, C.y); }

template <typename T> double maxDiff(const std::vector<T> &A, const std::vector<double> &B) {
  double E = 0;
  for (size_t I = 0; I < B.size(); ++I)
    E = std::max(E, std::fabs((double)A[I] - B[I]));
  return E;
}

static void level2(cublasHandle_t H) {
  const int N = 5, Ld = 6;
  std::vector<double> A = vec<double>(Ld * N, 1), X = vec<double>(N, 2), Y = vec<double>(N, 3);
  // dsymv, upper: y = a A x + b y with A symmetric from the upper triangle.
  {
    Dev<double> DA(A), DX(X), DY(Y);
    double Al = 1.5, Be = -0.5;
    checkStatus("dsymv", cublasDsymv(H, CUBLAS_FILL_MODE_UPPER, N, &Al, DA.P, Ld, DX.P, 1, &Be, DY.P, 1),
                CUBLAS_STATUS_SUCCESS);
    std::vector<double> R(N);
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        S += (I <= J ? A[J * Ld + I] : A[I * Ld + J]) * X[J];
      R[I] = Al * S + Be * Y[I];
    }
    check("dsymv", maxDiff(DY.get(), R), 1e-12);
  }
  // dtrmv / dtrsv, lower, transposed: x = A^T x, then solve back.
  {
    std::vector<double> T = A;
    for (int I = 0; I < N; ++I)
      T[I * Ld + I] = 3 + I;
    Dev<double> DT(T), DX(X);
    cublasDtrmv(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, N, DT.P, Ld, DX.P, 1);
    std::vector<double> R(N);
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = I; J < N; ++J)
        S += T[I * Ld + J] * X[J];
      R[I] = S;
    }
    check("dtrmv", maxDiff(DX.get(), R), 1e-12);
    // The _64 form (sizes forwarded to the 32-bit one).
    cublasDtrsv_64(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, N, DT.P, Ld, DX.P, 1);
    check("dtrsv_64", maxDiff(DX.get(), X), 1e-12);
  }
  // dgbmv: a tridiagonal band (kl = ku = 1) against the dense product.
  {
    const int Kl = 1, Ku = 1, Lb = Kl + Ku + 1;
    std::vector<double> Band = vec<double>(Lb * N, 4), Dense(N * N, 0.0);
    for (int J = 0; J < N; ++J)
      for (int I = std::max(0, J - Ku); I <= std::min(N - 1, J + Kl); ++I)
        Dense[J * N + I] = Band[J * Lb + Ku + I - J];
    Dev<double> DB(Band), DX(X), DY(Y);
    double Al = 2, Be = 1;
    cublasDgbmv(H, CUBLAS_OP_N, N, N, Kl, Ku, &Al, DB.P, Lb, DX.P, 1, &Be, DY.P, 1);
    std::vector<double> R(N);
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        S += Dense[J * N + I] * X[J];
      R[I] = Al * S + Be * Y[I];
    }
    check("dgbmv", maxDiff(DY.get(), R), 1e-12);
  }
  // dspr then dspmv on packed upper storage, against the dense forms.
  {
    std::vector<double> Ap = vec<double>(N * (N + 1) / 2, 5);
    Dev<double> DAp(Ap), DX(X), DY(Y);
    double Al = 0.5, Be = 0.25;
    cublasDspr(H, CUBLAS_FILL_MODE_UPPER, N, &Al, DX.P, 1, DAp.P);
    cublasDspmv(H, CUBLAS_FILL_MODE_UPPER, N, &Al, DAp.P, DX.P, 1, &Be, DY.P, 1);
    auto at = [&](int I, int J) {
      if (I > J)
        std::swap(I, J);
      return Ap[J * (J + 1) / 2 + I] + Al * X[I] * X[J];
    };
    std::vector<double> R(N);
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        S += at(I, J) * X[J];
      R[I] = Al * S + Be * Y[I];
    }
    check("dspr+dspmv", maxDiff(DY.get(), R), 1e-12);
  }
  // chemv and cher2 (single precision complex).
  {
    std::vector<cuComplex> Ac = cvec(Ld * N, 6), Xc = cvec(N, 7), Yc = cvec(N, 8);
    Dev<cuComplex> DA(Ac), DX(Xc), DY(Yc);
    cuComplex Al = make_cuComplex(0.5f, -1.0f), Be = make_cuComplex(1.0f, 0.5f);
    cublasChemv(H, CUBLAS_FILL_MODE_LOWER, N, &Al, DA.P, Ld, DX.P, 1, &Be, DY.P, 1);
    std::vector<cuComplex> Got = DY.get();
    double E = 0;
    for (int I = 0; I < N; ++I) {
      Cd S = 0;
      for (int J = 0; J < N; ++J) {
        Cd Aij = I > J ? cd(Ac[J * Ld + I]) : I < J ? std::conj(cd(Ac[I * Ld + J])) : Cd(Ac[I * Ld + I].x, 0);
        S += Aij * cd(Xc[J]);
      }
      E = std::max(E, std::abs(cd(Got[I]) - (cd(Al) * S + cd(Be) * cd(Yc[I]))));
    }
    check("chemv", E, 1e-5);
    cublasCher2(H, CUBLAS_FILL_MODE_UPPER, N, &Al, DX.P, 1, DY.P, 1, DA.P, Ld);
    std::vector<cuComplex> G2 = DA.get();
    E = 0;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I <= J; ++I) {
        Cd W = cd(Ac[J * Ld + I]) + cd(Al) * cd(Xc[I]) * std::conj(cd(Got[J])) +
               std::conj(cd(Al)) * cd(Got[I]) * std::conj(cd(Xc[J]));
        if (I == J)
          W = Cd(W.real(), 0);
        E = std::max(E, std::abs(cd(G2[J * Ld + I]) - W));
      }
    check("cher2", E, 1e-5);
  }
}

static void level3(cublasHandle_t H) {
  const int M = 4, N = 3, Ld = 5;
  std::vector<double> A = vec<double>(Ld * Ld, 11), B = vec<double>(Ld * N, 12), C = vec<double>(Ld * N, 13);
  // dsymm left/lower.
  {
    Dev<double> DA(A), DB(B), DC(C);
    double Al = 0.75, Be = 2;
    cublasDsymm(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, M, N, &Al, DA.P, Ld, DB.P, Ld, &Be, DC.P, Ld);
    std::vector<double> R = C;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double S = 0;
        for (int P = 0; P < M; ++P)
          S += (I >= P ? A[P * Ld + I] : A[I * Ld + P]) * B[J * Ld + P];
        R[J * Ld + I] = Al * S + Be * C[J * Ld + I];
      }
    check("dsymm", maxDiff(DC.get(), R), 1e-12);
  }
  // dtrmm right/upper/N out of place: C = a B A.
  {
    Dev<double> DA(A), DB(B), DC(C);
    double Al = -1.5;
    cublasDtrmm(H, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, M, N, &Al, DA.P, Ld, DB.P,
                Ld, DC.P, Ld);
    std::vector<double> R = C;
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < M; ++I) {
        double S = 0;
        for (int P = 0; P < N; ++P)
          S += B[P * Ld + I] * (P == J ? 1.0 : P < J ? A[J * Ld + P] : 0.0);
        R[J * Ld + I] = Al * S;
      }
    check("dtrmm", maxDiff(DC.get(), R), 1e-12);
    check("dtrmm_b_untouched", maxDiff(DB.get(), std::vector<double>(B.begin(), B.end())), 0);
  }
  // dsyr2k upper N and dsyrkx lower T.
  {
    Dev<double> DA(A), DB(B), DC(A);
    double Al = 0.5, Be = -1;
    const int Nn = 4, K = 3;
    cublasDsyr2k(H, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, Nn, K, &Al, DA.P, Ld, DB.P, Ld, &Be, DC.P, Ld);
    std::vector<double> R = A;
    for (int J = 0; J < Nn; ++J)
      for (int I = 0; I <= J; ++I) {
        double S = 0;
        for (int P = 0; P < K; ++P)
          S += A[P * Ld + I] * B[P * Ld + J] + B[P * Ld + I] * A[P * Ld + J];
        R[J * Ld + I] = Al * S + Be * A[J * Ld + I];
      }
    check("dsyr2k", maxDiff(DC.get(), R), 1e-12);
    Dev<double> DC2(A);
    cublasDsyrkx(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, 3, 3, &Al, DA.P, Ld, DB.P, Ld, &Be, DC2.P, Ld);
    R = A;
    for (int J = 0; J < 3; ++J)
      for (int I = J; I < 3; ++I) {
        double S = 0;
        for (int P = 0; P < 3; ++P)
          S += A[I * Ld + P] * B[J * Ld + P];
        R[J * Ld + I] = Al * S + Be * A[J * Ld + I];
      }
    check("dsyrkx", maxDiff(DC2.get(), R), 1e-12);
  }
  // cherk lower C: C = a A^H A + b C, real diagonal.
  {
    std::vector<cuComplex> Ac = cvec(Ld * Ld, 14), Cc = cvec(Ld * Ld, 15);
    Dev<cuComplex> DA(Ac), DC(Cc);
    float Al = 0.5f, Be = 2.0f;
    const int Nn = 3, K = 4;
    cublasCherk(H, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_C, Nn, K, &Al, DA.P, Ld, &Be, DC.P, Ld);
    std::vector<cuComplex> Got = DC.get();
    double E = 0;
    for (int J = 0; J < Nn; ++J)
      for (int I = J; I < Nn; ++I) {
        Cd S = 0;
        for (int P = 0; P < K; ++P)
          S += std::conj(cd(Ac[I * Ld + P])) * cd(Ac[J * Ld + P]);
        Cd W = (double)Al * S + (double)Be * (I == J ? Cd(Cc[J * Ld + I].x, 0) : cd(Cc[J * Ld + I]));
        E = std::max(E, std::abs(cd(Got[J * Ld + I]) - W));
      }
    check("cherk", E, 1e-5);
  }
}

static void rotations(cublasHandle_t H) {
  double A = 3, B = 4, C = 0, S = 0;
  cublasDrotg(H, &A, &B, &C, &S);
  check("drotg", std::fabs(A - 5) + std::fabs(C - 0.6) + std::fabs(S - 0.8), 1e-15);
  std::vector<float> X = vec<float>(6, 21), Y = vec<float>(6, 22);
  Dev<float> DX(X), DY(Y);
  float P[5] = {-1.0f, 0.5f, -0.25f, 2.0f, 1.5f}; // flag -1: full H = [h11 h12; h21 h22]
  cublasSrotm(H, 6, DX.P, 1, DY.P, 1, P);
  std::vector<double> Rx(6), Ry(6);
  for (int I = 0; I < 6; ++I) {
    Rx[I] = P[1] * X[I] + P[3] * Y[I];
    Ry[I] = P[2] * X[I] + P[4] * Y[I];
  }
  check("srotm", std::max(maxDiff(DX.get(), Rx), maxDiff(DY.get(), Ry)), 1e-6);
}

static void batchedSolvers(cublasHandle_t H) {
  const int N = 4, Batch = 3;
  std::vector<std::vector<double>> As(Batch);
  std::vector<Dev<double> *> DAs, DBs, DCs;
  std::vector<double *> PA, PB, PC;
  for (int Bi = 0; Bi < Batch; ++Bi) {
    As[Bi] = vec<double>(N * N, 30 + Bi);
    for (int I = 0; I < N; ++I)
      As[Bi][I * N + I] += 2.5;
    DAs.push_back(new Dev<double>(As[Bi]));
    DBs.push_back(new Dev<double>(vec<double>(N, 40 + Bi)));
    DCs.push_back(new Dev<double>(std::vector<double>(N * N)));
    PA.push_back(DAs.back()->P);
    PB.push_back(DBs.back()->P);
    PC.push_back(DCs.back()->P);
  }
  Dev<double *> DPA(PA), DPB(PB), DPC(PC);
  Dev<int> Piv(std::vector<int>(N * Batch)), Info(std::vector<int>(Batch, -7));
  checkStatus("dgetrfBatched", cublasDgetrfBatched(H, N, DPA.P, N, Piv.P, Info.P, Batch), CUBLAS_STATUS_SUCCESS);
  int HostInfo = -1;
  checkStatus("dgetrsBatched",
              cublasDgetrsBatched(H, CUBLAS_OP_N, N, 1, DPA.P, N, Piv.P, DPB.P, N, &HostInfo, Batch),
              CUBLAS_STATUS_SUCCESS);
  checkStatus("dgetriBatched", cublasDgetriBatched(H, N, DPA.P, N, Piv.P, DPC.P, N, Info.P, Batch),
              CUBLAS_STATUS_SUCCESS);
  double ResSolve = 0, ResInv = 0;
  for (int Bi = 0; Bi < Batch; ++Bi) {
    std::vector<double> X = DBs[Bi]->get(), B = vec<double>(N, 40 + Bi), Inv = DCs[Bi]->get();
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = 0; J < N; ++J)
        S += As[Bi][J * N + I] * X[J];
      ResSolve = std::max(ResSolve, std::fabs(S - B[I]));
      for (int J = 0; J < N; ++J) {
        double P = 0;
        for (int K = 0; K < N; ++K)
          P += As[Bi][K * N + I] * Inv[J * N + K];
        ResInv = std::max(ResInv, std::fabs(P - (I == J ? 1.0 : 0.0)));
      }
    }
  }
  check("dgetrs_residual", ResSolve, 1e-12);
  check("dgetri_residual", ResInv, 1e-12);
  std::vector<int> Infos = Info.get();
  check("dgetrf_info", std::fabs((double)(Infos[0] | Infos[1] | Infos[2])) + std::fabs((double)HostInfo), 0);
  // matinvBatched on the original matrices (refill A).
  for (int Bi = 0; Bi < Batch; ++Bi)
    cudaMemcpy(PA[Bi], As[Bi].data(), N * N * 8, cudaMemcpyHostToDevice);
  checkStatus("dmatinvBatched", cublasDmatinvBatched(H, N, DPA.P, N, DPC.P, N, Info.P, Batch), CUBLAS_STATUS_SUCCESS);
  double R2 = 0;
  for (int Bi = 0; Bi < Batch; ++Bi) {
    std::vector<double> Inv = DCs[Bi]->get();
    for (int I = 0; I < N; ++I)
      for (int J = 0; J < N; ++J) {
        double P = 0;
        for (int K = 0; K < N; ++K)
          P += As[Bi][K * N + I] * Inv[J * N + K];
        R2 = std::max(R2, std::fabs(P - (I == J ? 1.0 : 0.0)));
      }
  }
  check("dmatinv_residual", R2, 1e-12);
  checkStatus("dmatinvBatched_n33", cublasDmatinvBatched(H, 33, DPA.P, 33, DPC.P, 33, Info.P, Batch),
              CUBLAS_STATUS_INVALID_VALUE);
  // trsmBatched: solve A X = B for the first column block.
  for (int Bi = 0; Bi < Batch; ++Bi)
    cudaMemcpy(PB[Bi], vec<double>(N, 40 + Bi).data(), N * 8, cudaMemcpyHostToDevice);
  double One = 1;
  cublasDtrsmBatched(H, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, N, 1, &One,
                     DPA.P, N, DPB.P, N, Batch);
  double R3 = 0;
  for (int Bi = 0; Bi < Batch; ++Bi) {
    std::vector<double> X = DBs[Bi]->get(), B = vec<double>(N, 40 + Bi);
    for (int I = 0; I < N; ++I) {
      double S = 0;
      for (int J = I; J < N; ++J)
        S += As[Bi][J * N + I] * X[J];
      R3 = std::max(R3, std::fabs(S - B[I]));
    }
  }
  check("dtrsmBatched", R3, 1e-12);
  for (int Bi = 0; Bi < Batch; ++Bi) {
    delete DAs[Bi];
    delete DBs[Bi];
    delete DCs[Bi];
  }
}

static void gemm64(cublasHandle_t H) {
  const int64_t M = 3, N = 2, K = 4;
  std::vector<float> A = vec<float>(M * K, 51), B = vec<float>(K * N, 52), C(M * N, 0.0f);
  Dev<float> DA(A), DB(B), DC(C);
  float One = 1, Zero = 0;
  cublasSgemm_64(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA.P, M, DB.P, K, &Zero, DC.P, M);
  std::vector<double> R(M * N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < M; ++I)
      for (int P = 0; P < K; ++P)
        R[J * M + I] += (double)A[P * M + I] * B[J * K + P];
  check("sgemm_64", maxDiff(DC.get(), R), 1e-6);
  cudaMemset(DC.P, 0, M * N * 4);
  cublasGemmEx_64(H, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &One, DA.P, CUDA_R_32F, M, DB.P, CUDA_R_32F, K, &Zero, DC.P,
                  CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  check("gemmex_64", maxDiff(DC.get(), R), 1e-6);
}

/// Eight threads, each with its own handle and stream, 20 SGEMMs each.
static void threads() {
  const int T = 8, N = 48;
  std::vector<double> Err(T, 0.0);
  std::vector<std::thread> Ts;
  for (int Ti = 0; Ti < T; ++Ti)
    Ts.emplace_back([Ti, &Err] {
      cublasHandle_t H;
      cudaStream_t S;
      cudaStreamCreate(&S);
      cublasCreate(&H);
      cublasSetStream(H, S);
      std::vector<float> A = vec<float>(N * N, 60 + Ti), B = vec<float>(N * N, 70 + Ti);
      float *DA, *DB, *DC;
      cudaMalloc(&DA, N * N * 4);
      cudaMalloc(&DB, N * N * 4);
      cudaMalloc(&DC, N * N * 4);
      cublasSetMatrixAsync(N, N, 4, A.data(), N, DA, N, S);
      cublasSetMatrixAsync(N, N, 4, B.data(), N, DB, N, S);
      cudaMemsetAsync(DC, 0, N * N * 4, S);
      float One = 1;
      for (int R = 0; R < 20; ++R)
        cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_T, N, N, N, &One, DA, N, DB, N, &One, DC, N);
      std::vector<float> C(N * N);
      cublasGetMatrixAsync(N, N, 4, DC, N, C.data(), N, S);
      cudaStreamSynchronize(S);
      double E = 0;
      for (int J = 0; J < N; ++J)
        for (int I = 0; I < N; ++I) {
          double W = 0;
          for (int P = 0; P < N; ++P)
            W += (double)A[P * N + I] * B[P * N + J];
          E = std::max(E, std::fabs(C[J * N + I] - 20 * W));
        }
      Err[Ti] = E;
      cudaFree(DA);
      cudaFree(DB);
      cudaFree(DC);
      cublasDestroy(H);
      cudaStreamDestroy(S);
    });
  for (auto &Th : Ts)
    Th.join();
  double E = 0;
  for (double X : Err)
    E = std::max(E, X);
  check("threads8_sgemm", E, 1e-3);
}

/// Mixed-type level 1, batched gemv, packed copies, settings and cublasXt.
static void extras(cublasHandle_t H) {
  const int N = 6;
  std::vector<__half> Xh(N), Yh(N);
  std::vector<float> Xf(N), Yf(N);
  for (int I = 0; I < N; ++I) {
    Xh[I] = __float2half((float)val(I, 81));
    Yh[I] = __float2half((float)val(I, 82));
    Xf[I] = __half2float(Xh[I]);
    Yf[I] = __half2float(Yh[I]);
  }
  Dev<__half> DX(Xh), DY(Yh);
  float Dot = 0, Nrm = 0, Al = 0.5f;
  cublasDotEx(H, N, DX.P, CUDA_R_16F, 1, DY.P, CUDA_R_16F, 1, &Dot, CUDA_R_32F, CUDA_R_32F);
  double W = 0, W2 = 0;
  for (int I = 0; I < N; ++I) {
    W += (double)Xf[I] * Yf[I];
    W2 += (double)Xf[I] * Xf[I];
  }
  check("dotex_f16", std::fabs(Dot - W), 1e-5);
  cublasNrm2Ex(H, N, DX.P, CUDA_R_16F, 1, &Nrm, CUDA_R_32F, CUDA_R_32F);
  check("nrm2ex_f16", std::fabs(Nrm - std::sqrt(W2)), 1e-5);
  cublasAxpyEx(H, N, &Al, CUDA_R_32F, DX.P, CUDA_R_16F, 1, DY.P, CUDA_R_16F, 1, CUDA_R_32F);
  std::vector<__half> Got = DY.get();
  double E = 0;
  for (int I = 0; I < N; ++I)
    E = std::max(E, std::fabs(__half2float(Got[I]) - (double)__half2float(__float2half(0.5f * Xf[I] + Yf[I]))));
  check("axpyex_f16", E, 0);
  // HSS strided batched gemv: 2 batches of a 3x2 half matrix.
  std::vector<__half> A(12), X(4);
  for (int I = 0; I < 12; ++I)
    A[I] = __float2half((float)val(I, 83));
  for (int I = 0; I < 4; ++I)
    X[I] = __float2half((float)val(I, 84));
  Dev<__half> DA(A), DXv(X);
  Dev<float> DYv(std::vector<float>(6, 1.0f));
  float One = 1, Two = 2;
  cublasHSSgemvStridedBatched(H, CUBLAS_OP_N, 3, 2, &One, DA.P, 3, 6, DXv.P, 1, 2, &Two, DYv.P, 1, 3, 2);
  std::vector<float> Yv = DYv.get();
  E = 0;
  for (int B = 0; B < 2; ++B)
    for (int I = 0; I < 3; ++I) {
      double S = 0;
      for (int J = 0; J < 2; ++J)
        S += (double)__half2float(A[B * 6 + J * 3 + I]) * __half2float(X[B * 2 + J]);
      E = std::max(E, std::fabs(Yv[B * 3 + I] - (S + 2.0)));
    }
  check("hssgemv_strided_batched", E, 1e-5);
  // trttp then tpttr round trip (upper).
  std::vector<double> Full = vec<double>(16, 85);
  Dev<double> DF(Full), DP(std::vector<double>(10)), DF2(std::vector<double>(16, 0.0));
  cublasDtrttp(H, CUBLAS_FILL_MODE_UPPER, 4, DF.P, 4, DP.P);
  cublasDtpttr(H, CUBLAS_FILL_MODE_UPPER, 4, DP.P, DF2.P, 4);
  std::vector<double> Back = DF2.get(), Want(16, 0.0);
  for (int J = 0; J < 4; ++J)
    for (int I = 0; I <= J; ++I)
      Want[J * 4 + I] = Full[J * 4 + I];
  check("trttp_tpttr", maxDiff(Back, Want), 0);
  int Sm = -1;
  cublasSetSmCountTarget(H, 7);
  cublasGetSmCountTarget(H, &Sm);
  check("sm_count_target", std::fabs(Sm - 7.0), 0);
  // cublasXt SGEMM on host memory.
  cublasXtHandle_t Xt;
  int Dev0 = 0;
  checkStatus("xt_create", cublasXtCreate(&Xt), CUBLAS_STATUS_SUCCESS);
  checkStatus("xt_select", cublasXtDeviceSelect(Xt, 1, &Dev0), CUBLAS_STATUS_SUCCESS);
  std::vector<float> Xa = vec<float>(12, 86), Xb = vec<float>(8, 87), Xc(6, 0.0f);
  float Zero = 0;
  checkStatus("xt_sgemm",
              cublasXtSgemm(Xt, CUBLAS_OP_N, CUBLAS_OP_N, 3, 2, 4, &One, Xa.data(), 3, Xb.data(), 4, &Zero, Xc.data(), 3),
              CUBLAS_STATUS_SUCCESS);
  E = 0;
  for (int J = 0; J < 2; ++J)
    for (int I = 0; I < 3; ++I) {
      double S = 0;
      for (int P = 0; P < 4; ++P)
        S += (double)Xa[P * 3 + I] * Xb[J * 4 + P];
      E = std::max(E, std::fabs(Xc[J * 3 + I] - S));
    }
  check("xt_sgemm", E, 1e-6);
  cublasXtDestroy(Xt);
}

/// Grouped batched GEMM (two groups of different shapes) and more Ex forms.
static void grouped(cublasHandle_t H) {
  // Group 0: 2 problems 3x2x4 (N,N); group 1: 1 problem 2x3x2 (T,N).
  std::vector<std::vector<float>> As, Bs;
  std::vector<Dev<float> *> DA, DB, DC;
  int Ms[3] = {3, 3, 2}, Ns[3] = {2, 2, 3}, Ks[3] = {4, 4, 2};
  for (int P = 0; P < 3; ++P) {
    As.push_back(vec<float>(Ms[P] * Ks[P], 90 + P));
    Bs.push_back(vec<float>(Ks[P] * Ns[P], 95 + P));
    DA.push_back(new Dev<float>(As.back()));
    DB.push_back(new Dev<float>(Bs.back()));
    DC.push_back(new Dev<float>(std::vector<float>(Ms[P] * Ns[P], 1.0f)));
  }
  std::vector<float *> PA, PB, PC;
  for (int P = 0; P < 3; ++P) {
    PA.push_back(DA[P]->P);
    PB.push_back(DB[P]->P);
    PC.push_back(DC[P]->P);
  }
  Dev<float *> DPA(PA), DPB(PB), DPC(PC);
  cublasOperation_t Ta[2] = {CUBLAS_OP_N, CUBLAS_OP_T}, Tb[2] = {CUBLAS_OP_N, CUBLAS_OP_N};
  int M[2] = {3, 2}, N[2] = {2, 3}, K[2] = {4, 2}, Lda[2] = {3, 2}, Ldb[2] = {4, 2}, Ldc[2] = {3, 2}, Size[2] = {2, 1};
  float Al[2] = {1.0f, 2.0f}, Be[2] = {0.0f, -1.0f};
  checkStatus("sgemm_grouped",
              cublasSgemmGroupedBatched(H, Ta, Tb, M, N, K, Al, DPA.P, Lda, DPB.P, Ldb, Be, DPC.P, Ldc, 2, Size),
              CUBLAS_STATUS_SUCCESS);
  double E = 0;
  for (int P = 0; P < 3; ++P) {
    int G = P < 2 ? 0 : 1;
    std::vector<float> C = DC[P]->get();
    for (int J = 0; J < N[G]; ++J)
      for (int I = 0; I < M[G]; ++I) {
        double S = 0;
        for (int Q = 0; Q < K[G]; ++Q) {
          double A = G == 0 ? As[P][Q * M[G] + I] : As[P][I * K[G] + Q];
          S += A * Bs[P][J * K[G] + Q];
        }
        E = std::max(E, std::fabs(C[J * M[G] + I] - (Al[G] * S + Be[G] * 1.0)));
      }
  }
  check("sgemm_grouped", E, 1e-5);
  for (int P = 0; P < 3; ++P) {
    delete DA[P];
    delete DB[P];
    delete DC[P];
  }
  // CgemmEx on complex single data.
  std::vector<cuComplex> Ca = cvec(6, 101), Cb = cvec(4, 102);
  Dev<cuComplex> DCa(Ca), DCb(Cb), DCc(std::vector<cuComplex>(6));
  cuComplex One = make_cuComplex(1, 0), Zero = make_cuComplex(0, 0);
  checkStatus("cgemmex", cublasCgemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, 3, 2, 2, &One, DCa.P, CUDA_C_32F, 3, DCb.P,
                                       CUDA_C_32F, 2, &Zero, DCc.P, CUDA_C_32F, 3),
              CUBLAS_STATUS_SUCCESS);
  std::vector<cuComplex> Cc = DCc.get();
  E = 0;
  for (int J = 0; J < 2; ++J)
    for (int I = 0; I < 3; ++I) {
      Cd S = cd(Ca[I]) * cd(Cb[J * 2]) + cd(Ca[3 + I]) * cd(Cb[J * 2 + 1]);
      E = std::max(E, std::abs(cd(Cc[J * 3 + I]) - S));
    }
  check("cgemmex", E, 1e-5);
  // IamaxEx and AsumEx on half data.
  std::vector<__half> Hx(5);
  float Vals[5] = {0.5f, -3.0f, 2.0f, 3.0f, -1.0f};
  for (int I = 0; I < 5; ++I)
    Hx[I] = __float2half(Vals[I]);
  Dev<__half> DHx(Hx);
  int Imax = 0;
  float Asum = 0;
  cublasIamaxEx(H, 5, DHx.P, CUDA_R_16F, 1, &Imax);
  cublasAsumEx(H, 5, DHx.P, CUDA_R_16F, 1, &Asum, CUDA_R_32F, CUDA_R_32F);
  check("iamaxex_f16_first_of_ties", std::fabs(Imax - 2.0), 0);
  check("asumex_f16", std::fabs(Asum - 9.5), 0);
}

int main() {
  cudaFree(nullptr);
  cublasHandle_t H;
  if (cublasCreate(&H) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\nCublasMore: FAIL\n");
    return 1;
  }
  level2(H);
  level3(H);
  rotations(H);
  batchedSolvers(H);
  gemm64(H);
  extras(H);
  grouped(H);
  cublasDestroy(H);
  threads();
  std::printf("CublasMore: %s\n", Failures ? "FAIL" : "PASS");
  return Failures ? 1 : 0;
}
