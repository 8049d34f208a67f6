// NVIDIA's multi-GPU cuFFT measured on ONE GPU: cufftXtSetGPUs with {0,0}
// (the same device twice) makes a two-GPU plan whose parts both live on
// device 0, which shows the 1D factors (2^5..2^22 points), the shuffled
// layouts (the result's strings against permuted2Linear, the order of
// CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED), what device-to-device copies do, and
// the statuses of misuse. Its H100 output is goldens/CufftXtProbe.out;
// ctest cufft.xt-probe compares ferry's with it (compare-xt-probe).
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <map>

static int Same[2] = {0, 0};

static cufftHandle plan1d(long n, int batch, cufftType t, cufftResult *r, size_t *ws) {
  cufftHandle p;
  cufftCreate(&p);
  cufftResult a = cufftXtSetGPUs(p, 2, Same);
  if (a) { *r = a; return p; }
  *r = cufftMakePlan1d(p, int(n), t, batch, ws);
  return p;
}

static long perm2lin(const cufftXt1dFactors &F, long i, int g) {
  long in = i & F.substringMask;
  long sub = (i >> F.substringShift) & F.factor2Mask;
  long str = ((i >> F.stringShift) & F.stringMask) + (g ? F.stringCount / 2 : 0);
  return in + (str << F.substringShift) + (sub << F.factor1Shift);
}

int main() {
  int count = 0;
  cudaGetDeviceCount(&count);
  printf("devices %d\n", count);
  cufftHandle p;
  cufftCreate(&p);
  int one[1] = {0}, two01[2] = {0, 1};
  printf("SetGPUs(1,{0}) = %d\n", cufftXtSetGPUs(p, 1, one));
  printf("SetGPUs(2,{0,1}) = %d\n", cufftXtSetGPUs(p, 2, two01));
  printf("SetGPUs(2,NULL) = %d\n", cufftXtSetGPUs(p, 2, nullptr));
  printf("SetGPUs(2,{0,0}) = %d\n", cufftXtSetGPUs(p, 2, Same));
  cufftDestroy(p);
  // single-GPU plan and descriptors
  cufftHandle s;
  cufftPlan1d(&s, 64, CUFFT_C2C, 1);
  cudaLibXtDesc *sd = nullptr;
  cufftResult r = cufftXtMalloc(s, &sd, CUFFT_XT_FORMAT_INPLACE);
  printf("single-GPU plan: XtMalloc = %d", r);
  if (!r) printf(" nGPUs %d GPUs[0] %d size[0] %zu data[0] %p", sd->descriptor->nGPUs, sd->descriptor->GPUs[0], sd->descriptor->size[0], sd->descriptor->data[0]);
  printf("\n");
  if (!r) {
    printf("single-GPU plan: ExecDescriptorC2C = %d\n", cufftXtExecDescriptorC2C(s, sd, sd, CUFFT_FORWARD));
    cufftXt1dFactors f;
    printf("single-GPU plan: QueryPlan = %d\n", cufftXtQueryPlan(s, &f, CUFFT_QUERY_1D_FACTORS));
    printf("single-GPU plan: XtFree = %d\n", cufftXtFree(sd));
  }
  cufftDestroy(s);

  for (int k = 5; k <= 22; ++k) {
    long n = 1L << k;
    size_t ws[2] = {7, 7};
    cufftHandle q = plan1d(n, 1, CUFFT_C2C, &r, ws);
    printf("n=2^%d make %d ws %zu %zu", k, r, ws[0], ws[1]);
    if (!r) {
      cufftXt1dFactors F;
      cufftResult qr = cufftXtQueryPlan(q, &F, CUFFT_QUERY_1D_FACTORS);
      printf(" query %d size %lld strings %lld strlen %lld sublen %lld f1 %lld f2 %lld masks %llx %llx %llx %llx shifts %d %d %d %d", qr,
             F.size, F.stringCount, F.stringLength, F.substringLength, F.factor1, F.factor2, F.stringMask, F.substringMask,
             F.factor1Mask, F.factor2Mask, F.stringShift, F.substringShift, F.factor1Shift, F.factor2Shift);
    }
    printf("\n");
    cufftDestroy(q);
  }
  for (long n : {64L, 256L, 1024L, 4096L}) {
    size_t ws[2];
    cufftHandle q = plan1d(n, 1, CUFFT_C2C, &r, ws);
    if (r) { printf("layout n=%ld: make %d\n", n, r); continue; }
    cufftXt1dFactors F;
    cufftXtQueryPlan(q, &F, CUFFT_QUERY_1D_FACTORS);
    cudaLibXtDesc *d;
    r = cufftXtMalloc(q, &d, CUFFT_XT_FORMAT_INPLACE);
    if (r) { printf("layout n=%ld: XtMalloc %d\n", n, r); continue; }
    printf("layout n=%ld: nGPUs %d GPUs %d %d size %zu %zu distinct %d version %d lib %d libDesc %s\n", n, d->descriptor->nGPUs,
           d->descriptor->GPUs[0], d->descriptor->GPUs[1], d->descriptor->size[0], d->descriptor->size[1],
           d->descriptor->data[0] != d->descriptor->data[1], d->version, d->library, d->libDescriptor ? "set" : "null");
    std::vector<cufftComplex> x(n), y(n), part(n / 2);
    for (long i = 0; i < n; ++i) { x[i].x = float(rand()) / RAND_MAX - 0.5f; x[i].y = float(rand()) / RAND_MAX - 0.5f; }
    printf("  H2D %d\n", cufftXtMemcpy(q, d, x.data(), CUFFT_COPY_HOST_TO_DEVICE));
    bool nat = true;
    for (int g = 0; g < 2; ++g) {
      cudaMemcpy(part.data(), d->descriptor->data[g], n / 2 * 8, cudaMemcpyDefault);
      nat = nat && !memcmp(part.data(), x.data() + g * n / 2, n / 2 * 8);
    }
    printf("  natural split by halves: %d\n", nat);
    printf("  exec %d subFormat %d\n", cufftXtExecDescriptorC2C(q, d, d, CUFFT_FORWARD), d->subFormat);
    cudaDeviceSynchronize();
    printf("  D2H %d\n", cufftXtMemcpy(q, y.data(), d, CUFFT_COPY_DEVICE_TO_HOST));
    std::map<std::pair<float, float>, long> where;
    for (long k2 = 0; k2 < n; ++k2) where[{y[k2].x, y[k2].y}] = k2;
    long bad = 0, unmatched = 0;
    for (int g = 0; g < 2; ++g) {
      cudaMemcpy(part.data(), d->descriptor->data[g], n / 2 * 8, cudaMemcpyDefault);
      printf("  gpu%d:", g);
      for (long i = 0; i < n / 2; ++i) {
        auto it = where.find({part[i].x, part[i].y});
        long k2 = it == where.end() ? -1 : it->second;
        if (k2 < 0) ++unmatched;
        if (k2 != perm2lin(F, i, g)) ++bad;
        if (i < 40) printf(" %ld", k2);
      }
      printf("\n");
    }
    printf("  permuted2Linear mismatches %ld unmatched %ld\n", bad, unmatched);
    printf("  H2D into shuffled %d\n", cufftXtMemcpy(q, d, x.data(), CUFFT_COPY_HOST_TO_DEVICE));
    printf("  exec shuffled again %d\n", cufftXtExecDescriptorC2C(q, d, d, CUFFT_INVERSE));
    cudaLibXtDesc *e, *sh;
    cufftXtMalloc(q, &e, CUFFT_XT_FORMAT_INPLACE);
    printf("  D2D shuffled->natural %d subFormat %d\n", cufftXtMemcpy(q, e, d, CUFFT_COPY_DEVICE_TO_DEVICE), e->subFormat);
    nat = true;
    for (int g = 0; g < 2; ++g) {
      cudaMemcpy(part.data(), e->descriptor->data[g], n / 2 * 8, cudaMemcpyDefault);
      nat = nat && !memcmp(part.data(), y.data() + g * n / 2, n / 2 * 8);
    }
    printf("  D2D result natural halves: %d\n", nat);
    printf("  exec out of place %d\n", cufftXtExecDescriptorC2C(q, e, d, CUFFT_FORWARD));
    printf("  ExecDescriptorZ2Z on C2C %d\n", cufftXtExecDescriptorZ2Z(q, (cudaLibXtDesc *)e, (cudaLibXtDesc *)e, CUFFT_FORWARD));
    printf("  ExecC2C raw descriptor cast %d\n", cufftExecC2C(q, (cufftComplex *)e, (cufftComplex *)e, CUFFT_FORWARD));
    cudaDeviceSynchronize();
    // 1D_INPUT_SHUFFLED order: values are their natural index
    r = cufftXtMalloc(q, &sh, CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED);
    for (long i = 0; i < n; ++i) { x[i].x = float(i); x[i].y = 0; }
    printf("  1D_INPUT_SHUFFLED malloc %d H2D %d\n", r, cufftXtMemcpy(q, sh, x.data(), CUFFT_COPY_HOST_TO_DEVICE));
    long badin = 0;
    long G = 2, perGpu = F.factor2 / G, sPer = F.stringCount / G > 1 ? F.stringCount / G : 1;
    long Q = perGpu / sPer > 1 ? perGpu / sPer : 1;
    for (int g = 0; g < 2; ++g) {
      cudaMemcpy(part.data(), sh->descriptor->data[g], n / 2 * 8, cudaMemcpyDefault);
      printf("  in-shuffled gpu%d:", g);
      for (long i = 0; i < n / 2; ++i) {
        long st = i / (Q * F.factor1), rest = i % (Q * F.factor1);
        long a = g * perGpu + st * Q + rest % Q, b = rest / Q;
        if (long(part[i].x) != a + F.factor2 * b) ++badin;
        if (i < 40) printf(" %ld", long(part[i].x));
      }
      printf("\n");
    }
    printf("  input-shuffled formula mismatches %ld\n", badin);
    printf("  D2H of input-shuffled %d\n", cufftXtMemcpy(q, y.data(), sh, CUFFT_COPY_DEVICE_TO_HOST));
    cufftXtFree(sh);
    cufftXtFree(e);
    cufftXtFree(d);
    cufftDestroy(q);
  }
  // batched: sizes, D2D
  {
    size_t ws[2];
    cufftHandle q = plan1d(16, 3, CUFFT_C2C, &r, ws);
    printf("batched 16x3 make %d\n", r);
    if (!r) {
      cudaLibXtDesc *a, *b;
      printf("  malloc %d %d\n", cufftXtMalloc(q, &a, CUFFT_XT_FORMAT_INPLACE), cufftXtMalloc(q, &b, CUFFT_XT_FORMAT_INPLACE));
      printf("  sizes %zu %zu\n", a->descriptor->size[0], a->descriptor->size[1]);
      std::vector<cufftComplex> x(48), y(48);
      for (int i = 0; i < 48; ++i) { x[i].x = i; x[i].y = -i; }
      cudaMemset(b->descriptor->data[0], 0, b->descriptor->size[0]);
      cudaMemset(b->descriptor->data[1], 0, b->descriptor->size[1]);
      printf("  H2D %d D2D %d\n", cufftXtMemcpy(q, a, x.data(), CUFFT_COPY_HOST_TO_DEVICE), cufftXtMemcpy(q, b, a, CUFFT_COPY_DEVICE_TO_DEVICE));
      printf("  D2H %d\n", cufftXtMemcpy(q, y.data(), b, CUFFT_COPY_DEVICE_TO_HOST));
      printf("  D2D copied: %d\n", !memcmp(x.data(), y.data(), sizeof(x[0]) * 48));
      cudaLibXtDesc *c;
      printf("  malloc formats: SHUFFLED %d ", cufftXtMalloc(q, &c, CUFFT_XT_FORMAT_INPLACE_SHUFFLED));
      printf("1D_IN %d ", cufftXtMalloc(q, &c, CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED));
      printf("5 %d 7 %d\n", cufftXtMalloc(q, &c, (cufftXtSubFormat)5), cufftXtMalloc(q, &c, (cufftXtSubFormat)7));
      printf("  exec out of place %d\n", cufftXtExecDescriptorC2C(q, a, b, CUFFT_FORWARD));
      cudaDeviceSynchronize();
      printf("  subFormat after batched exec %d\n", b->subFormat);
      printf("  XtFree(NULL) %d\n", cufftXtFree(nullptr));
      cufftXtFree(a);
      cufftXtFree(b);
    }
    cufftDestroy(q);
  }
  printf("R2C single 1D make: ");
  { size_t ws[2]; cufftHandle q = plan1d(64, 1, CUFFT_R2C, &r, ws); printf("%d\n", r); cufftDestroy(q); }
  printf("C2C single 1D n=100: ");
  { size_t ws[2]; cufftHandle q = plan1d(100, 1, CUFFT_C2C, &r, ws); printf("%d\n", r); cufftDestroy(q); }
  printf("R2C batched make: ");
  { size_t ws[2]; cufftHandle q = plan1d(64, 4, CUFFT_R2C, &r, ws); printf("%d\n", r); cufftDestroy(q); }
  printf("done\n");
  return 0;
}
