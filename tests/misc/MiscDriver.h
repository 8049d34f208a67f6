//===- MiscDriver.h - the misc-instruction test cases, launcher-agnostic -===//
/// \file
/// One function per kernel of kernels.cu: makes the inputs (fixed seeds),
/// launches through a callback (kernel name, buffers, then ints, grid and
/// block size; buffers are copied back), and compares with MiscRef.h or
/// with what the kernel must compute. Returns "" on success, else what
/// differed. Used natively (kernels.cu, MISC_VALIDATE_MAIN) and on the host
/// executor (MiscExecTest.cpp).
//===----------------------------------------------------------------------===//
#pragma once

#include "MiscRef.h"

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace miscref {

struct Buffer {
  void *Host;
  size_t Bytes;
};
using Launch = std::function<std::string(const char *, std::vector<Buffer> &, const std::vector<int> &,
                                         unsigned Grid, unsigned Block)>;
template <typename T> Buffer buf(std::vector<T> &V) { return {V.data(), V.size() * sizeof(T)}; }

inline const std::vector<std::string> &videoCases() {
  static const std::vector<std::string> Cases = {
#define VIDEO_CASE(S) S,
#include "VideoCases.def"
#undef VIDEO_CASE
  };
  return Cases;
}

inline std::string hex(uint64_t V) {
  char S[24];
  std::snprintf(S, sizeof S, "0x%llx", (unsigned long long)V);
  return S;
}

/// Inputs: lane values near the byte/halfword limits and random words.
inline std::string runVideo(const Launch &L) {
  const int N = 4096;
  Rng G(7);
  std::vector<uint32_t> A(N), B(N), C(N);
  const uint8_t Edge[] = {0, 1, 2, 0x7F, 0x80, 0x81, 0xFE, 0xFF};
  for (int I = 0; I < N; ++I) {
    if (I < 1024) { // every pair of edge bytes, in every lane pattern
      uint32_t X = Edge[I % 8], Y = Edge[(I / 8) % 8], Z = uint32_t(I / 64);
      A[I] = X * 0x01010101u ^ (Z * 0x00FF0000u);
      B[I] = Y * 0x01010101u ^ (Z * 0x0000FF00u);
      C[I] = G.u32();
    } else {
      A[I] = G.u32(), B[I] = G.u32(), C[I] = G.u32();
      if (I % 3 == 0)
        B[I] &= 0x3F003F; // small shift counts
    }
  }
  const std::vector<std::string> &Cs = videoCases();
  std::vector<uint32_t> Out(size_t(N) * Cs.size(), 0xDEADBEEF);
  std::vector<Buffer> Bufs = {buf(A), buf(B), buf(C), buf(Out)};
  std::string E = L("video_all", Bufs, {N}, N / 128, 128);
  if (!E.empty())
    return E;
  std::string Err; // the first mismatch of each failing row
  for (size_t K = 0; K < Cs.size(); ++K)
    for (int I = 0; I < N; ++I) {
      uint32_t Want = video(Cs[K], A[I], B[I], C[I]), Got = Out[I * Cs.size() + K];
      if (Got != Want) {
        Err += "\n  " + Cs[K] + " a=" + hex(A[I]) + " b=" + hex(B[I]) + " c=" + hex(C[I]) + ": got " +
               hex(Got) + ", want " + hex(Want);
        break;
      }
    }
  return Err;
}

/// fns: every base in -2..33 and offset in -34..34 for a set of masks.
inline std::string runFns(const Launch &L) {
  std::vector<uint32_t> M, Base, Out;
  std::vector<int32_t> Off;
  Rng G(11);
  const uint32_t Masks[] = {0, 0xFFFFFFFF, 0x80000001, 0x12345678, 0xF0F0F0F0, 1, 0x80000000};
  for (int Mi = 0; Mi < 12; ++Mi)
    for (int Bi = -2; Bi <= 33; ++Bi)
      for (int O = -34; O <= 34; ++O) {
        M.push_back(Mi < 7 ? Masks[Mi] : G.u32());
        Base.push_back(uint32_t(Bi));
        Off.push_back(O);
      }
  for (int I = 0; I < 64; ++I) { // far offsets
    M.push_back(G.u32());
    Base.push_back(G.u32() % 32);
    Off.push_back(int32_t(G.u32()));
  }
  while (M.size() % 128) {
    M.push_back(0), Base.push_back(0), Off.push_back(0);
  }
  int N = int(M.size());
  Out.assign(N, 0xDEADBEEF);
  std::vector<Buffer> Bufs = {buf(M), buf(Base), buf(Off), buf(Out)};
  std::string E = L("fns_all", Bufs, {N}, N / 128, 128);
  if (!E.empty())
    return E;
  for (int I = 0; I < N; ++I) {
    uint32_t Want = fns(M[I], Base[I], Off[I]);
    if (Out[I] != Want)
      return "fns(" + hex(M[I]) + ", " + std::to_string(int32_t(Base[I])) + ", " + std::to_string(Off[I]) +
             "): got " + hex(Out[I]) + ", want " + hex(Want);
  }
  return "";
}

inline double bitsToDouble(uint64_t B) {
  double D;
  std::memcpy(&D, &B, 8);
  return D;
}

/// fma.rz/rm/rp.f64: random operands over several exponent ranges, exact
/// cancellations, results near overflow and in the subnormal range.
inline std::string runFma(const Launch &L) {
  const int N = 8192;
  Rng G(3);
  std::vector<double> A(N), B(N), C(N), Out(3 * size_t(N));
  auto Rand = [&](int EMin, int EMax) {
    double M = 1.0 + double(G.next() >> 12) / 4503599627370496.0;
    int E = EMin + int(G.next() % uint64_t(EMax - EMin + 1));
    return std::ldexp(G.next() & 1 ? -M : M, E);
  };
  for (int I = 0; I < N; ++I) {
    switch (I % 8) {
    case 0: A[I] = Rand(-4, 4), B[I] = Rand(-4, 4), C[I] = Rand(-4, 4); break;
    case 1: A[I] = Rand(-30, 30), B[I] = Rand(-30, 30), C[I] = Rand(-80, 80); break;
    case 2: // c cancels most of the product
      A[I] = Rand(-10, 10), B[I] = Rand(-10, 10), C[I] = -A[I] * B[I] * (1 + std::ldexp(double(G.u32() % 64), -52));
      break;
    case 3: A[I] = Rand(500, 520), B[I] = Rand(490, 510), C[I] = Rand(1000, 1023); break; // overflow
    case 4: A[I] = Rand(-540, -500), B[I] = Rand(-540, -500), C[I] = Rand(-1074, -1000); break; // subnormal
    case 5: A[I] = Rand(-600, -500), B[I] = Rand(-500, -400), C[I] = Rand(-1050, -960); break;
    case 6: A[I] = Rand(-20, 20), B[I] = Rand(-20, 20), C[I] = std::ldexp(1.0, int(G.u32() % 200) - 100); break;
    default: A[I] = Rand(-2, 2), B[I] = Rand(-2, 2), C[I] = (G.u32() & 1) ? 0.0 : -0.0; break;
    }
  }
  A[0] = 0, B[0] = -1, C[0] = 0;                      // signed zeros
  A[8] = INFINITY, B[8] = 2, C[8] = 1;
  A[16] = NAN, B[16] = 1, C[16] = 1;
  A[24] = 1, B[24] = 1, C[24] = -1;                   // exact zero: rm gives -0
  A[32] = bitsToDouble(1), B[32] = 0.5, C[32] = 0;    // half the smallest subnormal
  A[40] = bitsToDouble(1), B[40] = -0.25, C[40] = bitsToDouble(3);
  A[48] = 1e300, B[48] = 1e300, C[48] = -1;           // overflow
  A[56] = 1e-300, B[56] = 1e-300, C[56] = 1.0;        // a tiny product added to 1
  A[64] = -1e-300, B[64] = 1e-300, C[64] = 1e-310;    // tiny product, subnormal c
  std::vector<Buffer> Bufs = {buf(A), buf(B), buf(C), buf(Out)};
  std::string E = L("fma_directed", Bufs, {N}, N / 128, 128);
  if (!E.empty())
    return E;
  for (int I = 0; I < N; ++I)
    for (int M = 0; M < 3; ++M) {
      double Want = fmaDirected(A[I], B[I], C[I], M), Got = Out[3 * size_t(I) + M];
      uint64_t WB, GB;
      std::memcpy(&WB, &Want, 8);
      std::memcpy(&GB, &Got, 8);
      if (WB != GB && !(std::isnan(Want) && std::isnan(Got))) {
        char S[256];
        std::snprintf(S, sizeof S, "fma.%s(%a, %a, %a): got %a, want %a", M == 0 ? "rz" : M == 1 ? "rm" : "rp",
                      A[I], B[I], C[I], Got, Want);
        return S;
      }
    }
  return "";
}

inline std::string runPipeline(const Launch &L) {
  const int Stages = 40;
  std::vector<int> In(Stages * 96), Out(Stages * 96, -1);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = int(I * 37 % 1001);
  std::vector<Buffer> Bufs = {buf(In), buf(Out)};
  std::string E = L("mbar_pipeline", Bufs, {Stages}, 3, 128);
  if (!E.empty())
    return E;
  for (int S = 0; S < Stages; ++S)
    for (int C = 0; C < 96; ++C)
      if (Out[S * 96 + C] != In[S * 96 + C] * 2 + S)
        return "stage " + std::to_string(S) + " consumer " + std::to_string(C) + ": got " +
               std::to_string(Out[S * 96 + C]);
  return "";
}

inline std::string runTokens(const Launch &L) {
  std::vector<uint32_t> Out(32, 0xDEADBEEF);
  std::vector<Buffer> Bufs = {buf(Out)};
  std::string E = L("mbar_tokens", Bufs, {}, 1, 1);
  if (!E.empty())
    return E;
  // pending counts of the tokens (the count before each arrive), then the
  // waits in kernel order; recorded on an H100.
  const uint32_t Want[] = {4, 3, 3, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1};
  for (unsigned I = 0; I < sizeof Want / 4; ++I)
    if (Out[I] != Want[I])
      return "value " + std::to_string(I) + ": got " + std::to_string(Out[I]) + ", want " +
             std::to_string(Want[I]);
  return "";
}

inline std::string runBulk(const Launch &L) {
  std::vector<int> G(256), Out(256, -1);
  for (int I = 0; I < 256; ++I)
    G[I] = I * 7 - 3;
  std::vector<Buffer> Bufs = {buf(G), buf(Out)};
  std::string E = L("mbar_bulk", Bufs, {}, 2, 64);
  if (!E.empty())
    return E;
  for (int I = 0; I < 256; ++I)
    if (Out[I] != G[I])
      return "element " + std::to_string(I) + ": got " + std::to_string(Out[I]);
  return "";
}

inline std::string runBulkReduce(const Launch &L) {
  Rng G(13);
  std::vector<int> Src(256), Mn(256), Sh(256), Out(256, -1);
  std::vector<float> Acc(256);
  for (int I = 0; I < 256; ++I) {
    Src[I] = int(G.u32() % 2001) - 1000;
    Mn[I] = int(G.u32() % 2001) - 1000;
    Sh[I] = int(G.u32() % 2001) - 1000;
    Acc[I] = float(int(G.u32() % 101) - 50);
  }
  std::vector<float> Acc0 = Acc;
  std::vector<int> Mn0 = Mn;
  std::vector<Buffer> Bufs = {buf(Src), buf(Acc), buf(Mn), buf(Sh), buf(Out)};
  std::string E = L("bulk_reduce", Bufs, {}, 1, 256);
  if (!E.empty())
    return E;
  for (int I = 0; I < 256; ++I) {
    if (Acc[I] != Acc0[I] + float(Src[I]) * 0.5f)
      return "add.f32 element " + std::to_string(I) + ": got " + std::to_string(Acc[I]);
    if (Mn[I] != std::min(Mn0[I], Src[I]))
      return "min.s32 element " + std::to_string(I) + ": got " + std::to_string(Mn[I]);
    if (Out[I] != std::max(Sh[I], Src[I]))
      return "max.s32 (shared) element " + std::to_string(I) + ": got " + std::to_string(Out[I]);
  }
  return "";
}

/// tma_tile: a 40x20 f32 tensor with rows 48 floats apart, the box 8x8,
/// the 32B swizzle; loaded at (36, -3), stored back at (4, 15).
struct TmaCase {
  static constexpr int W = 40, H = 20, Pitch = 48, C0 = 36, C1 = -3, S0 = 4, S1 = 15;
  std::vector<float> Tensor = std::vector<float>(Pitch * H);
  TmaCase() {
    for (int I = 0; I < Pitch * H; ++I)
      Tensor[I] = float(I % Pitch < W ? I : -1);
  }
  /// The box element (i0, i1) as loaded (zero outside the tensor).
  float boxValue(int I0, int I1) const {
    int X = C0 + I0, Y = C1 + I1;
    return X >= 0 && X < W && Y >= 0 && Y < H ? Tensor[Y * Pitch + X] : 0.0f;
  }
  /// Compares the tile's raw words (element (i0, i1) at byte (8 i1 + i0) * 4,
  /// bit 4 flipped by bit 7: the 32B swizzle) and the tensor after the store.
  std::string check(const std::vector<float> &Tile, const std::vector<float> &After) const {
    for (int I1 = 0; I1 < 8; ++I1)
      for (int I0 = 0; I0 < 8; ++I0) {
        unsigned Off = unsigned(8 * I1 + I0) * 4;
        Off ^= ((Off >> 7) & 1) << 4;
        if (Tile[Off / 4] != boxValue(I0, I1))
          return "tile element (" + std::to_string(I0) + ", " + std::to_string(I1) + "): got " +
                 std::to_string(Tile[Off / 4]) + ", want " + std::to_string(boxValue(I0, I1));
      }
    for (int Y = 0; Y < H; ++Y)
      for (int X = 0; X < Pitch; ++X) {
        float Want = Tensor[Y * Pitch + X];
        if (X >= S0 && X < S0 + 8 && Y >= S1 && Y < S1 + 8)
          Want = boxValue(X - S0, Y - S1);
        if (After[Y * Pitch + X] != Want)
          return "tensor (" + std::to_string(X) + ", " + std::to_string(Y) + ") after the store: got " +
                 std::to_string(After[Y * Pitch + X]) + ", want " + std::to_string(Want);
      }
    return "";
  }
};

inline std::string runCudaBarrier(const Launch &L) {
  const int Rounds = 10, Threads = 256;
  std::vector<int> Out(Rounds, -1);
  std::vector<Buffer> Bufs = {buf(Out)};
  std::string E = L("cuda_barrier", Bufs, {Rounds}, 1, Threads);
  if (!E.empty())
    return E;
  for (int R = 0; R < Rounds; ++R) {
    int Want = Threads * (Threads - 1) / 2 + Threads * R;
    if (Out[R] != Want)
      return "round " + std::to_string(R) + ": got " + std::to_string(Out[R]) + ", want " + std::to_string(Want);
  }
  return "";
}

inline std::vector<std::pair<const char *, std::string (*)(const Launch &)>> cases() {
  return {{"video", runVideo},       {"fns", runFns},   {"fma_directed", runFma},
          {"mbar_pipeline", runPipeline}, {"mbar_tokens", runTokens}, {"mbar_bulk", runBulk},
          {"cuda_barrier", runCudaBarrier}, {"bulk_reduce", runBulkReduce}};
}

} // namespace miscref
