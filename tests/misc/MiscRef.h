//===- MiscRef.h - host references for the misc instruction tests --------===//
/// \file
/// References written from the PTX ISA's pseudo-code, independent of
/// ptx/lower, corrected where an H100 (CUDA 13) differs from the ISA text
/// (scalar video saturation with a destination selector, vmad's operand
/// signs): an interpreter of one video instruction's text (the rows of
/// VideoCases.def), fns, and f64 fma with a directed rounding mode (through
/// the host's fma under fesetround). Shared by the native validation run
/// (kernels.cu, MISC_VALIDATE_MAIN) and the host-executor test.
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace miscref {

struct Rng {
  uint64_t S;
  explicit Rng(uint64_t Seed) : S(Seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    S ^= S << 13;
    S ^= S >> 7;
    S ^= S << 17;
    return S;
  }
  uint32_t u32() { return uint32_t(next() >> 11); }
};

/// The result of one VideoCases.def row on (a, b, c).
inline uint32_t video(const std::string &Text, uint32_t A, uint32_t B, uint32_t C) {
  std::string Head = Text.substr(0, Text.find(' '));
  std::vector<std::string> Mods;
  std::stringstream HS(Head);
  for (std::string W; std::getline(HS, W, '.');)
    Mods.push_back(W);
  std::string Op = Mods[0];
  auto Has = [&](const char *M) { return std::find(Mods.begin() + 1, Mods.end(), M) != Mods.end(); };
  std::vector<bool> Signed;
  for (size_t I = 1; I < Mods.size(); ++I)
    if (Mods[I] == "u32" || Mods[I] == "s32")
      Signed.push_back(Mods[I] == "s32");
  bool IsSet = Op.rfind("vset", 0) == 0;
  if (IsSet)
    Signed.insert(Signed.begin(), false);
  bool DS = Signed[0], AS = Signed[1], BS = Signed[2];
  // Operand selectors: "%0.b2" → "b2"; "-%1" negated (vmad).
  std::vector<std::string> Sel;
  std::vector<bool> Neg;
  std::stringstream OS(Text.substr(Text.find(' ') + 1));
  for (std::string W; std::getline(OS, W, ',');) {
    W.erase(std::remove(W.begin(), W.end(), ' '), W.end());
    W.erase(std::remove(W.begin(), W.end(), ';'), W.end());
    size_t Dot = W.find('.');
    Sel.push_back(Dot == std::string::npos ? "" : W.substr(Dot + 1));
    Neg.push_back(!W.empty() && W[0] == '-');
  }
  Neg.resize(4, false);
  bool Sat = Has("sat"), Add = Has("add");
  std::string Cmp;
  for (const char *M : {"eq", "ne", "lt", "le", "gt", "ge"})
    if (Has(M))
      Cmp = M;
  auto Ext = [](uint32_t V, unsigned Off, unsigned Bits, bool S) -> int64_t {
    uint64_t P = (uint64_t(V) >> Off) & ((uint64_t(1) << Bits) - 1);
    if (S && (P >> (Bits - 1)) & 1)
      return int64_t(P) - (int64_t(1) << Bits);
    return int64_t(P);
  };
  auto Clamp = [](int64_t V, unsigned Bits, bool S) {
    int64_t Lo = S ? -(int64_t(1) << (Bits - 1)) : 0;
    int64_t Hi = S ? (int64_t(1) << (Bits - 1)) - 1 : int64_t((uint64_t(1) << Bits) - 1);
    return std::min(std::max(V, Lo), Hi);
  };
  auto Prim = [&](int64_t X, int64_t Y) -> int64_t {
    std::string P = Op.substr(0, Op.size() - ((Op.back() == '2' || Op.back() == '4') ? 1 : 0));
    if (P == "vadd") return X + Y;
    if (P == "vsub") return X - Y;
    if (P == "vabsdiff") return X > Y ? X - Y : Y - X;
    if (P == "vmin") return std::min(X, Y);
    if (P == "vmax") return std::max(X, Y);
    if (P == "vavrg") return X + Y >= 0 ? (X + Y + 1) >> 1 : (X + Y) >> 1;
    bool R = Cmp == "eq" ? X == Y : Cmp == "ne" ? X != Y : Cmp == "lt" ? X < Y
           : Cmp == "le" ? X <= Y : Cmp == "gt" ? X > Y : X >= Y;
    return R;
  };
  auto PartOf = [](const std::string &S, unsigned &Off, unsigned &Bits) {
    Off = 0, Bits = 32;
    if (S.size() == 2 && S[0] == 'b') Off = 8 * (S[1] - '0'), Bits = 8;
    if (S.size() == 2 && S[0] == 'h') Off = 16 * (S[1] - '0'), Bits = 16;
  };
  if (Op == "vmad") {
    // (a*b) + c (ISA 9.7.18.3): the product negated when exactly one of a,
    // b is, or c negated; one's complement plus one. As on an H100 (CUDA
    // 13), not as the ISA text says: a whole-word source is s32 whatever
    // its type, c is always sign-extended, and .sat of an unsigned
    // intermediate clamps the signed value to [0, 2^32-1].
    unsigned AO, AB, BO, BB;
    PartOf(Sel[1], AO, AB);
    PartOf(Sel[2], BO, BB);
    bool NegP = Neg[1] != Neg[2], NegC = Neg[3], Po = Has("po");
    bool SF = AS || BS || NegP || NegC;
    int64_t Tmp = Ext(A, AO, AB, AS || Sel[1].empty()) * Ext(B, BO, BB, BS || Sel[2].empty());
    uint32_t Cv = C;
    if (NegP) Tmp = ~Tmp;
    else if (NegC && !Po) Cv = ~Cv;
    Tmp += int64_t(int32_t(Cv));
    if (Po || NegP || NegC) Tmp += 1;
    if (Has("shr7")) Tmp >>= 7;
    if (Has("shr15")) Tmp >>= 15;
    if (Sat)
      Tmp = std::min<int64_t>(std::max<int64_t>(Tmp, SF ? INT32_MIN : 0), SF ? INT32_MAX : int64_t(UINT32_MAX));
    return uint32_t(Tmp);
  }
  char Last = Op.back();
  if (Last == '2' || Last == '4') {
    // Lane L of a/b is lane Sel[Lanes-1-L] of {b, a} (defaults .b3210 /
    // .b7654, .h10 / .h32); the mask lists the lanes written.
    unsigned Lanes = Last - '0', W = 32 / Lanes;
    unsigned Mask = (1u << Lanes) - 1;
    if (!Sel[0].empty()) {
      Mask = 0;
      for (size_t K = 1; K < Sel[0].size(); ++K)
        Mask |= 1u << (Sel[0][K] - '0');
    }
    uint64_t AB = uint64_t(A) | uint64_t(B) << 32;
    auto Pick = [&](const std::string &S, unsigned L, unsigned Default) {
      return S.empty() ? Default : unsigned(S[Lanes - L] - '0');
    };
    uint32_t D = Add ? C : 0;
    for (unsigned L = 0; L < Lanes; ++L) {
      uint32_t LaneMask = uint32_t(((uint64_t(1) << W) - 1) << (W * L));
      if (!(Mask >> L & 1)) {
        if (!Add) D |= C & LaneMask;
        continue;
      }
      unsigned SA = Pick(Sel[1], L, L), SB = Pick(Sel[2], L, L + Lanes);
      int64_t T = Prim(Ext(uint32_t(AB >> (W * SA)), 0, W, AS), Ext(uint32_t(AB >> (W * SB)), 0, W, BS));
      if (Sat) T = Clamp(T, W, DS);
      if (Add) D += uint32_t(T);
      else D |= (uint32_t(T) << (W * L)) & LaneMask;
    }
    return D;
  }
  unsigned AO, AB, BO, BB, DO, DB;
  PartOf(Sel[1], AO, AB);
  PartOf(Sel[2], BO, BB);
  PartOf(Sel[0], DO, DB);
  int64_t TA = Ext(A, AO, AB, AS);
  int64_t T;
  bool Shift = Op == "vshl" || Op == "vshr";
  if (Shift) {
    int64_t TB = Ext(B, BO, BB, false);
    TB = Has("wrap") ? TB & 31 : std::min<int64_t>(TB, 32);
    // The intermediate is the ISA's s34: a left shift wraps at 34 bits.
    T = Op == "vshl" ? int64_t(uint64_t(int64_t(uint64_t(TA) << TB)) << 30) >> 30 : TA >> TB;
  } else {
    T = Prim(TA, Ext(B, BO, BB, BS));
  }
  if (Sat && !IsSet) {
    if (Sel[0].empty()) {
      T = Clamp(T, 32, DS);
    } else if (Sel[0] == "h1") {
      T = 0; // What NVIDIA's compiler produces (H100, CUDA 13), not the ISA's clamp.
    } else {
      // NVIDIA (H100, CUDA 13): a negative intermediate saturates to the
      // lane's maximum too, for either destination type.
      int64_t Max = DS ? (int64_t(1) << (DB - 1)) - 1 : (int64_t(1) << DB) - 1;
      T = T < 0 || T > Max ? Max : T;
    }
  } else {
    T = DS ? int64_t(int32_t(uint32_t(T))) : int64_t(uint32_t(T)); // wraps to the destination type
  }
  int64_t C64 = DS ? int64_t(int32_t(C)) : int64_t(C);
  if (Add) return uint32_t(T + C64);
  if (Has("min")) return uint32_t(std::min(T, C64));
  if (Has("max")) return uint32_t(std::max(T, C64));
  if (!Sel[0].empty()) {
    uint32_t M = uint32_t(((uint64_t(1) << DB) - 1) << DO);
    return ((uint32_t(T) << DO) & M) | (C & ~M);
  }
  return uint32_t(T);
}

/// fns per the ISA's pseudo-code.
inline uint32_t fns(uint32_t Mask, uint32_t Base, int32_t Offset) {
  uint32_t D = 0xFFFFFFFF;
  if (Offset == 0) {
    if (Base < 32 && (Mask >> Base & 1))
      D = Base;
    return D;
  }
  int64_t Pos = int32_t(Base);
  if (Base >= 32)
    return D; // "base is between 0 and 31"; larger (or negative) finds nothing
  int64_t Count = std::llabs(int64_t(Offset)) - 1, Inc = Offset > 0 ? 1 : -1;
  while (Pos >= 0 && Pos < 32) {
    if (Mask >> Pos & 1) {
      if (Count == 0)
        return uint32_t(Pos);
      --Count;
    }
    Pos += Inc;
  }
  return D;
}

/// fma in rounding mode M (0 rz, 1 rm, 2 rp), by the host's correctly
/// rounded fma under fesetround.
inline double fmaDirected(double A, double B, double C, int M) {
  int Old = std::fegetround();
  std::fesetround(M == 0 ? FE_TOWARDZERO : M == 1 ? FE_DOWNWARD : FE_UPWARD);
  double (*volatile Fn)(double, double, double) = std::fma;
  double R = Fn(A, B, C);
  std::fesetround(Old);
  return R;
}

} // namespace miscref
