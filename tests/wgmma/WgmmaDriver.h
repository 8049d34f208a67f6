//===- WgmmaDriver.h - the wgmma test cases, launcher-agnostic -*- C++ -*-===//
/// \file
/// Inputs, launch and reference of the wgmma cases (WgmmaCases.def): A
/// (64xK) row-major and B (Kx16) column-major as element encodings, C/D
/// 64x16 row-major; the kernel itself lays the tiles out in shared memory
/// (the canonical layouts, swizzled or not) and builds the descriptors. The
/// reference is MmaRef.h's, with the inputs chosen so every sum is exact.
/// Used natively (kernels.cu, WGMMA_VALIDATE_MAIN) and on the host executor
/// (WgmmaExecTest.cpp).
//===----------------------------------------------------------------------===//
#pragma once

#include "../mma/MmaRef.h"

#include <functional>
#include <string>

namespace wgmmaref {

using mmaref::ET;
using mmaref::Matrix;

struct Buffer {
  void *Host;
  size_t Bytes;
};
/// Launches the kernel on one block of 128 threads with a pointer to each
/// buffer; copies the buffers back.
using Launch = std::function<std::string(std::vector<Buffer> &)>;

/// Input element bytes (fp8 types are one byte).
inline unsigned inBytes(ET T) { return T == ET::F16 || T == ET::BF16 ? 2 : T == ET::TF32 ? 4 : 1; }

/// e4m3 / e5m2 encodings of values that are exact in them (multiples of
/// 1/4 in [-1, 1]).
inline uint8_t toE4m3(double V) {
  if (V == 0)
    return 0;
  uint8_t S = V < 0 ? 0x80 : 0;
  int E;
  double F = std::frexp(std::fabs(V), &E); // |V| = F * 2^E, F in [0.5, 1)
  return uint8_t(S | (E - 1 + 7) << 3 | (uint32_t(std::ldexp(F, 4)) & 7));
}
inline uint8_t toE5m2(double V) { return uint8_t(mmaref::toHalf(V) >> 8); }

/// The element encodings of a logical matrix (one element per entry, in
/// Matrix order) as the bytes the kernel copies into shared memory.
inline std::vector<unsigned char> encode(const Matrix &M, ET T) {
  unsigned ES = inBytes(T);
  std::vector<unsigned char> Out(size_t(M.Rows) * M.Cols * ES);
  for (unsigned R = 0; R < M.Rows; ++R)
    for (unsigned C = 0; C < M.Cols; ++C) {
      double V = M.at(R, C);
      size_t I = M.index(R, C) * ES;
      if (T == ET::E4M3)
        Out[I] = toE4m3(V);
      else if (T == ET::E5M2)
        Out[I] = toE5m2(V);
      else
        mmaref::put(T, Out.data(), M.index(R, C), V);
    }
  return Out;
}

inline std::string runWgmma(const Launch &L, ET In, ET Acc, unsigned K, bool ScaleD, bool NegA) {
  // Fp8 values live as f32 in the logical matrices; others as themselves.
  ET Logical = In == ET::E4M3 || In == ET::E5M2 ? ET::F32 : In;
  mmaref::Rng G(K * 31 + unsigned(In) * 7 + unsigned(Acc));
  Matrix A(Logical, 64, K, true), B(Logical, K, 16, false), C(Acc, 64, 16, true), D(Acc, 64, 16, true);
  A.fill(G, false);
  B.fill(G, false);
  C.fill(G, true);
  std::vector<unsigned char> EA = encode(A, In), EB = encode(B, In);
  std::vector<Buffer> Bufs = {{EA.data(), EA.size()}, {EB.data(), EB.size()}, {C.data(), C.Bytes.size()},
                              {D.data(), D.Bytes.size()}};
  std::string Err = L(Bufs);
  if (!Err.empty())
    return Err;
  Matrix C0 = C;
  if (!ScaleD)
    for (unsigned R = 0; R < 64; ++R)
      for (unsigned Col = 0; Col < 16; ++Col)
        C0.set(R, Col, 0);
  if (NegA)
    for (unsigned R = 0; R < 64; ++R)
      for (unsigned Kk = 0; Kk < K; ++Kk)
        A.set(R, Kk, -A.at(R, Kk));
  Matrix Want = mmaref::reference(A, B, C0, Acc, false);
  unsigned Bad = mmaref::mismatches(D, Want);
  for (unsigned R = 0; R < 64 && Bad; ++R)
    for (unsigned Col = 0; Col < 16; ++Col)
      if (!(D.at(R, Col) == Want.at(R, Col)))
        return std::to_string(Bad) + " mismatches, first at (" + std::to_string(R) + ", " + std::to_string(Col) +
               "): got " + std::to_string(D.at(R, Col)) + ", want " + std::to_string(Want.at(R, Col));
  return "";
}

} // namespace wgmmaref
