//===- PackTest.cpp - cvt.pack execution tests -------------------------------===//
/// \file
/// Execution tests of cvt.pack (PTX ISA 9.7.9.22): every destination type
/// (u16/s16, u8/s8 and u4/s4 with the c operand), over s32 inputs biased to
/// the lane limits and their neighbours, against the ISA's definition: a and
/// b saturated to the destination type, b in the low lane, a above it, the
/// bits above both lanes taken from the low bits of c.
#include "Check.h"

using namespace ferry::ptxexec;

namespace {

struct PackForm {
  const char *Type;
  unsigned Bits;
  bool Signed;
};
const PackForm Forms[] = {{"u16", 16, false}, {"s16", 16, true}, {"u8", 8, false},
                          {"s8", 8, true},    {"u4", 4, false},  {"s4", 4, true}};

std::vector<KernelSpec> specs() {
  std::vector<KernelSpec> S;
  for (const PackForm &F : Forms) {
    std::string T = F.Type;
    if (F.Bits == 16)
      S.push_back({"pack_" + T, {"s32", "s32", "b32"}, {"b32"}, "cvt.pack.sat." + T + ".s32 %o0, %i0, %i1;"});
    else
      S.push_back({"pack_" + T, {"s32", "s32", "b32"}, {"b32"},
                   "cvt.pack.sat." + T + ".s32.b32 %o0, %i0, %i1, %i2;"});
  }
  return S;
}

Family &fam() {
  static Family F(specs());
  return F;
}

uint32_t packRef(const PackForm &F, int32_t A, int32_t B, uint32_t C) {
  int64_t Lo = F.Signed ? -(int64_t(1) << (F.Bits - 1)) : 0;
  int64_t Hi = F.Signed ? (int64_t(1) << (F.Bits - 1)) - 1 : (int64_t(1) << F.Bits) - 1;
  uint32_t Mask = (1u << F.Bits) - 1;
  auto Sat = [&](int32_t X) { return uint32_t(std::min<int64_t>(std::max<int64_t>(X, Lo), Hi)) & Mask; };
  uint32_t D = Sat(A) << F.Bits | Sat(B);
  if (F.Bits < 16)
    D |= C << (2 * F.Bits);
  return D;
}

TEST(PtxPack, AllForms) {
  Family &F = fam();
  // Values around every lane limit (±2^k, ±2^k±1 for k up to 31), then
  // uniform random words.
  std::vector<int32_t> Edge;
  for (int K = 0; K < 32; ++K)
    for (int64_t D : {-1, 0, 1}) {
      Edge.push_back(int32_t(uint32_t((int64_t(1) << K) + D)));
      Edge.push_back(int32_t(uint32_t(-(int64_t(1) << K) + D)));
    }
  std::vector<int32_t> A, B;
  std::vector<uint32_t> C;
  for (int32_t X : Edge)
    for (int32_t Y : Edge) {
      A.push_back(X), B.push_back(Y);
      C.push_back(uint32_t(rng()()));
    }
  for (int K = 0; K < 20000; ++K) {
    A.push_back(int32_t(rng()())), B.push_back(int32_t(rng()() >> (rng()() % 32)));
    C.push_back(uint32_t(rng()()));
  }
  for (const PackForm &P : Forms)
    checkExact<uint32_t>(F, std::string("pack_") + P.Type,
                         [&P](int32_t X, int32_t Y, uint32_t Z) { return packRef(P, X, Y, Z); }, A, B, C);
}

} // namespace
