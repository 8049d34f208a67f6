/// \file
/// Complex sparse algebra as electromagnetics and quantum codes use it:
/// cusparseSpMV in complex float with op(A) = A, A^T and A^H (the
/// conjugate matters), a complex double triangular solve (cusparseSpSV,
/// lower and upper, with A^H), and the sparse-vector calls cusparseSpVV
/// (plain and conjugated), cusparseAxpby, cusparseGather, cusparseScatter
/// (complex double) and cusparseRot (float). Checked against host
/// references in complex double.
#include "../common/sparse_util.h"
#include <cuComplex.h>

typedef std::complex<float> cf;
typedef std::complex<double> cd;

template <typename T>
static HostCsr<T> randomComplex(int Rows, int Cols, int PerRow, uint64_t Seed, bool Square) {
  HostCsr<float> Re = randomCsr<float>(Rows, Cols, PerRow, Seed, Square);
  HostCsr<T> A;
  A.Rows = Rows, A.Cols = Cols, A.Ptr = Re.Ptr, A.Idx = Re.Idx;
  Lcg R(Seed + 1);
  for (float V : Re.Val)
    A.Val.push_back(T(V, R.range(-1, 1)));
  return A;
}

int main() {
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  // SpMV, complex float.
  {
    const int M = 90, N = 70;
    HostCsr<cf> A = randomComplex<cf>(M, N, 5, 101, false);
    std::vector<cf> X(std::max(M, N)), Y0(std::max(M, N));
    Lcg R(102);
    for (auto &V : X)
      V = cf(R.range(-1, 1), R.range(-1, 1));
    for (auto &V : Y0)
      V = cf(R.range(-1, 1), R.range(-1, 1));
    int *DPtr = upload(A.Ptr), *DIdx = upload(A.Idx);
    cf *DVal = upload(A.Val), *DX = upload(X), *DY = upload(Y0);
    cusparseSpMatDescr_t MA;
    CUSPARSE_CHECK(cusparseCreateCsr(&MA, M, N, A.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_C_32F));
    const char *Names[] = {"cspmv-n", "cspmv-t", "cspmv-h"};
    for (int Op = 0; Op < 3; ++Op) {
      int Rm = Op ? N : M, Cm = Op ? M : N;
      CHECK(cudaMemcpy(DY, Y0.data(), Rm * sizeof(cf), cudaMemcpyHostToDevice));
      cusparseDnVecDescr_t VX, VY;
      CUSPARSE_CHECK(cusparseCreateDnVec(&VX, Cm, DX, CUDA_C_32F));
      CUSPARSE_CHECK(cusparseCreateDnVec(&VY, Rm, DY, CUDA_C_32F));
      cuComplex Alpha = make_cuComplex(0.5f, -1.0f), Beta = make_cuComplex(0.25f, 0.5f);
      size_t Size;
      CUSPARSE_CHECK(cusparseSpMV_bufferSize(H, (cusparseOperation_t)Op, &Alpha, MA, VX, &Beta, VY,
                                             CUDA_C_32F, CUSPARSE_SPMV_ALG_DEFAULT, &Size));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Size ? Size : 1));
      CUSPARSE_CHECK(cusparseSpMV(H, (cusparseOperation_t)Op, &Alpha, MA, VX, &Beta, VY, CUDA_C_32F,
                                  CUSPARSE_SPMV_ALG_DEFAULT, Buf));
      std::vector<cf> Y = download(DY, Rm);
      std::vector<cd> Want(Rm);
      for (int I = 0; I < M; ++I)
        for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P) {
          cd V = cd(A.Val[P]);
          if (Op == 0)
            Want[I] += V * cd(X[A.Idx[P]]);
          else
            Want[A.Idx[P]] += (Op == 2 ? std::conj(V) : V) * cd(X[I]);
        }
      for (int I = 0; I < Rm; ++I)
        Want[I] = cd(0.5, -1.0) * Want[I] + cd(0.25, 0.5) * cd(Y0[I]);
      report(Names[Op], allClose(Y, Want, 1e-5), sumAbs(Y));
      CUSPARSE_CHECK(cusparseDestroyDnVec(VX));
      CUSPARSE_CHECK(cusparseDestroyDnVec(VY));
      cudaFree(Buf);
    }
    CUSPARSE_CHECK(cusparseDestroySpMat(MA));
  }
  // SpSV, complex double: solve op(L) y = alpha x and check op(L) y = alpha x on the host.
  {
    const int N = 120;
    HostCsr<cd> A = randomComplex<cd>(N, N, 4, 111, true);
    std::vector<cd> X(N);
    Lcg R(112);
    for (auto &V : X)
      V = cd(R.range(-1, 1), R.range(-1, 1));
    int *DPtr = upload(A.Ptr), *DIdx = upload(A.Idx);
    cd *DVal = upload(A.Val), *DX = upload(X), *DY;
    CHECK(cudaMalloc(&DY, N * sizeof(cd)));
    struct Case {
      const char *Name;
      cusparseFillMode_t Fill;
      cusparseOperation_t Op;
    } Cases[] = {
        {"zspsv-lower-n", CUSPARSE_FILL_MODE_LOWER, CUSPARSE_OPERATION_NON_TRANSPOSE},
        {"zspsv-upper-n", CUSPARSE_FILL_MODE_UPPER, CUSPARSE_OPERATION_NON_TRANSPOSE},
        {"zspsv-lower-h", CUSPARSE_FILL_MODE_LOWER, CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE}};
    for (const Case &Cs : Cases) {
      cusparseSpMatDescr_t MA;
      CUSPARSE_CHECK(cusparseCreateCsr(&MA, N, N, A.nnz(), DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_C_64F));
      cusparseFillMode_t Fill = Cs.Fill;
      CUSPARSE_CHECK(cusparseSpMatSetAttribute(MA, CUSPARSE_SPMAT_FILL_MODE, &Fill, sizeof Fill));
      cusparseDnVecDescr_t VX, VY;
      CUSPARSE_CHECK(cusparseCreateDnVec(&VX, N, DX, CUDA_C_64F));
      CUSPARSE_CHECK(cusparseCreateDnVec(&VY, N, DY, CUDA_C_64F));
      cusparseSpSVDescr_t D;
      CUSPARSE_CHECK(cusparseSpSV_createDescr(&D));
      cuDoubleComplex Alpha = make_cuDoubleComplex(2.0, 1.0);
      size_t Size;
      CUSPARSE_CHECK(cusparseSpSV_bufferSize(H, Cs.Op, &Alpha, MA, VX, VY, CUDA_C_64F,
                                             CUSPARSE_SPSV_ALG_DEFAULT, D, &Size));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Size ? Size : 1));
      CUSPARSE_CHECK(cusparseSpSV_analysis(H, Cs.Op, &Alpha, MA, VX, VY, CUDA_C_64F,
                                           CUSPARSE_SPSV_ALG_DEFAULT, D, Buf));
      CUSPARSE_CHECK(cusparseSpSV_solve(H, Cs.Op, &Alpha, MA, VX, VY, CUDA_C_64F,
                                        CUSPARSE_SPSV_ALG_DEFAULT, D));
      std::vector<cd> Y = download(DY, N), Check(N);
      // Check = op(T) y with T the chosen triangle.
      for (int I = 0; I < N; ++I)
        for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P) {
          int J = A.Idx[P];
          if (Cs.Fill == CUSPARSE_FILL_MODE_LOWER ? J > I : J < I)
            continue;
          if (Cs.Op == CUSPARSE_OPERATION_NON_TRANSPOSE)
            Check[I] += A.Val[P] * Y[J];
          else
            Check[J] += std::conj(A.Val[P]) * Y[I];
        }
      std::vector<cd> Want(N);
      for (int I = 0; I < N; ++I)
        Want[I] = cd(2.0, 1.0) * X[I];
      report(Cs.Name, allClose(Check, Want, 1e-12), sumAbs(Y));
      CUSPARSE_CHECK(cusparseSpSV_destroyDescr(D));
      CUSPARSE_CHECK(cusparseDestroyDnVec(VX));
      CUSPARSE_CHECK(cusparseDestroyDnVec(VY));
      CUSPARSE_CHECK(cusparseDestroySpMat(MA));
      cudaFree(Buf);
    }
  }
  // Sparse vectors.
  {
    const int N = 500, Nz = 60;
    std::vector<int> Ind;
    for (int K = 0; K < Nz; ++K)
      Ind.push_back(K * 8 + 3);
    std::vector<cf> Xs(Nz), Yd(N);
    Lcg R(121);
    for (auto &V : Xs)
      V = cf(R.range(-1, 1), R.range(-1, 1));
    for (auto &V : Yd)
      V = cf(R.range(-1, 1), R.range(-1, 1));
    int *DInd = upload(Ind);
    cf *DXs = upload(Xs), *DYd = upload(Yd);
    cusparseSpVecDescr_t VX;
    cusparseDnVecDescr_t VY;
    CUSPARSE_CHECK(cusparseCreateSpVec(&VX, N, Nz, DInd, DXs, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_C_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&VY, N, DYd, CUDA_C_32F));
    for (int Conj = 0; Conj < 2; ++Conj) {
      auto Op = Conj ? CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
      cf Result;
      size_t Size;
      CUSPARSE_CHECK(cusparseSpVV_bufferSize(H, Op, VX, VY, &Result, CUDA_C_32F, &Size));
      void *Buf;
      CHECK(cudaMalloc(&Buf, Size ? Size : 1));
      CUSPARSE_CHECK(cusparseSpVV(H, Op, VX, VY, &Result, CUDA_C_32F, Buf));
      cd Want = 0;
      for (int K = 0; K < Nz; ++K)
        Want += (Conj ? std::conj(cd(Xs[K])) : cd(Xs[K])) * cd(Yd[Ind[K]]);
      std::vector<cf> G{Result};
      std::vector<cd> W{Want};
      report(Conj ? "cspvv-conj" : "cspvv", allClose(G, W, 1e-5), std::abs(Result));
      cudaFree(Buf);
    }
    cuComplex Alpha = make_cuComplex(1.5f, 0.5f), Beta = make_cuComplex(-0.5f, 0.0f);
    CUSPARSE_CHECK(cusparseAxpby(H, &Alpha, VX, &Beta, VY));
    std::vector<cf> Got = download(DYd, N);
    std::vector<cd> Want(N);
    for (int I = 0; I < N; ++I)
      Want[I] = cd(-0.5, 0) * cd(Yd[I]);
    for (int K = 0; K < Nz; ++K)
      Want[Ind[K]] += cd(1.5, 0.5) * cd(Xs[K]);
    report("caxpby", allClose(Got, Want, 1e-6), sumAbs(Got));
    CUSPARSE_CHECK(cusparseDestroySpVec(VX));
    CUSPARSE_CHECK(cusparseDestroyDnVec(VY));

    // Gather and scatter, complex double.
    std::vector<cd> Dz(N);
    for (int I = 0; I < N; ++I)
      Dz[I] = cd(I, -I);
    cd *DDz = upload(Dz), *DSz;
    CHECK(cudaMalloc(&DSz, Nz * sizeof(cd)));
    cusparseSpVecDescr_t SZ;
    cusparseDnVecDescr_t DZ;
    CUSPARSE_CHECK(cusparseCreateSpVec(&SZ, N, Nz, DInd, DSz, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_C_64F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&DZ, N, DDz, CUDA_C_64F));
    CUSPARSE_CHECK(cusparseGather(H, DZ, SZ));
    std::vector<cd> G = download(DSz, Nz);
    bool Ok = true;
    for (int K = 0; K < Nz; ++K)
      Ok &= G[K] == Dz[Ind[K]];
    report("zgather", Ok, sumAbs(G));
    CHECK(cudaMemset(DDz, 0, N * sizeof(cd)));
    CUSPARSE_CHECK(cusparseScatter(H, SZ, DZ));
    std::vector<cd> Sc = download(DDz, N);
    Ok = true;
    for (int I = 0, K = 0; I < N; ++I)
      if (K < Nz && Ind[K] == I)
        Ok &= Sc[I] == Dz[I], ++K;
      else
        Ok &= Sc[I] == cd(0, 0);
    report("zscatter", Ok, sumAbs(Sc));
    CUSPARSE_CHECK(cusparseDestroySpVec(SZ));
    CUSPARSE_CHECK(cusparseDestroyDnVec(DZ));

    // Givens rotation, float.
    std::vector<float> Xr = randomVector<float>(Nz, 131), Yr = randomVector<float>(N, 132);
    float *DXr = upload(Xr), *DYr = upload(Yr);
    cusparseSpVecDescr_t SR;
    cusparseDnVecDescr_t DR;
    CUSPARSE_CHECK(cusparseCreateSpVec(&SR, N, Nz, DInd, DXr, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&DR, N, DYr, CUDA_R_32F));
    float C = 0.6f, S = 0.8f;
    CUSPARSE_CHECK(cusparseRot(H, &C, &S, SR, DR));
    std::vector<float> GX = download(DXr, Nz), GY = download(DYr, N);
    std::vector<double> WX(Nz), WY(Yr.begin(), Yr.end());
    for (int K = 0; K < Nz; ++K) {
      WX[K] = 0.6 * Xr[K] + 0.8 * Yr[Ind[K]];
      WY[Ind[K]] = 0.6 * Yr[Ind[K]] - 0.8 * Xr[K];
    }
    report("srot", allClose(GX, WX, 1e-6) && allClose(GY, WY, 1e-6), sumAbs(GX) + sumAbs(GY));
    CUSPARSE_CHECK(cusparseDestroySpVec(SR));
    CUSPARSE_CHECK(cusparseDestroyDnVec(DR));
  }
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
