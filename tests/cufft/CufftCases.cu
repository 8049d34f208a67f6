/// \file
/// cuFFT cases printing one line per observable: `NAME status N` for a
/// returned cufftResult, `NAME u64 N` for sizes, `NAME f32|f64 v...` for
/// transforms of fixed inputs (compared within a tolerance). Recorded on the
/// H100 with NVIDIA's cuFFT (scripts/record-curand-goldens records it in the
/// same run) and run under ferry by tests/cufft.
#include <cuda_runtime.h>
#include <cufft.h>

#include <cmath>
#include <cstdio>
#include <vector>

static void st(const char *Name, cufftResult S) { std::printf("%s status %d\n", Name, (int)S); }

static void printC(const char *Name, const std::vector<float2> &V) {
  std::printf("%s f32", Name);
  for (auto X : V)
    std::printf(" %.6g %.6g", X.x, X.y);
  std::printf("\n");
}
static void printZ(const char *Name, const std::vector<double2> &V) {
  std::printf("%s f64", Name);
  for (auto X : V)
    std::printf(" %.15g %.15g", X.x, X.y);
  std::printf("\n");
}
static void printR(const char *Name, const std::vector<float> &V) {
  std::printf("%s f32", Name);
  for (auto X : V)
    std::printf(" %.6g", X);
  std::printf("\n");
}

static float inVal(int I) { return (float)((I * 7 + 3) % 11) - 5.0f; }

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  int V = 0;
  st("version", cufftGetVersion(&V));
  std::printf("version u64 %d\n", V);
  cufftHandle P = 0;
  st("plan1d.n0", cufftPlan1d(&P, 0, CUFFT_C2C, 1));
  st("plan1d.nneg", cufftPlan1d(&P, -4, CUFFT_C2C, 1));
  st("plan1d.batch0", cufftPlan1d(&P, 8, CUFFT_C2C, 0));
  st("plan1d.badtype", cufftPlan1d(&P, 8, (cufftType)0x7, 1));
  st("plan2d.n0", cufftPlan2d(&P, 0, 8, CUFFT_C2C));
  st("plan2d.n1", cufftPlan2d(&P, 1, 8, CUFFT_C2C));
  st("plan3d.n0", cufftPlan3d(&P, 4, 4, 0, CUFFT_C2C));
  st("planmany.rank0", cufftPlanMany(&P, 0, nullptr, nullptr, 1, 1, nullptr, 1, 1, CUFFT_C2C, 1));
  st("planmany.rank4", cufftPlanMany(&P, 4, nullptr, nullptr, 1, 1, nullptr, 1, 1, CUFFT_C2C, 1));
  int N8[1] = {8};
  st("planmany.nullembed", cufftPlanMany(&P, 1, N8, nullptr, 1, 8, nullptr, 1, 8, CUFFT_C2C, 2));
  cufftDestroy(P);
  st("destroy.bad", cufftDestroy(123456));
  st("setstream.bad", cufftSetStream(123456, 0));
  size_t Ws = 0;
  st("getsize.bad", cufftGetSize(123456, &Ws));
  st("estimate1d", cufftEstimate1d(1024, CUFFT_C2C, 1, &Ws));
  std::printf("estimate1d.size u64 %zu\n", Ws);
  st("estimate1d.n0", cufftEstimate1d(0, CUFFT_C2C, 1, &Ws));

  cufftHandle H = 0;
  st("create", cufftCreate(&H));
  st("getsize.unmade", cufftGetSize(H, &Ws));
  st("exec.unmade", cufftExecC2C(H, nullptr, nullptr, CUFFT_FORWARD));
  st("makeplan1d", cufftMakePlan1d(H, 1024, CUFFT_C2C, 4, &Ws));
  std::printf("makeplan1d.size u64 %zu\n", Ws);
  st("makeplan1d.again", cufftMakePlan1d(H, 512, CUFFT_C2C, 1, &Ws));
  st("getsize", cufftGetSize(H, &Ws));
  std::printf("getsize.size u64 %zu\n", Ws);
  float2 *D = nullptr;
  cudaMalloc(&D, 1024 * 4 * sizeof(float2));
  st("exec.wrongtype", cufftExecR2C(H, (cufftReal *)D, D));
  st("exec.wrongtypez", cufftExecZ2Z(H, (cufftDoubleComplex *)D, (cufftDoubleComplex *)D, CUFFT_FORWARD));
  st("exec.dir0", cufftExecC2C(H, D, D, 0));
  st("exec.ok", cufftExecC2C(H, D, D, CUFFT_FORWARD));
  st("destroy", cufftDestroy(H));
  st("exec.destroyed", cufftExecC2C(H, D, D, CUFFT_FORWARD));

  cufftHandle A = 0;
  cufftCreate(&A);
  st("autoalloc.off", cufftSetAutoAllocation(A, 0));
  st("makeplan.noauto", cufftMakePlan1d(A, 4096, CUFFT_C2C, 1, &Ws));
  std::printf("makeplan.noauto.size u64 %zu\n", Ws);
  st("exec.noworkarea", cufftExecC2C(A, D, D, CUFFT_FORWARD));
  cudaDeviceSynchronize();
  std::printf("exec.noworkarea.sync cuda %d\n", (int)cudaGetLastError());
  void *Work = nullptr;
  cudaMalloc(&Work, Ws + 16);
  st("setworkarea", cufftSetWorkArea(A, Work));
  st("exec.workarea", cufftExecC2C(A, D, D, CUFFT_FORWARD));
  cufftDestroy(A);
  cudaFree(Work);

  // Fixed transforms, compared as values.
  {
    const int N = 8;
    std::vector<float2> In(N);
    for (int I = 0; I < N; ++I)
      In[I] = {inVal(I), inVal(I + 5)};
    cudaMemcpy(D, In.data(), N * sizeof(float2), cudaMemcpyHostToDevice);
    cufftHandle Q;
    st("c2c8.plan", cufftPlan1d(&Q, N, CUFFT_C2C, 1));
    st("c2c8.exec", cufftExecC2C(Q, D, D, CUFFT_FORWARD));
    std::vector<float2> Out(N);
    cudaMemcpy(Out.data(), D, N * sizeof(float2), cudaMemcpyDeviceToHost);
    printC("c2c8.fwd", Out);
    st("c2c8.inv", cufftExecC2C(Q, D, D, CUFFT_INVERSE));
    cudaMemcpy(Out.data(), D, N * sizeof(float2), cudaMemcpyDeviceToHost);
    printC("c2c8.inv", Out);
    cufftDestroy(Q);
  }
  {
    const int N = 12;
    std::vector<float> In(N);
    for (int I = 0; I < N; ++I)
      In[I] = inVal(I);
    float *R = nullptr;
    cudaMalloc(&R, 64 * sizeof(float));
    cudaMemcpy(R, In.data(), N * sizeof(float), cudaMemcpyHostToDevice);
    cufftHandle Q, Qi;
    st("r2c12.plan", cufftPlan1d(&Q, N, CUFFT_R2C, 1));
    st("r2c12.exec", cufftExecR2C(Q, R, D));
    std::vector<float2> Out(N / 2 + 1);
    cudaMemcpy(Out.data(), D, Out.size() * sizeof(float2), cudaMemcpyDeviceToHost);
    printC("r2c12", Out);
    st("r2c12.c2r_on_r2c", cufftExecC2R(Q, D, R));
    st("c2r12.plan", cufftPlan1d(&Qi, N, CUFFT_C2R, 1));
    st("c2r12.exec", cufftExecC2R(Qi, D, R));
    std::vector<float> Back(N);
    cudaMemcpy(Back.data(), R, N * sizeof(float), cudaMemcpyDeviceToHost);
    printR("c2r12", Back);
    cufftDestroy(Q);
    cufftDestroy(Qi);
    cudaFree(R);
  }
  {
    const int NX = 4, NY = 6;
    std::vector<double2> In(NX * NY);
    for (int I = 0; I < NX * NY; ++I)
      In[I] = {inVal(I), -inVal(I + 2)};
    double2 *Z = nullptr;
    cudaMalloc(&Z, In.size() * sizeof(double2));
    cudaMemcpy(Z, In.data(), In.size() * sizeof(double2), cudaMemcpyHostToDevice);
    cufftHandle Q;
    st("z2z2d.plan", cufftPlan2d(&Q, NX, NY, CUFFT_Z2Z));
    st("z2z2d.exec", cufftExecZ2Z(Q, Z, Z, CUFFT_FORWARD));
    std::vector<double2> Out(In.size());
    cudaMemcpy(Out.data(), Z, Out.size() * sizeof(double2), cudaMemcpyDeviceToHost);
    printZ("z2z2d", Out);
    cufftDestroy(Q);
    cudaFree(Z);
  }
  cudaFree(D);
  std::printf("done\n");
  return 0;
}
