// Memsets of every width and shape and copies of every kind, each checked
// against a host model of the device buffer by copying it back. Built by
// nvcc; run by ctest hsa.nohost.* on simulated AMD GPUs whose device memory
// the host cannot touch (FERRY_SIM_HOST_ACCESS=trap: a host load or store
// of it kills the process), so every byte here moves on the GPU's side.
//
//   MemoryOps            all checks; prints "memory ops: N checks passed"
//   MemoryOps fail-copy  a 4099-byte device-to-device copy (the test makes
//                        the simulated DMA engine fail copies of that size)
//                        must return an error, and so must the next sync
//   MemoryOps fail-copy-kernel  the same copy async, then a kernel on its
//                        stream: the stream's sync must return an error
//   MemoryOps fail-fill  a memset whose 3-byte edge goes by DMA (the test
//                        fails copies of 3 bytes) must return an error
//   MemoryOps host-touch writes device memory from the host: must die
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static int Checks = 0;

#define CK(X)                                                                                      \
  do {                                                                                             \
    cudaError_t E_ = (X);                                                                          \
    if (E_ != cudaSuccess) {                                                                       \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #X, cudaGetErrorString(E_));         \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define CU(X)                                                                                      \
  do {                                                                                             \
    CUresult E_ = (X);                                                                             \
    if (E_ != CUDA_SUCCESS) {                                                                      \
      std::printf("FAIL %s:%d %s: CUresult %d\n", __FILE__, __LINE__, #X, int(E_));              \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

__device__ uint8_t Symbol[300];

__global__ void addOne(uint8_t *P, size_t N) {
  size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (I < N)
    P[I] = uint8_t(P[I] + 1);
}

constexpr size_t Bytes = 40000;
static uint8_t *Dev;                 // the device buffer
static std::vector<uint8_t> Model;   // what it must hold
static uint32_t Seed = 12345;

static uint8_t rnd() {
  Seed = Seed * 1664525u + 1013904223u;
  return uint8_t(Seed >> 24);
}

static void check(const char *What) {
  std::vector<uint8_t> Back(Bytes, 0xee);
  CK(cudaMemcpy(Back.data(), Dev, Bytes, cudaMemcpyDeviceToHost));
  for (size_t I = 0; I < Bytes; ++I)
    if (Back[I] != Model[I]) {
      std::printf("FAIL after %s: byte %zu is %#x, expected %#x\n", What, I, Back[I], Model[I]);
      std::exit(1);
    }
  ++Checks;
}

static void modelFill(size_t Off, size_t Pitch, uint32_t V, unsigned Elem, size_t W, size_t H) {
  for (size_t Y = 0; Y < H; ++Y)
    for (size_t X = 0; X < W * Elem; ++X)
      Model[Off + Y * Pitch + X] = uint8_t(V >> (8 * (X % Elem)));
}

static CUdeviceptr at(size_t Off) { return CUdeviceptr(uintptr_t(Dev + Off)); }

static void memsets(cudaStream_t S) {
  char What[160];
  // 1-D: every width, starts at each element offset within 16 bytes, odd
  // and even counts from 1 to past a page; sync and async.
  const size_t Counts[] = {1, 2, 3, 5, 7, 8, 63, 1000, 4097};
  for (unsigned Elem : {1u, 2u, 4u})
    for (size_t Start = 0; Start < 16; Start += Elem)
      for (size_t N : Counts)
        for (int Async = 0; Async < 2; ++Async) {
          size_t Off = 1024 + Start;
          uint32_t V = uint32_t(rnd()) | uint32_t(rnd()) << 8 | uint32_t(rnd()) << 16 | uint32_t(rnd()) << 24;
          if (Elem == 1) {
            if (Async)
              CU(cuMemsetD8Async(at(Off), uint8_t(V), N, S));
            else
              CU(cuMemsetD8(at(Off), uint8_t(V), N));
          } else if (Elem == 2) {
            if (Async)
              CU(cuMemsetD16Async(at(Off), uint16_t(V), N, S));
            else
              CU(cuMemsetD16(at(Off), uint16_t(V), N));
          } else {
            if (Async)
              CU(cuMemsetD32Async(at(Off), V, N, S));
            else
              CU(cuMemsetD32(at(Off), V, N));
          }
          if (Async)
            CK(cudaStreamSynchronize(S));
          modelFill(Off, 0, V, Elem, N, 1);
          std::snprintf(What, sizeof What, "cuMemsetD%u%s(+%zu, n=%zu)", 8 * Elem, Async ? "Async" : "", Off, N);
          check(What);
        }
  // 2-D: pitched, rows starting at every phase, widths odd and even.
  struct Shape { size_t Start, Pitch, W, H; };
  const Shape Shapes[] = {{0, 64, 16, 4}, {3, 101, 7, 9}, {2, 66, 31, 5}, {4, 260, 63, 17}, {1, 3000, 2900, 3}, {6, 8, 8, 40}};
  for (unsigned Elem : {1u, 2u, 4u})
    for (const Shape &Sh : Shapes)
      for (int Async = 0; Async < 2; ++Async) {
        size_t Off = 8000 + Sh.Start / Elem * Elem;
        size_t Pitch = Sh.Pitch / Elem * Elem;
        size_t W = Sh.W * Elem <= Pitch ? Sh.W : Pitch / Elem;
        uint32_t V = uint32_t(rnd()) | uint32_t(rnd()) << 8 | uint32_t(rnd()) << 16 | uint32_t(rnd()) << 24;
        if (Elem == 1)
          CU(Async ? cuMemsetD2D8Async(at(Off), Pitch, uint8_t(V), W, Sh.H, S) : cuMemsetD2D8(at(Off), Pitch, uint8_t(V), W, Sh.H));
        else if (Elem == 2)
          CU(Async ? cuMemsetD2D16Async(at(Off), Pitch, uint16_t(V), W, Sh.H, S) : cuMemsetD2D16(at(Off), Pitch, uint16_t(V), W, Sh.H));
        else
          CU(Async ? cuMemsetD2D32Async(at(Off), Pitch, V, W, Sh.H, S) : cuMemsetD2D32(at(Off), Pitch, V, W, Sh.H));
        if (Async)
          CK(cudaStreamSynchronize(S));
        modelFill(Off, Pitch, V, Elem, W, Sh.H);
        std::snprintf(What, sizeof What, "cuMemsetD2D%u%s(+%zu, pitch %zu, %zu x %zu)", 8 * Elem, Async ? "Async" : "", Off, Pitch, W, Sh.H);
        check(What);
      }
  // The runtime's forms.
  CK(cudaMemset(Dev + 5, 0x3c, 777));
  modelFill(5, 0, 0x3c, 1, 777, 1);
  check("cudaMemset");
  CK(cudaMemsetAsync(Dev + 20001, 0xa7, 12345, S));
  CK(cudaStreamSynchronize(S));
  modelFill(20001, 0, 0xa7, 1, 12345, 1);
  check("cudaMemsetAsync");
  CK(cudaMemset2D(Dev + 33, 97, 0x11, 45, 11));
  modelFill(33, 97, 0x11, 1, 45, 11);
  check("cudaMemset2D");
  CK(cudaMemset2DAsync(Dev + 30002, 129, 0x5e, 128, 30, S));
  CK(cudaStreamSynchronize(S));
  modelFill(30002, 129, 0x5e, 1, 128, 30);
  check("cudaMemset2DAsync");
  // In stream order with kernels: fill, add one, fill part again.
  CK(cudaMemsetAsync(Dev + 100, 0x40, 1001, S));
  addOne<<<8, 128, 0, S>>>(Dev + 100, 1001);
  CK(cudaGetLastError());
  CK(cudaMemsetAsync(Dev + 103, 0x7f, 5, S));
  CU(cuMemsetD16Async(at(600), 0x1234, 3, S));
  addOne<<<1, 64, 0, S>>>(Dev + 600, 7);
  CK(cudaStreamSynchronize(S));
  modelFill(100, 0, 0x41, 1, 1001, 1);
  modelFill(103, 0, 0x7f, 1, 5, 1);
  modelFill(600, 0, 0x1234, 2, 3, 1);
  for (size_t I = 600; I < 607; ++I)
    Model[I] = uint8_t(Model[I] + 1);
  check("memsets and kernels in stream order");
}

static void randomize(uint8_t *P, size_t N) {
  for (size_t I = 0; I < N; ++I)
    P[I] = rnd();
}

static void copies(cudaStream_t S) {
  char What[160];
  uint8_t *Pinned;
  CK(cudaMallocHost(&Pinned, Bytes));
  std::vector<uint8_t> Pageable(Bytes);
  uint8_t *Other;
  CK(cudaMalloc(&Other, Bytes));
  const size_t Sizes[] = {1, 3, 4, 7, 100, 4099, 12288};
  const size_t Offs[] = {0, 1, 3, 4096 + 5};
  for (size_t N : Sizes)
    for (size_t Off : Offs)
      for (int Kind = 0; Kind < 6; ++Kind) {
        // H2D: pageable sync, pinned sync, pinned async, pageable async.
        uint8_t *Src = Kind % 2 ? Pinned : Pageable.data();
        randomize(Src + 7, N);
        size_t DOff = 2 * Off + 11;
        std::memcpy(Model.data() + DOff, Src + 7, N); // what the copy must carry
        if (Kind < 2) {
          CK(cudaMemcpy(Dev + DOff, Src + 7, N, cudaMemcpyHostToDevice));
        } else if (Kind < 4) {
          CK(cudaMemcpyAsync(Dev + DOff, Src + 7, N, cudaMemcpyHostToDevice, S));
          if (Kind == 2) // CUDA: a pageable source may be reused at once
            std::memset(Src + 7, 0, N);
          CK(cudaStreamSynchronize(S));
        } else { // cudaMemcpyDefault (UVA)
          CK(cudaMemcpy(Dev + DOff, Src + 7, N, cudaMemcpyDefault));
        }
        std::snprintf(What, sizeof What, "H2D kind %d n=%zu off=%zu", Kind, N, DOff);
        check(What);
        // D2H the same range back: pageable/pinned, sync/async.
        uint8_t *To = Kind % 2 ? Pinned : Pageable.data();
        std::memset(To + 3, 0xcd, N);
        if (Kind < 2)
          CK(cudaMemcpy(To + 3, Dev + DOff, N, cudaMemcpyDeviceToHost));
        else {
          CK(cudaMemcpyAsync(To + 3, Dev + DOff, N, cudaMemcpyDeviceToHost, S));
          CK(cudaStreamSynchronize(S));
        }
        if (std::memcmp(To + 3, Model.data() + DOff, N)) {
          std::printf("FAIL D2H kind %d n=%zu off=%zu\n", Kind, N, DOff);
          std::exit(1);
        }
        ++Checks;
        // D2D within the buffer and through another allocation.
        size_t From = DOff, Dst = 20000 + Off;
        if (Kind % 2)
          CK(cudaMemcpy(Dev + Dst, Dev + From, N, cudaMemcpyDeviceToDevice));
        else {
          CK(cudaMemcpyAsync(Other + 1, Dev + From, N, cudaMemcpyDeviceToDevice, S));
          CK(cudaMemcpyAsync(Dev + Dst, Other + 1, N, cudaMemcpyDeviceToDevice, S));
          CK(cudaStreamSynchronize(S));
        }
        std::memmove(Model.data() + Dst, Model.data() + From, N);
        std::snprintf(What, sizeof What, "D2D kind %d n=%zu", Kind, N);
        check(What);
      }
  // 2-D: H2D from pinned and pageable, D2H, D2D, with pitches.
  {
    size_t W = 37, H = 13, HostPitch = 50, DevPitch = 64;
    randomize(Pageable.data(), HostPitch * H);
    CK(cudaMemcpy2D(Dev + 501, DevPitch, Pageable.data(), HostPitch, W, H, cudaMemcpyHostToDevice));
    for (size_t Y = 0; Y < H; ++Y)
      std::memcpy(Model.data() + 501 + Y * DevPitch, Pageable.data() + Y * HostPitch, W);
    check("cudaMemcpy2D H2D pageable");
    randomize(Pinned, HostPitch * H);
    CK(cudaMemcpy2DAsync(Dev + 2003, DevPitch + 1, Pinned, HostPitch, W, H, cudaMemcpyHostToDevice, S));
    CK(cudaStreamSynchronize(S));
    for (size_t Y = 0; Y < H; ++Y)
      std::memcpy(Model.data() + 2003 + Y * (DevPitch + 1), Pinned + Y * HostPitch, W);
    check("cudaMemcpy2DAsync H2D pinned");
    CK(cudaMemcpy2D(Dev + 9000, 40, Dev + 501, DevPitch, W, H, cudaMemcpyDeviceToDevice));
    for (size_t Y = 0; Y < H; ++Y)
      std::memmove(Model.data() + 9000 + Y * 40, Model.data() + 501 + Y * DevPitch, W);
    check("cudaMemcpy2D D2D");
    std::vector<uint8_t> Back(HostPitch * H, 0);
    CK(cudaMemcpy2D(Back.data(), HostPitch, Dev + 2003, DevPitch + 1, W, H, cudaMemcpyDeviceToHost));
    for (size_t Y = 0; Y < H; ++Y)
      if (std::memcmp(Back.data() + Y * HostPitch, Model.data() + 2003 + Y * (DevPitch + 1), W)) {
        std::printf("FAIL cudaMemcpy2D D2H row %zu\n", Y);
        std::exit(1);
      }
    ++Checks;
  }
  // 3-D: a box of a pitched volume, H2D, D2D and D2H.
  {
    size_t W = 9, H = 5, D = 4, Pitch = 16, Rows = 7; // device volume: 16 x 7 x 4 at +12000
    std::vector<uint8_t> Host(11 * 6 * 4);
    randomize(Host.data(), Host.size());
    cudaMemcpy3DParms P = {};
    P.srcPtr = make_cudaPitchedPtr(Host.data(), 11, 11, 6);
    P.srcPos = make_cudaPos(1, 1, 0);
    P.dstPtr = make_cudaPitchedPtr(Dev + 12000, Pitch, Pitch, Rows);
    P.dstPos = make_cudaPos(3, 2, 0);
    P.extent = make_cudaExtent(W, H, D);
    P.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&P));
    for (size_t Z = 0; Z < D; ++Z)
      for (size_t Y = 0; Y < H; ++Y)
        std::memcpy(Model.data() + 12000 + (Z * Rows + Y + 2) * Pitch + 3, Host.data() + (Z * 6 + Y + 1) * 11 + 1, W);
    check("cudaMemcpy3D H2D");
    cudaMemcpy3DParms Q = {};
    Q.srcPtr = make_cudaPitchedPtr(Dev + 12000, Pitch, Pitch, Rows);
    Q.dstPtr = make_cudaPitchedPtr(Dev + 14001, 20, 20, 6);
    Q.extent = make_cudaExtent(Pitch, Rows - 1, D);
    Q.kind = cudaMemcpyDeviceToDevice;
    CK(cudaMemcpy3DAsync(&Q, S));
    CK(cudaStreamSynchronize(S));
    for (size_t Z = 0; Z < D; ++Z)
      for (size_t Y = 0; Y < Rows - 1; ++Y)
        std::memmove(Model.data() + 14001 + (Z * 6 + Y) * 20, Model.data() + 12000 + (Z * Rows + Y) * Pitch, Pitch);
    check("cudaMemcpy3DAsync D2D");
    std::vector<uint8_t> Back(20 * 6 * D, 0);
    cudaMemcpy3DParms R = {};
    R.srcPtr = make_cudaPitchedPtr(Dev + 14001, 20, 20, 6);
    R.dstPtr = make_cudaPitchedPtr(Back.data(), 20, 20, 6);
    R.extent = make_cudaExtent(20, 6, D);
    R.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&R));
    if (std::memcmp(Back.data(), Model.data() + 14001, Back.size())) {
      std::printf("FAIL cudaMemcpy3D D2H\n");
      std::exit(1);
    }
    ++Checks;
  }
  // Module variables.
  {
    uint8_t In[300], Out[300];
    randomize(In, sizeof In);
    CK(cudaMemcpyToSymbol(Symbol, In, sizeof In));
    CK(cudaMemset(Dev + 31000, 0, 300));
    CK(cudaMemcpyFromSymbol(Dev + 31000, Symbol, 299, 1, cudaMemcpyDeviceToDevice));
    std::memset(Model.data() + 31000, 0, 300);
    std::memcpy(Model.data() + 31000, In + 1, 299);
    check("cudaMemcpyFromSymbol D2D");
    CK(cudaMemcpyFromSymbol(Out, Symbol, sizeof Out));
    if (std::memcmp(In, Out, sizeof In)) {
      std::printf("FAIL cudaMemcpyFromSymbol\n");
      std::exit(1);
    }
    ++Checks;
  }
  // A pageable buffer partly registered: the copy's range overlaps the
  // registered one, so it cannot be locked as a whole and goes through a
  // staging buffer.
  {
    std::vector<uint8_t> Big(3 * 4096 + 100);
    uint8_t *Base = Big.data();
    CK(cudaHostRegister(Base + 4096, 4096, cudaHostRegisterDefault));
    randomize(Base, Big.size());
    CK(cudaMemcpy(Dev + 100, Base + 10, 3 * 4096, cudaMemcpyHostToDevice));
    std::memcpy(Model.data() + 100, Base + 10, 3 * 4096);
    check("H2D from a range straddling a registered one");
    std::memset(Base, 0, Big.size());
    CK(cudaMemcpy(Base + 3, Dev + 1, 3 * 4096 + 7, cudaMemcpyDeviceToHost));
    if (std::memcmp(Base + 3, Model.data() + 1, 3 * 4096 + 7)) {
      std::printf("FAIL D2H into a range straddling a registered one\n");
      std::exit(1);
    }
    ++Checks;
    // 2-D from it, async.
    CK(cudaMemcpy2DAsync(Dev + 25000, 300, Base + 4000, 1000, 200, 9, cudaMemcpyHostToDevice, S));
    CK(cudaStreamSynchronize(S));
    for (size_t Y = 0; Y < 9; ++Y)
      std::memcpy(Model.data() + 25000 + Y * 300, Base + 4000 + Y * 1000, 200);
    check("2-D H2D from a range straddling a registered one");
    CK(cudaHostUnregister(Base + 4096));
  }
  // Peer copies where there are two GPUs.
  int Count = 0;
  CK(cudaGetDeviceCount(&Count));
  if (Count > 1) {
    uint8_t *Far;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&Far, 5000));
    CK(cudaSetDevice(0));
    CK(cudaMemcpyPeer(Far + 1, 1, Dev + 3, 0, 4097));
    CK(cudaMemcpyPeerAsync(Dev + 10001, 0, Far + 1, 1, 4097, S));
    CK(cudaStreamSynchronize(S));
    std::memmove(Model.data() + 10001, Model.data() + 3, 4097);
    check("cudaMemcpyPeer there and back");
    CK(cudaSetDevice(1));
    CK(cudaFree(Far));
    CK(cudaSetDevice(0));
  }
  CK(cudaFree(Other));
  CK(cudaFreeHost(Pinned));
}

int main(int Argc, char **Argv) {
  const char *Mode = Argc > 1 ? Argv[1] : "";
  CK(cudaMalloc(&Dev, Bytes));
  cudaStream_t S;
  CK(cudaStreamCreate(&S));
  if (!std::strcmp(Mode, "host-touch")) {
    std::printf("writing device memory from the host\n");
    std::fflush(stdout);
    *reinterpret_cast<volatile uint8_t *>(Dev) = 1;
    std::printf("the host wrote device memory\n");
    return 0;
  }
  if (!std::strcmp(Mode, "fail-copy")) {
    uint8_t *Other;
    CK(cudaMalloc(&Other, 8192));
    cudaError_t E = cudaMemcpy(Other, Dev, 4099, cudaMemcpyDeviceToDevice);
    cudaError_t Next = cudaDeviceSynchronize();
    std::printf("failed copy: %s, then %s\n", cudaGetErrorName(E), cudaGetErrorName(Next));
    return E != cudaSuccess && Next != cudaSuccess ? 0 : 1;
  }
  if (!std::strcmp(Mode, "fail-copy-kernel")) {
    // The failed copy is followed by a kernel on its stream: the kernel's
    // barrier on the copy fails the queue; the sync must report an error.
    uint8_t *Other;
    CK(cudaMalloc(&Other, 8192));
    cudaError_t E = cudaMemcpyAsync(Other, Dev, 4099, cudaMemcpyDeviceToDevice, S);
    addOne<<<1, 64, 0, S>>>(Other, 64);
    cudaError_t Sync = cudaStreamSynchronize(S);
    std::printf("failed copy then kernel: %s, then %s\n", cudaGetErrorName(E), cudaGetErrorName(Sync));
    return Sync != cudaSuccess ? 0 : 1;
  }
  if (!std::strcmp(Mode, "fail-fill")) {
    cudaError_t E = cudaMemsetAsync(Dev + 1, 7, 4098, S); // 3 head bytes, 3 tail bytes
    cudaError_t Sync = cudaStreamSynchronize(S);
    std::printf("failed fill: %s, then %s\n", cudaGetErrorName(E), cudaGetErrorName(Sync));
    return Sync != cudaSuccess ? 0 : 1;
  }
  Model.resize(Bytes);
  randomize(Model.data(), Bytes);
  CK(cudaMemcpy(Dev, Model.data(), Bytes, cudaMemcpyHostToDevice));
  check("initial upload");
  memsets(S);
  copies(S);
  CK(cudaStreamDestroy(S));
  CK(cudaFree(Dev));
  std::printf("memory ops: %d checks passed\n", Checks);
  return 0;
}
