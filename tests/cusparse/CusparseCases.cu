/// \file
/// cuSPARSE cases printing one line per observable: `NAME status N` for a
/// returned cusparseStatus_t, `NAME i64 N...` for sizes, indices and other
/// integers, `NAME str TEXT` for strings, `NAME f32|f64 v...` for results of
/// fixed inputs (compared within a tolerance). Mostly bad arguments (null
/// handle and descriptors, negative sizes, invalid enums, missing buffers,
/// mismatched types), then small correct cases. Not probed, because
/// NVIDIA's cuSPARSE 12.6 faults on them (recorded): a null descriptor or
/// position in the legacy ilu02 calls (SIGSEGV), SpSV_solve without a
/// finished analysis (SIGFPE), and operations on a matrix whose offsets were
/// set to null or whose fill mode was set to a bad value (both accepted). Recorded on the H100 with
/// NVIDIA's cuSPARSE (tests/cusparse/goldens) and run under ferry by
/// tests/cusparse (cusparse.cases).
#define DISABLE_CUSPARSE_DEPRECATED
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdio>
#include <vector>

static void st(const char *Name, cusparseStatus_t S) {
  std::printf("%s status %d\n", Name, (int)S);
}
static void i64(const char *Name, long long V) { std::printf("%s i64 %lld\n", Name, V); }
template <typename T> static void ints(const char *Name, const std::vector<T> &V) {
  std::printf("%s i64", Name);
  for (T X : V)
    std::printf(" %lld", (long long)X);
  std::printf("\n");
}
static void f32(const char *Name, const std::vector<float> &V) {
  std::printf("%s f32", Name);
  for (float X : V)
    std::printf(" %.6g", X);
  std::printf("\n");
}

/// A CUDA error pending in the context, on stderr (not compared): where a
/// probe left NVIDIA's library or the context broken.
static void checkpoint(const char *Where) {
  cudaError_t E = cudaDeviceSynchronize();
  if (E != cudaSuccess)
    std::fprintf(stderr, "checkpoint %s: %s\n", Where, cudaGetErrorString(E));
}

template <typename T> static T *up(const std::vector<T> &V) {
  T *P = nullptr;
  cudaMalloc(&P, V.size() * sizeof(T) + 16);
  cudaMemcpy(P, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice);
  return P;
}
template <typename T> static std::vector<T> down(const T *P, size_t N) {
  std::vector<T> V(N);
  cudaDeviceSynchronize();
  cudaMemcpy(V.data(), P, N * sizeof(T), cudaMemcpyDeviceToHost);
  return V;
}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  int V = 0;
  st("property.major", cusparseGetProperty(MAJOR_VERSION, &V));
  i64("property.major", V);
  st("property.null", cusparseGetProperty(MAJOR_VERSION, nullptr));
  std::printf("errorname.3 str %s\n", cusparseGetErrorName(CUSPARSE_STATUS_INVALID_VALUE));
  std::printf("errorname.10 str %s\n", cusparseGetErrorName(CUSPARSE_STATUS_NOT_SUPPORTED));
  for (int S = 0; S <= 11; ++S)
    std::printf("errorstring.%d str %s\n", S, cusparseGetErrorString((cusparseStatus_t)S));

  // Handles.
  st("create.null", cusparseCreate(nullptr));
  cusparseHandle_t H = nullptr;
  st("create", cusparseCreate(&H));
  st("version.nullhandle", cusparseGetVersion(nullptr, &V));
  st("version.nullout", cusparseGetVersion(H, nullptr));
  st("version", cusparseGetVersion(H, &V));
  i64("version.major", V / 1000);
  st("setstream.nullhandle", cusparseSetStream(nullptr, nullptr));
  cudaStream_t Stream = nullptr;
  st("getstream.nullout", cusparseGetStream(H, nullptr));
  st("getstream", cusparseGetStream(H, &Stream));
  i64("getstream.default", Stream == nullptr);
  st("pointermode.bad", cusparseSetPointerMode(H, (cusparsePointerMode_t)5));
  st("pointermode.nullhandle", cusparseSetPointerMode(nullptr, CUSPARSE_POINTER_MODE_HOST));
  cusparsePointerMode_t Mode;
  st("getpointermode.null", cusparseGetPointerMode(H, nullptr));
  st("getpointermode", cusparseGetPointerMode(H, &Mode));
  i64("getpointermode.value", Mode);

  // The legacy matrix descriptor.
  st("matdescr.create.null", cusparseCreateMatDescr(nullptr));
  cusparseMatDescr_t D;
  st("matdescr.create", cusparseCreateMatDescr(&D));
  i64("matdescr.defaults", cusparseGetMatType(D) * 1000 + cusparseGetMatFillMode(D) * 100 +
                               cusparseGetMatDiagType(D) * 10 + cusparseGetMatIndexBase(D));
  st("matdescr.type.bad", cusparseSetMatType(D, (cusparseMatrixType_t)7));
  st("matdescr.fill.bad", cusparseSetMatFillMode(D, (cusparseFillMode_t)9));
  st("matdescr.diag.bad", cusparseSetMatDiagType(D, (cusparseDiagType_t)9));
  st("matdescr.base.bad", cusparseSetMatIndexBase(D, (cusparseIndexBase_t)2));
  st("matdescr.type.null", cusparseSetMatType(nullptr, CUSPARSE_MATRIX_TYPE_GENERAL));
  st("matdescr.base.one", cusparseSetMatIndexBase(D, CUSPARSE_INDEX_BASE_ONE));
  st("matdescr.fill.upper", cusparseSetMatFillMode(D, CUSPARSE_FILL_MODE_UPPER));
  st("matdescr.diag.unit", cusparseSetMatDiagType(D, CUSPARSE_DIAG_TYPE_UNIT));
  st("matdescr.type.tri", cusparseSetMatType(D, CUSPARSE_MATRIX_TYPE_TRIANGULAR));
  i64("matdescr.set", cusparseGetMatType(D) * 1000 + cusparseGetMatFillMode(D) * 100 +
                          cusparseGetMatDiagType(D) * 10 + cusparseGetMatIndexBase(D));
  st("matdescr.destroy", cusparseDestroyMatDescr(D));

  // A 4x4 CSR matrix:  [1 0 2 0; 0 3 0 0; 4 0 5 6; 0 0 0 7]
  std::vector<int> Ptr{0, 2, 3, 6, 7}, Idx{0, 2, 1, 0, 2, 3, 3};
  std::vector<float> Val{1, 2, 3, 4, 5, 6, 7};
  int *DPtr = up(Ptr), *DIdx = up(Idx);
  float *DVal = up(Val);
  cusparseSpMatDescr_t A = nullptr, Bad = nullptr, T = nullptr, L = nullptr;
  auto I32 = CUSPARSE_INDEX_32I;
  auto B0 = CUSPARSE_INDEX_BASE_ZERO;
  st("csr.null", cusparseCreateCsr(nullptr, 4, 4, 7, DPtr, DIdx, DVal, I32, I32, B0, CUDA_R_32F));
  st("csr.rows.neg", cusparseCreateCsr(&Bad, -1, 4, 7, DPtr, DIdx, DVal, I32, I32, B0, CUDA_R_32F));
  st("csr.nnz.neg", cusparseCreateCsr(&Bad, 4, 4, -7, DPtr, DIdx, DVal, I32, I32, B0, CUDA_R_32F));
  st("csr.nnz.toomany",
     cusparseCreateCsr(&Bad, 4, 4, 17, DPtr, DIdx, DVal, I32, I32, B0, CUDA_R_32F));
  st("csr.idxtype.bad", cusparseCreateCsr(&Bad, 4, 4, 7, DPtr, DIdx, DVal, (cusparseIndexType_t)7,
                                          I32, B0, CUDA_R_32F));
  st("csr.idxtype.16u",
     cusparseCreateCsr(&Bad, 4, 4, 7, DPtr, DIdx, DVal, CUSPARSE_INDEX_16U, I32, B0, CUDA_R_32F));
  st("csr.base.bad", cusparseCreateCsr(&Bad, 4, 4, 7, DPtr, DIdx, DVal, I32, I32,
                                       (cusparseIndexBase_t)2, CUDA_R_32F));
  st("csr.valuetype.bad",
     cusparseCreateCsr(&Bad, 4, 4, 7, DPtr, DIdx, DVal, I32, I32, B0, (cudaDataType)99));
  st("csr.offsets.null",
     cusparseCreateCsr(&Bad, 4, 4, 7, nullptr, DIdx, DVal, I32, I32, B0, CUDA_R_32F));
  st("csr.colind.null",
     cusparseCreateCsr(&Bad, 4, 4, 7, DPtr, nullptr, DVal, I32, I32, B0, CUDA_R_32F));
  st("csr.empty.nulls",
     cusparseCreateCsr(&Bad, 4, 4, 0, nullptr, nullptr, nullptr, I32, I32, B0, CUDA_R_32F));
  st("csr.empty.destroy", cusparseDestroySpMat(Bad));
  st("csr", cusparseCreateCsr(&A, 4, 4, 7, DPtr, DIdx, DVal, I32, I32, B0, CUDA_R_32F));
  int64_t R = 0, C = 0, Z = 0;
  st("spmatgetsize.null", cusparseSpMatGetSize(A, nullptr, &C, &Z));
  st("spmatgetsize", cusparseSpMatGetSize(A, &R, &C, &Z));
  ints("spmatgetsize", std::vector<int64_t>{R, C, Z});
  // Attributes, on a descriptor of their own: NVIDIA's SpMV refuses a matrix
  // whose fill mode or diagonal type was set ("triangular properties").
  st("csr.tri", cusparseCreateCsr(&T, 4, 4, 7, DPtr, DIdx, DVal, I32, I32, B0, CUDA_R_32F));
  cusparseFillMode_t Fill = (cusparseFillMode_t)5;
  st("attr.fill.bad", cusparseSpMatSetAttribute(T, CUSPARSE_SPMAT_FILL_MODE, &Fill, sizeof Fill));
  // NVIDIA's accepts the bad value (and then refuses SpMV on the matrix and
  // faulted in SpSV, recorded once): these probes use their own descriptor.
  Fill = CUSPARSE_FILL_MODE_LOWER;
  st("attr.fill.lower", cusparseSpMatSetAttribute(T, CUSPARSE_SPMAT_FILL_MODE, &Fill, sizeof Fill));
  Fill = CUSPARSE_FILL_MODE_UPPER;
  st("attr.fill.size", cusparseSpMatSetAttribute(T, CUSPARSE_SPMAT_FILL_MODE, &Fill, 1));
  st("attr.bad", cusparseSpMatSetAttribute(T, (cusparseSpMatAttribute_t)7, &Fill, sizeof Fill));
  cusparseDiagType_t Diag;
  st("attr.diag.get", cusparseSpMatGetAttribute(T, CUSPARSE_SPMAT_DIAG_TYPE, &Diag, sizeof Diag));
  i64("attr.diag.default", Diag);
  cusparseFormat_t Format;
  st("format", cusparseSpMatGetFormat(A, &Format));
  i64("format", Format);
  st("coo.rows.null", cusparseCreateCoo(&Bad, 4, 4, 7, nullptr, DIdx, DVal, I32, B0, CUDA_R_32F));
  st("bsr.block0", cusparseCreateBsr(&Bad, 2, 2, 2, 0, 2, DPtr, DIdx, DVal, I32, I32, B0,
                                     CUDA_R_32F, CUSPARSE_ORDER_ROW));
  // On the probe descriptor: NVIDIA's accepts null offsets, and SpMV then faults.
  st("csrsetpointers.null", cusparseCsrSetPointers(T, nullptr, DIdx, DVal));

  // Dense and sparse vectors.
  std::vector<float> X{1, 2, 3, 4};
  float *DX = up(X), *DY = up(std::vector<float>(4, 0.0f));
  cusparseDnVecDescr_t VX, VY, V3;
  st("dnvec.size.neg", cusparseCreateDnVec(&VX, -4, DX, CUDA_R_32F));
  st("dnvec.values.null", cusparseCreateDnVec(&VX, 4, nullptr, CUDA_R_32F));
  st("dnvec", cusparseCreateDnVec(&VX, 4, DX, CUDA_R_32F));
  st("dnvec.y", cusparseCreateDnVec(&VY, 4, DY, CUDA_R_32F));
  st("dnvec.3", cusparseCreateDnVec(&V3, 3, DY, CUDA_R_32F));
  cusparseDnMatDescr_t MB;
  st("dnmat.ld.small", cusparseCreateDnMat(&MB, 4, 2, 3, DX, CUDA_R_32F, CUSPARSE_ORDER_COL));
  st("dnmat.order.bad", cusparseCreateDnMat(&MB, 2, 2, 2, DX, CUDA_R_32F, (cusparseOrder_t)0));
  cusparseSpVecDescr_t SV;
  st("spvec.nnz.toomany", cusparseCreateSpVec(&SV, 4, 5, DIdx, DVal, I32, B0, CUDA_R_32F));

  // SpMV.
  float One = 1, Zero = 0;
  size_t Size = 0;
  auto NT = CUSPARSE_OPERATION_NON_TRANSPOSE;
  auto Alg = CUSPARSE_SPMV_ALG_DEFAULT;
  st("spmv.buf.nullhandle",
     cusparseSpMV_bufferSize(nullptr, NT, &One, A, VX, &Zero, VY, CUDA_R_32F, Alg, &Size));
  st("spmv.buf.nullmat",
     cusparseSpMV_bufferSize(H, NT, &One, nullptr, VX, &Zero, VY, CUDA_R_32F, Alg, &Size));
  st("spmv.buf.nullalpha",
     cusparseSpMV_bufferSize(H, NT, nullptr, A, VX, &Zero, VY, CUDA_R_32F, Alg, &Size));
  st("spmv.buf.nullsize",
     cusparseSpMV_bufferSize(H, NT, &One, A, VX, &Zero, VY, CUDA_R_32F, Alg, nullptr));
  st("spmv.buf.badop", cusparseSpMV_bufferSize(H, (cusparseOperation_t)7, &One, A, VX, &Zero, VY,
                                               CUDA_R_32F, Alg, &Size));
  st("spmv.buf.badalg", cusparseSpMV_bufferSize(H, NT, &One, A, VX, &Zero, VY, CUDA_R_32F,
                                                (cusparseSpMVAlg_t)99, &Size));
  st("spmv.buf.ysize",
     cusparseSpMV_bufferSize(H, NT, &One, A, VX, &Zero, V3, CUDA_R_32F, Alg, &Size));
  st("spmv.buf.computetype",
     cusparseSpMV_bufferSize(H, NT, &One, A, VX, &Zero, VY, CUDA_R_64F, Alg, &Size));
  st("spmv.buf", cusparseSpMV_bufferSize(H, NT, &One, A, VX, &Zero, VY, CUDA_R_32F, Alg, &Size));
  void *Buf = nullptr;
  cudaMalloc(&Buf, 1 << 20);
  st("spmv.nullhandle", cusparseSpMV(nullptr, NT, &One, A, VX, &Zero, VY, CUDA_R_32F, Alg, Buf));
  checkpoint("before spmv");
  st("spmv", cusparseSpMV(H, NT, &One, A, VX, &Zero, VY, CUDA_R_32F, Alg, Buf));
  f32("spmv.y", down(DY, 4));
  float Two = 2, Half = 0.5f;
  st("spmv.t", cusparseSpMV(H, CUSPARSE_OPERATION_TRANSPOSE, &Two, A, VX, &Half, VY, CUDA_R_32F,
                            CUSPARSE_SPMV_CSR_ALG2, Buf));
  f32("spmv.t.y", down(DY, 4));

  // SpMM.
  float *DB = up(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}), *DC = up(std::vector<float>(8, 0.0f));
  cusparseDnMatDescr_t MC, M3;
  st("dnmat.b", cusparseCreateDnMat(&MB, 4, 2, 4, DB, CUDA_R_32F, CUSPARSE_ORDER_COL));
  st("dnmat.c", cusparseCreateDnMat(&MC, 4, 2, 4, DC, CUDA_R_32F, CUSPARSE_ORDER_COL));
  st("dnmat.3", cusparseCreateDnMat(&M3, 3, 2, 3, DC, CUDA_R_32F, CUSPARSE_ORDER_COL));
  st("spmm.buf.dims", cusparseSpMM_bufferSize(H, NT, NT, &One, A, MB, &Zero, M3, CUDA_R_32F,
                                              CUSPARSE_SPMM_ALG_DEFAULT, &Size));
  st("spmm.buf.badalg", cusparseSpMM_bufferSize(H, NT, NT, &One, A, MB, &Zero, MC, CUDA_R_32F,
                                                (cusparseSpMMAlg_t)99, &Size));
  st("spmm",
     cusparseSpMM(H, NT, NT, &One, A, MB, &Zero, MC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, Buf));
  f32("spmm.c", down(DC, 8));

  // SpSV on the lower triangle.
  cusparseSpSVDescr_t SD;
  st("spsv.create.null", cusparseSpSV_createDescr(nullptr));
  st("spsv.create", cusparseSpSV_createDescr(&SD));
  st("spsv.csr", cusparseCreateCsr(&L, 4, 4, 7, DPtr, DIdx, DVal, I32, I32, B0, CUDA_R_32F));
  Fill = CUSPARSE_FILL_MODE_LOWER;
  st("spsv.fill", cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_FILL_MODE, &Fill, sizeof Fill));
  st("spsv.buf.nulldescr", cusparseSpSV_bufferSize(H, NT, &One, L, VX, VY, CUDA_R_32F,
                                                   CUSPARSE_SPSV_ALG_DEFAULT, nullptr, &Size));
  st("spsv.buf", cusparseSpSV_bufferSize(H, NT, &One, L, VX, VY, CUDA_R_32F,
                                         CUSPARSE_SPSV_ALG_DEFAULT, SD, &Size));
  st("spsv.analysis",
     cusparseSpSV_analysis(H, NT, &One, L, VX, VY, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, SD, Buf));
  st("spsv.solve",
     cusparseSpSV_solve(H, NT, &One, L, VX, VY, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, SD));
  f32("spsv.y", down(DY, 4));
  st("spsv.destroy", cusparseSpSV_destroyDescr(SD));

  // SpGEMM: C = A * A.
  int *DCPtr = up(std::vector<int>(5, 0));
  cusparseSpMatDescr_t MCs;
  st("spgemm.c",
     cusparseCreateCsr(&MCs, 4, 4, 0, DCPtr, nullptr, nullptr, I32, I32, B0, CUDA_R_32F));
  cusparseSpGEMMDescr_t GD;
  st("spgemm.create", cusparseSpGEMM_createDescr(&GD));
  size_t S1 = 0, S2 = 0;
  st("spgemm.work.transpose",
     cusparseSpGEMM_workEstimation(H, CUSPARSE_OPERATION_TRANSPOSE, NT, &One, A, A, &Zero, MCs,
                                   CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, GD, &S1, nullptr));
  st("spgemm.work.nullsize",
     cusparseSpGEMM_workEstimation(H, NT, NT, &One, A, A, &Zero, MCs, CUDA_R_32F,
                                   CUSPARSE_SPGEMM_DEFAULT, GD, nullptr, nullptr));
  st("spgemm.work.size",
     cusparseSpGEMM_workEstimation(H, NT, NT, &One, A, A, &Zero, MCs, CUDA_R_32F,
                                   CUSPARSE_SPGEMM_DEFAULT, GD, &S1, nullptr));
  void *GB1 = nullptr, *GB2 = nullptr;
  cudaMalloc(&GB1, S1 ? S1 : 1);
  st("spgemm.work", cusparseSpGEMM_workEstimation(H, NT, NT, &One, A, A, &Zero, MCs, CUDA_R_32F,
                                                  CUSPARSE_SPGEMM_DEFAULT, GD, &S1, GB1));
  st("spgemm.compute.size", cusparseSpGEMM_compute(H, NT, NT, &One, A, A, &Zero, MCs, CUDA_R_32F,
                                                   CUSPARSE_SPGEMM_DEFAULT, GD, &S2, nullptr));
  cudaMalloc(&GB2, S2 ? S2 : 1);
  st("spgemm.compute", cusparseSpGEMM_compute(H, NT, NT, &One, A, A, &Zero, MCs, CUDA_R_32F,
                                              CUSPARSE_SPGEMM_DEFAULT, GD, &S2, GB2));
  st("spgemm.size", cusparseSpMatGetSize(MCs, &R, &C, &Z));
  ints("spgemm.size", std::vector<int64_t>{R, C, Z});
  int *DCIdx = up(std::vector<int>(Z, 0));
  float *DCVal = up(std::vector<float>(Z, 0.0f));
  st("spgemm.setpointers", cusparseCsrSetPointers(MCs, DCPtr, DCIdx, DCVal));
  st("spgemm.copy", cusparseSpGEMM_copy(H, NT, NT, &One, A, A, &Zero, MCs, CUDA_R_32F,
                                        CUSPARSE_SPGEMM_DEFAULT, GD));
  ints("spgemm.ptr", down(DCPtr, 5));
  ints("spgemm.idx", down(DCIdx, Z));
  f32("spgemm.val", down(DCVal, Z));
  st("spgemm.destroy", cusparseSpGEMM_destroyDescr(GD));

  // SDDMM into A's pattern: C = A_dense * B_dense^T .* spy(A)
  cusparseDnMatDescr_t DA, DBt;
  float *DDa = up(std::vector<float>{1, 0, 2, 1, 1, 1, 0, 2}),
        *DDb = up(std::vector<float>{1, 2, 1, 0, 3, 1, 2, 1});
  st("sddmm.a", cusparseCreateDnMat(&DA, 4, 2, 2, DDa, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  st("sddmm.b", cusparseCreateDnMat(&DBt, 4, 2, 2, DDb, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  st("sddmm.buf.dims", cusparseSDDMM_bufferSize(H, NT, NT, &One, DA, DBt, &Zero, A, CUDA_R_32F,
                                                CUSPARSE_SDDMM_ALG_DEFAULT, &Size));
  st("sddmm.buf",
     cusparseSDDMM_bufferSize(H, NT, CUSPARSE_OPERATION_TRANSPOSE, &One, DA, DBt, &Zero, A,
                              CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, &Size));
  st("sddmm", cusparseSDDMM(H, NT, CUSPARSE_OPERATION_TRANSPOSE, &One, DA, DBt, &Zero, A,
                            CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, Buf));
  f32("sddmm.val", down(DVal, 7));
  cudaMemcpy(DVal, Val.data(), 7 * sizeof(float), cudaMemcpyHostToDevice);

  // Conversions.
  int *DCscPtr = up(std::vector<int>(5, 0)), *DCscIdx = up(std::vector<int>(7, 0));
  float *DCscVal = up(std::vector<float>(7, 0.0f));
  st("csr2csc.buf.neg", cusparseCsr2cscEx2_bufferSize(
                            H, -4, 4, 7, DVal, DPtr, DIdx, DCscVal, DCscPtr, DCscIdx, CUDA_R_32F,
                            CUSPARSE_ACTION_NUMERIC, B0, CUSPARSE_CSR2CSC_ALG1, &Size));
  st("csr2csc.buf.badalg", cusparseCsr2cscEx2_bufferSize(
                               H, 4, 4, 7, DVal, DPtr, DIdx, DCscVal, DCscPtr, DCscIdx, CUDA_R_32F,
                               CUSPARSE_ACTION_NUMERIC, B0, (cusparseCsr2CscAlg_t)7, &Size));
  st("csr2csc.buf", cusparseCsr2cscEx2_bufferSize(H, 4, 4, 7, DVal, DPtr, DIdx, DCscVal, DCscPtr,
                                                  DCscIdx, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC, B0,
                                                  CUSPARSE_CSR2CSC_ALG1, &Size));
  st("csr2csc",
     cusparseCsr2cscEx2(H, 4, 4, 7, DVal, DPtr, DIdx, DCscVal, DCscPtr, DCscIdx, CUDA_R_32F,
                        CUSPARSE_ACTION_NUMERIC, B0, CUSPARSE_CSR2CSC_ALG1, Buf));
  ints("csr2csc.ptr", down(DCscPtr, 5));
  ints("csr2csc.idx", down(DCscIdx, 7));
  f32("csr2csc.val", down(DCscVal, 7));
  int *DCoo = up(std::vector<int>(7, 0)), *DPtr2 = up(std::vector<int>(5, 0));
  st("csr2coo.neg", cusparseXcsr2coo(H, DPtr, -1, 4, DCoo, B0));
  st("csr2coo.badbase", cusparseXcsr2coo(H, DPtr, 7, 4, DCoo, (cusparseIndexBase_t)3));
  st("csr2coo", cusparseXcsr2coo(H, DPtr, 7, 4, DCoo, B0));
  ints("csr2coo.rows", down(DCoo, 7));
  st("coo2csr", cusparseXcoo2csr(H, DCoo, 7, 4, DPtr2, CUSPARSE_INDEX_BASE_ZERO));
  ints("coo2csr.ptr", down(DPtr2, 5));
  int *DRows = up(std::vector<int>{3, 0, 2, 0, 2, 1, 2}),
      *DCols = up(std::vector<int>{3, 2, 3, 0, 0, 1, 2}), *DP = up(std::vector<int>(7, 0));
  st("coosort.buf", cusparseXcoosort_bufferSizeExt(H, 4, 4, 7, DRows, DCols, &Size));
  st("identity", cusparseCreateIdentityPermutation(H, 7, DP));
  st("coosort.byrow", cusparseXcoosortByRow(H, 4, 4, 7, DRows, DCols, DP, Buf));
  ints("coosort.rows", down(DRows, 7));
  ints("coosort.cols", down(DCols, 7));
  ints("coosort.perm", down(DP, 7));

  // Dense <-> sparse.
  cusparseDnMatDescr_t Dn;
  float *DDense = up(std::vector<float>(16, 0.0f));
  st("sparse2dense.dnmat",
     cusparseCreateDnMat(&Dn, 4, 4, 4, DDense, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  st("sparse2dense.buf",
     cusparseSparseToDense_bufferSize(H, A, Dn, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &Size));
  st("sparse2dense", cusparseSparseToDense(H, A, Dn, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, Buf));
  f32("sparse2dense.val", down(DDense, 16));
  st("sparse2dense.dims", cusparseSparseToDense(H, A, M3, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, Buf));

  // The legacy incomplete factorizations.
  cusparseMatDescr_t LD;
  cusparseCreateMatDescr(&LD);
  csrilu02Info_t Ilu;
  st("ilu.info.null", cusparseCreateCsrilu02Info(nullptr));
  st("ilu.info", cusparseCreateCsrilu02Info(&Ilu));
  int ISize = 0;
  st("ilu.buf.neg", cusparseScsrilu02_bufferSize(H, -1, 7, LD, DVal, DPtr, DIdx, Ilu, &ISize));
  st("ilu.buf", cusparseScsrilu02_bufferSize(H, 4, 7, LD, DVal, DPtr, DIdx, Ilu, &ISize));
  i64("ilu.buf.positive", ISize > 0);
  cusparseSetMatType(LD, CUSPARSE_MATRIX_TYPE_SYMMETRIC);
  st("ilu.buf.symmetric", cusparseScsrilu02_bufferSize(H, 4, 7, LD, DVal, DPtr, DIdx, Ilu, &ISize));
  cusparseSetMatType(LD, CUSPARSE_MATRIX_TYPE_GENERAL);
  st("ilu.analysis", cusparseScsrilu02_analysis(H, 4, 7, LD, DVal, DPtr, DIdx, Ilu,
                                                CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
  int Pos = -5;
  st("ilu.zeropivot.analysis", cusparseXcsrilu02_zeroPivot(H, Ilu, &Pos));
  i64("ilu.zeropivot.analysis", Pos);
  st("ilu",
     cusparseScsrilu02(H, 4, 7, LD, DVal, DPtr, DIdx, Ilu, CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
  Pos = -5;
  st("ilu.zeropivot", cusparseXcsrilu02_zeroPivot(H, Ilu, &Pos));
  i64("ilu.zeropivot", Pos);
  f32("ilu.val", down(DVal, 7));
  // A numerical zero pivot: [1 1; 1 1] has U(1,1) = 0.
  int *ZPtr = up(std::vector<int>{0, 2, 4}), *ZIdx = up(std::vector<int>{0, 1, 0, 1});
  float *ZVal = up(std::vector<float>{1, 1, 1, 1});
  csrilu02Info_t Ilu2;
  cusparseCreateCsrilu02Info(&Ilu2);
  st("ilu2.analysis", cusparseScsrilu02_analysis(H, 2, 4, LD, ZVal, ZPtr, ZIdx, Ilu2,
                                                 CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
  st("ilu2",
     cusparseScsrilu02(H, 2, 4, LD, ZVal, ZPtr, ZIdx, Ilu2, CUSPARSE_SOLVE_POLICY_NO_LEVEL, Buf));
  Pos = -5;
  st("ilu2.zeropivot", cusparseXcsrilu02_zeroPivot(H, Ilu2, &Pos));
  i64("ilu2.zeropivot", Pos);
  cusparseDestroyCsrilu02Info(Ilu2);
  csric02Info_t Ic;
  st("ic.info", cusparseCreateCsric02Info(&Ic));
  st("ic.analysis.nullbuffer", cusparseScsric02_analysis(H, 2, 4, LD, ZVal, ZPtr, ZIdx, Ic,
                                                         CUSPARSE_SOLVE_POLICY_NO_LEVEL, nullptr));
  cusparseDestroyCsric02Info(Ic);

  // Null handles in the legacy and helper calls; unknown statuses' names.
  st("coo2csr.nullhandle", cusparseXcoo2csr(nullptr, DCoo, 7, 4, DPtr2, B0));
  st("identity.nullhandle", cusparseCreateIdentityPermutation(nullptr, 7, DP));
  st("ilu.buf.nullhandle",
     cusparseScsrilu02_bufferSize(nullptr, 4, 7, LD, DVal, DPtr, DIdx, Ilu, &ISize));
  st("csr2csc.buf.nullhandle",
     cusparseCsr2cscEx2_bufferSize(nullptr, 4, 4, 7, DVal, DPtr, DIdx, DCscVal, DCscPtr, DCscIdx,
                                   CUDA_R_32F, CUSPARSE_ACTION_NUMERIC, B0, CUSPARSE_CSR2CSC_ALG1,
                                   &Size));
  std::printf("errorname.99 str %s\n", cusparseGetErrorName((cusparseStatus_t)99));
  std::printf("errorstring.99 str %s\n", cusparseGetErrorString((cusparseStatus_t)99));
  // SpGEMM compute on a descriptor that never saw workEstimation.
  cusparseSpGEMMDescr_t GD2;
  cusparseSpGEMM_createDescr(&GD2);
  st("spgemm.compute.nowork", cusparseSpGEMM_compute(H, NT, NT, &One, A, A, &Zero, MCs, CUDA_R_32F,
                                                     CUSPARSE_SPGEMM_DEFAULT, GD2, &S2, nullptr));
  cusparseSpGEMM_destroyDescr(GD2);
  st("spmv.tri", cusparseSpMV_bufferSize(H, NT, &One, L, VX, &Zero, VY, CUDA_R_32F, Alg, &Size));
  checkpoint("before the last probes");
  // Last, as they may leave NVIDIA's state unusable: SpSV with a short y and
  // an analysis without its buffer, each on fresh descriptors.
  {
    cusparseSpMatDescr_t L2;
    cusparseSpSVDescr_t SD2;
    cusparseCreateCsr(&L2, 4, 4, 7, DPtr, DIdx, DVal, I32, I32, B0, CUDA_R_32F);
    cusparseSpSV_createDescr(&SD2);
    st("spsv.buf.ysize", cusparseSpSV_bufferSize(H, NT, &One, L2, VX, V3, CUDA_R_32F,
                                                 CUSPARSE_SPSV_ALG_DEFAULT, SD2, &Size));
    cusparseSpSV_destroyDescr(SD2);
    cusparseSpSV_createDescr(&SD2);
    st("spsv.buf3", cusparseSpSV_bufferSize(H, NT, &One, L2, VX, VY, CUDA_R_32F,
                                            CUSPARSE_SPSV_ALG_DEFAULT, SD2, &Size));
    st("spsv.analysis.nullbuffer", cusparseSpSV_analysis(H, NT, &One, L2, VX, VY, CUDA_R_32F,
                                                         CUSPARSE_SPSV_ALG_DEFAULT, SD2, nullptr));
    cusparseSpSV_destroyDescr(SD2);
    cusparseDestroySpMat(L2);
  }
  // Null buffers where NVIDIA needs one (its SpMV may break the context).
  st("spmv.nullbuffer", cusparseSpMV(H, NT, &One, A, VX, &Zero, VY, CUDA_R_32F, Alg, nullptr));
  st("spmm.nullbuffer", cusparseSpMM(H, NT, NT, &One, A, MB, &Zero, MC, CUDA_R_32F,
                                     CUSPARSE_SPMM_ALG_DEFAULT, nullptr));
  st("csr2csc.nullbuffer",
     cusparseCsr2cscEx2(H, 4, 4, 7, DVal, DPtr, DIdx, DCscVal, DCscPtr, DCscIdx, CUDA_R_32F,
                        CUSPARSE_ACTION_NUMERIC, B0, CUSPARSE_CSR2CSC_ALG1, nullptr));
  st("coosort.nullbuffer", cusparseXcoosortByRow(H, 4, 4, 7, DRows, DCols, DP, nullptr));
  st("ilu.analysis.nullbuffer",
     cusparseScsrilu02_analysis(H, 4, 7, LD, DVal, DPtr, DIdx, Ilu, CUSPARSE_SOLVE_POLICY_NO_LEVEL,
                                nullptr));
  checkpoint("after the null-buffer probes");
  cusparseDestroyDnVec(VX);
  cusparseDestroyDnVec(VY);
  cusparseDestroyDnVec(V3);
  cusparseDestroyDnMat(MB);
  cusparseDestroyDnMat(MC);
  cusparseDestroyDnMat(M3);
  cusparseDestroyDnMat(DA);
  cusparseDestroyDnMat(DBt);
  cusparseDestroyDnMat(Dn);
  cusparseDestroySpMat(MCs);
  st("ilu.destroy", cusparseDestroyCsrilu02Info(Ilu));
  cusparseDestroyMatDescr(LD);
  cusparseDestroySpMat(T);
  cusparseDestroySpMat(L);
  st("destroyspmat", cusparseDestroySpMat(A));
  st("destroy", cusparseDestroy(H));
  st("destroy.null", cusparseDestroy(nullptr));
  return 0;
}
