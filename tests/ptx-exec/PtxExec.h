//===- PtxExec.h - per-instruction PTX execution test harness ---*- C++ -*-===//
/// \file
/// The harness of the per-instruction execution tests: a test describes
/// each instruction form as a tiny kernel (typed inputs %i0..%i2 loaded from
/// arrays, a body of PTX text, typed outputs %o0..%o3 stored to arrays; one
/// thread per test vector), the harness emits the PTX, lowers a whole family
/// in one module with ferry::ptx::lowerText, compiles it once with the
/// HostCompiler and launches kernels on the HostExecutor. Expected values are
/// computed by each test's own host reference, never by ferry code.
//===----------------------------------------------------------------------===//
#pragma once

#include "host/exec/HostExecutor.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace ferry::ptxexec {

/// One instruction form under test. Types are PTX load/store types
/// ("u32", "f64", "b16", ...) or "pred" (an i32 0/1 in memory).
struct KernelSpec {
  std::string Name;
  std::vector<std::string> In;  ///< Registers %i0, %i1, %i2.
  std::vector<std::string> Out; ///< Registers %o0..; stored after Body.
  std::string Body;             ///< PTX using %iN, %oN and the scratch registers.
  /// Extra .u64 parameters NAME_raw0.. (after the inputs) that the body
  /// reads itself, e.g. to store many results per thread at %idx_.
  unsigned Raw = 0;
};

/// The PTX text of one kernel: (out0.., in0.., u32 n) parameters; scratch
/// registers %r<16> (b32), %rl<16> (b64), %h<16> (b16), %f<16> (f32),
/// %fd<16> (f64), %p<16> (pred) are declared for bodies.
std::string emitKernel(const KernelSpec &S);

/// A family's kernels, lowered and compiled once.
class Family {
public:
  /// Lowers and compiles Specs; error() says what failed.
  explicit Family(const std::vector<KernelSpec> &Specs, const std::string &Extra = "");
  ~Family();
  const std::string &error() const { return Error; }

  /// Runs Kernel over N threads (blocks of Block) with the given arrays.
  /// Returns "" on success, else the launch error.
  std::string launch(const std::string &Kernel, unsigned N, const std::vector<void *> &Outs,
                     const std::vector<const void *> &Ins, unsigned Block = 128,
                     const std::vector<void *> &Raws = {});

  /// Runs a one-output kernel over the vectors of its inputs.
  template <typename O, typename... I>
  std::vector<O> run(const std::string &Kernel, const std::vector<I> &...Ins) {
    std::vector<const void *> Ptrs = {static_cast<const void *>(Ins.data())...};
    size_t N = std::get<0>(std::forward_as_tuple(Ins...)).size();
    std::vector<O> Out(N);
    LastError = launch(Kernel, unsigned(N), {Out.data()}, Ptrs);
    return Out;
  }
  std::string LastError;

private:
  std::string Error;
  std::unique_ptr<host::CompiledModule> Module;
};

/// The executor shared by all families (two workers: the machine's cores).
host::HostExecutor &executor();

/// Reproducible random inputs.
inline std::mt19937_64 &rng() {
  static std::mt19937_64 G(0x5eed);
  return G;
}

template <typename T> T bitsAs(uint64_t B) {
  T V;
  std::memcpy(&V, &B, sizeof(T));
  return V;
}
inline uint32_t bitsOf(float F) { uint32_t B; std::memcpy(&B, &F, 4); return B; }
inline uint64_t bitsOf(double F) { uint64_t B; std::memcpy(&B, &F, 8); return B; }
inline float asF(uint32_t B) { float F; std::memcpy(&F, &B, 4); return F; }
inline double asD(uint64_t B) { double F; std::memcpy(&F, &B, 8); return F; }

/// 32/64-bit integers biased to edge values (0, ±1, MIN, MAX, powers of two
/// and their neighbours) plus uniform random ones.
std::vector<uint32_t> edgyU32(size_t N);
std::vector<uint64_t> edgyU64(size_t N);
/// f32/f64 bit patterns covering zeros, subnormals, normals near 1, huge
/// values, infinities and NaNs of both signs, plus random patterns.
std::vector<uint32_t> edgyF32(size_t N);
std::vector<uint64_t> edgyF64(size_t N);

/// Rounding modes of PTX (.rn .rz .rm .rp) as fesetround values.
int feMode(const std::string &Rnd);

/// Rounds the exact value X (finite or not) to a binary format with P
/// significand bits, minimum normal exponent Emin and maximum exponent
/// Emax, in mode Rnd ("rn", "rz", "rm", "rp"); returns the result as a
/// double (exact). Used for f16/bf16 references independent of the host's
/// half support.
double roundToFormat(long double X, int P, int Emin, int Emax, const std::string &Rnd);
/// f16 / bf16 bits <-> double (exact), and encoding of a double that is
/// already representable (NaN → canonical 0x7FFF / 0x7FFF).
double f16ToDouble(uint16_t H);
double bf16ToDouble(uint16_t H);
uint16_t doubleToF16Bits(double V);
uint16_t doubleToBf16Bits(double V);
inline double roundF16(long double X, const std::string &R) { return roundToFormat(X, 11, -14, 15, R); }
inline double roundBf16(long double X, const std::string &R) { return roundToFormat(X, 8, -126, 127, R); }

/// Float results compare by bits, except that any NaN matches any NaN.
inline bool sameF32(uint32_t A, uint32_t B) {
  return A == B || (std::isnan(asF(A)) && std::isnan(asF(B)));
}
inline bool sameF64(uint64_t A, uint64_t B) {
  return A == B || (std::isnan(asD(A)) && std::isnan(asD(B)));
}
inline bool sameF16(uint16_t A, uint16_t B) {
  auto Nan = [](uint16_t H) { return (H & 0x7C00) == 0x7C00 && (H & 0x3FF); };
  return A == B || (Nan(A) && Nan(B));
}
inline bool sameBf16(uint16_t A, uint16_t B) {
  auto Nan = [](uint16_t H) { return (H & 0x7F80) == 0x7F80 && (H & 0x7F); };
  return A == B || (Nan(A) && Nan(B));
}

std::string hex(uint64_t V);

} // namespace ferry::ptxexec

/// Compares Got with Want element by element with Same(got, want), and
/// fails with the first few mismatches and their inputs (Describe(i)).
#define EXPECT_ALL(Got, Want, Same, Describe)                                                     \
  do {                                                                                             \
    ASSERT_EQ((Got).size(), (Want).size());                                                        \
    size_t Bad_ = 0;                                                                               \
    std::string Msg_;                                                                              \
    for (size_t I_ = 0; I_ < (Got).size(); ++I_)                                                   \
      if (!(Same((Got)[I_], (Want)[I_])) && Bad_++ < 5)                                            \
        Msg_ += "  [" + std::to_string(I_) + "] " + (Describe(I_)) + ": got " +                   \
                ::ferry::ptxexec::hex(uint64_t((Got)[I_])) + ", want " +                          \
                ::ferry::ptxexec::hex(uint64_t((Want)[I_])) + "\n";                               \
    EXPECT_EQ(Bad_, 0u) << Bad_ << " of " << (Got).size() << " differ:\n" << Msg_;                 \
  } while (0)
