/// \file
/// cuFFT's single 2D/3D multi-GPU layouts, measured on the H100 with a plan on
/// GPUs {0, 0} (goldens/CufftXtLayout.out, compared by compare-goldens):
/// the natural split on x before and the shuffled split on y after a
/// transform, descriptor sizes, subFormat after each transform, and the
/// statuses of wrong formats. Run under ferry with two host devices.
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

static int Same[2] = {0, 0};

static void probe(int rank, const int *n, bool dbl) {
  cufftHandle p;
  cufftCreate(&p);
  cufftXtSetGPUs(p, 2, Same);
  size_t ws[2] = {7, 7};
  cufftResult r = rank == 2 ? cufftMakePlan2d(p, n[0], n[1], dbl ? CUFFT_Z2Z : CUFFT_C2C, ws)
                            : cufftMakePlan3d(p, n[0], n[1], n[2], dbl ? CUFFT_Z2Z : CUFFT_C2C, ws);
  long N = long(n[0]) * n[1] * (rank == 3 ? n[2] : 1), inner = rank == 3 ? n[2] : 1;
  printf("rank %d %dx%dx%ld %s make %d\n", rank, n[0], n[1], inner, dbl ? "Z2Z" : "C2C", r);
  if (r) { cufftDestroy(p); return; }
  size_t E = dbl ? 16 : 8;
  cudaLibXtDesc *d = nullptr;
  r = cufftXtMalloc(p, &d, CUFFT_XT_FORMAT_INPLACE);
  printf("  malloc %d\n", r);
  if (r || !d) { cufftDestroy(p); return; }
  printf("  sizes %zu %zu\n", d->descriptor->size[0], d->descriptor->size[1]);
  std::vector<double> x(2 * N), y(2 * N);
  std::vector<char> host(N * E), part(d->descriptor->size[0] > d->descriptor->size[1] ? d->descriptor->size[0] : d->descriptor->size[1]);
  for (long i = 0; i < N; ++i) {
    if (dbl) { ((double *)host.data())[2 * i] = i; ((double *)host.data())[2 * i + 1] = 0; }
    else { ((float *)host.data())[2 * i] = float(i); ((float *)host.data())[2 * i + 1] = 0; }
  }
  printf("  H2D %d\n", cufftXtMemcpy(p, d, host.data(), CUFFT_COPY_HOST_TO_DEVICE));
  // natural layout: which indices each part holds
  for (int g = 0; g < 2; ++g) {
    cudaMemcpy(part.data(), d->descriptor->data[g], d->descriptor->size[g], cudaMemcpyDefault);
    long X0 = (n[0] + 1) / 2, cnt = (g ? n[0] - X0 : X0) * long(n[1]) * inner;
    printf("  natural gpu%d first %ld last %ld count %ld\n", g, long(dbl ? ((double *)part.data())[0] : ((float *)part.data())[0]),
           long(dbl ? ((double *)part.data())[2 * (cnt - 1)] : ((float *)part.data())[2 * (cnt - 1)]), cnt);
  }
  // random data, forward, compare parts to natural result
  for (long i = 0; i < 2 * N; ++i) {
    double v = double(rand()) / RAND_MAX - 0.5;
    if (dbl) ((double *)host.data())[i] = v; else ((float *)host.data())[i] = float(v);
  }
  cufftXtMemcpy(p, d, host.data(), CUFFT_COPY_HOST_TO_DEVICE);
  r = dbl ? cufftXtExecDescriptorZ2Z(p, d, d, CUFFT_FORWARD) : cufftXtExecDescriptorC2C(p, d, d, CUFFT_FORWARD);
  cudaDeviceSynchronize();
  printf("  forward %d subFormat %d\n", r, d->subFormat);
  std::vector<char> res(N * E);
  printf("  D2H %d\n", cufftXtMemcpy(p, res.data(), d, CUFFT_COPY_DEVICE_TO_HOST));
  std::map<std::pair<double, double>, long> where;
  for (long k = 0; k < N; ++k) {
    double a = dbl ? ((double *)res.data())[2 * k] : ((float *)res.data())[2 * k];
    double b = dbl ? ((double *)res.data())[2 * k + 1] : ((float *)res.data())[2 * k + 1];
    where[{a, b}] = k;
  }
  long Y0 = (n[1] + 1) / 2, bad = 0;
  for (int g = 0; g < 2; ++g) {
    long ys = g ? Y0 : 0, yc = g ? n[1] - Y0 : Y0;
    long cnt = long(n[0]) * yc * inner;
    cudaMemcpy(part.data(), d->descriptor->data[g], cnt * E, cudaMemcpyDefault);
    printf("  shuffled gpu%d:", g);
    for (long i = 0; i < cnt; ++i) {
      double a = dbl ? ((double *)part.data())[2 * i] : ((float *)part.data())[2 * i];
      double b = dbl ? ((double *)part.data())[2 * i + 1] : ((float *)part.data())[2 * i + 1];
      auto it = where.find({a, b});
      long k = it == where.end() ? -1 : it->second;
      long xx = i / (yc * inner), yy = ys + (i / inner) % yc, zz = i % inner;
      if (k != (xx * n[1] + yy) * inner + zz) ++bad;
      if (i < 24) printf(" %ld", k);
    }
    printf("\n");
  }
  printf("  [x][its y][z] mismatches %ld\n", bad);
  r = dbl ? cufftXtExecDescriptorZ2Z(p, d, d, CUFFT_INVERSE) : cufftXtExecDescriptorC2C(p, d, d, CUFFT_INVERSE);
  cudaDeviceSynchronize();
  printf("  inverse %d subFormat %d\n", r, d->subFormat);
  cudaLibXtDesc *e = nullptr;
  printf("  malloc 1D_INPUT_SHUFFLED %d\n", cufftXtMalloc(p, &e, CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED));
  e = nullptr;
  r = cufftXtMalloc(p, &e, CUFFT_XT_FORMAT_INPLACE_SHUFFLED);
  printf("  malloc SHUFFLED %d\n", r);
  if (!r && e) {
    printf("  sizes %zu %zu\n", e->descriptor->size[0], e->descriptor->size[1]);
    printf("  D2D into shuffled %d\n", cufftXtMemcpy(p, e, d, CUFFT_COPY_DEVICE_TO_DEVICE));
    cufftXtFree(e);
  }
  cufftXtFree(d);
  cufftDestroy(p);
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  int a[2] = {64, 48}, b[2] = {33, 40}, c[3] = {32, 40, 8}, t[2] = {16, 64};
  probe(2, a, false);
  probe(2, b, true);
  probe(3, c, false);
  probe(2, t, false);
  printf("done\n");
  return 0;
}
