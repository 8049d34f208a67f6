/// \file
/// The format conversions and sorts sparse codes chain together when they
/// read a matrix file (unsorted COO) and need CSR/CSC: cusparseXcoosortByRow
/// with a permutation from cusparseCreateIdentityPermutation applied to the
/// values with cusparseGather, cusparseXcoo2csr, cusparseXcsr2coo back,
/// cusparseCsr2cscEx2 (numeric and symbolic), cusparseXcoosortByColumn,
/// cusparseXcsrsort on shuffled rows, cusparseSparseToDense and
/// cusparseDenseToSparse (analysis then convert), with index base zero and
/// one. Integer results are exact and printed as sums; every step is checked
/// against the host.
#include "../common/sparse_util.h"
#include <numeric>

static long long isum(const std::vector<int> &V) {
  long long S = 0, K = 1;
  for (int X : V)
    S += (long long)X * (K++ % 7 + 1); // position-weighted: order matters
  return S;
}

int main() {
  const int M = 50, N = 40;
  HostCsr<float> A = randomCsr<float>(M, N, 5, 71, false);
  int Nnz = A.nnz();
  // Shuffle the entries into an unsorted COO list (base one, as Matrix Market files are).
  std::vector<int> Order(Nnz), CooR(Nnz), CooC(Nnz), Rows;
  std::vector<float> CooV(Nnz);
  for (int I = 0; I < M; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
      Rows.push_back(I);
  std::iota(Order.begin(), Order.end(), 0);
  Lcg R(72);
  for (int K = Nnz - 1; K > 0; --K)
    std::swap(Order[K], Order[R.below(K + 1)]);
  for (int K = 0; K < Nnz; ++K) {
    CooR[K] = Rows[Order[K]] + 1;
    CooC[K] = A.Idx[Order[K]] + 1;
    CooV[K] = A.Val[Order[K]];
  }
  cusparseHandle_t H;
  CUSPARSE_CHECK(cusparseCreate(&H));
  int *DR = upload(CooR), *DC = upload(CooC), *DP;
  float *DV = upload(CooV), *DSorted;
  CHECK(cudaMalloc(&DP, Nnz * sizeof(int)));
  CHECK(cudaMalloc(&DSorted, Nnz * sizeof(float)));

  // 1. Sort by row with a permutation, then gather the values through it.
  size_t Size = 0;
  CUSPARSE_CHECK(cusparseXcoosort_bufferSizeExt(H, M, N, Nnz, DR, DC, &Size));
  void *Buf;
  CHECK(cudaMalloc(&Buf, Size));
  CUSPARSE_CHECK(cusparseCreateIdentityPermutation(H, Nnz, DP));
  CUSPARSE_CHECK(cusparseXcoosortByRow(H, M, N, Nnz, DR, DC, DP, Buf));
  cusparseSpVecDescr_t VX;
  cusparseDnVecDescr_t VY;
  CUSPARSE_CHECK(cusparseCreateSpVec(&VX, Nnz, Nnz, DP, DSorted, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateDnVec(&VY, Nnz, DV, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseGather(H, VY, VX));
  std::vector<int> GotR = download(DR, Nnz), GotC = download(DC, Nnz);
  std::vector<float> GotV = download(DSorted, Nnz);
  // Rows ascending, and every entry is the input entry the permutation names
  // (the order of columns within a row is left to the implementation).
  std::vector<int> Perm0 = download(DP, Nnz);
  bool Ok = true;
  for (int K = 0; K < Nnz; ++K)
    Ok &= GotR[K] == Rows[K] + 1 && GotR[K] == CooR[Perm0[K]] && GotC[K] == CooC[Perm0[K]] &&
          GotV[K] == CooV[Perm0[K]];
  report("coosort-row", Ok, (double)isum(GotR));

  // 2. COO rows -> CSR offsets (base one), and back.
  int *DPtr, *DBack;
  CHECK(cudaMalloc(&DPtr, (M + 1) * sizeof(int)));
  CHECK(cudaMalloc(&DBack, Nnz * sizeof(int)));
  CUSPARSE_CHECK(cusparseXcoo2csr(H, DR, Nnz, M, DPtr, CUSPARSE_INDEX_BASE_ONE));
  CUSPARSE_CHECK(cusparseXcsr2coo(H, DPtr, Nnz, M, DBack, CUSPARSE_INDEX_BASE_ONE));
  std::vector<int> GotPtr = download(DPtr, M + 1), GotBack = download(DBack, Nnz);
  Ok = true;
  for (int I = 0; I <= M; ++I)
    Ok &= GotPtr[I] == A.Ptr[I] + 1;
  report("coo2csr", Ok, (double)isum(GotPtr));
  report("csr2coo", GotBack == GotR, (double)isum(GotBack));

  // 3. CSR -> CSC, numeric (base one) then symbolic.
  int *DCscPtr, *DCscIdx;
  float *DCscVal;
  CHECK(cudaMalloc(&DCscPtr, (N + 1) * sizeof(int)));
  CHECK(cudaMalloc(&DCscIdx, Nnz * sizeof(int)));
  CHECK(cudaMalloc(&DCscVal, Nnz * sizeof(float)));
  CUSPARSE_CHECK(cusparseCsr2cscEx2_bufferSize(
      H, M, N, Nnz, DSorted, DPtr, DC, DCscVal, DCscPtr, DCscIdx, CUDA_R_32F,
      CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ONE, CUSPARSE_CSR2CSC_ALG1, &Size));
  void *Buf2;
  CHECK(cudaMalloc(&Buf2, Size ? Size : 1));
  CUSPARSE_CHECK(cusparseCsr2cscEx2(H, M, N, Nnz, DSorted, DPtr, DC, DCscVal, DCscPtr, DCscIdx,
                                    CUDA_R_32F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ONE,
                                    CUSPARSE_CSR2CSC_ALG1, Buf2));
  std::vector<int> WantPtr(N + 1, 0), WantIdx(Nnz);
  std::vector<float> WantVal(Nnz);
  for (int J : A.Idx)
    ++WantPtr[J + 1];
  for (int J = 0; J < N; ++J)
    WantPtr[J + 1] += WantPtr[J];
  std::vector<int> Next(WantPtr.begin(), WantPtr.end() - 1);
  for (int I = 0; I < M; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P) {
      int At = Next[A.Idx[P]]++;
      WantIdx[At] = I + 1;
      WantVal[At] = A.Val[P];
    }
  for (int &X : WantPtr)
    ++X;
  std::vector<int> CscPtr = download(DCscPtr, N + 1), CscIdx = download(DCscIdx, Nnz);
  std::vector<float> CscVal = download(DCscVal, Nnz);
  report("csr2csc", CscPtr == WantPtr && CscIdx == WantIdx && CscVal == WantVal,
         (double)isum(CscIdx));
  CHECK(cudaMemset(DCscIdx, 0, Nnz * sizeof(int)));
  CUSPARSE_CHECK(cusparseCsr2cscEx2(H, M, N, Nnz, nullptr, DPtr, DC, nullptr, DCscPtr, DCscIdx,
                                    CUDA_R_32F, CUSPARSE_ACTION_SYMBOLIC, CUSPARSE_INDEX_BASE_ONE,
                                    CUSPARSE_CSR2CSC_ALG1, Buf2));
  report("csr2csc-symbolic", download(DCscIdx, Nnz) == WantIdx, (double)isum(WantIdx));

  // 4. Sort the row-sorted COO by column: the CSC order.
  CUSPARSE_CHECK(cusparseCreateIdentityPermutation(H, Nnz, DP));
  CUSPARSE_CHECK(cusparseXcoosortByColumn(H, M, N, Nnz, DR, DC, DP, Buf));
  std::vector<int> ByColR = download(DR, Nnz), ByColC = download(DC, Nnz),
                   Perm1 = download(DP, Nnz);
  Ok = true;
  for (int J = 0, K = 0; J < N; ++J)
    for (int P = WantPtr[J] - 1; P < WantPtr[J + 1] - 1; ++P, ++K)
      Ok &= ByColC[K] == J + 1 && ByColR[K] == GotR[Perm1[K]] && ByColC[K] == GotC[Perm1[K]];
  report("coosort-column", Ok, (double)isum(ByColC));

  // 5. csrsort: reverse each row's columns, sort them back (base zero).
  std::vector<int> Rev = A.Idx;
  for (int I = 0; I < M; ++I)
    std::reverse(Rev.begin() + A.Ptr[I], Rev.begin() + A.Ptr[I + 1]);
  int *DZPtr = upload(A.Ptr), *DRev = upload(Rev);
  CUSPARSE_CHECK(cusparseXcsrsort_bufferSizeExt(H, M, N, Nnz, DZPtr, DRev, &Size));
  void *Buf3;
  CHECK(cudaMalloc(&Buf3, Size ? Size : 1));
  cusparseMatDescr_t Descr;
  CUSPARSE_CHECK(cusparseCreateMatDescr(&Descr));
  CUSPARSE_CHECK(cusparseCreateIdentityPermutation(H, Nnz, DP));
  CUSPARSE_CHECK(cusparseXcsrsort(H, M, N, Nnz, Descr, DZPtr, DRev, DP, Buf3));
  std::vector<int> Perm = download(DP, Nnz);
  Ok = download(DRev, Nnz) == A.Idx;
  for (int K = 0; K < Nnz; ++K)
    Ok &= Rev[Perm[K]] == A.Idx[K];
  report("csrsort", Ok, (double)isum(Perm));

  // 6. Sparse -> dense -> sparse (base zero CSR, column-major dense).
  int *DZIdx = upload(A.Idx);
  float *DZVal = upload(A.Val), *DDense;
  CHECK(cudaMalloc(&DDense, M * N * sizeof(float)));
  cusparseSpMatDescr_t MA;
  cusparseDnMatDescr_t MD;
  CUSPARSE_CHECK(cusparseCreateCsr(&MA, M, N, Nnz, DZPtr, DZIdx, DZVal, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateDnMat(&MD, M, N, M, DDense, CUDA_R_32F, CUSPARSE_ORDER_COL));
  CUSPARSE_CHECK(
      cusparseSparseToDense_bufferSize(H, MA, MD, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &Size));
  void *Buf4;
  CHECK(cudaMalloc(&Buf4, Size ? Size : 1));
  CUSPARSE_CHECK(cusparseSparseToDense(H, MA, MD, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, Buf4));
  std::vector<float> Dense = download(DDense, M * N), WantDense(M * N, 0.0f);
  for (int I = 0; I < M; ++I)
    for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
      WantDense[A.Idx[P] * M + I] = A.Val[P];
  report("sparse2dense", Dense == WantDense, sumAbs(Dense));

  int *DOff;
  CHECK(cudaMalloc(&DOff, (M + 1) * sizeof(int)));
  cusparseSpMatDescr_t MB;
  CUSPARSE_CHECK(cusparseCreateCsr(&MB, M, N, 0, DOff, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CUSPARSE_CHECK(
      cusparseDenseToSparse_bufferSize(H, MD, MB, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &Size));
  void *Buf5;
  CHECK(cudaMalloc(&Buf5, Size ? Size : 1));
  CUSPARSE_CHECK(
      cusparseDenseToSparse_analysis(H, MD, MB, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, Buf5));
  int64_t Rr, Cc, Nz;
  CUSPARSE_CHECK(cusparseSpMatGetSize(MB, &Rr, &Cc, &Nz));
  std::printf("dense2sparse nnz %lld (of %d)\n", (long long)Nz, Nnz);
  int *DBIdx;
  float *DBVal;
  CHECK(cudaMalloc(&DBIdx, Nz * sizeof(int)));
  CHECK(cudaMalloc(&DBVal, Nz * sizeof(float)));
  CUSPARSE_CHECK(cusparseCsrSetPointers(MB, DOff, DBIdx, DBVal));
  CUSPARSE_CHECK(
      cusparseDenseToSparse_convert(H, MD, MB, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, Buf5));
  // Each row's (column, value) pairs, in any order within the row.
  {
    std::vector<int> Off = download(DOff, M + 1), Idx2 = download(DBIdx, Nz);
    std::vector<float> Val2 = download(DBVal, Nz);
    Ok = Nz == Nnz && Off == A.Ptr;
    for (int I = 0; Ok && I < M; ++I) {
      std::vector<std::pair<int, float>> Got, Want;
      for (int P = Off[I]; P < Off[I + 1]; ++P)
        Got.push_back({Idx2[P], Val2[P]});
      for (int P = A.Ptr[I]; P < A.Ptr[I + 1]; ++P)
        Want.push_back({A.Idx[P], A.Val[P]});
      std::sort(Got.begin(), Got.end());
      Ok &= Got == Want;
    }
    if (!Ok) { // what differs, on stderr (kept with the golden, not compared)
      for (int I = 0; I <= M; ++I)
        if (Off[I] != A.Ptr[I]) {
          std::fprintf(stderr, "dense2sparse: offset %d is %d, want %d\n", I, Off[I], A.Ptr[I]);
          break;
        }
      for (int K = 0; K < Nz && K < Nnz; ++K)
        if (Idx2[K] != A.Idx[K] || Val2[K] != A.Val[K]) {
          std::fprintf(stderr, "dense2sparse: entry %d is (%d, %g), want (%d, %g)\n", K, Idx2[K],
                       Val2[K], A.Idx[K], A.Val[K]);
          break;
        }
    }
    report("dense2sparse", Ok, sumAbs(Val2));
  }

  CUSPARSE_CHECK(cusparseDestroySpVec(VX));
  CUSPARSE_CHECK(cusparseDestroyDnVec(VY));
  CUSPARSE_CHECK(cusparseDestroySpMat(MA));
  CUSPARSE_CHECK(cusparseDestroySpMat(MB));
  CUSPARSE_CHECK(cusparseDestroyDnMat(MD));
  CUSPARSE_CHECK(cusparseDestroyMatDescr(Descr));
  CUSPARSE_CHECK(cusparseDestroy(H));
  return finish(Failures == 0);
}
