/// \file
/// The MTGP32 generator (Mtgp32.h).
#include "libs/curand/Mtgp32.h"

#include "libs/curand/Distributions.h"
#include "libs/curand/Incbin.h"

#include <cmath>
#include <cstring>
#include <vector>

// mtgp32-11213.bin, linked in as read-only data (pack-mtgp32 writes it).
FERRY_INCBIN(ferryMtgp32Params, FERRY_MTGP32_BIN);

namespace ferry::curand {
namespace {

constexpr unsigned SetCount = 200;
constexpr unsigned StateWords = 351; // 11213 / 32 + 1
constexpr unsigned Ring = 1024;      // a power of two above StateWords + 256
constexpr unsigned Run = 256;        // results of one block in a row
constexpr uint32_t Mask = 0xfff80000u;

struct Params {
  unsigned Pos, Sh1, Sh2;
  uint32_t Tbl[16], Tmp[16];
};

const Params &params(unsigned Set) {
  static const std::vector<Params> *All = [] {
    auto *V = new std::vector<Params>(SetCount);
    for (unsigned S = 0; S < SetCount; ++S) {
      const unsigned char *R = ferryMtgp32Params + S * 35;
      Params &P = (*V)[S];
      P.Pos = R[0];
      P.Sh1 = R[1];
      P.Sh2 = R[2];
      uint32_t W[8];
      std::memcpy(W, R + 3, sizeof W); // little-endian, as x86-64 and aarch64 are
      for (unsigned I = 0; I < 16; ++I) {
        P.Tbl[I] = P.Tmp[I] = 0;
        for (unsigned B = 0; B < 4; ++B)
          if (I >> B & 1) {
            P.Tbl[I] ^= W[B];
            P.Tmp[I] ^= W[4 + B];
          }
      }
    }
    return V;
  }();
  return (*All)[Set];
}

/// One block's sequence: X[K & (Ring - 1)] holds x[K] for the StateWords
/// words from Next on, the next output being output Next.
struct Block {
  const Params *P;
  uint64_t Next = 0;
  uint32_t X[Ring];

  void init(unsigned Set, uint32_t Seed) {
    P = &params(Set);
    // mtgp32_init_state: a hidden seed from the table, then the MT-style
    // initialisation over the state words.
    uint32_t Hidden = P->Tbl[4] ^ (P->Tbl[8] << 16);
    uint32_t Fill = Hidden;
    Fill += Fill >> 16;
    Fill += Fill >> 8;
    Fill &= 0xff;
    for (unsigned I = 0; I < StateWords; ++I)
      X[I] = Fill * 0x01010101u;
    X[0] = Seed;
    X[1] = Hidden;
    for (unsigned I = 1; I < StateWords; ++I)
      X[I] ^= 1812433253u * (X[I - 1] ^ (X[I - 1] >> 30)) + I;
    Next = 0;
  }
  uint32_t next() {
    const uint64_t K = Next++;
    uint32_t X1 = X[K & (Ring - 1)], X2 = X[(K + 1) & (Ring - 1)], Y = X[(K + P->Pos) & (Ring - 1)];
    uint32_t V = (X1 & Mask) ^ X2;
    V ^= V << P->Sh1;
    Y = V ^ (Y >> P->Sh2);
    uint32_t R = Y ^ P->Tbl[Y & 0x0f];
    X[(K + StateWords) & (Ring - 1)] = R;
    uint32_t T = X[(K + P->Pos - 1) & (Ring - 1)];
    T ^= T >> 16;
    T ^= T >> 8;
    return R ^ P->Tmp[T & 0x0f];
  }
};

} // namespace

class Mtgp32Cache {
public:
  Mtgp32Epoch Epoch{~0ull, 0};
  unsigned Blocks = 0;
  std::vector<Block> B;
};

void convertFrom32(Output What, const uint32_t *X, size_t N, void *Out, double Mean, double Stddev) {
  auto *F = static_cast<float *>(Out);
  auto *D = static_cast<double *>(Out);
  float FM = static_cast<float>(Mean), FS = static_cast<float>(Stddev);
  for (size_t I = 0; I < N; ++I) {
    switch (What) {
    case Output::Bits:
      static_cast<uint32_t *>(Out)[I] = X[I];
      break;
    case Output::Uniform:
      F[I] = uniformFloat(X[I]);
      break;
    case Output::UniformDouble:
      D[I] = uniformDouble32(X[I]);
      break;
    case Output::Normal:
      F[I] = std::fma(normalIcdf(X[I]), FS, FM);
      break;
    case Output::LogNormal:
      F[I] = static_cast<float>(std::exp(static_cast<double>(std::fma(normalIcdf(X[I]), FS, FM))));
      break;
    case Output::NormalDouble:
      D[I] = std::fma(normalIcdfDouble(X[I]), Stddev, Mean);
      break;
    case Output::LogNormalDouble:
      D[I] = static_cast<double>(std::exp(static_cast<long double>(std::fma(normalIcdfDouble(X[I]), Stddev, Mean))));
      break;
    }
  }
}

void generateMtgp32(const std::vector<Mtgp32Epoch> &Epochs, unsigned Blocks, std::shared_ptr<Mtgp32Cache> &Cache,
                    Output What, uint64_t Position, size_t N, void *Out, double Mean, double Stddev) {
  const uint64_t Round = mtgp32Round(Blocks);
  size_t Elem = What == Output::UniformDouble || What == Output::NormalDouble || What == Output::LogNormalDouble ? 8 : 4;
  auto *Dst = static_cast<unsigned char *>(Out);
  std::vector<uint32_t> Raw(Run);
  for (uint64_t R = Position / Round, Last = (Position + N - 1) / Round; R <= Last; ++R) {
    size_t E = 0;
    while (E + 1 < Epochs.size() && Epochs[E + 1].FirstRound <= R)
      ++E;
    const Mtgp32Epoch &Ep = Epochs[E];
    uint32_t Seed32 = static_cast<uint32_t>(Ep.Seed ^ (Ep.Seed >> 32));
    if (!Cache || Cache->Blocks != Blocks || Cache->Epoch.FirstRound != Ep.FirstRound || Cache->Epoch.Seed != Ep.Seed) {
      Cache = std::make_shared<Mtgp32Cache>();
      Cache->Epoch = Ep;
      Cache->Blocks = Blocks;
      Cache->B.resize(Blocks);
      for (unsigned B = 0; B < Blocks; ++B)
        Cache->B[B].init(B, Seed32 + B + 1);
    }
    for (unsigned B = 0; B < Blocks; ++B) {
      uint64_t Base = R * Round + uint64_t(B) * Run; // result index of the run's first output
      if (Base + Run <= Position || Base >= Position + N)
        continue;
      Block &S = Cache->B[B];
      uint64_t Want = (R - Ep.FirstRound) * Run; // the block's output index of that run
      if (S.Next > Want)
        S.init(B, Seed32 + B + 1); // an earlier position: start over
      while (S.Next < Want)
        S.next();
      for (unsigned K = 0; K < Run; ++K)
        Raw[K] = S.next();
      uint64_t Lo = Base < Position ? Position - Base : 0;
      uint64_t Hi = Base + Run > Position + N ? Position + N - Base : Run;
      convertFrom32(What, Raw.data() + Lo, Hi - Lo, Dst + (Base + Lo - Position) * Elem, Mean, Stddev);
    }
  }
}

} // namespace ferry::curand
