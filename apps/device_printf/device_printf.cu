/// \file
/// Device-side printf the way programs use it for diagnostics: formatted
/// integers, floats, strings and characters, width and precision, printed
/// from one thread per launch so the order is deterministic, and flushed at
/// synchronisation points between host prints.
#include "../common/app_util.h"

struct Particle {
  float X, Y;
  int Id;
};

__global__ void report(const Particle *P, int N, int Step) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  printf("step %d: %d particles\n", Step, N);
  for (int I = 0; I < N; ++I)
    printf("  [%02d] id=%-4d pos=(%8.3f, %8.3f) tag=%c\n", I, P[I].Id, P[I].X, P[I].Y, 'A' + P[I].Id % 26);
}

__global__ void formats() {
  if (threadIdx.x == 0) {
    printf("ints: %d %i %u %x %X %o %5d|%-5d|%05d\n", -42, 17, 4000000000u, 0xbeef, 0xbeef, 8, 7, 7, 7);
    printf("longs: %ld %lld %llu %llx\n", -1234567890123L, 9000000000000LL, 18000000000000000000ULL,
           0x123456789abcULL);
    printf("floats: %f %.2f %e %.3e %g %g %10.4f|\n", 3.14159f, 2.71828, 12345.678, 0.000123, 0.5, 1e20, -1.5);
    printf("strings: [%s] [%10s] [%-6s] %c%c 100%%\n", "device", "right", "left", 'o', 'k');
  }
}

__global__ void blockHello() {
  // One thread per block; blocks run as separate launches from the host so
  // the printed order does not depend on the scheduler.
  if (threadIdx.x == 0)
    printf("hello from block %d of %d (blockDim=%d)\n", blockIdx.x, gridDim.x, blockDim.x);
}

__global__ void move(Particle *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    P[I].X += 0.5f * (I % 3);
    P[I].Y -= 0.25f * (I % 5);
  }
}

int main() {
  const int N = 8;
  Particle Host[N];
  Lcg Rng(5);
  for (int I = 0; I < N; ++I)
    Host[I] = {float(int(Rng.below(2000)) - 1000) / 8.0f, float(int(Rng.below(2000)) - 1000) / 8.0f, int(Rng.below(1000))};
  Particle *Dev;
  CHECK(cudaMalloc(&Dev, sizeof(Host)));
  CHECK(cudaMemcpy(Dev, Host, sizeof(Host), cudaMemcpyHostToDevice));
  std::printf("host: before launches\n");
  std::fflush(stdout);
  formats<<<1, 32>>>();
  CHECK(cudaDeviceSynchronize());
  std::fflush(stdout);
  for (int Step = 0; Step < 2; ++Step) {
    report<<<1, 32>>>(Dev, N, Step);
    CHECK(cudaDeviceSynchronize());
    std::printf("host: step %d reported\n", Step);
    std::fflush(stdout);
    move<<<1, 32>>>(Dev, N);
    CHECK(cudaGetLastError());
  }
  for (int B = 0; B < 3; ++B) {
    blockHello<<<dim3(1), dim3(64)>>>();
    CHECK(cudaDeviceSynchronize());
    std::fflush(stdout);
  }
  size_t Fifo = 0;
  CHECK(cudaDeviceGetLimit(&Fifo, cudaLimitPrintfFifoSize));
  std::printf("printf fifo nonzero: %s\n", Fifo > 0 ? "yes" : "no");
  CHECK(cudaMemcpy(Host, Dev, sizeof(Host), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(Dev));
  return finish(true);
}
