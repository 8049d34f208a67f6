/// \file
/// cuRAND host-API cases printing one line per observable, so that NVIDIA's
/// cuRAND on the H100 and ferry's can be compared line by line:
///   `NAME status N`          a returned curandStatus_t
///   `NAME u32|u64 v...`      integers (decimal)
///   `NAME f32|f64 v...`      floating point as bit patterns (hex), so the
///                            comparison is exact unless the script allows ulps
///   `NAME hash N H`          FNV-1a 64 of all N results' bytes
/// Each generator type x ordering gets fresh generators (seed, offset set
/// before the first call) for 32-bit draws, every distribution, a second
/// call continuing the first, other seeds, a large offset and a large n.
///
/// With `--raw DIR` it also writes whole outputs as binary files under DIR
/// (`<gen>_<order>_<what>.bin`): the material from which the orderings were
/// worked out (how one sequence is spread over the GPU threads is not
/// documented). Built by nvcc and linked with -lcurand, unmodified, on the
/// H100 (scripts/record-curand-goldens) and under ferry (tests/curand).
#include <cuda_runtime.h>
#include <curand.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static const char *RawDir = nullptr;

static uint64_t fnv(const void *P, size_t Bytes) {
  uint64_t H = 1469598103934665603ull;
  const unsigned char *B = static_cast<const unsigned char *>(P);
  for (size_t I = 0; I < Bytes; ++I)
    H = (H ^ B[I]) * 1099511628211ull;
  return H;
}

static void st(const std::string &Name, curandStatus_t S) { std::printf("%s status %d\n", Name.c_str(), (int)S); }

template <typename T> static void printVal(T V);
template <> void printVal(unsigned V) { std::printf(" %u", V); }
template <> void printVal(unsigned long long V) { std::printf(" %llu", V); }
template <> void printVal(float V) {
  uint32_t B;
  std::memcpy(&B, &V, 4);
  std::printf(" %08x", B);
}
template <> void printVal(double V) {
  uint64_t B;
  std::memcpy(&B, &V, 8);
  std::printf(" %016llx", (unsigned long long)B);
}
template <typename T> static const char *kind();
template <> const char *kind<unsigned>() { return "u32"; }
template <> const char *kind<unsigned long long>() { return "u64"; }
template <> const char *kind<float>() { return "f32"; }
template <> const char *kind<double>() { return "f64"; }

template <typename T> static void printRange(const std::string &Name, const std::vector<T> &V, size_t From, size_t N) {
  std::printf("%s %s", Name.c_str(), kind<T>());
  for (size_t I = From; I < From + N && I < V.size(); ++I)
    printVal(V[I]);
  std::printf("\n");
}

/// The first values, a few windows inside, the last values and the hash.
template <typename T> static void emit(const std::string &Name, const std::vector<T> &V, size_t First = 32) {
  printRange(Name, V, 0, First);
  if (V.size() > 4 * First) {
    for (size_t At : {V.size() / 3, V.size() / 2 + 1})
      printRange(Name + "@" + std::to_string(At), V, At, 8);
    printRange(Name + "@end", V, V.size() - 8, 8);
  }
  std::printf("%s hash %zu %016llx\n", Name.c_str(), V.size(), (unsigned long long)fnv(V.data(), V.size() * sizeof(T)));
}

/// Raw outputs equal to an earlier one are named, not written again.
template <typename T> static void raw(const std::string &Name, const std::vector<T> &V) {
  static std::vector<std::pair<uint64_t, std::string>> Seen;
  if (!RawDir || V.empty())
    return;
  uint64_t H = fnv(V.data(), V.size() * sizeof(T));
  for (auto &[Hash, Other] : Seen)
    if (Hash == H) {
      std::printf("raw %s same-as %s\n", Name.c_str(), Other.c_str());
      return;
    }
  Seen.push_back({H, Name});
  std::string Path = std::string(RawDir) + "/" + Name + ".bin";
  if (FILE *F = std::fopen(Path.c_str(), "wb")) {
    std::fwrite(V.data(), sizeof(T), V.size(), F);
    std::fclose(F);
  }
}

struct Gen {
  curandGenerator_t G = nullptr;
  curandStatus_t S = CURAND_STATUS_SUCCESS;
  ~Gen() {
    if (G)
      curandDestroyGenerator(G);
  }
};

struct Config {
  curandRngType_t Type;
  int Order;             // 0: leave the default
  unsigned long long Seed;
  unsigned long long Offset;
  unsigned Dims;         // quasi only, 0: leave the default
  bool Host = false;
};

static bool isQuasi(curandRngType_t T) { return T >= CURAND_RNG_QUASI_DEFAULT; }

static curandStatus_t make(Gen &G, const Config &C) {
  curandStatus_t S = C.Host ? curandCreateGeneratorHost(&G.G, C.Type) : curandCreateGenerator(&G.G, C.Type);
  if (S != CURAND_STATUS_SUCCESS) {
    G.G = nullptr;
    return S;
  }
  if (C.Order && (S = curandSetGeneratorOrdering(G.G, (curandOrdering_t)C.Order)) != CURAND_STATUS_SUCCESS)
    return S;
  if (!isQuasi(C.Type) && (S = curandSetPseudoRandomGeneratorSeed(G.G, C.Seed)) != CURAND_STATUS_SUCCESS)
    return S;
  if (isQuasi(C.Type) && C.Dims && (S = curandSetQuasiRandomGeneratorDimensions(G.G, C.Dims)) != CURAND_STATUS_SUCCESS)
    return S;
  return curandSetGeneratorOffset(G.G, C.Offset);
}

enum What { Bits, Bits64, Unif, UnifD, Norm, NormD, LogN, LogND, Pois };

/// One call of the host API into a device buffer (or host memory for a host
/// generator); returns the results, empty on a failed status (printed).
template <typename T>
static std::vector<T> draw(const std::string &Name, curandGenerator_t G, bool Host, What W, size_t N, double A = 0,
                           double B = 1) {
  std::vector<T> Out(N);
  void *Buf = Out.data();
  if (!Host && cudaMalloc(&Buf, N * sizeof(T) + 16) != cudaSuccess) {
    std::printf("%s cudaMalloc-failed\n", Name.c_str());
    return {};
  }
  curandStatus_t S = CURAND_STATUS_SUCCESS;
  switch (W) {
  case Bits: S = curandGenerate(G, (unsigned *)Buf, N); break;
  case Bits64: S = curandGenerateLongLong(G, (unsigned long long *)Buf, N); break;
  case Unif: S = curandGenerateUniform(G, (float *)Buf, N); break;
  case UnifD: S = curandGenerateUniformDouble(G, (double *)Buf, N); break;
  case Norm: S = curandGenerateNormal(G, (float *)Buf, N, (float)A, (float)B); break;
  case NormD: S = curandGenerateNormalDouble(G, (double *)Buf, N, A, B); break;
  case LogN: S = curandGenerateLogNormal(G, (float *)Buf, N, (float)A, (float)B); break;
  case LogND: S = curandGenerateLogNormalDouble(G, (double *)Buf, N, A, B); break;
  case Pois: S = curandGeneratePoisson(G, (unsigned *)Buf, N, A); break;
  }
  if (!Host) {
    cudaError_t E = cudaDeviceSynchronize();
    if (E == cudaSuccess)
      E = cudaMemcpy(Out.data(), Buf, N * sizeof(T), cudaMemcpyDeviceToHost);
    cudaFree(Buf);
    if (E != cudaSuccess)
      std::printf("%s cuda %d\n", Name.c_str(), (int)E);
  }
  if (S != CURAND_STATUS_SUCCESS) {
    st(Name, S);
    return {};
  }
  return Out;
}

static const char *genName(curandRngType_t T) {
  switch (T) {
  case CURAND_RNG_PSEUDO_XORWOW: return "xorwow";
  case CURAND_RNG_PSEUDO_MRG32K3A: return "mrg32k3a";
  case CURAND_RNG_PSEUDO_MTGP32: return "mtgp32";
  case CURAND_RNG_PSEUDO_MT19937: return "mt19937";
  case CURAND_RNG_PSEUDO_PHILOX4_32_10: return "philox";
  case CURAND_RNG_QUASI_SOBOL32: return "sobol32";
  case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32: return "ssobol32";
  case CURAND_RNG_QUASI_SOBOL64: return "sobol64";
  case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64: return "ssobol64";
  default: return "other";
  }
}
static const char *orderName(int O) {
  switch (O) {
  case 0: return "unset";
  case CURAND_ORDERING_PSEUDO_BEST: return "best";
  case CURAND_ORDERING_PSEUDO_DEFAULT: return "default";
  case CURAND_ORDERING_PSEUDO_SEEDED: return "seeded";
  case CURAND_ORDERING_PSEUDO_LEGACY: return "legacy";
  case CURAND_ORDERING_PSEUDO_DYNAMIC: return "dynamic";
  case CURAND_ORDERING_QUASI_DEFAULT: return "quasi";
  default: return "other";
  }
}

/// A fresh generator for one case; on a failed set-up the status is the
/// case's line.
template <typename T>
static std::vector<T> fresh(const std::string &Name, const Config &C, What W, size_t N, double A = 0, double B = 1) {
  Gen G;
  if (curandStatus_t S = make(G, C); S != CURAND_STATUS_SUCCESS) {
    st(Name + ".setup", S);
    return {};
  }
  return draw<T>(Name, G.G, C.Host, W, N, A, B);
}

static void pseudoCases(curandRngType_t Type, int Order) {
  std::string P = std::string(genName(Type)) + "." + orderName(Order);
  Config C{Type, Order, 1234, 0, 0};
  {
    Gen G;
    curandStatus_t S = make(G, C);
    st(P + ".setup", S);
    if (S != CURAND_STATUS_SUCCESS)
      return;
    auto A = draw<unsigned>(P + ".bits", G.G, false, Bits, 10000);
    emit(P + ".bits", A);
    // A second call continues where the first left off.
    auto B = draw<unsigned>(P + ".bits.next", G.G, false, Bits, 333);
    emit(P + ".bits.next", B);
    auto D = draw<unsigned>(P + ".bits.next2", G.G, false, Bits, 4096 * 3 + 7);
    emit(P + ".bits.next2", D, 16);
  }
  emit(P + ".bits.n3", fresh<unsigned>(P + ".bits.n3", C, Bits, 3));
  emit(P + ".bits.n1", fresh<unsigned>(P + ".bits.n1", C, Bits, 1));
  auto Large = fresh<unsigned>(P + ".bits.large", C, Bits, (1u << 20) + 5);
  emit(P + ".bits.large", Large, 16);
  auto Raw = fresh<unsigned>(P + ".raw", C, Bits, 1u << 18);
  raw(P + "_bits", Raw);
  emit(P + ".unif", fresh<float>(P + ".unif", C, Unif, 10000));
  auto UD = fresh<double>(P + ".unifd", C, UnifD, 10000);
  emit(P + ".unifd", UD);
  auto Nm = fresh<float>(P + ".norm", C, Norm, 10000);
  emit(P + ".norm", Nm, 64);
  auto NmD = fresh<double>(P + ".normd", C, NormD, 10000);
  emit(P + ".normd", NmD, 64);
  emit(P + ".norm.ms", fresh<float>(P + ".norm.ms", C, Norm, 64, 10.0, 2.5), 64);
  emit(P + ".lognorm", fresh<float>(P + ".lognorm", C, LogN, 10000, 0.5, 0.75), 64);
  emit(P + ".lognormd", fresh<double>(P + ".lognormd", C, LogND, 10000, 0.5, 0.75), 64);
  emit(P + ".norm.odd", fresh<float>(P + ".norm.odd", C, Norm, 7));
  emit(P + ".normd.odd", fresh<double>(P + ".normd.odd", C, NormD, 7));
  emit(P + ".pois3.5", fresh<unsigned>(P + ".pois3.5", C, Pois, 10000, 3.5));
  emit(P + ".pois200", fresh<unsigned>(P + ".pois200", C, Pois, 10000, 200.0));
  emit(P + ".pois0.01", fresh<unsigned>(P + ".pois0.01", C, Pois, 1000, 0.01));
  for (unsigned long long Seed : {0ull, 0xdeadbeefcafeull, 1ull << 40}) {
    Config S = C;
    S.Seed = Seed;
    emit(P + ".seed" + std::to_string(Seed), fresh<unsigned>(P + ".seed", S, Bits, 1000));
  }
  for (unsigned long long Off : {1ull, 123457ull, 10000000019ull}) {
    Config S = C;
    S.Offset = Off;
    emit(P + ".off" + std::to_string(Off), fresh<unsigned>(P + ".off", S, Bits, 1000));
  }
  {
    Config S = C;
    S.Offset = 5;
    emit(P + ".off5.norm", fresh<float>(P + ".off5.norm", S, Norm, 64), 64);
    emit(P + ".off5.unifd", fresh<double>(P + ".off5.unifd", S, UnifD, 64), 64);
  }
  if (RawDir && (Order == 0 || Order == CURAND_ORDERING_PSEUDO_LEGACY)) {
    raw(P + "_unifd", fresh<double>(P + ".rawd", C, UnifD, 1u << 14));
    raw(P + "_norm", fresh<float>(P + ".rawn", C, Norm, 1u << 14));
    raw(P + "_normd", fresh<double>(P + ".rawnd", C, NormD, 1u << 14));
    raw(P + "_pois", fresh<unsigned>(P + ".rawp", C, Pois, 1u << 14, 3.5));
  }
  // The same draws from a host generator.
  Config H = C;
  H.Host = true;
  emit(P + ".host.bits", fresh<unsigned>(P + ".host.bits", H, Bits, 10000));
  emit(P + ".host.norm", fresh<float>(P + ".host.norm", H, Norm, 1000), 64);
}

static void quasiCases(curandRngType_t Type) {
  bool Is64 = Type == CURAND_RNG_QUASI_SOBOL64 || Type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
  std::string P = genName(Type);
  for (unsigned Dims : {1u, 3u, 100u}) {
    for (unsigned long long Off : {0ull, 17ull, 1000003ull}) {
      Config C{Type, 0, 0, Off, Dims};
      std::string Q = P + ".d" + std::to_string(Dims) + ".o" + std::to_string(Off);
      size_t N = Dims * 1000;
      if (Is64)
        emit(Q + ".bits", fresh<unsigned long long>(Q + ".bits", C, Bits64, N));
      else
        emit(Q + ".bits", fresh<unsigned>(Q + ".bits", C, Bits, N));
      emit(Q + ".unif", fresh<float>(Q + ".unif", C, Unif, N));
      emit(Q + ".unifd", fresh<double>(Q + ".unifd", C, UnifD, N));
      emit(Q + ".norm", fresh<float>(Q + ".norm", C, Norm, N), 64);
      emit(Q + ".normd", fresh<double>(Q + ".normd", C, NormD, N), 64);
      emit(Q + ".lognorm", fresh<float>(Q + ".lognorm", C, LogN, N, 0.5, 0.75), 64);
      emit(Q + ".pois", fresh<unsigned>(Q + ".pois", C, Pois, N, 3.5));
    }
  }
  Config C{Type, 0, 0, 0, 3};
  Gen G;
  if (make(G, C) == CURAND_STATUS_SUCCESS) {
    std::string Q = P + ".d3.calls";
    if (Is64) {
      emit(Q + ".a", draw<unsigned long long>(Q + ".a", G.G, false, Bits64, 300));
      emit(Q + ".b", draw<unsigned long long>(Q + ".b", G.G, false, Bits64, 3 * 4099));
      emit(Q + ".notmultiple", draw<unsigned long long>(Q + ".nm", G.G, false, Bits64, 10));
    } else {
      emit(Q + ".a", draw<unsigned>(Q + ".a", G.G, false, Bits, 300));
      emit(Q + ".b", draw<unsigned>(Q + ".b", G.G, false, Bits, 3 * 4099));
      emit(Q + ".notmultiple", draw<unsigned>(Q + ".nm", G.G, false, Bits, 10));
    }
  }
  Config H{Type, 0, 0, 0, 3, true};
  if (Is64)
    emit(P + ".host.bits", fresh<unsigned long long>(P + ".host.bits", H, Bits64, 3000));
  else
    emit(P + ".host.bits", fresh<unsigned>(P + ".host.bits", H, Bits, 3000));
}

/// Statuses for bad arguments, none of which may crash NVIDIA's library.
static void statusCases() {
  curandGenerator_t G = nullptr;
  st("err.create.type999", curandCreateGenerator(&G, (curandRngType_t)999));
  st("err.create.test", curandCreateGenerator(&G, CURAND_RNG_TEST));
  st("err.createhost.type999", curandCreateGeneratorHost(&G, (curandRngType_t)999));
  Gen X, S, S64, M;
  curandCreateGenerator(&X.G, CURAND_RNG_PSEUDO_XORWOW);
  curandCreateGenerator(&M.G, CURAND_RNG_PSEUDO_MTGP32);
  curandCreateGenerator(&S.G, CURAND_RNG_QUASI_SOBOL32);
  curandCreateGenerator(&S64.G, CURAND_RNG_QUASI_SOBOL64);
  st("err.order.pseudo_quasi", curandSetGeneratorOrdering(X.G, CURAND_ORDERING_QUASI_DEFAULT));
  st("err.order.quasi_pseudo", curandSetGeneratorOrdering(S.G, CURAND_ORDERING_PSEUDO_BEST));
  st("err.order.quasi_quasi", curandSetGeneratorOrdering(S.G, CURAND_ORDERING_QUASI_DEFAULT));
  st("err.order.bad", curandSetGeneratorOrdering(X.G, (curandOrdering_t)77));
  st("err.order.mtgp_seeded", curandSetGeneratorOrdering(M.G, CURAND_ORDERING_PSEUDO_SEEDED));
  st("err.order.mtgp_legacy", curandSetGeneratorOrdering(M.G, CURAND_ORDERING_PSEUDO_LEGACY));
  st("err.dims.pseudo", curandSetQuasiRandomGeneratorDimensions(X.G, 2));
  st("err.dims.zero", curandSetQuasiRandomGeneratorDimensions(S.G, 0));
  st("err.dims.20000", curandSetQuasiRandomGeneratorDimensions(S.G, 20000));
  st("err.dims.20001", curandSetQuasiRandomGeneratorDimensions(S.G, 20001));
  st("err.seed.quasi", curandSetPseudoRandomGeneratorSeed(S.G, 5));
  st("err.offset.quasi", curandSetGeneratorOffset(S.G, 5));
  st("err.offset.pseudo", curandSetGeneratorOffset(X.G, 0));
  unsigned *D32 = nullptr;
  unsigned long long *D64 = nullptr;
  cudaMalloc(&D32, 4096);
  cudaMalloc(&D64, 4096);
  st("err.longlong.xorwow", curandGenerateLongLong(X.G, D64, 8));
  st("err.longlong.sobol32", curandGenerateLongLong(S.G, D64, 8));
  st("err.bits.sobol64", curandGenerate(S64.G, D32, 8));
  st("err.bits.n0", curandGenerate(X.G, D32, 0));
  st("err.normal.odd", curandGenerateNormal(X.G, (float *)D32, 7, 0, 1));
  st("err.normal.n0", curandGenerateNormal(X.G, (float *)D32, 0, 0, 1));
  st("err.normal.std0", curandGenerateNormal(X.G, (float *)D32, 8, 0, 0));
  st("err.normal.stdneg", curandGenerateNormal(X.G, (float *)D32, 8, 0, -1));
  st("err.lognormal.odd", curandGenerateLogNormal(X.G, (float *)D32, 9, 0, 1));
  st("err.normald.odd", curandGenerateNormalDouble(X.G, (double *)D64, 5, 0, 1));
  st("err.poisson.0", curandGeneratePoisson(X.G, D32, 8, 0.0));
  st("err.poisson.neg", curandGeneratePoisson(X.G, D32, 8, -2.0));
  st("err.mtgp.big", curandGenerate(M.G, D32, 8));
  curandDiscreteDistribution_t Dist = nullptr;
  st("err.poissondist.0", curandCreatePoissonDistribution(0.0, &Dist));
  st("err.poissondist.neg", curandCreatePoissonDistribution(-1.0, &Dist));
  st("ok.poissondist.5", curandCreatePoissonDistribution(5.0, &Dist));
  if (Dist)
    st("ok.destroydist", curandDestroyDistribution(Dist));
  curandDirectionVectors32_t *V32 = nullptr;
  curandDirectionVectors64_t *V64 = nullptr;
  unsigned *C32 = nullptr;
  unsigned long long *C64 = nullptr;
  st("err.dirvec32.bad", curandGetDirectionVectors32(&V32, (curandDirectionVectorSet_t)5));
  st("err.dirvec32.set64", curandGetDirectionVectors32(&V32, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  st("err.dirvec64.set32", curandGetDirectionVectors64(&V64, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  st("ok.dirvec32", curandGetDirectionVectors32(&V32, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  st("ok.dirvec64", curandGetDirectionVectors64(&V64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6));
  st("ok.scramble32", curandGetScrambleConstants32(&C32));
  st("ok.scramble64", curandGetScrambleConstants64(&C64));
  // Hashes only: the tables are NVIDIA's data, and ferry computes its own.
  // (Each table that came back; on NVIDIA's library all do.)
  if (V32) {
    std::printf("dirvec32.hash hash %d %016llx\n", 20000 * 32,
                (unsigned long long)fnv(V32, sizeof(curandDirectionVectors32_t) * 20000));
    std::printf("dirvec32.first u32 %u %u %u %u\n", V32[1][0], V32[1][1], V32[1][2], V32[2][1]);
  }
  if (C32)
    std::printf("scramble32.hash hash %d %016llx\n", 20000, (unsigned long long)fnv(C32, 4 * 20000));
  if (C64)
    std::printf("scramble64.hash hash %d %016llx\n", 20000, (unsigned long long)fnv(C64, 8 * 20000));
  // The unscrambled 64-bit set (golden from tests/curand/SobolPoissonDump.cu's
  // run: the same FNV-1a over the same 20000 x 64 words).
  curandDirectionVectors64_t *P64 = nullptr;
  if (curandGetDirectionVectors64(&P64, CURAND_DIRECTION_VECTORS_64_JOEKUO6) == CURAND_STATUS_SUCCESS && P64)
    std::printf("dirvec64.plain.hash hash %d %016llx\n", 20000 * 64,
                (unsigned long long)fnv(P64, sizeof(curandDirectionVectors64_t) * 20000));
  int V = 0;
  st("ok.version", curandGetVersion(&V));
  std::printf("version u32 %d\n", V);
  cudaFree(D32);
  cudaFree(D64);
}

int main(int Argc, char **Argv) {
  if (Argc == 3 && !std::strcmp(Argv[1], "--raw"))
    RawDir = Argv[2];
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const char *Only = std::getenv("CURAND_CASES_ONLY"); // a generator name, for debugging
  statusCases();
  for (curandRngType_t T : {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MRG32K3A,
                            CURAND_RNG_PSEUDO_MTGP32, CURAND_RNG_PSEUDO_MT19937}) {
    if (Only && std::strcmp(Only, genName(T)))
      continue;
    for (int O : {0, (int)CURAND_ORDERING_PSEUDO_BEST, (int)CURAND_ORDERING_PSEUDO_DEFAULT,
                  (int)CURAND_ORDERING_PSEUDO_SEEDED, (int)CURAND_ORDERING_PSEUDO_LEGACY,
                  (int)CURAND_ORDERING_PSEUDO_DYNAMIC})
      pseudoCases(T, O);
  }
  for (curandRngType_t T : {CURAND_RNG_QUASI_SOBOL32, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, CURAND_RNG_QUASI_SOBOL64,
                            CURAND_RNG_QUASI_SCRAMBLED_SOBOL64}) {
    if (Only && std::strcmp(Only, genName(T)))
      continue;
    quasiCases(T);
  }
  std::printf("done\n");
  return 0;
}
