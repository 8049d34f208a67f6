// Prints the name and description of every runtime error code and every
// driver result code, as the CUDA stack it runs on reports them. Run on an
// NVIDIA GPU by scripts/record-error-strings to record the reference table
// (tests/libcudart/error-strings.h100.txt); run on ferry by the tests, which
// compare the two. Codes that are unknown print "unknown".
#include <cstdio>
#include <string_view>
#include <cuda.h>
#include <cuda_runtime.h>

int main() {
  for (int C = 0; C < 1000; ++C) {
    const char *Name = cudaGetErrorName(cudaError_t(C));
    const char *Str = cudaGetErrorString(cudaError_t(C));
    if (Name && std::string_view(Name) != "unrecognized error code")
      std::printf("rt %d\t%s\t%s\n", C, Name, Str ? Str : "(null)");
  }
  for (int C = 0; C < 1000; ++C) {
    const char *Name = nullptr, *Str = nullptr;
    if (cuGetErrorName(CUresult(C), &Name) == CUDA_SUCCESS) {
      cuGetErrorString(CUresult(C), &Str);
      std::printf("drv %d\t%s\t%s\n", C, Name, Str ? Str : "(null)");
    }
  }
  return 0;
}
