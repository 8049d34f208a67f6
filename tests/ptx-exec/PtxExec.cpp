/// \file
/// The harness of PtxExec.h: PTX emission, lowering + compilation of a
/// family, launches, input generators, and the exact rounding used by the
/// half-precision references.
#include "PtxExec.h"

#include "ptx/lower/Lower.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <cfenv>
#include <cstdio>

namespace ferry::ptxexec {

namespace {
unsigned sizeOf(const std::string &T) {
  if (T == "pred")
    return 4;
  return std::stoi(T.substr(1)) / 8;
}
/// The register type holding a value loaded as T.
std::string regType(const std::string &T) {
  if (T == "pred")
    return "pred";
  if (T[0] == 'f')
    return T;
  return "b" + T.substr(1);
}
} // namespace

std::string emitKernel(const KernelSpec &S) {
  std::string P = ".visible .entry " + S.Name + "(";
  std::string Params, Code;
  auto addParam = [&](const std::string &N, const char *T) {
    Params += std::string(Params.empty() ? "" : ", ") + ".param ." + T + " " + S.Name + "_" + N;
  };
  for (size_t K = 0; K < S.Out.size(); ++K)
    addParam("out" + std::to_string(K), "u64");
  for (size_t K = 0; K < S.In.size(); ++K)
    addParam("in" + std::to_string(K), "u64");
  for (unsigned K = 0; K < S.Raw; ++K)
    addParam("raw" + std::to_string(K), "u64");
  addParam("n", "u32");
  P += Params + ")\n{\n";
  P += "  .reg .b32 %r<16>, %tid_, %ntid_, %ctaid_, %n_, %i_, %t_;\n"
       "  .reg .b64 %rl<16>, %idx_, %base_, %addr_;\n"
       "  .reg .b16 %h<16>;\n  .reg .f32 %f<16>;\n  .reg .f64 %fd<16>;\n"
       "  .reg .pred %p<16>, %oob_;\n";
  for (size_t K = 0; K < S.In.size(); ++K)
    P += "  .reg ." + regType(S.In[K]) + " %i" + std::to_string(K) + ";\n";
  for (size_t K = 0; K < S.Out.size(); ++K)
    P += "  .reg ." + regType(S.Out[K]) + " %o" + std::to_string(K) + ";\n";
  P += "  mov.u32 %tid_, %tid.x;\n  mov.u32 %ntid_, %ntid.x;\n  mov.u32 %ctaid_, %ctaid.x;\n"
       "  mad.lo.u32 %i_, %ctaid_, %ntid_, %tid_;\n"
       "  ld.param.u32 %n_, [" + S.Name + "_n];\n"
       "  setp.ge.u32 %oob_, %i_, %n_;\n  @%oob_ bra $done;\n"
       "  cvt.u64.u32 %idx_, %i_;\n";
  auto address = [&](const std::string &Param, const std::string &T) {
    return "  ld.param.u64 %base_, [" + S.Name + "_" + Param + "];\n"
           "  mad.lo.u64 %addr_, %idx_, " + std::to_string(sizeOf(T)) + ", %base_;\n";
  };
  for (size_t K = 0; K < S.In.size(); ++K) {
    std::string R = "%i" + std::to_string(K);
    P += address("in" + std::to_string(K), S.In[K]);
    if (S.In[K] == "pred")
      P += "  ld.global.u32 %t_, [%addr_];\n  setp.ne.u32 " + R + ", %t_, 0;\n";
    else
      P += "  ld.global." + S.In[K] + " " + R + ", [%addr_];\n";
  }
  P += S.Body + "\n";
  for (size_t K = 0; K < S.Out.size(); ++K) {
    std::string R = "%o" + std::to_string(K);
    P += address("out" + std::to_string(K), S.Out[K]);
    if (S.Out[K] == "pred")
      P += "  selp.u32 %t_, 1, 0, " + R + ";\n  st.global.u32 [%addr_], %t_;\n";
    else
      P += "  st.global." + S.Out[K] + " [%addr_], " + R + ";\n";
  }
  P += "$done:\n  ret;\n}\n";
  return P;
}

host::HostExecutor &executor() {
  static host::HostExecutor *E = [] {
    host::HostExecutorOptions O;
    O.Threads = 2;
    return new host::HostExecutor(O);
  }();
  return *E;
}

Family::Family(const std::vector<KernelSpec> &Specs, const std::string &Extra) {
  std::string Ptx = ".version 8.5\n.target sm_90\n.address_size 64\n\n" + Extra + "\n";
  for (const KernelSpec &S : Specs)
    Ptx += emitKernel(S) + "\n";
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  llvm::Expected<ptx::LowerResult> R = ptx::lowerText(Ptx, "family.ptx", *Ctx);
  if (!R) {
    Error = llvm::toString(R.takeError());
    return;
  }
  for (const ptx::KernelError &E : R->Errors)
    Error += E.format("family.ptx") + "\n";
  Expected<host::HostCompiler *> C = executor().compiler();
  if (!C) {
    Error += C.error().message();
    return;
  }
  Expected<std::unique_ptr<host::CompiledModule>> M = (*C)->compile(std::move(Ctx), std::move(R->M));
  if (!M) {
    Error += M.error().message();
    return;
  }
  Module = std::move(*M);
}

Family::~Family() = default;

std::string Family::launch(const std::string &Kernel, unsigned N, const std::vector<void *> &Outs,
                           const std::vector<const void *> &Ins, unsigned Block,
                           const std::vector<void *> &Raws) {
  const host::HostKernel *K = Module ? Module->kernel(Kernel) : nullptr;
  if (!K)
    return "no kernel " + Kernel + (Error.empty() ? "" : ": " + Error);
  std::vector<char> P;
  auto push = [&](const void *Src, size_t Bytes) {
    P.resize((P.size() + Bytes - 1) / Bytes * Bytes + Bytes);
    std::memcpy(P.data() + P.size() - Bytes, Src, Bytes);
  };
  for (void *O : Outs)
    push(&O, 8);
  for (const void *I : Ins)
    push(&I, 8);
  for (void *R : Raws)
    push(&R, 8);
  push(&N, 4);
  Status S = executor().launch(*K, {(N + Block - 1) / Block, 1, 1}, {Block, 1, 1}, 0, P.data(), 0);
  return S ? "" : S.message();
}

std::vector<uint32_t> edgyU32(size_t N) {
  std::vector<uint32_t> Edges = {0, 1, 2, 3, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE,
                                 0x7FFFFFFE, 31, 32, 33, 63, 64, 0xFFFF, 0x10000, 0x8000, 0x7FFF};
  for (int B = 0; B < 32; ++B)
    Edges.push_back(1u << B);
  std::vector<uint32_t> V;
  for (size_t I = 0; I < N; ++I) {
    uint64_t R = rng()();
    V.push_back(R % 4 == 0 ? Edges[(R >> 8) % Edges.size()]
                : R % 4 == 1 ? uint32_t(R >> 32) % 97 - 48 // small of both signs
                             : uint32_t(R >> 32));
  }
  return V;
}

std::vector<uint64_t> edgyU64(size_t N) {
  std::vector<uint64_t> Edges = {0, 1, 2, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF,
                                 0xFFFFFFFF, 0x100000000, 63, 64, 65, 127, 128};
  std::vector<uint64_t> V;
  for (size_t I = 0; I < N; ++I) {
    uint64_t R = rng()();
    V.push_back(R % 4 == 0 ? Edges[(R >> 8) % Edges.size()]
                : R % 4 == 1 ? uint64_t((R >> 32) % 97) - 48
                             : rng()());
  }
  return V;
}

std::vector<uint32_t> edgyF32(size_t N) {
  std::vector<uint32_t> Edges = {0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
                                 0x80800000, 0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF,
                                 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
                                 0xFFC00000, 0x7F800001, 0x40000000, 0x3F000000, 0x4B000000,
                                 0x4F000000, 0xCF000000, 0x5F000000, 0x4EFFFFFF, 0x3EFFFFFF};
  std::vector<uint32_t> V;
  for (size_t I = 0; I < N; ++I) {
    uint64_t R = rng()();
    uint32_t Sign = uint32_t(R >> 63) << 31;
    switch (R % 6) {
    case 0: V.push_back(Edges[(R >> 8) % Edges.size()]); break;
    case 1: V.push_back(Sign | uint32_t(R >> 16) % 0x00800000); break; // subnormal
    case 2: V.push_back(Sign | (uint32_t(R >> 16) % 0x01000000 + 0x3E800000)); break; // ~[0.25,4)
    case 3: V.push_back(Sign | (uint32_t(R >> 16) % 0x00800000 + ((100 + (R >> 40) % 56) << 23))); break;
    default: V.push_back(uint32_t(R >> 16)); break;
    }
  }
  return V;
}

std::vector<uint64_t> edgyF64(size_t N) {
  std::vector<uint64_t> Edges = {0, 0x8000000000000000, 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
                                 0x3FF0000000000000, 0xBFF0000000000000, 0x3FF0000000000001,
                                 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000,
                                 0x7FF8000000000000, 0xFFF8000000000000, 0x43E0000000000000,
                                 0x41E0000000000000, 0xC3E0000000000000, 0x3FE0000000000000};
  std::vector<uint64_t> V;
  for (size_t I = 0; I < N; ++I) {
    uint64_t R = rng()(), M = rng()();
    uint64_t Sign = (R >> 63) << 63;
    switch (R % 6) {
    case 0: V.push_back(Edges[(R >> 8) % Edges.size()]); break;
    case 1: V.push_back(Sign | M % 0x0010000000000000); break;
    case 2: V.push_back(Sign | (M % 0x0020000000000000 + 0x3FD0000000000000)); break;
    case 3: V.push_back(Sign | (M % 0x0010000000000000 + ((900 + (R >> 40) % 240) << 52))); break;
    default: V.push_back(M); break;
    }
  }
  return V;
}

int feMode(const std::string &R) {
  return R == "rz" ? FE_TOWARDZERO : R == "rm" ? FE_DOWNWARD : R == "rp" ? FE_UPWARD : FE_TONEAREST;
}

double roundToFormat(long double X, int P, int Emin, int Emax, const std::string &Rnd) {
  if (std::isnan(X) || std::isinf(X) || X == 0)
    return double(X);
  bool Neg = X < 0;
  long double A = Neg ? -X : X;
  int E = std::ilogb(A);
  if (E < Emin)
    E = Emin;
  // A / quantum is exact (a power-of-two scaling); its integer part fits 64 bits.
  long double Q = std::ldexp(A, P - 1 - E);
  long double I = std::floor(Q), Frac = Q - I;
  bool Up;
  if (Rnd == "rz")
    Up = false;
  else if (Rnd == "rm")
    Up = Neg && Frac != 0;
  else if (Rnd == "rp")
    Up = !Neg && Frac != 0;
  else
    Up = Frac > 0.5L || (Frac == 0.5L && std::fmod(I, 2.0L) != 0);
  long double R = std::ldexp(I + (Up ? 1 : 0), E - (P - 1));
  long double Max = std::ldexp(2.0L - std::ldexp(1.0L, 1 - P), Emax);
  if (R > Max) {
    bool ToInf = Rnd == "rn" || (Rnd == "rp" && !Neg) || (Rnd == "rm" && Neg);
    R = ToInf ? INFINITY : Max;
  }
  return double(Neg ? -R : R);
}

double f16ToDouble(uint16_t H) {
  int E = (H >> 10) & 0x1F, M = H & 0x3FF;
  double S = (H & 0x8000) ? -1 : 1;
  if (E == 0x1F)
    return M ? NAN : S * INFINITY;
  if (E == 0)
    return S * std::ldexp(double(M), -24);
  return S * std::ldexp(double(M | 0x400), E - 25);
}

double bf16ToDouble(uint16_t H) { return double(asF(uint32_t(H) << 16)); }

uint16_t doubleToF16Bits(double V) {
  if (std::isnan(V))
    return 0x7FFF;
  uint16_t S = std::signbit(V) ? 0x8000 : 0;
  double A = std::fabs(V);
  if (std::isinf(A))
    return S | 0x7C00;
  if (A < std::ldexp(1.0, -14))
    return S | uint16_t(std::ldexp(A, 24));
  int E = std::ilogb(A);
  return S | uint16_t((E + 15) << 10) | uint16_t(std::ldexp(A, 10 - E) - 1024);
}

uint16_t doubleToBf16Bits(double V) {
  if (std::isnan(V))
    return 0x7FFF;
  return uint16_t(bitsOf(float(V)) >> 16); // V is representable: the conversion is exact
}

std::string hex(uint64_t V) {
  char B[24];
  std::snprintf(B, sizeof B, "0x%llx", (unsigned long long)V);
  return B;
}

} // namespace ferry::ptxexec
