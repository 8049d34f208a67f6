/// \file
/// Block-sparse (BSR) matrices as FEM codes with several unknowns per node
/// store them: cusparseCreateBsr with 2x2 and 3x3 blocks in row- and
/// column-major block order, cusparseSpMV and cusparseSpMM on them, index
/// base zero and one. A combination NVIDIA's cuSPARSE refuses prints its
/// status (the golden records which); the others are checked against the
/// host product of the expanded matrix.
#include "../common/sparse_util.h"

int main() {
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  for (int Bs : {2, 3})
    for (int Ord = 0; Ord < 2; ++Ord)
      for (int Base = 0; Base < 2; ++Base) {
        const int Mb = 40, Nb = 30;
        HostCsr<float> Pattern = randomCsr<float>(Mb, Nb, 3, 90 + Bs, false);
        int Nnzb = Pattern.nnz();
        std::vector<float> Val = randomVector<float>(Nnzb * Bs * Bs, 91 + Ord);
        auto Order = Ord ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW;
        // The expanded matrix, dense row-major, for the reference.
        int M = Mb * Bs, N = Nb * Bs;
        std::vector<double> Dense(M * N, 0.0);
        for (int Bi = 0; Bi < Mb; ++Bi)
          for (int P = Pattern.Ptr[Bi]; P < Pattern.Ptr[Bi + 1]; ++P)
            for (int R = 0; R < Bs; ++R)
              for (int C = 0; C < Bs; ++C)
                Dense[(Bi * Bs + R) * N + Pattern.Idx[P] * Bs + C] =
                    Val[P * Bs * Bs + (Ord ? C * Bs + R : R * Bs + C)];
        std::vector<int> Ptr = Pattern.Ptr, Idx = Pattern.Idx;
        for (int &X : Ptr)
          X += Base;
        for (int &X : Idx)
          X += Base;
        int *DPtr = upload(Ptr), *DIdx = upload(Idx);
        float *DVal = upload(Val);
        cusparseSpMatDescr_t MA;
        CUSPARSE_CHECK(cusparseCreateBsr(
            &MA, Mb, Nb, Nnzb, Bs, Bs, DPtr, DIdx, DVal, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
            Base ? CUSPARSE_INDEX_BASE_ONE : CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F, Order));
        char Name[64];
        // SpMV
        std::vector<float> X = randomVector<float>(N, 92);
        float *DX = upload(X), *DY;
        CHECK(cudaMalloc(&DY, M * sizeof(float)));
        cusparseDnVecDescr_t VX, VY;
        CUSPARSE_CHECK(cusparseCreateDnVec(&VX, N, DX, CUDA_R_32F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&VY, M, DY, CUDA_R_32F));
        float Alpha = 1, Beta = 0;
        std::snprintf(Name, sizeof Name, "spmv-b%d-%s-base%d", Bs, Ord ? "col" : "row", Base);
        size_t Size = 0;
        int St = cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, MA, VX, &Beta,
                                         VY, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &Size);
        void *Buf = nullptr;
        if (St == 0) {
          CHECK(cudaMalloc(&Buf, Size ? Size : 1));
          St = cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, MA, VX, &Beta, VY,
                            CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, Buf);
        }
        if (St) {
          std::printf("%-24s status %d\n", Name, St);
        } else {
          std::vector<float> Y = download(DY, M);
          std::vector<double> Want(M, 0.0);
          for (int I = 0; I < M; ++I)
            for (int J = 0; J < N; ++J)
              Want[I] += Dense[I * N + J] * X[J];
          report(Name, allClose(Y, Want, 1e-5), sumAbs(Y));
        }
        cudaFree(Buf);
        // SpMM with 8 columns, column-major B and C.
        const int K = 8;
        std::vector<float> B = randomVector<float>(N * K, 93);
        float *DB = upload(B), *DC;
        CHECK(cudaMalloc(&DC, M * K * sizeof(float)));
        cusparseDnMatDescr_t MB, MC;
        CUSPARSE_CHECK(cusparseCreateDnMat(&MB, N, K, N, DB, CUDA_R_32F, CUSPARSE_ORDER_COL));
        CUSPARSE_CHECK(cusparseCreateDnMat(&MC, M, K, M, DC, CUDA_R_32F, CUSPARSE_ORDER_COL));
        std::snprintf(Name, sizeof Name, "spmm-b%d-%s-base%d", Bs, Ord ? "col" : "row", Base);
        St = cusparseSpMM_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, MA, MB, &Beta, MC,
                                     CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &Size);
        Buf = nullptr;
        if (St == 0) {
          CHECK(cudaMalloc(&Buf, Size ? Size : 1));
          St = cusparseSpMM(H, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                            &Alpha, MA, MB, &Beta, MC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, Buf);
        }
        if (St) {
          std::printf("%-24s status %d\n", Name, St);
        } else {
          std::vector<float> C = download(DC, M * K);
          std::vector<double> Want(M * K, 0.0);
          for (int I = 0; I < M; ++I)
            for (int J = 0; J < K; ++J)
              for (int L = 0; L < N; ++L)
                Want[J * M + I] += Dense[I * N + L] * B[J * N + L];
          report(Name, allClose(C, Want, 1e-5), sumAbs(C));
        }
        cudaFree(Buf);
        CUSPARSE_CHECK(cusparseDestroyDnVec(VX));
        CUSPARSE_CHECK(cusparseDestroyDnVec(VY));
        CUSPARSE_CHECK(cusparseDestroyDnMat(MB));
        CUSPARSE_CHECK(cusparseDestroyDnMat(MC));
        CUSPARSE_CHECK(cusparseDestroySpMat(MA));
        cudaFree(DPtr), cudaFree(DIdx), cudaFree(DVal), cudaFree(DX), cudaFree(DY), cudaFree(DB),
            cudaFree(DC);
      }
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
