/// \file
/// For the nvcc-built probe programs whose output is compared with a
/// recording on NVIDIA's GPU (tests/cusolver/CusolverGeev.cu,
/// tests/cusparse/CsrGeam.cu, CsrCompress.cu): each case in a process of
/// its own, so a library that crashes on one case (NVIDIA's do, on null
/// handles and sizes) costs only that case, and device vectors to and from
/// std::vector.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace probe {

/// Runs Case in a child process (with its own CUDA context: the parent
/// must not have made one); a crash prints `NAME crash signal N`, a nonzero
/// exit `NAME exit N`.
inline void isolated(const char *Name, const std::function<void()> &Case) {
  std::fflush(stdout);
  pid_t Child = fork();
  if (Child == 0) {
    Case();
    std::fflush(stdout);
    _exit(0);
  }
  int Status = 0;
  waitpid(Child, &Status, 0);
  if (WIFSIGNALED(Status))
    std::printf("%s crash signal %d\n", Name, WTERMSIG(Status));
  else if (WEXITSTATUS(Status))
    std::printf("%s exit %d\n", Name, WEXITSTATUS(Status));
}

/// A device copy of V (at least one element allocated).
template <typename T> T *upload(const std::vector<T> &V) {
  T *D = nullptr;
  cudaMalloc(&D, std::max<size_t>(1, V.size()) * sizeof(T));
  cudaMemcpy(D, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}

/// N elements of device memory D.
template <typename T> std::vector<T> download(const T *D, size_t N) {
  std::vector<T> V(N);
  cudaMemcpy(V.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost);
  return V;
}

} // namespace probe
