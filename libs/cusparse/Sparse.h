/// \file
/// The host kernels' view of a sparse matrix: any descriptor (CSR, CSC,
/// COO, BSR) read into zero-based CSR with 64-bit indices and values of the
/// compute type, transposed (and conjugated) when an operation asks, and
/// dense matrices read and written through their order and leading
/// dimension. Only work running in stream order calls these.
#pragma once

#include "libs/cusparse/Cusparse.h"

#include <algorithm>
#include <vector>

namespace ferry::cusparse {

template <typename T> struct Csr {
  int64_t Rows = 0, Cols = 0;
  std::vector<int64_t> Ptr, Idx;
  std::vector<T> Val;
  int64_t nnz() const { return static_cast<int64_t>(Idx.size()); }
};

/// CSR of the transpose (conjugated when Conj), columns sorted per row.
template <typename T> Csr<T> transposeCsr(const Csr<T> &A, bool Conj) {
  Csr<T> B;
  B.Rows = A.Cols;
  B.Cols = A.Rows;
  B.Ptr.assign(B.Rows + 1, 0);
  for (int64_t J : A.Idx)
    ++B.Ptr[J + 1];
  for (int64_t I = 0; I < B.Rows; ++I)
    B.Ptr[I + 1] += B.Ptr[I];
  B.Idx.resize(A.nnz());
  B.Val.resize(A.nnz());
  std::vector<int64_t> Next(B.Ptr.begin(), B.Ptr.end() - 1);
  for (int64_t I = 0; I < A.Rows; ++I)
    for (int64_t K = A.Ptr[I]; K < A.Ptr[I + 1]; ++K) {
      int64_t At = Next[A.Idx[K]]++;
      B.Idx[At] = I;
      B.Val[At] = Conj ? conjOf(A.Val[K]) : A.Val[K];
    }
  return B;
}

/// Reads descriptor M (values of type T) as zero-based CSR.
template <typename T> Csr<T> readCsr(const cusparseSpMatDescr &M) {
  Csr<T> A;
  const T *V = static_cast<const T *>(M.Values);
  int64_t B = M.Base;
  switch (M.Format) {
  case CUSPARSE_FORMAT_CSR:
  case CUSPARSE_FORMAT_CSC: {
    int64_t Outer = M.Format == CUSPARSE_FORMAT_CSR ? M.Rows : M.Cols;
    A.Rows = Outer;
    A.Cols = M.Format == CUSPARSE_FORMAT_CSR ? M.Cols : M.Rows;
    A.Ptr.resize(Outer + 1);
    // Offsets count from the index base: entry K of row I sits at
    // offset[I] - base + K in the index and value arrays.
    int64_t First = M.Offsets ? loadIndex(M.Offsets, M.OffType, 0) : B, Start = First - B;
    for (int64_t I = 0; I <= Outer; ++I)
      A.Ptr[I] = (M.Offsets ? loadIndex(M.Offsets, M.OffType, I) : B) - First;
    int64_t N = A.Ptr[Outer];
    A.Idx.resize(N);
    A.Val.resize(N);
    for (int64_t K = 0; K < N; ++K) {
      A.Idx[K] = loadIndex(M.Indices, M.IdxType, Start + K) - B;
      A.Val[K] = V[Start + K];
    }
    if (M.Format == CUSPARSE_FORMAT_CSC)
      return transposeCsr(A, false);
    return A;
  }
  case CUSPARSE_FORMAT_COO: {
    A.Rows = M.Rows;
    A.Cols = M.Cols;
    A.Ptr.assign(M.Rows + 1, 0);
    for (int64_t K = 0; K < M.Nnz; ++K)
      ++A.Ptr[loadIndex(M.Rows2, M.IdxType, K) - B + 1];
    for (int64_t I = 0; I < M.Rows; ++I)
      A.Ptr[I + 1] += A.Ptr[I];
    A.Idx.resize(M.Nnz);
    A.Val.resize(M.Nnz);
    std::vector<int64_t> Next(A.Ptr.begin(), A.Ptr.end() - 1);
    for (int64_t K = 0; K < M.Nnz; ++K) {
      int64_t At = Next[loadIndex(M.Rows2, M.IdxType, K) - B]++;
      A.Idx[At] = loadIndex(M.Indices, M.IdxType, K) - B;
      A.Val[At] = V[K];
    }
    return A;
  }
  case CUSPARSE_FORMAT_BSR: {
    int64_t Rb = M.BlockRows, Cb = M.BlockCols;
    A.Rows = M.Rows * Rb;
    A.Cols = M.Cols * Cb;
    A.Ptr.assign(A.Rows + 1, 0);
    int64_t First = loadIndex(M.Offsets, M.OffType, 0), Start = First - B;
    for (int64_t Bi = 0; Bi < M.Rows; ++Bi) {
      int64_t Blocks =
          loadIndex(M.Offsets, M.OffType, Bi + 1) - loadIndex(M.Offsets, M.OffType, Bi);
      for (int64_t R = 0; R < Rb; ++R)
        A.Ptr[Bi * Rb + R + 1] = Blocks * Cb;
    }
    for (int64_t I = 0; I < A.Rows; ++I)
      A.Ptr[I + 1] += A.Ptr[I];
    A.Idx.resize(A.Ptr[A.Rows]);
    A.Val.resize(A.Ptr[A.Rows]);
    for (int64_t Bi = 0; Bi < M.Rows; ++Bi) {
      int64_t K0 = loadIndex(M.Offsets, M.OffType, Bi) - First,
              K1 = loadIndex(M.Offsets, M.OffType, Bi + 1) - First;
      for (int64_t R = 0; R < Rb; ++R) {
        int64_t At = A.Ptr[Bi * Rb + R];
        for (int64_t K = K0; K < K1; ++K) {
          int64_t Bj = loadIndex(M.Indices, M.IdxType, Start + K) - B;
          const T *Blk = V + (Start + K) * Rb * Cb;
          for (int64_t C = 0; C < Cb; ++C) {
            A.Idx[At] = Bj * Cb + C;
            A.Val[At++] = M.BlockOrder == CUSPARSE_ORDER_ROW ? Blk[R * Cb + C] : Blk[C * Rb + R];
          }
        }
      }
    }
    return A;
  }
  default:
    return A;
  }
}

/// op(A) as CSR.
template <typename T> Csr<T> readOp(const cusparseSpMatDescr &M, cusparseOperation_t Op) {
  Csr<T> A = readCsr<T>(M);
  if (Op == CUSPARSE_OPERATION_NON_TRANSPOSE)
    return A;
  return transposeCsr(A, Op == CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE);
}

/// Element access to a dense matrix, optionally through an operation
/// (op(B)(i, j)).
template <typename T> struct Dense {
  T *P;
  int64_t Ld;
  bool RowMajor;
  T &at(int64_t I, int64_t J) const { return RowMajor ? P[I * Ld + J] : P[I + J * Ld]; }
};
template <typename T> Dense<T> dense(const cusparseDnMatDescr &M) {
  return {static_cast<T *>(M.Values), M.Ld, M.Order == CUSPARSE_ORDER_ROW};
}
template <typename T> T opAt(const Dense<T> &B, cusparseOperation_t Op, int64_t I, int64_t J) {
  if (Op == CUSPARSE_OPERATION_NON_TRANSPOSE)
    return B.at(I, J);
  if (Op == CUSPARSE_OPERATION_TRANSPOSE)
    return B.at(J, I);
  return conjOf(B.at(J, I));
}

template <typename T> T scalarValue(const Scalar &S) {
  T V;
  std::memcpy(&V, S.get(), sizeof(T));
  return V;
}

} // namespace ferry::cusparse
