//===- tests/sim/isa/SimTestUtil.h - running code on the ISA simulator ----===//
/// \file
/// Test-side stand-ins for what the HSA runtime stand-in does for real: a
/// MemoryMap over test allocations, an ELF code object loader (LLVM's object
/// library; relative relocations), and a dispatch helper that fills an AQL
/// packet and a COV5 kernarg segment (explicit + hidden arguments).
//===----------------------------------------------------------------------===//
#ifndef FERRY_TESTS_SIM_ISA_SIMTESTUTIL_H
#define FERRY_TESTS_SIM_ISA_SIMTESTUTIL_H

#include "sim/isa/Simulator.h"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ferry::sim::test {

class HostMemory final : public MemoryMap {
public:
  ~HostMemory() override;
  /// A zeroed allocation, 256-byte aligned, registered in the map.
  void *alloc(size_t Size, bool Writable = true);
  template <typename T> T *allocArray(size_t N) { return static_cast<T *>(alloc(N * sizeof(T))); }
  bool valid(uint64_t Addr, uint64_t Size, bool Write) const override;

private:
  struct Range {
    uint64_t Size;
    bool Writable;
  };
  mutable std::mutex Lock;
  std::map<uint64_t, Range> Ranges;
  std::vector<void *> Blocks;
};

struct CodeObject {
  uint64_t Base = 0;
  std::map<std::string, uint64_t> Symbols;
};

/// Loads a linked AMDGPU code object (ELF DYN) into Mem.
bool loadCodeObject(const std::string &Path, HostMemory &Mem, CodeObject &Out, std::string &Err);

struct Launch {
  uint32_t Dims = 1;
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t Group[3] = {1, 1, 1};
  uint32_t DynamicLds = 0;
  uint32_t Private = 0;
};

/// Runs Kernel (symbol name without .kd) with explicit arguments Args.
DispatchResult dispatch(Simulator &Sim, HostMemory &Mem, const CodeObject &CO,
                        const std::string &Kernel, const Launch &L, const void *Args,
                        size_t ArgSize);

/// Where the build put the compiled test kernels (NAME-GFX.so).
std::string kernelPath(const std::string &Name, Gfx G);

/// Assembles a kernel from AMD assembler text with llvm-mc-19 and links it
/// with ld.lld-19; empty on failure (Err says why).
std::string assembleKernel(const std::string &Asm, Gfx G, std::string &Err);

} // namespace ferry::sim::test

#endif
