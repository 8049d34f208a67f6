// A test double for the HIP runtime (libamdhip64.so.6): the stream calls
// ferry's libcublas makes for rocBLAS (libs/cublas/RocBlas.cpp), and the
// memset libcusolver makes for devInfo (libs/cusolver/RocSolver.cpp).
// Streams are counted so rocBLAS's double can tell a real one from garbage.
#include <cstdint>
#include <cstdio>

namespace {
struct FakeStream {
  uint32_t Magic = 0x48495053; // "HIPS"; FakeRocblas.cpp checks it
  uint64_t Syncs = 0;
};
bool fakeHipStreamValid(void *S) { return S && static_cast<FakeStream *>(S)->Magic == 0x48495053; }
} // namespace

extern "C" {
int hipStreamCreate(void **Out) {
  if (!Out)
    return 1; // hipErrorInvalidValue
  *Out = new FakeStream;
  return 0;
}
int hipStreamSynchronize(void *S) {
  if (!fakeHipStreamValid(S))
    return 400; // hipErrorInvalidHandle
  ++static_cast<FakeStream *>(S)->Syncs;
  return 0;
}
int hipStreamDestroy(void *S) {
  if (!fakeHipStreamValid(S))
    return 400;
  std::fprintf(stderr, "fake HIP: stream destroyed after %llu synchronisations\n",
               (unsigned long long)static_cast<FakeStream *>(S)->Syncs);
  static_cast<FakeStream *>(S)->Magic = 0;
  delete static_cast<FakeStream *>(S);
  return 0;
}
// Device memory is host memory on the simulator: set it directly.
int hipMemsetD32Async(void *Dst, int Value, size_t Count, void *S) {
  if (!fakeHipStreamValid(S))
    return 400;
  if (!Dst && Count)
    return 1;
  for (size_t I = 0; I < Count; ++I)
    static_cast<int32_t *>(Dst)[I] = Value;
  return 0;
}
}
