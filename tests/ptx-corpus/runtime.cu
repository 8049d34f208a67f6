// Corpus: printf with many argument types, assert, device malloc/free and
// new/delete, recursion, function pointers, virtual calls, noinline calls,
// local arrays with dynamic indexing, goto-heavy control flow and switch.
#include <cassert>
#include <cstdio>
#include <new>

__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ __noinline__ double fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ int add1(int x) { return x + 1; }
__device__ int dbl(int x) { return x * 2; }
__device__ int sq(int x) { return x * x; }
typedef int (*IntFn)(int);
__device__ IntFn gTable[3] = {add1, dbl, sq};

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float s;
  __device__ Square(float s) : s(s) {}
  __device__ float area() const override { return s * s; }
};
struct Circle : Shape {
  float r;
  __device__ Circle(float r) : r(r) {}
  __device__ float area() const override { return 3.14159f * r * r; }
};

__global__ void runtimeKernel(int *out, float *fo, int n, const char *msg) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  printf("thread %d block %u char %c str %s float %f double %e hex %x long %ld ull %llu ptr %p\n", i, blockIdx.x,
         'A' + (i & 7), msg, 1.5f * i, 2.5 * i, i, (long)i * 3, 12345678901234ull, out);
  assert(n > 0 && "n must be positive");
  int *buf = (int *)malloc(sizeof(int) * 16);
  if (buf) {
    for (int k = 0; k < 16; ++k)
      buf[k] = k * i;
    out[i] = buf[i & 15];
    free(buf);
  }
  Shape *s = (i & 1) ? (Shape *)new Square(2.0f) : (Shape *)new Circle(1.0f);
  fo[i] = s->area();
  delete s;
  IntFn f = gTable[i % 3];
  out[i] += f(i) + fact(i & 7) + (int)fib(i & 15);
  int local[32];
  for (int k = 0; k < 32; ++k)
    local[k] = k ^ i;
  out[i] += local[(i * 7) & 31];
  switch (i % 6) {
  case 0: out[i] += 10; break;
  case 1: out[i] -= 3; break;
  case 2: out[i] *= 7; break;
  case 3: out[i] ^= 0x55; break;
  case 4: out[i] = ~out[i]; break;
  default: out[i] = 0;
  }
  if (i == n + 1000)
    __trap();
  if (i == n + 2000)
    __brkpt();
}
