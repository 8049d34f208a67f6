/// \file
/// The MT19937 generator (Mt19937.h).
#include "libs/curand/Mt19937.h"

#include "libs/curand/Incbin.h"
#include "libs/curand/Mtgp32.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

// mt19937-jump.bin, linked in as read-only data (pack-mt19937 writes it).
FERRY_INCBIN(ferryMt19937Jump, FERRY_MT19937_JUMP_BIN);

namespace ferry::curand {
namespace {

constexpr unsigned Gens = 8192, Lanes = 8;
constexpr unsigned Words = 624, Mid = 397;
constexpr unsigned RoundsPerTwist = 78;
constexpr unsigned JumpPowers = 13;            // x^(2^(2048+p)), p < 13: any g < 8192
constexpr unsigned Digits = (19937 + 7) / 8;   // byte digits of a jump polynomial
constexpr unsigned Span = Words + 8 * (Digits - 1); // Horner's sliding window

uint32_t step(uint32_t A, uint32_t B, uint32_t C) {
  uint32_t Y = (A & 0x80000000u) | (B & 0x7fffffffu);
  return C ^ (Y >> 1) ^ ((Y & 1) ? 0x9908b0dfu : 0u);
}

uint32_t temper(uint32_t Y) {
  Y ^= Y >> 11;
  Y ^= (Y << 7) & 0x9d2c5680u;
  Y ^= (Y << 15) & 0xefc60000u;
  return Y ^ (Y >> 18);
}

/// The word lane Lane reads in local round R of a twist.
unsigned wordOf(unsigned R, unsigned Lane) {
  static const unsigned First[Lanes] = {0, 113, 170, 283, 340, 397, 510, 567};
  static const unsigned Runs[11] = {1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568};
  if (R == 0)
    return First[Lane];
  return Runs[(R - 1) / 7] + 7 * Lane + (R - 1) % 7;
}

/// One twist in place: x[k .. k+623] becomes x[k+624 .. k+1247].
void twist(uint32_t *X) {
  for (unsigned K = 0; K < Words; ++K)
    X[K] = step(X[K], X[K + 1 == Words ? 0 : K + 1], X[K + Mid < Words ? K + Mid : K + Mid - Words]);
}

void initGenrand(uint32_t Seed, uint32_t *X) {
  X[0] = Seed;
  for (unsigned I = 1; I < Words; ++I)
    X[I] = 1812433253u * (X[I - 1] ^ (X[I - 1] >> 30)) + I;
}

/// Jump polynomial p's byte digits (coefficient 8 d + b in bit b of digit d).
const unsigned char *jumpDigits(unsigned P) { return ferryMt19937Jump + size_t(P) * Words * 4; }

/// Working memory of one thread's jumps: the 256 digit states, the
/// window, and the states jumped from and to.
struct JumpScratch {
  std::vector<uint32_t> Table = std::vector<uint32_t>(256 * Words);
  std::vector<uint32_t> Window = std::vector<uint32_t>(Span);
  std::vector<uint32_t> Cur = std::vector<uint32_t>(Words), Next = std::vector<uint32_t>(Words);
};

__attribute__((always_inline)) inline void xorWords(uint32_t *__restrict D, const uint32_t *__restrict S) {
  for (unsigned I = 0; I < Words; ++I)
    D[I] ^= S[I];
}

/// Out = r(F) In, r the jump polynomial's digits: F^i(In) is the state i
/// words on, and r(F) In = sum over digits d of F^(8d)(digit_d(F) In), by
/// Horner's rule with a window sliding 8 words a digit. Word 0's low 31
/// bits are not part of the state (no later word reads them): left as
/// they come. Inlined into each instruction-set variant below.
__attribute__((always_inline)) inline void jumpBody(const unsigned char *R, const uint32_t *In, uint32_t *Out,
                                                    JumpScratch &S) {
  uint32_t *T = S.Table.data(), *W = S.Window.data();
  uint32_t E[Words + 7];
  std::memcpy(E, In, Words * 4);
  for (unsigned K = Words; K < Words + 7; ++K)
    E[K] = step(E[K - Words], E[K - Words + 1], E[K - Words + Mid]);
  std::memset(T, 0, Words * 4);
  for (unsigned H = 1; H < 256; ++H) {
    unsigned Low = H & (0u - H);
    std::memcpy(T + H * Words, T + (H ^ Low) * Words, Words * 4);
    xorWords(T + H * Words, E + __builtin_ctz(H));
  }
  std::memcpy(W, T + R[Digits - 1] * Words, Words * 4);
  uint32_t *At = W;
  for (int D = Digits - 2; D >= 0; --D) {
    for (unsigned I = 0; I < 8; ++I)
      At[Words + I] = step(At[I], At[I + 1], At[I + Mid]);
    At += 8;
    if (R[D])
      xorWords(At, T + R[D] * Words);
  }
  std::memcpy(Out, At, Words * 4);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) void jumpAvx2(const unsigned char *R, const uint32_t *In, uint32_t *Out,
                                              JumpScratch &S) {
  jumpBody(R, In, Out, S);
}
#endif

void jump(const unsigned char *R, const uint32_t *In, uint32_t *Out, JumpScratch &S) {
#if defined(__x86_64__)
  static const bool HasAvx2 = __builtin_cpu_supports("avx2");
  if (HasAvx2)
    return jumpAvx2(R, In, Out, S);
#endif
  jumpBody(R, In, Out, S);
}

/// How many threads share Count items, at least MinEach each.
unsigned threadsFor(unsigned Count, unsigned MinEach) {
  return std::max(1u, std::min({std::thread::hardware_concurrency(), 32u, Count / MinEach}));
}

/// Runs Fn(Begin, End) over [Begin, End) split among Threads threads;
/// this thread takes part. Fn must not throw (allocate before).
template <typename F> void parallelFor(unsigned Begin, unsigned End, unsigned Threads, F Fn) {
  unsigned Count = End - Begin;
  if (Threads <= 1) {
    Fn(0, Begin, End);
    return;
  }
  std::vector<std::thread> Pool;
  unsigned Started = 1;
  auto Cut = [&](unsigned T) { return Begin + unsigned(uint64_t(Count) * T / Threads); };
  try {
    for (; Started < Threads; ++Started)
      Pool.emplace_back([&Fn, Started, A = Cut(Started), B = Cut(Started + 1)] { Fn(Started, A, B); });
  } catch (const std::exception &) {
    // No more threads to be had: this one does the rest.
  }
  for (unsigned T = Started; T < Threads; ++T)
    Fn(T, Cut(T), Cut(T + 1));
  Fn(0, Cut(0), Cut(1));
  for (std::thread &Th : Pool)
    Th.join();
}

/// The generators' initial states for one seed, made as far as asked.
class Seeded {
public:
  explicit Seeded(uint32_t Seed) : Seed(Seed), States(size_t(Gens) * Words) {
    initGenrand(Seed, States.data());
  }
  const uint32_t Seed;

  /// Generator G's initial state, once ensure(G + 1) returned.
  const uint32_t *state(unsigned G) const { return States.data() + size_t(G) * Words; }

  /// Makes generators [0, Count).
  void ensure(unsigned Count) {
    std::lock_guard<std::mutex> Guard(Lock);
    if (Count <= Have)
      return;
    unsigned From = Have;
    // Each thread jumps from generator From - 1 to the start of its share
    // (one jump per set bit of the distance), then one generator at a time.
    unsigned Threads = threadsFor(Count - From, 64);
    std::vector<JumpScratch> Scratch(Threads); // bad_alloc here, not in a thread
    parallelFor(From, Count, Threads, [this, From, &Scratch](unsigned T, unsigned Begin, unsigned End) {
      JumpScratch &S = Scratch[T];
      std::vector<uint32_t> &Cur = S.Cur, &Next = S.Next;
      std::memcpy(Cur.data(), state(From - 1), Words * 4);
      unsigned Distance = Begin - (From - 1);
      for (unsigned P = 0; P < JumpPowers; ++P)
        if (Distance >> P & 1) {
          jump(jumpDigits(P), Cur.data(), Next.data(), S);
          Cur.swap(Next);
        }
      for (unsigned G = Begin;; ++G) {
        std::memcpy(States.data() + size_t(G) * Words, Cur.data(), Words * 4);
        if (G + 1 == End)
          break;
        jump(jumpDigits(0), Cur.data(), Next.data(), S);
        Cur.swap(Next);
      }
    });
    Have = Count;
  }

private:
  std::mutex Lock;
  unsigned Have = 1; // generator 0 is init_genrand's state
  std::vector<uint32_t> States;
};

/// The last seeds' initial states, shared by every generator of the
/// process: programs make fresh generators with the same seed.
std::shared_ptr<Seeded> seeded(uint32_t Seed) {
  static std::mutex Lock;
  static auto *Recent = new std::vector<std::shared_ptr<Seeded>>; // never destroyed: atexit order
  std::lock_guard<std::mutex> Guard(Lock);
  for (size_t I = 0; I < Recent->size(); ++I)
    if ((*Recent)[I]->Seed == Seed) {
      std::shared_ptr<Seeded> S = (*Recent)[I];
      Recent->erase(Recent->begin() + I);
      Recent->push_back(S);
      return S;
    }
  auto S = std::make_shared<Seeded>(Seed);
  if (Recent->size() == 2)
    Recent->erase(Recent->begin());
  Recent->push_back(S);
  return S;
}

/// One result of kind What from each 32-bit output. Uniforms differ from
/// MTGP32's (measured: compat-tests/goldens/curand_mt19937): doubles are
/// (x + 1/2) 2^-32, floats that double rounded to float; the rest as
/// MTGP32's (convertFrom32).
void convert(Output What, const uint32_t *X, size_t N, void *Out, double Mean, double Stddev) {
  constexpr double Step = 1.0 / 4294967296.0;
  if (What == Output::Uniform) {
    for (size_t I = 0; I < N; ++I)
      static_cast<float *>(Out)[I] = static_cast<float>(X[I] * Step + Step / 2);
    return;
  }
  if (What == Output::UniformDouble) {
    for (size_t I = 0; I < N; ++I)
      static_cast<double *>(Out)[I] = X[I] * Step + Step / 2;
    return;
  }
  convertFrom32(What, X, N, Out, Mean, Stddev);
}

/// The 64-bit seed's low half (measured with seed 0x0123456789abcdef; not
/// MTGP32's seed ^ seed >> 32).
uint32_t fold(uint64_t Seed) { return static_cast<uint32_t>(Seed); }

} // namespace

class Mt19937Cache {
public:
  Mt19937Epoch Epoch{~0ull, 0};
  std::shared_ptr<Seeded> Init;
  /// Generator g's words, after Twists[g] twists of its initial state.
  std::vector<uint32_t> X;
  std::vector<uint64_t> Twists;
};

std::vector<uint32_t> mt19937InitialState(uint32_t Seed, unsigned G) {
  std::shared_ptr<Seeded> S = seeded(Seed);
  S->ensure(G + 1);
  return std::vector<uint32_t>(S->state(G), S->state(G) + Words);
}

void generateMt19937(const std::vector<Mt19937Epoch> &Epochs, std::shared_ptr<Mt19937Cache> &Cache, Output What,
                     uint64_t Position, size_t N, void *Out, double Mean, double Stddev) {
  const size_t Elem =
      What == Output::UniformDouble || What == Output::NormalDouble || What == Output::LogNormalDouble ? 8 : 4;
  auto *Dst = static_cast<unsigned char *>(Out);
  const uint64_t End = Position + N;
  for (uint64_t R0 = Position / Mt19937Round, Last = (End - 1) / Mt19937Round; R0 <= Last;) {
    // The rounds [R0, R1] of one epoch.
    size_t E = 0;
    while (E + 1 < Epochs.size() && Epochs[E + 1].FirstRound <= R0)
      ++E;
    const Mt19937Epoch &Ep = Epochs[E];
    uint64_t R1 = E + 1 < Epochs.size() ? std::min(Last, Epochs[E + 1].FirstRound - 1) : Last;
    if (!Cache || Cache->Epoch.FirstRound != Ep.FirstRound || Cache->Epoch.Seed != Ep.Seed) {
      Cache = std::make_shared<Mt19937Cache>();
      Cache->Epoch = Ep;
      Cache->Init = seeded(fold(Ep.Seed));
      Cache->X.resize(size_t(Gens) * Words);
      Cache->Twists.assign(Gens, ~uint64_t(0)); // not copied from Init yet
    }
    Mt19937Cache &C = *Cache;
    // Generators [First, Used) have results in these rounds: all of them
    // unless the results lie in one round (a call of a few results, a
    // staged piece).
    uint64_t Lo = std::max(Position, R0 * Mt19937Round), Hi = std::min(End, (R1 + 1) * Mt19937Round);
    unsigned First = 0, Used = Gens;
    if (Lo / Mt19937Round == (Hi - 1) / Mt19937Round) {
      First = unsigned(Lo % Mt19937Round / Lanes);
      Used = unsigned((Hi - 1) % Mt19937Round / Lanes + 1);
    }
    C.Init->ensure(Used);
    parallelFor(First, Used, threadsFor(Used - First, 256), [&](unsigned, unsigned GBegin, unsigned GEnd) {
      uint32_t Raw[Lanes];
      for (unsigned G = GBegin; G < GEnd; ++G) {
        uint32_t *X = C.X.data() + size_t(G) * Words;
        for (uint64_t R = R0; R <= R1; ++R) {
          uint64_t Base = R * Mt19937Round + uint64_t(G) * Lanes;
          if (Base + Lanes <= Position || Base >= End)
            continue;
          uint64_t Local = R - Ep.FirstRound;
          uint64_t Want = Local / RoundsPerTwist + 1; // twists the round reads
          if (C.Twists[G] == ~uint64_t(0) || C.Twists[G] > Want) {
            std::memcpy(X, C.Init->state(G), Words * 4);
            C.Twists[G] = 0;
          }
          for (; C.Twists[G] < Want; ++C.Twists[G])
            twist(X);
          unsigned Rl = unsigned(Local % RoundsPerTwist);
          for (unsigned J = 0; J < Lanes; ++J)
            Raw[J] = temper(X[wordOf(Rl, J)]);
          uint64_t Lo = Base < Position ? Position - Base : 0;
          uint64_t Hi = Base + Lanes > End ? End - Base : Lanes;
          convert(What, Raw + Lo, Hi - Lo, Dst + (Base + Lo - Position) * Elem, Mean, Stddev);
        }
      }
    });
    R0 = R1 + 1;
  }
}

} // namespace ferry::curand
