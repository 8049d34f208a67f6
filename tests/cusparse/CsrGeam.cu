/// \file
/// csrgeam2 (C = alpha A + beta B, CSR; CuPy's sparse addition), one line
/// per observable, recorded on the H100 (goldens/CsrGeam.out) and compared
/// by compare-goldens: C's row offsets, columns and values for S/D/Z, mixed
/// index bases, cancelling entries, empty rows and a zero beta; the nonzero
/// count in host and device pointer mode (alpha and beta from device memory
/// too); then bad arguments, each in its own process (a library that
/// crashes on one costs only that line: `NAME crash signal N`).
#define DISABLE_CUSPARSE_DEPRECATED
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <complex>
#include <cstdio>
#include <functional>
#include <vector>

#include "../common/ProbeUtil.h"

using probe::download;
using probe::isolated;
using probe::upload;

static void st(const char *Name, cusparseStatus_t S) { std::printf("%s status %d\n", Name, (int)S); }

template <typename T> static void printValue(T V) { std::printf(" %.6g", (double)V); }
static void printValue(cuDoubleComplex V) { std::printf(" %.6g%+.6gi", V.x, V.y); }

// A 4x5 and B 4x5 in CSR (0-based lists; shifted to each matrix's base).
static const std::vector<int> RowA = {0, 2, 2, 5, 6}, ColA = {0, 3, 1, 2, 4, 0};
static const std::vector<int> RowB = {0, 1, 3, 4, 6}, ColB = {3, 0, 4, 2, 0, 1};
static const double ValA[] = {1, 2, 3, 4, 5, 6}, ValB[] = {-0.5, 7, 8, -4, 9, 10};

template <typename T> static T make(double V, int I);
template <> float make<float>(double V, int) { return (float)V; }
template <> double make<double>(double V, int) { return V; }
template <> cuDoubleComplex make<cuDoubleComplex>(double V, int I) { return make_cuDoubleComplex(V, I * 0.25); }

template <typename T> struct Geam;
template <> struct Geam<float> {
  static constexpr auto Size = cusparseScsrgeam2_bufferSizeExt;
  static constexpr auto Run = cusparseScsrgeam2;
};
template <> struct Geam<double> {
  static constexpr auto Size = cusparseDcsrgeam2_bufferSizeExt;
  static constexpr auto Run = cusparseDcsrgeam2;
};
template <> struct Geam<cuDoubleComplex> {
  static constexpr auto Size = cusparseZcsrgeam2_bufferSizeExt;
  static constexpr auto Run = cusparseZcsrgeam2;
};

static std::vector<int> shifted(const std::vector<int> &V, int Base) {
  std::vector<int> R = V;
  for (int &X : R)
    X += Base;
  return R;
}

/// One addition: bases of A, B, C, the coefficients and the pointer mode.
template <typename T>
static void add(const char *Name, int BaseA, int BaseB, int BaseC, double Alpha, double Beta, bool DeviceMode) {
  const int M = 4, N = 5;
  cusparseHandle_t H;
  cusparseCreate(&H);
  cusparseMatDescr_t DA, DB, DC;
  cusparseCreateMatDescr(&DA);
  cusparseCreateMatDescr(&DB);
  cusparseCreateMatDescr(&DC);
  cusparseSetMatIndexBase(DA, (cusparseIndexBase_t)BaseA);
  cusparseSetMatIndexBase(DB, (cusparseIndexBase_t)BaseB);
  cusparseSetMatIndexBase(DC, (cusparseIndexBase_t)BaseC);
  std::vector<T> VA, VB;
  for (int I = 0; I < 6; ++I)
    VA.push_back(make<T>(ValA[I], I)), VB.push_back(make<T>(ValB[I], -I));
  int *RA = upload(shifted(RowA, BaseA)), *CA = upload(shifted(ColA, BaseA));
  int *RB = upload(shifted(RowB, BaseB)), *CB = upload(shifted(ColB, BaseB));
  T *DVA = upload(VA), *DVB = upload(VB);
  T Al = make<T>(Alpha, 1), Be = make<T>(Beta, 0);
  T *DAl = upload(std::vector<T>{Al}), *DBe = upload(std::vector<T>{Be});
  int *RC = nullptr, *NnzDev = nullptr;
  cudaMalloc(&RC, (M + 1) * sizeof(int));
  cudaMalloc(&NnzDev, sizeof(int));
  cusparseSetPointerMode(H, DeviceMode ? CUSPARSE_POINTER_MODE_DEVICE : CUSPARSE_POINTER_MODE_HOST);
  const T *PA = DeviceMode ? DAl : &Al, *PB = DeviceMode ? DBe : &Be;
  size_t Bytes = 0;
  st(Name, Geam<T>::Size(H, M, N, PA, DA, 6, DVA, RA, CA, PB, DB, 6, DVB, RB, CB, DC, nullptr, RC, nullptr, &Bytes));
  std::printf("%s int %d\n", Name, Bytes > 0 ? 1 : 0);
  void *Buf = nullptr;
  cudaMalloc(&Buf, Bytes + 1);
  int Nnz = -1;
  st(Name, cusparseXcsrgeam2Nnz(H, M, N, DA, 6, RA, CA, DB, 6, RB, CB, DC, RC, DeviceMode ? NnzDev : &Nnz, Buf));
  if (DeviceMode)
    cudaMemcpy(&Nnz, NnzDev, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("%s nnz %d\n", Name, Nnz);
  int *CC = nullptr;
  T *VC = nullptr;
  cudaMalloc(&CC, std::max(1, Nnz) * sizeof(int));
  cudaMalloc(&VC, std::max(1, Nnz) * sizeof(T));
  st(Name, Geam<T>::Run(H, M, N, PA, DA, 6, DVA, RA, CA, PB, DB, 6, DVB, RB, CB, DC, VC, RC, CC, Buf));
  std::printf("%s sync %d\n", Name, (int)cudaDeviceSynchronize());
  std::printf("%s rows", Name);
  for (int X : download(RC, M + 1))
    std::printf(" %d", X);
  std::printf("\n%s cols", Name);
  for (int X : download(CC, Nnz))
    std::printf(" %d", X);
  std::printf("\n%s vals", Name);
  for (T X : download(VC, Nnz))
    printValue(X);
  std::printf("\n");
  cusparseDestroy(H);
}

/// A bad-argument case for Xcsrgeam2Nnz and Dcsrgeam2 (and the buffer
/// size), each call in its own process.
static void bad(const char *Name, int M, int N, int NnzA, bool NullDescrA, bool Symmetric, bool NullNnz,
                bool NullRowC, bool NullSize) {
  auto Setup = [=](const std::function<void(cusparseHandle_t, cusparseMatDescr_t, cusparseMatDescr_t, int *, int *,
                                             int *, double *, int *)> &Do) {
    cusparseHandle_t H;
    cusparseCreate(&H);
    cusparseMatDescr_t DA, DB;
    cusparseCreateMatDescr(&DA);
    cusparseCreateMatDescr(&DB);
    if (Symmetric)
      cusparseSetMatType(DA, CUSPARSE_MATRIX_TYPE_SYMMETRIC);
    int *RA = upload(RowA), *CA = upload(ColA), *RC = nullptr;
    cudaMalloc(&RC, 64);
    double *V = upload(std::vector<double>(ValA, ValA + 6));
    int *CC = nullptr;
    cudaMalloc(&CC, 64 * sizeof(int));
    Do(H, NullDescrA ? nullptr : DA, DB, RA, CA, NullRowC ? nullptr : RC, V, CC);
  };
  char Full[96];
  std::snprintf(Full, sizeof Full, "bufferSize.%s", Name);
  isolated(Full, [&] {
    Setup([&](cusparseHandle_t H, cusparseMatDescr_t DA, cusparseMatDescr_t DB, int *RA, int *CA, int *RC,
              double *V, int *) {
      double One = 1;
      size_t Bytes = 0;
      st(Full, cusparseDcsrgeam2_bufferSizeExt(H, M, N, &One, DA, NnzA, V, RA, CA, &One, DB, 6, V, RA, CA, DB,
                                               nullptr, RC, nullptr, NullSize ? nullptr : &Bytes));
    });
  });
  std::snprintf(Full, sizeof Full, "nnz.%s", Name);
  isolated(Full, [&] {
    Setup([&](cusparseHandle_t H, cusparseMatDescr_t DA, cusparseMatDescr_t DB, int *RA, int *CA, int *RC, double *,
              int *) {
      int Nnz = -1;
      void *Buf = nullptr;
      cudaMalloc(&Buf, 1024);
      st(Full, cusparseXcsrgeam2Nnz(H, M, N, DA, NnzA, RA, CA, DB, 6, RA, CA, DB, RC, NullNnz ? nullptr : &Nnz, Buf));
      std::printf("%s nnz %d\n", Full, Nnz);
    });
  });
  std::snprintf(Full, sizeof Full, "geam.%s", Name);
  isolated(Full, [&] {
    Setup([&](cusparseHandle_t H, cusparseMatDescr_t DA, cusparseMatDescr_t DB, int *RA, int *CA, int *RC, double *V,
              int *CC) {
      double One = 1;
      void *Buf = nullptr;
      cudaMalloc(&Buf, 1024);
      int *Rows = RC ? RC : nullptr;
      if (RC) // valid row offsets of A + A (same pattern)
        cudaMemcpy(RC, RowA.data(), RowA.size() * sizeof(int), cudaMemcpyHostToDevice);
      double *VC = nullptr;
      cudaMalloc(&VC, 64 * sizeof(double));
      st(Full, cusparseDcsrgeam2(H, M, N, &One, DA, NnzA, V, RA, CA, &One, DB, 6, V, RA, CA, DB, VC, Rows, CC, Buf));
      std::printf("%s sync %d\n", Full, (int)cudaDeviceSynchronize());
    });
  });
}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  isolated("S.000", [] { add<float>("S.000", 0, 0, 0, 1, 1, false); });
  isolated("D.010.dev", [] { add<double>("D.010.dev", 0, 1, 0, 2, -0.5, true); });
  isolated("D.101", [] { add<double>("D.101", 1, 0, 1, 1, 0.5, false); });
  isolated("D.cancel", [] { add<double>("D.cancel", 0, 0, 0, 1, 0.5, false); }); // 4 - 0.5*... see vals
  isolated("D.beta0", [] { add<double>("D.beta0", 0, 0, 0, 1, 0, false); });
  isolated("Z.111", [] { add<cuDoubleComplex>("Z.111", 1, 1, 1, 1, -1, false); });
  bad("ok", 4, 5, 6, false, false, false, false, false);
  bad("mneg", -1, 5, 6, false, false, false, false, false);
  bad("nneg", 4, -1, 6, false, false, false, false, false);
  bad("m0", 0, 5, 0, false, false, false, false, false);
  bad("nnzneg", 4, 5, -1, false, false, false, false, false);
  bad("nulldescr", 4, 5, 6, true, false, false, false, false);
  bad("symmetric", 4, 5, 6, false, true, false, false, false);
  bad("nullnnz", 4, 5, 6, false, false, true, false, false);
  bad("nullrowc", 4, 5, 6, false, false, false, true, false);
  bad("nullsize", 4, 5, 6, false, false, false, false, true);
  isolated("nullhandle", [] {
    int Nnz = 0;
    st("nullhandle.nnz", cusparseXcsrgeam2Nnz(nullptr, 1, 1, nullptr, 0, nullptr, nullptr, nullptr, 0, nullptr,
                                              nullptr, nullptr, nullptr, &Nnz, nullptr));
  });
  return 0;
}
