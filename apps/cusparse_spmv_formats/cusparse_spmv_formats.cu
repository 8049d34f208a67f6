/// \file
/// cusparseSpMV over every storage and operation a program may pick: CSR,
/// CSC and COO storage of one random rectangular matrix, index base zero
/// and one, op(A) = A, A^T and A^H, beta zero and nonzero, and each SpMV
/// algorithm enum (DEFAULT, CSR_ALG1/2, COO_ALG1/2). A combination NVIDIA's
/// cuSPARSE refuses prints its status (the golden records which); the
/// others are checked against a host product in double.
#include "../common/sparse_util.h"

int main() {
  const int M = 300, N = 220;
  HostCsr<float> A = randomCsr<float>(M, N, 8, 81, false);
  int Nnz = A.nnz();
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  cudaStream_t S;
  CHECK(cudaStreamCreate(&S));
  CUSPARSE_CHECK(cusparseSetStream(H, S));
  cudaStream_t Got;
  CUSPARSE_CHECK(cusparseGetStream(H, &Got));
  std::printf("stream set: %s\n", Got == S ? "yes" : "no");

  // Host storages, each in base zero and base one.
  std::vector<int> Rows, CPtr(N + 1, 0), CIdx(Nnz);
  std::vector<float> CVal(Nnz);
  for (int I = 0; I < M; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
      Rows.push_back(I);
  for (int J : A.Idx)
    ++CPtr[J + 1];
  for (int J = 0; J < N; ++J)
    CPtr[J + 1] += CPtr[J];
  std::vector<int> Next(CPtr.begin(), CPtr.end() - 1);
  for (int I = 0; I < M; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P) {
      int At = Next[A.Idx[P]]++;
      CIdx[At] = I;
      CVal[At] = A.Val[P];
    }
  auto Plus = [](std::vector<int> V, int B) {
    for (int &X : V)
      X += B;
    return V;
  };
  std::vector<float> X = randomVector<float>(std::max(M, N), 82),
                     Y0 = randomVector<float>(std::max(M, N), 83);
  float *DVal = upload(A.Val), *DCVal = upload(CVal), *DX = upload(X), *DY;
  CHECK(cudaMalloc(&DY, std::max(M, N) * sizeof(float)));

  struct Storage {
    const char *Name;
    cusparseFormat_t Format;
  } Storages[] = {
      {"csr", CUSPARSE_FORMAT_CSR}, {"csc", CUSPARSE_FORMAT_CSC}, {"coo", CUSPARSE_FORMAT_COO}};
  const char *OpNames[] = {"n", "t", "h"};
  for (int Base = 0; Base < 2; ++Base) {
    int *DPtr = upload(Plus(A.Ptr, Base)), *DIdx = upload(Plus(A.Idx, Base)),
        *DRows = upload(Plus(Rows, Base)), *DCPtr = upload(Plus(CPtr, Base)),
        *DCIdx = upload(Plus(CIdx, Base));
    auto IB = Base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO;
    for (const Storage &St : Storages) {
      cusparseSpMatDescr_t MA;
      if (St.Format == CUSPARSE_FORMAT_CSR)
        CUSPARSE_CHECK(cusparseCreateCsr(&MA, M, N, Nnz, DPtr, DIdx, DVal, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, IB, CUDA_R_32F));
      else if (St.Format == CUSPARSE_FORMAT_CSC)
        CUSPARSE_CHECK(cusparseCreateCsc(&MA, M, N, Nnz, DCPtr, DCIdx, DCVal, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, IB, CUDA_R_32F));
      else
        CUSPARSE_CHECK(cusparseCreateCoo(&MA, M, N, Nnz, DRows, DIdx, DVal, CUSPARSE_INDEX_32I, IB,
                                         CUDA_R_32F));
      cusparseFormat_t F;
      cusparseIndexBase_t B;
      CUSPARSE_CHECK(cusparseSpMatGetFormat(MA, &F));
      CUSPARSE_CHECK(cusparseSpMatGetIndexBase(MA, &B));
      std::printf("%s base %d: format %d index base %d\n", St.Name, Base, (int)F, (int)B);
      cusparseSpMVAlg_t Algs[] = {
          CUSPARSE_SPMV_ALG_DEFAULT,
          St.Format == CUSPARSE_FORMAT_COO ? CUSPARSE_SPMV_COO_ALG1 : CUSPARSE_SPMV_CSR_ALG1,
          St.Format == CUSPARSE_FORMAT_COO ? CUSPARSE_SPMV_COO_ALG2 : CUSPARSE_SPMV_CSR_ALG2};
      for (int Op = 0; Op < 3; ++Op)
        for (int Al = 0; Al < 3; ++Al) {
          int Rm = Op ? N : M, Cm = Op ? M : N;
          cusparseDnVecDescr_t VX, VY;
          CUSPARSE_CHECK(cusparseCreateDnVec(&VX, Cm, DX, CUDA_R_32F));
          CUSPARSE_CHECK(cusparseCreateDnVec(&VY, Rm, DY, CUDA_R_32F));
          CHECK(cudaMemcpyAsync(DY, Y0.data(), Rm * sizeof(float), cudaMemcpyHostToDevice, S));
          float Alpha = 1.5f, Beta = (Op + Al) % 2 ? 0.25f : 0.0f;
          char Name[64];
          std::snprintf(Name, sizeof Name, "%s-b%d-%s-alg%d", St.Name, Base, OpNames[Op],
                        (int)Algs[Al]);
          size_t Size = 0;
          int Status = cusparseSpMV_bufferSize(H, (cusparseOperation_t)Op, &Alpha, MA, VX, &Beta,
                                               VY, CUDA_R_32F, Algs[Al], &Size);
          void *Buf = nullptr;
          if (Status == 0) {
            CHECK(cudaMalloc(&Buf, Size ? Size : 1));
            Status = cusparseSpMV(H, (cusparseOperation_t)Op, &Alpha, MA, VX, &Beta, VY, CUDA_R_32F,
                                  Algs[Al], Buf);
          }
          if (Status != 0) {
            std::printf("%-22s status %d\n", Name, Status);
          } else {
            CHECK(cudaStreamSynchronize(S));
            std::vector<float> Y = download(DY, Rm);
            std::vector<double> Want(Rm, 0.0);
            for (int I = 0; I < M; ++I)
              for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P) {
                if (Op == 0)
                  Want[I] += (double)A.Val[P] * X[A.Idx[P]];
                else
                  Want[A.Idx[P]] += (double)A.Val[P] * X[I];
              }
            for (int I = 0; I < Rm; ++I)
              Want[I] = Alpha * Want[I] + Beta * Y0[I];
            report(Name, allClose(Y, Want, 1e-5), sumAbs(Y));
          }
          cudaFree(Buf);
          CUSPARSE_CHECK(cusparseDestroyDnVec(VX));
          CUSPARSE_CHECK(cusparseDestroyDnVec(VY));
        }
      CUSPARSE_CHECK(cusparseDestroySpMat(MA));
    }
    cudaFree(DPtr), cudaFree(DIdx), cudaFree(DRows), cudaFree(DCPtr), cudaFree(DCIdx);
  }
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
