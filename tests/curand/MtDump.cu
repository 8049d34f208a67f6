/// \file
/// Measurement tool (not a test): what NVIDIA's cuRAND host API gives for
/// MTGP32 and MT19937, and the device API's MTGP32 reference (its own
/// curandMakeMTGP32KernelState and curand() per block), as raw
/// little-endian files DIR/<name>.bin; statuses to stdout. Material for
/// libs/curand/Mt.cpp (libs/README.md says what was found).
/// Usage: MtDump DIR
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>
#include <string>
#include <vector>

static std::string Dir;

static void save(const std::string &Name, const void *H, size_t Bytes) {
  FILE *F = std::fopen((Dir + "/" + Name + ".bin").c_str(), "wb");
  if (F) {
    std::fwrite(H, 1, Bytes, F);
    std::fclose(F);
  }
}

static void dump(const std::string &Name, const void *Dev, size_t Bytes, curandStatus_t S) {
  cudaError_t E = cudaDeviceSynchronize();
  std::printf("%s status %d cuda %d\n", Name.c_str(), (int)S, (int)E);
  if (S != CURAND_STATUS_SUCCESS)
    return;
  std::vector<char> H(Bytes);
  cudaMemcpy(H.data(), Dev, Bytes, cudaMemcpyDeviceToHost);
  save(Name, H.data(), Bytes);
}

__global__ void mtgpRef(curandStateMtgp32 *S, unsigned *Out, int PerBlock) {
  for (int I = 0; I < PerBlock; I += blockDim.x)
    Out[(size_t)blockIdx.x * PerBlock + I + threadIdx.x] = curand(&S[blockIdx.x]);
}

static unsigned fnv(const void *P, size_t N, unsigned H = 2166136261u) {
  const unsigned char *B = (const unsigned char *)P;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ B[I]) * 16777619u;
  return H;
}

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  Dir = Argv[1];
  const size_t Big = 1 << 21, Mid = 1 << 16;
  void *Buf;
  cudaMalloc(&Buf, Big * 8);
  unsigned *U = (unsigned *)Buf;
  float *F = (float *)Buf;
  double *D = (double *)Buf;
  // Param table hashes (per set: pos, sh1, sh2, tbl, tmp_tbl, flt_tmp_tbl, mask).
  {
    std::vector<unsigned> H;
    for (int I = 0; I < 200; ++I) {
      const mtgp32_params_fast_t &P = mtgp32dc_params_fast_11213[I];
      unsigned W[3] = {(unsigned)P.pos, (unsigned)P.sh1, (unsigned)P.sh2};
      unsigned X = fnv(W, sizeof W);
      X = fnv(P.tbl, sizeof P.tbl, X);
      X = fnv(P.tmp_tbl, sizeof P.tmp_tbl, X);
      X = fnv(P.flt_tmp_tbl, sizeof P.flt_tmp_tbl, X);
      X = fnv(&P.mask, sizeof P.mask, X);
      H.push_back(X);
    }
    save("mtgp.paramhash", H.data(), H.size() * 4);
  }
  // Device-API reference: 200 states from seed 1234, 8192 values per block.
  {
    curandStateMtgp32 *St;
    mtgp32_kernel_params *K;
    cudaMalloc(&St, 200 * sizeof(curandStateMtgp32));
    cudaMalloc(&K, sizeof(mtgp32_kernel_params));
    curandStatus_t S1 = curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, K);
    curandStatus_t S2 = curandMakeMTGP32KernelState(St, mtgp32dc_params_fast_11213, K, 200, 1234);
    std::printf("mtgp dev-api make %d %d\n", (int)S1, (int)S2);
    std::vector<curandStateMtgp32> HS(200);
    cudaMemcpy(HS.data(), St, 200 * sizeof(curandStateMtgp32), cudaMemcpyDeviceToHost);
    std::vector<unsigned> States;
    for (auto &S : HS)
      for (int J = 0; J < 1024; ++J)
        States.push_back(S.s[J]);
    save("mtgp.devapi.state1234", States.data(), States.size() * 4);
    mtgpRef<<<200, 256>>>(St, U, 8192);
    dump("mtgp.devapi.s1234", U, 200 * 8192 * 4, CURAND_STATUS_SUCCESS);
  }
  curandGenerator_t G;
  auto pseudo = [&](curandRngType_t T, unsigned long long Seed, bool Host = false) {
    curandGenerator_t R = nullptr;
    curandStatus_t S = Host ? curandCreateGeneratorHost(&R, T) : curandCreateGenerator(&R, T);
    if (S != CURAND_STATUS_SUCCESS) {
      std::printf("create %d status %d\n", (int)T, (int)S);
      return R;
    }
    curandSetPseudoRandomGeneratorSeed(R, Seed);
    return R;
  };
  const curandRngType_t Mt[2] = {CURAND_RNG_PSEUDO_MTGP32, CURAND_RNG_PSEUDO_MT19937};
  const char *MtName[2] = {"mtgp", "mt"};
  for (int Kd = 0; Kd < 2; ++Kd) {
    std::string N = MtName[Kd];
    curandRngType_t T = Mt[Kd];
    if ((G = pseudo(T, 1234))) {
      dump(N + ".s1234.u32", U, Big * 4, curandGenerate(G, U, Big));
      dump(N + ".s1234.next.u32", U, Mid * 4, curandGenerate(G, U, Mid));
      dump(N + ".s1234.next2.u32", U, 1000 * 4, curandGenerate(G, U, 1000));
      dump(N + ".s1234.next3.u32", U, Mid * 4, curandGenerate(G, U, Mid));
      curandDestroyGenerator(G);
    }
    // Small first calls and what follows them.
    for (size_t Small : {1000u, 333u, 70000u}) {
      if ((G = pseudo(T, 1234))) {
        dump(N + ".s1234.first" + std::to_string(Small) + ".u32", U, Small * 4, curandGenerate(G, U, Small));
        dump(N + ".s1234.after" + std::to_string(Small) + ".u32", U, Mid * 4, curandGenerate(G, U, Mid));
        curandDestroyGenerator(G);
      }
    }
    for (unsigned long long Seed : {0ull, 1ull, 0x123456789abcdefull, 0xffffffffull}) {
      if ((G = pseudo(T, Seed))) {
        dump(N + ".seed" + std::to_string(Seed) + ".u32", U, Mid * 4, curandGenerate(G, U, Mid));
        curandDestroyGenerator(G);
      }
    }
    // Reseeding in the middle (position kept or not?).
    if ((G = pseudo(T, 1234))) {
      curandGenerate(G, U, Mid);
      curandSetPseudoRandomGeneratorSeed(G, 99);
      dump(N + ".reseed99.u32", U, Mid * 4, curandGenerate(G, U, Mid));
      curandDestroyGenerator(G);
    }
    if ((G = pseudo(T, 99))) {
      dump(N + ".seed99.u32", U, Mid * 4, curandGenerate(G, U, Mid));
      curandDestroyGenerator(G);
    }
    // Distributions, each from a fresh generator, then a u32 call after.
    struct Dist {
      const char *Name;
      int Kind;
      size_t Elem;
    } Dists[] = {{"f32", 0, 4}, {"f64", 1, 8}, {"nrm", 2, 4}, {"nrm64", 3, 8}, {"lgn", 4, 4}, {"lgn64", 5, 8},
                 {"pois4", 6, 4}, {"pois1000", 7, 4}, {"pois3000", 8, 4}};
    for (auto &Ds : Dists)
      for (size_t Count : {(size_t)Mid, (size_t)1000}) {
        if (!(G = pseudo(T, 1234)))
          continue;
        curandStatus_t S = CURAND_STATUS_SUCCESS;
        switch (Ds.Kind) {
        case 0: S = curandGenerateUniform(G, F, Count); break;
        case 1: S = curandGenerateUniformDouble(G, D, Count); break;
        case 2: S = curandGenerateNormal(G, F, Count, 1.0f, 2.0f); break;
        case 3: S = curandGenerateNormalDouble(G, D, Count, 1.0, 2.0); break;
        case 4: S = curandGenerateLogNormal(G, F, Count, 0.5f, 0.75f); break;
        case 5: S = curandGenerateLogNormalDouble(G, D, Count, 0.5, 0.75); break;
        case 6: S = curandGeneratePoisson(G, U, Count, 4.0); break;
        case 7: S = curandGeneratePoisson(G, U, Count, 1000.0); break;
        case 8: S = curandGeneratePoisson(G, U, Count, 3000.0); break;
        }
        std::string Name = N + "." + Ds.Name + "." + std::to_string(Count);
        dump(Name, Buf, Count * Ds.Elem, S);
        dump(Name + ".after.u32", U, 4096 * 4, curandGenerate(G, U, 4096));
        curandDestroyGenerator(G);
      }
    // Orderings.
    for (curandOrdering_t O : {CURAND_ORDERING_PSEUDO_LEGACY, CURAND_ORDERING_PSEUDO_BEST,
                               CURAND_ORDERING_PSEUDO_DYNAMIC, CURAND_ORDERING_PSEUDO_SEEDED}) {
      if (!(G = pseudo(T, 1234)))
        continue;
      curandStatus_t S = curandSetGeneratorOrdering(G, O);
      std::printf("%s ordering %d status %d\n", N.c_str(), (int)O, (int)S);
      if (S == CURAND_STATUS_SUCCESS) {
        std::string Name = N + ".ord" + std::to_string((int)O);
        dump(Name + ".u32", U, Mid * 4, curandGenerate(G, U, Mid));
        dump(Name + ".f32", F, Mid * 4, curandGenerateUniform(G, F, Mid));
        dump(Name + ".nrm", F, Mid * 4, curandGenerateNormal(G, F, Mid, 0.0f, 1.0f));
      }
      curandDestroyGenerator(G);
    }
    // Host generator.
    if ((G = pseudo(T, 1234, true))) {
      std::vector<unsigned> H(Mid);
      curandStatus_t S = curandGenerate(G, H.data(), Mid);
      std::printf("%s host u32 status %d\n", N.c_str(), (int)S);
      if (S == CURAND_STATUS_SUCCESS)
        save(N + ".host.s1234.u32", H.data(), Mid * 4);
      std::vector<float> HF(Mid);
      S = curandGenerateNormal(G, HF.data(), Mid, 0.0f, 1.0f);
      std::printf("%s host nrm status %d\n", N.c_str(), (int)S);
      if (S == CURAND_STATUS_SUCCESS)
        save(N + ".host.nrm.after", HF.data(), Mid * 4);
      curandDestroyGenerator(G);
    }
  }
  cudaFree(Buf);
  std::printf("done\n");
  return 0;
}
