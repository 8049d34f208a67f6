/// \file
/// ferry's cuRAND host API: generators, their settings, and the generate
/// calls, with the statuses NVIDIA's cuRAND returns for bad arguments
/// (measured on the H100's stack: tests/curand/goldens). A device
/// generator's work runs in stream order on its stream (libs/common's host
/// tasks); a host generator's runs on the calling thread, as NVIDIA's does.
/// Where the host cannot reach device memory (an AMD GPU without a large
/// BAR), a device generator makes its results on the host all the same,
/// in pieces of at most 4 MiB staged in pinned memory and copied to the
/// device on its stream (staged()): the same bits as NVIDIA's.
///
/// Implemented bit for bit: XORWOW, MRG32k3a and Philox4_32_10 with every
/// ordering, 32-bit, uniform, normal and log-normal results (see Generate.h
/// for the layout, Distributions.h for what is exact), and Sobol32/Sobol64
/// in all 20000 dimensions with their JOEKUO6 direction vectors, scrambled
/// or not, and the scramble constants (Sobol.h), MTGP32 with its DEFAULT,
/// BEST and LEGACY orderings (Mtgp32.h), MT19937 (Mt19937.h).
/// Not implemented, with a log line and FerryNotSupported: Poisson above
/// lambda 1500 (NVIDIA switches method there; for MTGP32 above 30, for
/// Sobol from 1000, for MT19937 from 2000, or above 300 from a host
/// generator). Poisson results and the Poisson discrete distribution
/// are bit-exact below (Poisson.h).
#include "ferry/generated/CurandApi.h"
#include "libs/common/Driver.h"
#include "libs/common/HostTask.h"
#include "libs/curand/Generate.h"
#include "libs/curand/Mt19937.h"
#include "libs/curand/Mtgp32.h"
#include "libs/curand/Poisson.h"
#include "libs/curand/Sobol.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <cstdarg>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ferry::curand {
namespace {

/// cuRAND has no NOT_SUPPORTED status: a feature ferry lacks answers as a
/// GPU lacking it would ("Architecture mismatch, GPU does not support
/// requested feature"), and says which in a log line.
constexpr curandStatus_t FerryNotSupported = CURAND_STATUS_ARCH_MISMATCH;

void logMessage(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
void logMessage(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  libs::vlogMessage("curand", Fmt, Ap);
  va_end(Ap);
}

/// Logs What once per process (as the generated stubs do), then refuses.
curandStatus_t notSupported(const char *What) {
  static std::mutex Lock;
  static std::unordered_set<std::string> *Said = new std::unordered_set<std::string>;
  std::lock_guard<std::mutex> Guard(Lock);
  if (Said->insert(What).second)
    logMessage("%s: not implemented, returning CURAND_STATUS_ARCH_MISMATCH", What);
  return FerryNotSupported;
}

struct Generator {
  static constexpr uint64_t Live = 0x6665727279524e47ull; // "ferryRNG"
  uint64_t Magic = Live;
  curandRngType_t Type;
  bool Host;
  curandOrdering_t Order;
  uint64_t Seed = 0;
  uint64_t Offset = 0;
  unsigned Dimensions = 1;
  /// Where the next call starts (Generate.h), and the per-thread states.
  uint64_t Position = 0;
  std::shared_ptr<StateCache> Cache;
  /// Draws beyond one per unit each thread's states took since the last
  /// restart or seed (Generate.h); replaced, not cleared, so work still
  /// queued keeps its own.
  std::shared_ptr<std::vector<uint64_t>> Extra = std::make_shared<std::vector<uint64_t>>();
  /// MTGP32: the seeds by round (Mtgp32.h; empty: Seed from round 0) and
  /// the blocks' states.
  std::vector<Mtgp32Epoch> Epochs;
  std::shared_ptr<Mtgp32Cache> MtgpCache;
  /// MT19937: its generators' states (Mt19937.h; one epoch: a new seed
  /// starts the sequence over).
  std::shared_ptr<Mt19937Cache> MtCache;
  cudaStream_t Stream = nullptr;
  /// Serialises the generator's work: a host task reads and advances the
  /// state, and a later call may be enqueued before it ran.
  std::mutex Lock;
  libs::TaskKeeper Kept;
  /// Pinned host memory a device generator stages its results in where the
  /// host cannot reach device memory (staged()), the stream that used it
  /// last, and the buffers of captured calls; StageLock guards them.
  std::mutex StageLock;
  void *Stage = nullptr;
  size_t StageBytes = 0;
  CUstream StageStream = nullptr;
  std::vector<void *> CapturedStages;
};

std::mutex RegistryLock;
std::unordered_set<Generator *> &registry() {
  static auto *R = new std::unordered_set<Generator *>; // never destroyed: atexit order
  return *R;
}

Generator *lookup(curandGenerator_t G) {
  auto *P = reinterpret_cast<Generator *>(G);
  std::lock_guard<std::mutex> Guard(RegistryLock);
  if (!P || !registry().count(P) || P->Magic != Generator::Live)
    return nullptr;
  return P;
}

bool isQuasi(curandRngType_t T) { return T >= CURAND_RNG_QUASI_DEFAULT; }

/// MTGP32's blocks (parameter sets) per round, measured: 192 for the
/// DEFAULT and BEST orderings, 64 for LEGACY.
unsigned mtgpBlocks(curandOrdering_t Order) { return Order == CURAND_ORDERING_PSEUDO_LEGACY ? 64 : 192; }

/// The current device's multiprocessor count (the DYNAMIC orderings scale
/// with it), 132 as on the H100/H200 when there is no answer.
uint32_t multiprocessors() {
  int Sms = 0;
  const libs::DriverTable *D = libs::driver();
  CUdevice Dev = 0;
  if (D && D->CtxGetDevice(&Dev, nullptr) == CUDA_SUCCESS)
    D->DeviceGetAttribute(&Sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Dev);
  return Sms > 0 ? static_cast<uint32_t>(Sms) : 132;
}

/// The engine and thread count of an implemented generator and ordering.
bool layoutOf(Generator &G, Layout &L) {
  std::lock_guard<std::mutex> Guard(G.Lock);
  L.Seed = G.Seed;
  L.Seeded = G.Order == CURAND_ORDERING_PSEUDO_SEEDED;
  switch (G.Type) {
  case CURAND_RNG_PSEUDO_XORWOW:
    L.Kind = Engine::Xorwow;
    L.Threads = G.Order == CURAND_ORDERING_PSEUDO_DYNAMIC ? 2816 : 4096;
    L.HalfStepNormals = G.Order == CURAND_ORDERING_PSEUDO_DYNAMIC;
    return true;
  case CURAND_RNG_PSEUDO_MRG32K3A: {
    L.Kind = Engine::Mrg32k3a;
    L.Threads = 81920;
    if (G.Order == CURAND_ORDERING_PSEUDO_LEGACY)
      L.Threads = 4096;
    // DYNAMIC: 2048 threads per multiprocessor (270336 on the 132-SM H200).
    if (G.Order == CURAND_ORDERING_PSEUDO_DYNAMIC)
      L.Threads = multiprocessors() * 2048;
    return true;
  }
  case CURAND_RNG_PSEUDO_PHILOX4_32_10:
    L.Kind = Engine::Philox;
    // DYNAMIC: 512 threads per multiprocessor (67584 on the 132-SM H200).
    L.Threads = G.Order == CURAND_ORDERING_PSEUDO_DYNAMIC ? multiprocessors() * 512 : 65536;
    return true;
  default:
    return false;
  }
}

const char *typeName(curandRngType_t T) {
  switch (T) {
  case CURAND_RNG_PSEUDO_MTGP32:
    return "CURAND_RNG_PSEUDO_MTGP32";
  default:
    return "CURAND_RNG_TEST";
  }
}

curandStatus_t create(curandGenerator_t *Out, curandRngType_t Type, bool Host) {
  if (!Out)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (Type == CURAND_RNG_PSEUDO_DEFAULT)
    Type = CURAND_RNG_PSEUDO_XORWOW;
  if (Type == CURAND_RNG_QUASI_DEFAULT)
    Type = CURAND_RNG_QUASI_SOBOL32;
  switch (Type) {
  case CURAND_RNG_TEST:
  case CURAND_RNG_PSEUDO_XORWOW:
  case CURAND_RNG_PSEUDO_MRG32K3A:
  case CURAND_RNG_PSEUDO_MTGP32:
  case CURAND_RNG_PSEUDO_MT19937:
  case CURAND_RNG_PSEUDO_PHILOX4_32_10:
  case CURAND_RNG_QUASI_SOBOL32:
  case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
  case CURAND_RNG_QUASI_SOBOL64:
  case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
    break;
  default:
    return CURAND_STATUS_TYPE_ERROR;
  }
  if (!Host && !libs::ensureContext()) {
    logMessage("curandCreateGenerator: no CUDA device");
    return CURAND_STATUS_INITIALIZATION_FAILED;
  }
  auto *G = new (std::nothrow) Generator;
  if (!G)
    return CURAND_STATUS_ALLOCATION_FAILED;
  G->Type = Type;
  G->Host = Host;
  G->Order = isQuasi(Type) ? CURAND_ORDERING_QUASI_DEFAULT : CURAND_ORDERING_PSEUDO_DEFAULT;
  try {
    std::lock_guard<std::mutex> Guard(RegistryLock);
    registry().insert(G);
  } catch (const std::bad_alloc &) {
    delete G;
    return CURAND_STATUS_ALLOCATION_FAILED;
  }
  *Out = reinterpret_cast<curandGenerator_t>(G);
  return CURAND_STATUS_SUCCESS;
}

/// Runs a device generator's work in stream order on its stream. Work that
/// writes only host memory (ReadsDeviceMemory false) is never refused.
template <typename F>
curandStatus_t enqueue(Generator &G, F &&Work, bool ReadsDeviceMemory = true) {
  switch (libs::enqueueHostTask("curand", reinterpret_cast<CUstream>(G.Stream), G.Kept, std::forward<F>(Work),
                                ReadsDeviceMemory)) {
  case libs::EnqueueResult::Ok:
    return CURAND_STATUS_SUCCESS;
  case libs::EnqueueResult::NoDriver:
    return CURAND_STATUS_INITIALIZATION_FAILED;
  case libs::EnqueueResult::LaunchFailed:
    return CURAND_STATUS_LAUNCH_FAILURE;
  case libs::EnqueueResult::NoMemory:
    return CURAND_STATUS_ALLOCATION_FAILED;
  case libs::EnqueueResult::NoHostAccess: // cuRAND has no NOT_SUPPORTED (libs/README.md).
    libs::logNoHostAccess("curand", "CURAND_STATUS_ARCH_MISMATCH");
    return CURAND_STATUS_ARCH_MISMATCH;
  }
  return CURAND_STATUS_INTERNAL_ERROR;
}

/// One generate call's results, to be written whole or in pieces.
/// Write(Dst, I0, Count) writes points [I0, I0 + Count) of the call to Dst
/// dimension by dimension (Dims rows of Count results each; a pseudo
/// generator has one dimension, a point is a result), exactly as the
/// whole call (Write(Out, 0, Points)) writes them there.
struct Fill {
  std::function<void(void *Dst, size_t I0, size_t Count)> Write;
  size_t Points = 0;
  unsigned Dims = 1;
  size_t Elem = 4; ///< Bytes per result.
  /// A piece may start only at a point I with (Phase + I) % Align == 0:
  /// where a generator unit (Generate.h) or an MTGP32 run of 256 begins,
  /// so that each piece computes whole units as the call would.
  size_t Align = 1;
  uint64_t Phase = 0;
};

size_t elemSize(Output What, bool Bits64) {
  return What == Output::UniformDouble || What == Output::NormalDouble || What == Output::LogNormalDouble ||
                 (What == Output::Bits && Bits64)
             ? 8
             : 4;
}

/// Pinned host memory for the pieces of a device generator whose memory
/// the host cannot reach: at most this many bytes per piece.
constexpr size_t StagingBytes = size_t(4) << 20;

/// The staging buffer for a call of Need bytes per piece on Stream (the
/// caller holds G.StageLock). Reused across calls: the pieces on one
/// stream follow each other, and a call on another stream first waits for
/// the stream that used it last. A captured call gets a buffer of its own,
/// kept with the generator (its graph may run any number of times).
void *stagingBuffer(Generator &G, const libs::DriverTable &D, CUstream Stream, size_t Need, bool Captured) {
  void *P = nullptr;
  if (Captured) {
    if (D.MemAllocHost(&P, Need) != CUDA_SUCCESS)
      return nullptr;
    G.CapturedStages.push_back(P);
    return P;
  }
  if (G.Stage && G.StageStream != Stream)
    D.StreamSynchronize(G.StageStream);
  if (G.StageBytes < Need) {
    if (G.Stage) {
      D.StreamSynchronize(G.StageStream); // its last copies may still read it
      D.MemFreeHost(G.Stage);
      G.Stage = nullptr;
      G.StageBytes = 0;
    }
    if (D.MemAllocHost(&P, Need) != CUDA_SUCCESS)
      return nullptr;
    G.Stage = P;
    G.StageBytes = Need;
  }
  G.StageStream = Stream;
  return G.Stage;
}

/// A device generator on a GPU whose memory the host cannot reach
/// (libs/README.md, "The AMD backend"): each piece of the call is
/// generated on the host into pinned memory by a host task on the
/// generator's stream, then copied to Out with cuMemcpy2DAsync on the same
/// stream (a 2-D copy puts a Sobol piece's rows into their dimensions); the
/// next piece's task runs after that copy, so one buffer serves them all.
curandStatus_t staged(Generator &G, const Fill &F, void *Out) {
  const libs::DriverTable *D = libs::driver();
  if (!D || !libs::ensureContext())
    return CURAND_STATUS_INITIALIZATION_FAILED;
  auto Stream = reinterpret_cast<CUstream>(G.Stream);
  size_t Row = F.Elem * F.Dims; // bytes per point
  size_t Cap = StagingBytes / Row > 0 ? StagingBytes / Row : 1;
  if (Cap > F.Align)
    Cap -= Cap % F.Align;
  size_t Need = (F.Points < Cap ? F.Points : Cap) * Row;
  CUstreamCaptureStatus Capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (D->StreamIsCapturing(Stream, &Capture) != CUDA_SUCCESS)
    Capture = CU_STREAM_CAPTURE_STATUS_NONE;
  std::lock_guard<std::mutex> Guard(G.StageLock);
  void *Stage = stagingBuffer(G, *D, Stream, Need, Capture != CU_STREAM_CAPTURE_STATUS_NONE);
  if (!Stage) {
    logMessage("no pinned host memory for the staging buffer (%zu bytes)", Need);
    return CURAND_STATUS_ALLOCATION_FAILED;
  }
  auto Shared = std::make_shared<Fill>(F);
  for (size_t I = 0; I < F.Points;) {
    size_t Skew = (F.Phase + I) % F.Align;
    size_t Count = Cap > Skew ? Cap - Skew : Cap;
    if (Count > F.Points - I)
      Count = F.Points - I;
    if (curandStatus_t S = enqueue(G, [Shared, Stage, I, Count] { Shared->Write(Stage, I, Count); },
                                   /*ReadsDeviceMemory=*/false);
        S != CURAND_STATUS_SUCCESS)
      return S;
    CUDA_MEMCPY2D C{};
    C.srcMemoryType = CU_MEMORYTYPE_HOST;
    C.srcHost = Stage;
    C.srcPitch = Count * F.Elem;
    C.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    C.dstDevice = reinterpret_cast<CUdeviceptr>(Out) + I * F.Elem;
    C.dstPitch = F.Points * F.Elem;
    C.WidthInBytes = Count * F.Elem;
    C.Height = F.Dims;
    if (CUresult R = D->Memcpy2DAsync(&C, Stream); R != CUDA_SUCCESS) {
      logMessage("copying generated results to the device failed (%d)", static_cast<int>(R));
      return CURAND_STATUS_LAUNCH_FAILURE;
    }
    I += Count;
  }
  return CURAND_STATUS_SUCCESS;
}

/// Runs a call's work: for a host generator now; for a device one in
/// stream order, on the device memory itself or, where the host cannot
/// reach it, staged through host memory.
curandStatus_t submit(Generator &G, const Fill &F, void *Out) {
  if (!F.Points)
    return CURAND_STATUS_SUCCESS;
  if (G.Host) {
    try {
      F.Write(Out, 0, F.Points);
    } catch (const std::bad_alloc &) {
      return CURAND_STATUS_ALLOCATION_FAILED;
    }
    return CURAND_STATUS_SUCCESS;
  }
  if (!G.Kept.hostReachesDeviceMemory())
    return staged(G, F, Out);
  return enqueue(G, [W = F.Write, Out, Points = F.Points] { W(Out, 0, Points); });
}

/// MTGP32 (Mtgp32.h): Position counts results.
curandStatus_t prepareMtgp32(Generator &G, Output What, size_t N, double Mean, double Stddev, Fill &F) {
  if (G.Order == CURAND_ORDERING_PSEUDO_DYNAMIC)
    return notSupported("CURAND_RNG_PSEUDO_MTGP32 with CURAND_ORDERING_PSEUDO_DYNAMIC (laid out otherwise, not "
                        "measured)");
  unsigned Blocks = mtgpBlocks(G.Order);
  uint64_t Start;
  std::vector<Mtgp32Epoch> Epochs;
  {
    std::lock_guard<std::mutex> Guard(G.Lock);
    Start = G.Position;
    G.Position += N;
    Epochs = G.Epochs.empty() ? std::vector<Mtgp32Epoch>{{0, G.Seed}} : G.Epochs;
  }
  Generator *P = &G;
  F.Points = N;
  F.Elem = elemSize(What, false);
  F.Align = 256; // a block's run
  F.Phase = Start;
  F.Write = [P, Epochs = std::move(Epochs), Blocks, What, Start, Mean, Stddev](void *Dst, size_t I0, size_t Count) {
    std::lock_guard<std::mutex> Guard(P->Lock);
    generateMtgp32(Epochs, Blocks, P->MtgpCache, What, Start + I0, Count, Dst, Mean, Stddev);
  };
  return CURAND_STATUS_SUCCESS;
}

/// MT19937 (Mt19937.h): Position counts results; every ordering it takes
/// (DEFAULT, BEST, LEGACY) lays them out alike (measured).
curandStatus_t prepareMt19937(Generator &G, Output What, size_t N, double Mean, double Stddev, Fill &F) {
  uint64_t Start;
  std::vector<Mt19937Epoch> Epochs;
  {
    std::lock_guard<std::mutex> Guard(G.Lock);
    Start = G.Position;
    G.Position += N;
    Epochs = G.Epochs.empty() ? std::vector<Mt19937Epoch>{{0, G.Seed}} : G.Epochs;
  }
  Generator *P = &G;
  F.Points = N;
  F.Elem = elemSize(What, false);
  F.Align = 8; // a generator's eight lanes
  F.Phase = Start;
  F.Write = [P, Epochs = std::move(Epochs), What, Start, Mean, Stddev](void *Dst, size_t I0, size_t Count) {
    std::lock_guard<std::mutex> Guard(P->Lock);
    generateMt19937(Epochs, P->MtCache, What, Start + I0, Count, Dst, Mean, Stddev);
  };
  return CURAND_STATUS_SUCCESS;
}

/// Checks one generate call of N results of kind What into Out and takes
/// its place in the sequence; F is its work (no points: nothing to do).
curandStatus_t prepare(Generator *G, Output What, void *Out, size_t N, double Mean, double Stddev, bool Is64,
                       Fill &F) {
  bool Sobol64 = G->Type == CURAND_RNG_QUASI_SOBOL64 || G->Type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
  if (What == Output::Bits && Is64 != Sobol64)
    return CURAND_STATUS_TYPE_ERROR; // 32 bits from Sobol64, or 64 from another
  bool Pairs = What == Output::Normal || What == Output::NormalDouble || What == Output::LogNormal ||
               What == Output::LogNormalDouble;
  if (isQuasi(G->Type) && N % G->Dimensions)
    return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  // Measured: XORWOW and MRG32k3a make normals in pairs and refuse an odd
  // count; Philox makes them in fours and cuts the last group short.
  // MTGP32 and MT19937 make one normal per 32-bit draw (inverse CDF) and
  // take odd counts (measured: 1001 floats and doubles).
  if (!isQuasi(G->Type) && G->Type != CURAND_RNG_PSEUDO_PHILOX4_32_10 && G->Type != CURAND_RNG_PSEUDO_MTGP32 &&
      G->Type != CURAND_RNG_PSEUDO_MT19937 && Pairs && N % 2)
    return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  if (!N)
    return CURAND_STATUS_SUCCESS;
  if (!Out) {
    // NVIDIA's kernel would fault on it; the host writes nothing.
    logMessage("a generate call got a null output pointer");
    return CURAND_STATUS_LAUNCH_FAILURE;
  }
  if (isQuasi(G->Type)) {
    // Position counts points: each call takes N / Dimensions of them.
    unsigned Dims = G->Dimensions;
    uint64_t Start;
    {
      std::lock_guard<std::mutex> Guard(G->Lock);
      Start = G->Position;
      G->Position += N / Dims;
    }
    F.Points = N / Dims;
    F.Dims = Dims;
    F.Elem = elemSize(What, Sobol64);
    bool Scrambled = G->Type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 || G->Type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
    F.Write = [Sobol64, Scrambled, Dims, What, Start, Mean, Stddev](void *Dst, size_t I0, size_t Count) {
      generateSobol(Sobol64, Scrambled, Dims, What, Start + I0, Count * Dims, Dst, Mean, Stddev);
    };
    return CURAND_STATUS_SUCCESS;
  }
  if (G->Type == CURAND_RNG_PSEUDO_MTGP32)
    return prepareMtgp32(*G, What, N, Mean, Stddev, F);
  if (G->Type == CURAND_RNG_PSEUDO_MT19937)
    return prepareMt19937(*G, What, N, Mean, Stddev, F);
  Layout L{};
  if (!layoutOf(*G, L))
    return notSupported(typeName(G->Type));
  // Settings and the start are taken now, as NVIDIA's host-side state is;
  // the work only shares the per-thread state cache.
  uint64_t Start;
  {
    std::lock_guard<std::mutex> Guard(G->Lock);
    Start = G->Position;
    // Philox's DYNAMIC ordering assigns subsequences differently once a
    // call starts past the first counter of every thread (the goldens show
    // a shift ferry cannot derive yet): refuse rather than differ.
    if (L.Kind == Engine::Philox && G->Order == CURAND_ORDERING_PSEUDO_DYNAMIC && Start / 4 >= L.Threads)
      return notSupported("Philox with CURAND_ORDERING_PSEUDO_DYNAMIC past its first counter");
    // MRG32k3a's DYNAMIC normals were recorded only for each thread's first
    // pair (270336 threads); XORWOW's later pairs are laid out otherwise,
    // so these are refused rather than guessed.
    if (L.Kind == Engine::Mrg32k3a && G->Order == CURAND_ORDERING_PSEUDO_DYNAMIC && Pairs &&
        nextPosition(L.Kind, What, Start, N) > L.Threads)
      return notSupported("MRG32k3a normals with CURAND_ORDERING_PSEUDO_DYNAMIC past each thread's first pair");
    // Likewise Philox's DYNAMIC doubles and normals past each thread's
    // first unit (its 32-bit and float results were recorded there).
    if (L.Kind == Engine::Philox && G->Order == CURAND_ORDERING_PSEUDO_DYNAMIC && What != Output::Bits &&
        What != Output::Uniform && (Start + N + 3) / 4 > L.Threads)
      return notSupported("Philox doubles and normals with CURAND_ORDERING_PSEUDO_DYNAMIC past each thread's "
                          "first unit");
    G->Position = nextPosition(L.Kind, What, Start, N);
  }
  std::shared_ptr<std::vector<uint64_t>> Extra = G->Extra;
  F.Points = N;
  F.Elem = elemSize(What, false);
  // Units hold 1, 2 or 4 results and a call's first result starts one
  // (Philox counts results, its units are fours of them): a piece starting
  // at a multiple of 4 starts a unit, and its Position is where the call
  // would be there (the draws the units before took are in Extra by then).
  F.Align = 4;
  F.Write = [G, L, What, Start, Mean, Stddev, Extra](void *Dst, size_t I0, size_t Count) {
    std::lock_guard<std::mutex> Guard(G->Lock);
    uint64_t At = I0 ? nextPosition(L.Kind, What, Start, I0) : Start;
    generate(L, G->Cache, What, At, Count, Dst, Mean, Stddev, Extra.get());
  };
  return CURAND_STATUS_SUCCESS;
}

/// Checks and runs one generate call: N results of kind What into Out.
curandStatus_t run(curandGenerator_t H, Output What, void *Out, size_t N, double Mean = 0, double Stddev = 1,
                   bool Is64 = false) {
  Generator *G = lookup(H);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  Fill F;
  if (curandStatus_t S = prepare(G, What, Out, N, Mean, Stddev, Is64, F); S != CURAND_STATUS_SUCCESS)
    return S;
  return submit(*G, F, Out);
}

/// The largest lambda whose Poisson results were measured to come from the
/// square-histogram table (1500; from 2000 on NVIDIA's host API uses the
/// normal approximation with GPU float normals, which ferry's exact ones
/// miss by one count now and then: libs/README.md).
constexpr double PoissonMeasuredLambda = 1500;
constexpr double MtgpPoissonMeasuredLambda = 30;
/// MT19937's results are the table lookup of its 32-bit results too
/// (unlike MTGP32's at 63 and above), measured on the H100 for device
/// generators at lambda 4 to 1999.5 (at 2000 they are the normal
/// approximation: the switch) and for host ones at 4 to 300 (NVIDIA's host
/// generator took over 40 s for 8192 results at 1000: not measured there).
constexpr double MtPoissonSwitchLambda = 2000, MtHostPoissonMeasuredLambda = 300;
/// From this lambda on NVIDIA's Sobol32 Poisson results invert each point
/// instead of the table lookup (measured: the same at 9.9999999999 and
/// below, inversion at 10 and above).
constexpr double SobolPoissonInversionLambda = 10;

/// curandGeneratePoisson: the 32-bit results curandGenerate would give,
/// each looked up in lambda's square-histogram table (Poisson.h), in
/// stream order. Measured for XORWOW, Philox and MRG32k3a; other
/// generators are refused.
curandStatus_t poisson(curandGenerator_t H, unsigned *Out, size_t N, double Lambda) {
  Generator *G = lookup(H);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (!(Lambda > 0))
    return CURAND_STATUS_OUT_OF_RANGE;
  if (Lambda > PoissonMeasuredLambda && G->Type != CURAND_RNG_PSEUDO_MT19937)
    return notSupported("curandGeneratePoisson with lambda above 1500 (NVIDIA's method changes between 1500 and "
                        "2000; the other one is not reproduced)");
  // MTGP32's results are the table lookup of its 32-bit results up to
  // lambda 30 (measured at 4, 8, 16, 30); from 63 on NVIDIA's differ (a
  // normal approximation through the GPU's erfcinvf, not reproduced).
  if (G->Type == CURAND_RNG_PSEUDO_MTGP32 && Lambda > MtgpPoissonMeasuredLambda)
    return notSupported("curandGeneratePoisson from MTGP32 with lambda above 30 (NVIDIA's method changes between "
                        "30 and 63; the other one is not reproduced)");
  if (G->Type == CURAND_RNG_PSEUDO_MT19937 && G->Host && Lambda > MtHostPoissonMeasuredLambda)
    return notSupported("curandGeneratePoisson from an MT19937 host generator with lambda above 300 (NVIDIA's "
                        "host generator was not measured there)");
  if (G->Type == CURAND_RNG_PSEUDO_MT19937 && Lambda >= MtPoissonSwitchLambda)
    return notSupported("curandGeneratePoisson from MT19937 with lambda 2000 or more (NVIDIA's normal "
                        "approximation through the GPU's erfcinvf, not reproduced)");
  bool Sobol64 = G->Type == CURAND_RNG_QUASI_SOBOL64 || G->Type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
  // Measured: Sobol64 inverts every point; Sobol32 looks its points up in
  // the table below lambda 10 and inverts them from 10 on.
  if (isQuasi(G->Type) && (Sobol64 || Lambda >= SobolPoissonInversionLambda)) {
    // Inversion of each point, no table.
    bool Scrambled = G->Type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 || G->Type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
    if (Lambda >= 1000)
      return notSupported("curandGeneratePoisson from Sobol with lambda 1000 or more (the inverse-CDF normal "
                          "approximation through erfcinv)");
    if (N % G->Dimensions)
      return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (!N)
      return CURAND_STATUS_SUCCESS;
    if (!Out) {
      logMessage("a generate call got a null output pointer");
      return CURAND_STATUS_LAUNCH_FAILURE;
    }
    unsigned Dims = G->Dimensions;
    uint64_t Start;
    {
      std::lock_guard<std::mutex> Guard(G->Lock);
      Start = G->Position;
      G->Position += N / Dims;
    }
    Fill F;
    F.Points = N / Dims;
    F.Dims = Dims;
    F.Write = [Sobol64, Scrambled, Dims, Start, Lambda](void *Dst, size_t I0, size_t Count) {
      auto *O = static_cast<unsigned *>(Dst);
      if (Sobol64) {
        std::vector<uint64_t> Points(Count * Dims);
        generateSobol(true, Scrambled, Dims, Output::Bits, Start + I0, Points.size(), Points.data(), 0, 1);
        for (size_t I = 0; I < Points.size(); ++I)
          O[I] = poissonInversion(Points[I], Lambda);
        return;
      }
      generateSobol(false, Scrambled, Dims, Output::Bits, Start + I0, Count * Dims, O, 0, 1);
      for (size_t I = 0; I < Count * Dims; ++I)
        O[I] = poissonInversion32(O[I], Lambda);
    };
    return submit(*G, F, Out);
  }
  std::shared_ptr<const PoissonTable> T = poissonTable(Lambda);
  if (!T)
    return CURAND_STATUS_ALLOCATION_FAILED;
  Fill F;
  if (curandStatus_t S = prepare(G, Output::Bits, Out, N, 0, 1, false, F); S != CURAND_STATUS_SUCCESS || !F.Points)
    return S;
  F.Write = [Bits = std::move(F.Write), T, Dims = F.Dims](void *Dst, size_t I0, size_t Count) {
    Bits(Dst, I0, Count);
    auto *O = static_cast<unsigned *>(Dst);
    for (size_t I = 0; I < Count * Dims; ++I)
      O[I] = T->lookup(O[I]);
  };
  return submit(*G, F, Out);
}

/// A setting changes where the sequence starts: later work starts afresh.
void restart(Generator &G) {
  std::lock_guard<std::mutex> Guard(G.Lock);
  G.Position = G.Offset;
  G.Extra = std::make_shared<std::vector<uint64_t>>();
  G.Epochs.clear();
}

} // namespace
} // namespace ferry::curand

using namespace ferry::curand;

extern "C" curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type) {
  return create(generator, rng_type, false);
}

extern "C" curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type) {
  return create(generator, rng_type, true);
}

extern "C" curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  Generator *G = lookup(generator);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  // Queued work refers to the generator: let it finish first.
  if (!G->Host)
    if (const ferry::libs::DriverTable *D = ferry::libs::driver()) {
      D->StreamSynchronize(reinterpret_cast<CUstream>(G->Stream));
      // The staging buffers: the copies that read them are done then.
      if (G->Stage && G->StageStream != reinterpret_cast<CUstream>(G->Stream))
        D->StreamSynchronize(G->StageStream);
      if (G->Stage)
        D->MemFreeHost(G->Stage);
      for (void *P : G->CapturedStages)
        D->MemFreeHost(P);
    }
  {
    std::lock_guard<std::mutex> Guard(RegistryLock);
    registry().erase(G);
  }
  G->Magic = 0;
  delete G;
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandGetVersion(int *version) {
  if (!version)
    return CURAND_STATUS_OUT_OF_RANGE;
  *version = CURAND_VERSION;
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandGetProperty(libraryPropertyType type, int *value) {
  if (!value)
    return CURAND_STATUS_OUT_OF_RANGE;
  switch (type) {
  case MAJOR_VERSION:
    *value = CURAND_VER_MAJOR;
    return CURAND_STATUS_SUCCESS;
  case MINOR_VERSION:
    *value = CURAND_VER_MINOR;
    return CURAND_STATUS_SUCCESS;
  case PATCH_LEVEL:
    *value = CURAND_VER_PATCH;
    return CURAND_STATUS_SUCCESS;
  }
  return CURAND_STATUS_OUT_OF_RANGE;
}

extern "C" curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
  Generator *G = lookup(generator);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  G->Stream = stream;
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed) {
  Generator *G = lookup(generator);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (isQuasi(G->Type))
    return CURAND_STATUS_TYPE_ERROR;
  // A new seed keeps the generator's position: NVIDIA's next call continues
  // at the offset the earlier calls reached, under the new seed (measured
  // on the H100: apps/curand_pi's second seed starts at value 2^21, where
  // its first seed's calls ended). Only curandSetGeneratorOffset moves it.
  // The states are made afresh for the new seed at that position, so the
  // draws earlier units took beyond one each are forgotten.
  std::lock_guard<std::mutex> Guard(G->Lock);
  if (G->Type == CURAND_RNG_PSEUDO_MT19937) {
    // MT19937 starts over: the next call gives the new seed's results from
    // the first (measured on the H100 after 1000 and 70000 results, device
    // and host generators).
    G->Position = 0;
    G->Epochs.clear();
  }
  if (G->Type == CURAND_RNG_PSEUDO_MTGP32) {
    // MTGP32 made whole rounds: the rest of the round reached stays the old
    // seed's, the new seed's fresh states start with the next (Mtgp32.h).
    uint64_t Round = mtgp32Round(mtgpBlocks(G->Order));
    uint64_t First = (G->Position + Round - 1) / Round;
    if (G->Epochs.empty())
      G->Epochs.push_back({0, G->Seed});
    while (!G->Epochs.empty() && G->Epochs.back().FirstRound >= First)
      G->Epochs.pop_back();
    G->Epochs.push_back({First, seed});
  }
  G->Seed = seed;
  G->Extra = std::make_shared<std::vector<uint64_t>>();
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  Generator *G = lookup(generator);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  // MTGP32 and MT19937 have no offset (NVIDIA: TYPE_ERROR, even for 0).
  if (G->Type == CURAND_RNG_PSEUDO_MTGP32 || G->Type == CURAND_RNG_PSEUDO_MT19937)
    return CURAND_STATUS_TYPE_ERROR;
  {
    std::lock_guard<std::mutex> Guard(G->Lock);
    G->Offset = offset;
  }
  restart(*G);
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order) {
  Generator *G = lookup(generator);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (isQuasi(G->Type)) {
    if (order != CURAND_ORDERING_QUASI_DEFAULT)
      return CURAND_STATUS_OUT_OF_RANGE;
  } else {
    switch (order) {
    case CURAND_ORDERING_PSEUDO_BEST:
      // Measured: MT19937's host generator has no BEST ordering.
      if (G->Host && G->Type == CURAND_RNG_PSEUDO_MT19937)
        return CURAND_STATUS_OUT_OF_RANGE;
      break;
    case CURAND_ORDERING_PSEUDO_DEFAULT:
    case CURAND_ORDERING_PSEUDO_LEGACY:
      break;
    case CURAND_ORDERING_PSEUDO_SEEDED:
      // Measured: only XORWOW has a seeded ordering.
      if (G->Type != CURAND_RNG_PSEUDO_XORWOW)
        return CURAND_STATUS_OUT_OF_RANGE;
      break;
    case CURAND_ORDERING_PSEUDO_DYNAMIC:
      // Measured: not for host generators, nor MT19937.
      if (G->Host || G->Type == CURAND_RNG_PSEUDO_MT19937)
        return CURAND_STATUS_OUT_OF_RANGE;
      break;
    default:
      return CURAND_STATUS_OUT_OF_RANGE;
    }
  }
  {
    std::lock_guard<std::mutex> Guard(G->Lock);
    G->Order = order;
  }
  restart(*G);
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                                  unsigned int num_dimensions) {
  Generator *G = lookup(generator);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (!isQuasi(G->Type))
    return CURAND_STATUS_TYPE_ERROR;
  if (num_dimensions < 1 || num_dimensions > 20000)
    return CURAND_STATUS_OUT_OF_RANGE;
  G->Dimensions = num_dimensions;
  restart(*G);
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandGenerateSeeds(curandGenerator_t generator) {
  // The states are made when the first results need them.
  return lookup(generator) ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}

extern "C" curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num) {
  return run(generator, Output::Bits, outputPtr, num);
}

extern "C" curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long *outputPtr,
                                                 size_t num) {
  return run(generator, Output::Bits, outputPtr, num, 0, 1, true);
}

extern "C" curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num) {
  return run(generator, Output::Uniform, outputPtr, num);
}

extern "C" curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num) {
  return run(generator, Output::UniformDouble, outputPtr, num);
}

extern "C" curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean,
                                               float stddev) {
  return run(generator, Output::Normal, outputPtr, n, mean, stddev);
}

extern "C" curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
                                                     double mean, double stddev) {
  return run(generator, Output::NormalDouble, outputPtr, n, mean, stddev);
}

extern "C" curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                                  float mean, float stddev) {
  return run(generator, Output::LogNormal, outputPtr, n, mean, stddev);
}

extern "C" curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
                                                        double mean, double stddev) {
  return run(generator, Output::LogNormalDouble, outputPtr, n, mean, stddev);
}

extern "C" curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int *outputPtr, size_t n,
                                                double lambda) {
  return poisson(generator, outputPtr, n, lambda);
}

extern "C" curandStatus_t curandGeneratePoissonMethod(curandGenerator_t generator, unsigned int *outputPtr, size_t n,
                                                      double lambda, curandMethod_t method) {
  Generator *G = lookup(generator);
  if (!G)
    return CURAND_STATUS_NOT_INITIALIZED;
  if (!(lambda > 0))
    return CURAND_STATUS_OUT_OF_RANGE;
  return notSupported("curandGeneratePoissonMethod");
}

namespace {

/// A discrete distribution as the device API reads it (curand_discrete.h's
/// structs), in one device allocation, with a host copy of the same bytes
/// whose device pointers are rewritten to host ones for the host_* fields.
struct DistributionBlock {
  size_t Bytes = 0;
  std::vector<unsigned char> Host;
  CUdeviceptr Device = 0;
};

std::mutex DistributionLock;
std::unordered_map<curandDiscreteDistribution_t, DistributionBlock *> &distributions() {
  static auto *M = new std::unordered_map<curandDiscreteDistribution_t, DistributionBlock *>();
  return *M;
}

size_t alignUp(size_t X) { return (X + 15) & ~size_t(15); }

} // namespace

extern "C" curandStatus_t curandCreatePoissonDistribution(double lambda,
                                                          curandDiscreteDistribution_t *discrete_distribution) {
  if (!(lambda > 0))
    return CURAND_STATUS_OUT_OF_RANGE;
  if (!discrete_distribution)
    return CURAND_STATUS_OUT_OF_RANGE;
  if (lambda > PoissonMeasuredLambda)
    return notSupported("curandCreatePoissonDistribution with lambda above 1500 (not measured)");
  std::shared_ptr<const PoissonTable> T = poissonTable(lambda);
  if (!T)
    return CURAND_STATUS_ALLOCATION_FAILED;
  const ferry::libs::DriverTable *Drv = ferry::libs::driver();
  if (!Drv || !ferry::libs::ensureContext())
    return CURAND_STATUS_INITIALIZATION_FAILED;
  size_t N = T->V.size();
  size_t OffM2 = alignUp(sizeof(curandDiscreteDistribution_st));
  size_t OffHist = OffM2 + alignUp(sizeof(curandDistributionM2Shift_st));
  size_t OffV = OffHist + alignUp(sizeof(curandHistogramM2_st));
  size_t OffK = OffV + alignUp(N * sizeof(double));
  auto *B = new (std::nothrow) DistributionBlock();
  if (!B)
    return CURAND_STATUS_ALLOCATION_FAILED;
  B->Bytes = OffK + N * sizeof(unsigned);
  B->Host.assign(B->Bytes, 0);
  if (Drv->MemAlloc(&B->Device, B->Bytes) != CUDA_SUCCESS) {
    delete B;
    return CURAND_STATUS_ALLOCATION_FAILED;
  }
  unsigned char *H = B->Host.data();
  CUdeviceptr D = B->Device;
  // The host copy that self_host_ptr and the host_* fields point into.
  auto *HD = reinterpret_cast<curandDiscreteDistribution_st *>(H);
  auto *HM2 = reinterpret_cast<curandDistributionM2Shift_st *>(H + OffM2);
  auto *HHist = reinterpret_cast<curandHistogramM2_st *>(H + OffHist);
  std::memcpy(H + OffV, T->V.data(), N * sizeof(double));
  std::memcpy(H + OffK, T->K.data(), N * sizeof(unsigned));
  HD->self_host_ptr = HD;
  HD->M2 = reinterpret_cast<curandDistributionM2Shift_t>(D + OffM2);
  HD->host_M2 = HM2;
  HD->stddev = std::sqrt(lambda);
  HD->mean = lambda;
  HD->method = CURAND_M2;
  HM2->histogram = reinterpret_cast<curandHistogramM2_t>(D + OffHist);
  HM2->host_histogram = HHist;
  HM2->shift = T->Shift;
  HM2->length = static_cast<unsigned>(N);
  HHist->V = reinterpret_cast<curandHistogramM2V_t>(D + OffV);
  HHist->host_V = reinterpret_cast<curandHistogramM2V_t>(H + OffV);
  HHist->K = reinterpret_cast<curandHistogramM2K_t>(D + OffK);
  HHist->host_K = reinterpret_cast<curandHistogramM2K_t>(H + OffK);
  CUDA_MEMCPY2D Copy{};
  Copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  Copy.srcHost = H;
  Copy.srcPitch = B->Bytes;
  Copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  Copy.dstDevice = D;
  Copy.dstPitch = B->Bytes;
  Copy.WidthInBytes = B->Bytes;
  Copy.Height = 1;
  if (Drv->Memcpy2D(&Copy) != CUDA_SUCCESS) {
    Drv->MemFree(D);
    delete B;
    return CURAND_STATUS_INTERNAL_ERROR;
  }
  auto Handle = reinterpret_cast<curandDiscreteDistribution_t>(D);
  {
    std::lock_guard<std::mutex> Guard(DistributionLock);
    distributions()[Handle] = B;
  }
  *discrete_distribution = Handle;
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandDestroyDistribution(curandDiscreteDistribution_t discrete_distribution) {
  DistributionBlock *B = nullptr;
  {
    std::lock_guard<std::mutex> Guard(DistributionLock);
    auto It = distributions().find(discrete_distribution);
    if (It == distributions().end())
      return CURAND_STATUS_OUT_OF_RANGE;
    B = It->second;
    distributions().erase(It);
  }
  if (const ferry::libs::DriverTable *Drv = ferry::libs::driver())
    Drv->MemFree(B->Device);
  delete B;
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t **vectors,
                                                      curandDirectionVectorSet_t set) {
  if (set != CURAND_DIRECTION_VECTORS_32_JOEKUO6 && set != CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  if (!vectors)
    return CURAND_STATUS_OUT_OF_RANGE;
  // The host table of 20000 x 32 vectors, as NVIDIA's returns a host pointer.
  const uint32_t *T =
      set == CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 ? scrambledDirections32() : sobolDirections32();
  *vectors = reinterpret_cast<curandDirectionVectors32_t *>(const_cast<uint32_t *>(T));
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t **vectors,
                                                      curandDirectionVectorSet_t set) {
  if (set != CURAND_DIRECTION_VECTORS_64_JOEKUO6 && set != CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  if (!vectors)
    return CURAND_STATUS_OUT_OF_RANGE;
  const uint64_t *T =
      set == CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 ? scrambledDirections64() : sobolDirections64();
  *vectors = reinterpret_cast<curandDirectionVectors64_t *>(
      const_cast<unsigned long long *>(reinterpret_cast<const unsigned long long *>(T)));
  return CURAND_STATUS_SUCCESS;
}

// The scramble constants, one per dimension (20000), in host memory as
// NVIDIA's (Sobol.h says how they are made).
extern "C" curandStatus_t curandGetScrambleConstants32(unsigned int **constants) {
  if (!constants)
    return CURAND_STATUS_OUT_OF_RANGE;
  *constants = const_cast<unsigned int *>(scrambleConstants32());
  return CURAND_STATUS_SUCCESS;
}

extern "C" curandStatus_t curandGetScrambleConstants64(unsigned long long **constants) {
  if (!constants)
    return CURAND_STATUS_OUT_OF_RANGE;
  *constants = const_cast<unsigned long long *>(reinterpret_cast<const unsigned long long *>(scrambleConstants64()));
  return CURAND_STATUS_SUCCESS;
}
