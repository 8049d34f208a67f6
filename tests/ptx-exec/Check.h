//===- Check.h - compare a kernel's outputs with a host reference -*- C++ -*-===//
/// \file
/// gtest helpers shared by the family tests: a binary/unary/ternary kernel
/// is run over the input vectors and each output is compared with the
/// reference functor applied to the same inputs; the first mismatches are
/// printed with their inputs.
//===----------------------------------------------------------------------===//
#pragma once

#include "PtxExec.h"

#include <gtest/gtest.h>

namespace ferry::ptxexec {

template <typename T> bool sameBits(T A, T B) { return A == B; }

/// Runs Kernel on Ins, expects Out[i] to match Ref(Ins[i]...) under Same.
template <typename O, typename Same, typename Ref, typename... I>
void checkKernel(Family &F, const std::string &Kernel, Same S, Ref R, const std::vector<I> &...Ins) {
  SCOPED_TRACE(Kernel);
  ASSERT_EQ(F.error(), "");
  std::vector<O> Got = F.run<O>(Kernel, Ins...);
  ASSERT_EQ(F.LastError, "");
  size_t N = Got.size(), Bad = 0;
  std::string Msg;
  for (size_t K = 0; K < N; ++K) {
    O Want = R(Ins[K]...);
    if (!S(Got[K], Want) && Bad++ < 6) {
      std::string In;
      ((In += hex(uint64_t(Ins[K])) + " "), ...);
      Msg += "  inputs " + In + "got " + hex(uint64_t(Got[K])) + ", want " + hex(uint64_t(Want)) + "\n";
    }
  }
  EXPECT_EQ(Bad, 0u) << Kernel << ": " << Bad << " of " << N << " vectors differ:\n" << Msg;
}

/// The same with exact (bitwise) comparison.
template <typename O, typename Ref, typename... I>
void checkExact(Family &F, const std::string &Kernel, Ref R, const std::vector<I> &...Ins) {
  checkKernel<O>(F, Kernel, [](O A, O B) { return A == B; }, R, Ins...);
}

/// All 65536 16-bit patterns.
inline std::vector<uint16_t> all16() {
  std::vector<uint16_t> V(65536);
  for (unsigned K = 0; K < 65536; ++K)
    V[K] = uint16_t(K);
  return V;
}

/// Every pair (a, b) with a over all 65536 values and b over Others:
/// returns the two operand vectors.
inline std::pair<std::vector<uint16_t>, std::vector<uint16_t>>
all16Times(const std::vector<uint16_t> &Others) {
  std::pair<std::vector<uint16_t>, std::vector<uint16_t>> R;
  for (uint16_t B : Others)
    for (unsigned A = 0; A < 65536; ++A) {
      R.first.push_back(uint16_t(A));
      R.second.push_back(B);
    }
  return R;
}

} // namespace ferry::ptxexec
