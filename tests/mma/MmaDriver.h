//===- MmaDriver.h - the matrix-instruction test cases, launcher-agnostic -===//
/// \file
/// One function per kind of case of kernels.cu: makes the inputs (fixed
/// seeds), launches the kernel through a callback (one block of 32 threads;
/// the callback passes a pointer to each buffer's memory, then the integers,
/// and copies every buffer back), and compares with MmaRef.h. Returns "" on
/// success, else what differed. Used natively (kernels.cu) and on the host
/// executor (MmaExecTest.cpp).
//===----------------------------------------------------------------------===//
#pragma once

#include "MmaRef.h"

#include <functional>
#include <string>

namespace mmaref {

struct Buffer {
  void *Host;
  size_t Bytes;
};
using Launch = std::function<std::string(std::vector<Buffer> &, const std::vector<int> &)>;

inline Buffer buf(Matrix &M) { return {M.data(), M.Bytes.size()}; }
template <typename T> Buffer buf(std::vector<T> &V) { return {V.data(), V.size() * sizeof(T)}; }

inline std::string describe(const char *What, unsigned Bad, const Matrix &D, const Matrix &Want) {
  if (!Bad)
    return "";
  for (unsigned I = 0; I < D.Rows; ++I)
    for (unsigned J = 0; J < D.Cols; ++J)
      if (!(D.at(I, J) == Want.at(I, J)))
        return std::string(What) + ": " + std::to_string(Bad) + " mismatches, first at (" +
               std::to_string(I) + ", " + std::to_string(J) + "): got " + std::to_string(D.at(I, J)) +
               ", want " + std::to_string(Want.at(I, J));
  return "";
}

/// wmma: A (MxK) and B (KxN) in the given layouts with padded leading
/// dimensions; C/D row-major, then column-major.
inline std::string runWmma(const Launch &L, unsigned M, unsigned N, unsigned K, ET In, ET Acc,
                           bool ARow, bool BRow) {
  for (int CRow : {1, 0}) {
    Rng G(M * 1000 + N * 10 + K + CRow);
    Matrix A(In, M, K, ARow, 16), B(In, K, N, BRow, 16), C(Acc, M, N, CRow, 16), D(Acc, M, N, CRow, 16);
    A.fill(G, false);
    B.fill(G, false);
    C.fill(G, true);
    std::vector<Buffer> Bufs = {buf(A), buf(B), buf(C), buf(D)};
    std::string Err = L(Bufs, {int(A.Ld), int(B.Ld), int(C.Ld), CRow});
    if (!Err.empty())
      return Err;
    std::string R = describe(CRow ? "C/D row-major" : "C/D column-major", mismatches(D, reference(A, B, C, Acc, false)),
                             D, reference(A, B, C, Acc, false));
    if (!R.empty())
      return R;
  }
  return "";
}

/// mma.sync: A row-major, B column-major, C/D row-major, dense. The
/// saturating case puts C next to the s32 limits.
inline std::string runMma(const Launch &L, unsigned M, unsigned N, unsigned K, ET TA, ET TB, ET TC,
                          ET TD, bool Sat) {
  Rng G(M * 7 + N * 3 + K);
  Matrix A(TA, M, K, true), B(TB, K, N, false), C(TC, M, N, true), D(TD, M, N, true);
  A.fill(G, false);
  B.fill(G, false);
  C.fill(G, true);
  if (Sat)
    for (unsigned I = 0; I < M; ++I)
      for (unsigned J = 0; J < N; ++J)
        C.set(I, J, (I + J) % 3 == 0 ? INT32_MAX - 1000 : (I + J) % 3 == 1 ? INT32_MIN + 1000 : 7);
  std::vector<Buffer> Bufs = {buf(A), buf(B), buf(C), buf(D)};
  std::string Err = L(Bufs, {});
  if (!Err.empty())
    return Err;
  Matrix Want = reference(A, B, C, TD, Sat);
  return describe("D", mismatches(D, Want), D, Want);
}

/// mma.sync on b1 (.and.popc or .xor.popc): as runMma with 0/1 elements.
inline std::string runMmaBits(const Launch &L, unsigned M, unsigned N, unsigned K, bool Xor) {
  Rng G(M * 7 + N * 3 + K + Xor);
  Matrix A(ET::B1, M, K, true), B(ET::B1, K, N, false), C(ET::S32, M, N, true), D(ET::S32, M, N, true);
  A.fill(G, false);
  B.fill(G, false);
  C.fill(G, true);
  std::vector<Buffer> Bufs = {buf(A), buf(B), buf(C), buf(D)};
  std::string Err = L(Bufs, {});
  if (!Err.empty())
    return Err;
  Matrix Want = reference(A, B, C, ET::S32, false, Xor);
  return describe("D", mismatches(D, Want), D, Want);
}

/// Sub-byte wmma (m8n8k32 s4/u4, m8n8k128 b1): A row-major and B
/// column-major, packed, with padded leading dimensions (in elements); C/D
/// s32 row-major, then column-major. Xor selects .xor.popc for b1.
inline std::string runWmmaSub(const Launch &L, unsigned K, ET In, bool Xor) {
  for (int CRow : {1, 0}) {
    Rng G(K * 10 + CRow + Xor);
    unsigned Pad = In == ET::B1 ? 128 : 32;
    Matrix A(In, 8, K, true, Pad), B(In, K, 8, false, Pad), C(ET::S32, 8, 8, CRow, 4), D(ET::S32, 8, 8, CRow, 4);
    A.fill(G, false);
    B.fill(G, false);
    C.fill(G, true);
    std::vector<unsigned char> PA = A.packed(), PB = B.packed();
    std::vector<Buffer> Bufs = {buf(PA), buf(PB), buf(C), buf(D)};
    std::string Err = L(Bufs, {int(A.Ld), int(B.Ld), int(C.Ld), CRow});
    if (!Err.empty())
      return Err;
    Matrix Want = reference(A, B, C, ET::S32, false, Xor);
    std::string R = describe(CRow ? "C/D row-major" : "C/D column-major", mismatches(D, Want), D, Want);
    if (!R.empty())
      return R;
  }
  return "";
}

/// mma.sync.m8n8k4 with f16 inputs: four independent 8x8x4 products, one
/// per quad pair q; the layouts only change how the kernel packs fragments.
inline std::string runMmaQuad(const Launch &L, ET Acc) {
  Rng G(84 + unsigned(Acc));
  Matrix A(ET::F16, 32, 4, true), B(ET::F16, 4, 32, false), C(Acc, 32, 8, true), D(Acc, 32, 8, true);
  A.fill(G, false);
  B.fill(G, false);
  C.fill(G, true);
  std::vector<Buffer> Bufs = {buf(A), buf(B), buf(C), buf(D)};
  std::string Err = L(Bufs, {});
  if (!Err.empty())
    return Err;
  Matrix Want(Acc, 32, 8, true);
  for (unsigned R = 0; R < 32; ++R)
    for (unsigned Col = 0; Col < 8; ++Col) {
      double S = C.at(R, Col);
      for (unsigned K = 0; K < 4; ++K)
        S += A.at(R, K) * B.at(K, 8 * (R / 8) + Col);
      Want.set(R, Col, S);
    }
  return describe("D", mismatches(D, Want), D, Want);
}

/// mma.sp m16n8kK (2:4): a random pair of positions in each group of 4 k of
/// each row of A carries the row's compressed values; the reference
/// multiplies the expanded A.
inline std::string runMmaSparse(const Launch &L, unsigned K, ET In, ET Acc) {
  Rng G(K * 3 + unsigned(In) + 11 * unsigned(Acc));
  Matrix Ac(In, 16, K / 2, true), B(In, K, 8, false), C(Acc, 16, 8, true), D(Acc, 16, 8, true),
      Full(In, 16, K, true);
  Ac.fill(G, false);
  B.fill(G, false);
  C.fill(G, true);
  std::vector<uint8_t> Nib(16 * (K / 4));
  for (unsigned R = 0; R < 16; ++R)
    for (unsigned J = 0; J < K / 4; ++J) {
      unsigned I0 = G.below(3), I1 = I0 + 1 + G.below(3 - I0); // 0 <= i0 < i1 <= 3
      Nib[R * (K / 4) + J] = uint8_t(I0 | I1 << 2);
      for (unsigned X = 0; X < 4; ++X)
        Full.set(R, 4 * J + X, X == I0 ? Ac.at(R, 2 * J) : X == I1 ? Ac.at(R, 2 * J + 1) : 0.0);
    }
  std::vector<Buffer> Bufs = {buf(Ac), buf(Nib), buf(B), buf(C), buf(D)};
  std::string Err = L(Bufs, {});
  if (!Err.empty())
    return Err;
  Matrix Want = reference(Full, B, C, Acc, false);
  return describe("D", mismatches(D, Want), D, Want);
}

inline std::string runSharedGeneric(const Launch &L) {
  for (int UseShared : {1, 0}) {
    Rng G(99 + UseShared);
    Matrix A(ET::F16, 16, 16, true), B(ET::F16, 16, 16, false), C(ET::F32, 16, 16, true), D(ET::F32, 16, 16, true);
    A.fill(G, false);
    B.fill(G, false);
    C.fill(G, true);
    std::vector<Buffer> Bufs = {buf(A), buf(B), buf(C), buf(D)};
    std::string Err = L(Bufs, {UseShared});
    if (!Err.empty())
      return Err;
    Matrix Want = reference(A, B, C, ET::F32, false);
    std::string R = describe(UseShared ? "B shared" : "B global", mismatches(D, Want), D, Want);
    if (!R.empty())
      return R;
  }
  return "";
}

inline std::string runFillScale(const Launch &L) {
  Rng G(5);
  Matrix A(ET::F16, 16, 16, true), B(ET::F16, 16, 16, false), D(ET::F32, 16, 16, true), DH(ET::F16, 16, 16, true);
  A.fill(G, false);
  B.fill(G, false);
  std::vector<Buffer> Bufs = {buf(A), buf(B), buf(D), buf(DH)};
  std::string Err = L(Bufs, {});
  if (!Err.empty())
    return Err;
  Matrix C1(ET::F32, 16, 16, true), C2(ET::F16, 16, 16, true);
  for (unsigned I = 0; I < 16; ++I)
    for (unsigned J = 0; J < 16; ++J) {
      C1.set(I, J, 1.5);
      C2.set(I, J, 1.0);
    }
  Matrix Want = reference(A, B, C1, ET::F32, false), WantH = reference(A, B, C2, ET::F16, false);
  for (unsigned I = 0; I < 16; ++I)
    for (unsigned J = 0; J < 16; ++J)
      Want.set(I, J, 2 * Want.at(I, J));
  std::string R = describe("f32 fill+scale", mismatches(D, Want), D, Want);
  return R.empty() ? describe("f16 fill", mismatches(DH, WantH), DH, WantH) : R;
}

/// Row r of 8x8 matrix m lives at tile row m*8 + (r*3 + m) % 8 (24 b16 per row).
inline size_t tileIndex(unsigned M, unsigned R, unsigned C) { return (M * 8 + (R * 3 + M) % 8) * 24 + C; }

inline std::string runLdmatrix(const Launch &L) {
  std::vector<uint16_t> Tile(32 * 24);
  for (size_t I = 0; I < Tile.size(); ++I)
    Tile[I] = uint16_t(I * 7 + 3);
  std::vector<uint32_t> Out(32 * 14, 0xDEADBEEF);
  std::vector<Buffer> Bufs = {buf(Tile), buf(Out)};
  std::string Err = L(Bufs, {});
  if (!Err.empty())
    return Err;
  // Register m of lane l: row l/4, columns 2(l%4), +1 (transposed: column
  // l/4, rows 2(l%4), +1) of matrix m.
  const unsigned Slot[6] = {0, 1, 3, 7, 8, 10}, Count[6] = {1, 2, 4, 1, 2, 4};
  for (unsigned F = 0; F < 6; ++F)
    for (unsigned Lane = 0; Lane < 32; ++Lane)
      for (unsigned M = 0; M < Count[F]; ++M) {
        bool Trans = F >= 3;
        unsigned G = Lane / 4, T = Lane % 4;
        uint32_t Lo = Trans ? Tile[tileIndex(M, 2 * T, G)] : Tile[tileIndex(M, G, 2 * T)];
        uint32_t Hi = Trans ? Tile[tileIndex(M, 2 * T + 1, G)] : Tile[tileIndex(M, G, 2 * T + 1)];
        uint32_t Got = Out[Lane * 14 + Slot[F] + M];
        if (Got != (Lo | Hi << 16))
          return "form " + std::to_string(F) + " lane " + std::to_string(Lane) + " reg " +
                 std::to_string(M) + ": got " + std::to_string(Got) + ", want " +
                 std::to_string(Lo | Hi << 16);
      }
  return "";
}

inline std::string runStmatrix(const Launch &L) {
  std::vector<uint32_t> In(32 * 4);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = uint32_t(I * 0x10001u + 0x00050003u);
  std::vector<uint16_t> Out(3 * 32 * 24, 0xFFFF), Want(3 * 32 * 24, 0);
  const unsigned Count[3] = {4, 2, 1};
  for (unsigned F = 0; F < 3; ++F)
    for (unsigned Lane = 0; Lane < 32; ++Lane)
      for (unsigned M = 0; M < Count[F]; ++M) {
        bool Trans = F == 1;
        unsigned G = Lane / 4, T = Lane % 4;
        uint32_t V = In[Lane * 4 + M];
        for (unsigned H = 0; H < 2; ++H) {
          size_t At = Trans ? tileIndex(M, 2 * T + H, G) : tileIndex(M, G, 2 * T + H);
          Want[F * 32 * 24 + At] = uint16_t(V >> (16 * H));
        }
      }
  std::vector<Buffer> Bufs = {buf(In), buf(Out)};
  std::string Err = L(Bufs, {});
  if (!Err.empty())
    return Err;
  for (size_t I = 0; I < Out.size(); ++I)
    if (Out[I] != Want[I])
      return "tile " + std::to_string(I / (32 * 24)) + " element " + std::to_string(I % (32 * 24)) +
             ": got " + std::to_string(Out[I]) + ", want " + std::to_string(Want[I]);
  return "";
}

inline std::string runMovmatrix(const Launch &L) {
  std::vector<uint32_t> In(32), Out(32, 0);
  for (unsigned I = 0; I < 32; ++I)
    In[I] = (2 * I) | (2 * I + 1) << 16; // element (r, c) = 8r + c
  std::vector<Buffer> Bufs = {buf(In), buf(Out)};
  std::string Err = L(Bufs, {});
  if (!Err.empty())
    return Err;
  for (unsigned Lane = 0; Lane < 32; ++Lane) {
    unsigned G = Lane / 4, T = Lane % 4;
    uint32_t Want = (8 * (2 * T) + G) | (8 * (2 * T + 1) + G) << 16;
    if (Out[Lane] != Want)
      return "lane " + std::to_string(Lane) + ": got " + std::to_string(Out[Lane]) + ", want " +
             std::to_string(Want);
  }
  return "";
}

} // namespace mmaref
