/// \file
/// libcuda's device and compiler seams over ROCr (HsaBackend.h).
///
/// Scheme: one AQL queue per ferry Queue (stream). Every AQL packet carries
/// the barrier bit, so packets of one queue run in order. Copies go to the
/// DMA engine (hsa_amd_memory_async_copy) outside the AQL queue and host
/// functions run on a thread; both are ordered with signals: a copy depends
/// on the queue's latest signal, and the next AQL packet is preceded by a
/// barrier-AND packet on the copy's signal. Every command's completion
/// signal becomes the queue's latest; enqueueSignal hands it out. Kernarg
/// buffers come from the kernarg pool and are freed once their dispatch's
/// signal completed. Every signal handed to ROCr (dependency or completion)
/// is kept alive until the command naming it completed (retain), as ROCr
/// reads signals by address. Pageable host memory is locked for the copies
/// that touch it (the DMA engines reach only memory ROCr knows), or staged
/// through pinned memory where it cannot be locked; fills go to
/// hsa_amd_memory_fill plus DMA'd edges. Neither touches device memory from
/// the host unless the CPU may (large BAR); sim/README.md says how. A copy
/// the DMA engine failed (a negative signal) becomes an illegal address. Queue
/// errors (the queue callback) become the device's sticky fault (illegal
/// address, illegal instruction, launch failed), stop that queue's later
/// commands, and end waits on signals the stopped queue will never
/// complete. A cooperative launch must fit on the GPU at once
/// (checkCooperativeFit) and gets its queue's grid-barrier workspace
/// (GridWorkspacePool) in the hidden multigrid-sync argument.
/// Nothing here has run on AMD hardware; it runs on sim/'s simulated GPUs
/// (tests/hsa/SimBackendTest.cpp, `FERRY_SIM=gfx942 ferry run`).
#include "hsa/HsaBackend.h"

#include "hsa/HsaRuntime.h"
#include "support/Cache.h"
#include "support/Log.h"
#include "support/Settings.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace ferry::hsa {

using namespace api;

//===----------------------------------------------------------------------===//
// Compiler seam.
//===----------------------------------------------------------------------===//

// Version 5 carries a code object per target and the kernels' facts from
// the SIMT IR (KernelFacts, with .maxntid since 5); an older entry is
// refused (bad magic) and compiled again.
static const char SerialMagic[8] = {'F', 'H', 'S', 'A', 'C', 'O', '5', 0};

/// The addrspace(3) globals each function uses directly (through constant
/// expressions too), and the functions it calls.
static void scanFunction(const llvm::Function &F, std::set<const llvm::GlobalVariable *> &Shared,
                         std::vector<const llvm::Function *> &Callees) {
  std::vector<const llvm::Value *> Work;
  std::set<const llvm::Value *> Seen;
  for (const llvm::BasicBlock &BB : F)
    for (const llvm::Instruction &I : BB) {
      if (const auto *CB = llvm::dyn_cast<llvm::CallBase>(&I))
        if (const llvm::Function *Callee = CB->getCalledFunction())
          Callees.push_back(Callee);
      for (const llvm::Value *Op : I.operands())
        Work.push_back(Op);
    }
  while (!Work.empty()) {
    const llvm::Value *V = Work.back();
    Work.pop_back();
    if (!Seen.insert(V).second)
      continue;
    if (const auto *G = llvm::dyn_cast<llvm::GlobalVariable>(V)) {
      if (G->getAddressSpace() == 3)
        Shared.insert(G);
    } else if (const auto *CE = llvm::dyn_cast<llvm::ConstantExpr>(V)) {
      for (const llvm::Value *Op : CE->operands())
        Work.push_back(Op);
    }
  }
}

KernelFactsMap readKernelFacts(const llvm::Module &M) {
  KernelFactsMap Out;
  const llvm::NamedMDNode *Params = M.getNamedMetadata("ferry.params");
  if (!Params)
    return Out;
  auto Int = [](const llvm::MDOperand &Op) -> uint32_t {
    auto *C = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(Op);
    return C ? uint32_t(C->getZExtValue()) : 0;
  };
  const llvm::DataLayout &DL = M.getDataLayout();
  for (const llvm::MDNode *N : Params->operands()) {
    if (!N || N->getNumOperands() < 2)
      continue;
    auto *F = llvm::mdconst::dyn_extract_or_null<llvm::Function>(N->getOperand(0));
    if (!F)
      continue;
    KernelFacts &K = Out[F->getName().str()];
    K.ParamBytes = Int(N->getOperand(1));
    for (unsigned I = 2; I + 2 < N->getNumOperands(); I += 3)
      K.Params.push_back(
          ferry::KernelParam{Int(N->getOperand(I)), Int(N->getOperand(I + 1)), Int(N->getOperand(I + 2))});
    // The .shared the kernel reaches, laid out in declaration order (as the
    // group segment would hold it without ferry's own variables).
    std::set<const llvm::GlobalVariable *> Shared;
    std::set<const llvm::Function *> Done;
    std::vector<const llvm::Function *> Todo{F};
    while (!Todo.empty()) {
      const llvm::Function *G = Todo.back();
      Todo.pop_back();
      if (!Done.insert(G).second || G->isDeclaration())
        continue;
      scanFunction(*G, Shared, Todo);
    }
    uint64_t Bytes = 0;
    for (const llvm::GlobalVariable &G : M.globals()) {
      if (!Shared.count(&G) || G.isDeclaration())
        continue;
      uint64_t Size = DL.getTypeAllocSize(G.getValueType());
      llvm::Align A = G.getAlign().value_or(DL.getABITypeAlign(G.getValueType()));
      Bytes = llvm::alignTo(Bytes, A) + Size;
    }
    K.SharedBytes = uint32_t(std::min<uint64_t>(Bytes, UINT32_MAX - 1));
  }
  // .maxntid / .reqntid: !{ptr @k, !"maxntid", i32 x, i32 y, i32 z}.
  if (const llvm::NamedMDNode *Dirs = M.getNamedMetadata("ferry.directives"))
    for (const llvm::MDNode *N : Dirs->operands()) {
      if (!N || N->getNumOperands() < 3)
        continue;
      auto *F = llvm::mdconst::dyn_extract_or_null<llvm::Function>(N->getOperand(0));
      auto *Name = llvm::dyn_cast<llvm::MDString>(N->getOperand(1));
      if (!F || !Name || (Name->getString() != "maxntid" && Name->getString() != "reqntid"))
        continue;
      uint64_t Product = 1;
      for (unsigned I = 2; I < N->getNumOperands(); ++I)
        Product *= std::max<uint32_t>(Int(N->getOperand(I)), 1);
      uint32_t &Max = Out[F->getName().str()].MaxThreads;
      uint32_t V = uint32_t(std::min<uint64_t>(Product, 1024));
      Max = Max ? std::min(Max, V) : V;
    }
  return Out;
}

HsaCodeObject::HsaCodeObject(hsa::CodeObject CO, const KernelFactsMap &Facts)
    : HsaCodeObject(std::vector<hsa::CodeObject>{std::move(CO)}, Facts) {}

HsaCodeObject::HsaCodeObject(std::vector<hsa::CodeObject> Cs, KernelFactsMap F)
    : Codes(std::move(Cs)), Facts(std::move(F)) {
  Kernels = kernelsOf(Codes.front());
}

const hsa::CodeObject *HsaCodeObject::amdgpu(const std::string &Target) const {
  for (const hsa::CodeObject &C : Codes)
    if (C.Target == Target)
      return &C;
  return nullptr;
}

std::vector<ferry::KernelInfo> HsaCodeObject::kernelsOf(const hsa::CodeObject &CO) const {
  std::vector<ferry::KernelInfo> Out;
  for (const hsa::KernelInfo &K : CO.Kernels) {
    ferry::KernelInfo I;
    I.Name = K.Name;
    // The parameter buffer is one byref argument of the AMDGPU kernel; the
    // per-parameter layout comes from the PTX, without which the core could
    // not place kernelParams[i] (it would launch with a zeroed buffer).
    I.ParamBytes = K.ExplicitArgSize;
    I.StaticSharedBytes = K.GroupSegmentSize;
    if (auto It = Facts.find(K.Name); It != Facts.end()) {
      I.Params = It->second.Params;
      I.ParamBytes = std::max(I.ParamBytes, It->second.ParamBytes);
      // The program's .shared, not ferry's LDS on top (launches still ask
      // for the whole group segment).
      I.StaticSharedBytes = std::min(I.StaticSharedBytes, It->second.SharedBytes);
    }
    I.LocalBytes = K.PrivateSegmentSize;
    I.Registers = K.VgprCount;
    I.MaxThreadsPerBlock = K.MaxFlatWorkgroupSize ? K.MaxFlatWorkgroupSize : 1024;
    // .maxntid: cuFuncGetAttribute(MAX_THREADS_PER_BLOCK) reported 1024 for
    // a .maxntid 128 kernel, and ggml-style mmv kernels launched that many
    // threads overran their shared arrays.
    if (auto It = Facts.find(K.Name); It != Facts.end() && It->second.MaxThreads)
      I.MaxThreadsPerBlock = std::min(I.MaxThreadsPerBlock, It->second.MaxThreads);
    Out.push_back(std::move(I));
  }
  return Out;
}

namespace {
void put32(std::vector<std::byte> &Out, uint32_t V) {
  const auto *B = reinterpret_cast<const std::byte *>(&V);
  Out.insert(Out.end(), B, B + 4);
}
} // namespace

// Layout: magic, code object count, per code object (target\0, u64 size,
// ELF), kernel count, per kernel (name\0, shared bytes, max threads, parameter bytes,
// parameter count, offset/size/align each).
ferry::Expected<std::vector<std::byte>> HsaCodeObject::serialize() const {
  std::vector<std::byte> Out(reinterpret_cast<const std::byte *>(SerialMagic),
                             reinterpret_cast<const std::byte *>(SerialMagic) + sizeof SerialMagic);
  auto PutString = [&](const std::string &S) {
    const auto *B = reinterpret_cast<const std::byte *>(S.c_str());
    Out.insert(Out.end(), B, B + S.size() + 1);
  };
  put32(Out, uint32_t(Codes.size()));
  for (const hsa::CodeObject &C : Codes) {
    PutString(C.Target);
    put32(Out, uint32_t(C.Bytes.size()));
    put32(Out, uint32_t(uint64_t(C.Bytes.size()) >> 32));
    const auto *Elf = reinterpret_cast<const std::byte *>(C.Bytes.data());
    Out.insert(Out.end(), Elf, Elf + C.Bytes.size());
  }
  put32(Out, uint32_t(Facts.size()));
  for (const auto &[Name, K] : Facts) {
    PutString(Name);
    put32(Out, K.SharedBytes);
    put32(Out, K.MaxThreads);
    put32(Out, K.ParamBytes);
    put32(Out, uint32_t(K.Params.size()));
    for (const ferry::KernelParam &P : K.Params) {
      put32(Out, P.Offset);
      put32(Out, P.Bytes);
      put32(Out, P.Align);
    }
  }
  return Out;
}

namespace {
struct Decoded {
  std::vector<hsa::CodeObject> Codes;
  KernelFactsMap Facts;
};
} // namespace

/// Parses HsaCodeObject::serialize's bytes, checking every length.
static ferry::Expected<Decoded> decode(std::span<const std::byte> Bytes) {
  auto Bad = [](std::string Why) {
    return ferry::makeError(CUDA_ERROR_INVALID_IMAGE, "cached AMD code object: " + Why);
  };
  if (Bytes.size() < sizeof SerialMagic || std::memcmp(Bytes.data(), SerialMagic, sizeof SerialMagic))
    return Bad("bad magic");
  size_t At = sizeof SerialMagic;
  auto GetString = [&](std::string &Out) {
    const char *P = reinterpret_cast<const char *>(Bytes.data()) + At;
    size_t Len = strnlen(P, Bytes.size() - At);
    if (Len == Bytes.size() - At)
      return false;
    Out.assign(P, Len);
    At += Len + 1;
    return true;
  };
  auto Get32 = [&](uint32_t &V) {
    if (Bytes.size() - At < 4)
      return false;
    std::memcpy(&V, Bytes.data() + At, 4);
    At += 4;
    return true;
  };
  uint32_t NumCodes = 0;
  if (!Get32(NumCodes) || NumCodes == 0 || NumCodes > 64)
    return Bad("truncated");
  std::vector<hsa::CodeObject> Codes(NumCodes);
  for (hsa::CodeObject &CO : Codes) {
    uint32_t Lo = 0, Hi = 0;
    if (!GetString(CO.Target) || !Get32(Lo) || !Get32(Hi))
      return Bad("truncated");
    uint64_t Size = uint64_t(Hi) << 32 | Lo;
    if (Size > Bytes.size() - At)
      return Bad("truncated");
    const auto *Elf = reinterpret_cast<const uint8_t *>(Bytes.data() + At);
    CO.Bytes.assign(Elf, Elf + Size);
    At += Size;
    auto Kernels = readKernelInfo(CO.Bytes);
    if (!Kernels)
      return Bad(llvm::toString(Kernels.takeError()));
    CO.Kernels = std::move(*Kernels);
  }
  KernelFactsMap Facts;
  uint32_t Count = 0;
  if (!Get32(Count) || Count > Bytes.size())
    return Bad("truncated");
  for (uint32_t K = 0; K < Count; ++K) {
    std::string Name;
    KernelFacts L;
    uint32_t N = 0;
    if (!GetString(Name) || !Get32(L.SharedBytes) || !Get32(L.MaxThreads) || !Get32(L.ParamBytes) ||
        !Get32(N) ||
        N > (Bytes.size() - At) / 12)
      return Bad("truncated");
    for (uint32_t I = 0; I < N; ++I) {
      ferry::KernelParam P;
      Get32(P.Offset);
      Get32(P.Bytes);
      Get32(P.Align);
      L.Params.push_back(P);
    }
    Facts[Name] = std::move(L);
  }
  return Decoded{std::move(Codes), std::move(Facts)};
}

std::string HsaCompilerBackend::target() const {
  std::string Out = "amdgcn-";
  for (size_t I = 0; I < Targets.size(); ++I)
    Out += (I ? "+" : "") + Targets[I].Name;
  return Out;
}

ferry::Expected<std::unique_ptr<ferry::CodeObject>>
HsaCompilerBackend::deserialize(std::span<const std::byte> Bytes) {
  auto D = decode(Bytes);
  if (!D)
    return D.takeError();
  // An entry for another set of targets is not this backend's.
  bool Same = D->Codes.size() == Targets.size();
  for (size_t I = 0; Same && I < D->Codes.size(); ++I)
    Same = D->Codes[I].Target == Targets[I].Name;
  if (!Same) {
    std::string Had;
    for (const hsa::CodeObject &C : D->Codes)
      Had += (Had.empty() ? "" : "+") + C.Target;
    return ferry::makeError(CUDA_ERROR_INVALID_IMAGE,
                            "cached AMD code object: built for " + Had + ", not " + target());
  }
  return std::unique_ptr<ferry::CodeObject>(
      std::make_unique<HsaCodeObject>(std::move(D->Codes), std::move(D->Facts)));
}

/// The code cache key of one compile. The build part is this ferry's git
/// revision and configure time plus the LLVM version, compiled into this
/// library, so libcuda.so and the `ferry` tool (which link the same library)
/// agree, and a rebuilt ferry never reuses an older one's code.
static std::string cacheKey(const std::string &Target, const std::string &Bits,
                            const hsa::CompileOptions &Opts) {
  ferry::CodeCache::KeyBuilder K;
  K.add("amdgcn-module").add(Target).add(FERRY_HSA_BUILD_ID).add(LLVM_VERSION_STRING);
  K.add(std::to_string(Opts.OptLevel)).add(Opts.FlushDenormals ? "ftz" : "denormals");
  for (const std::string &Name : Opts.Kernels)
    K.add(Name);
  return K.add(Bits).finish();
}

ferry::Expected<hsa::CodeObject> HsaCompilerBackend::compileFor(const TargetInfo &T,
                                                                const std::string &Bits,
                                                                const hsa::CompileOptions &Opts,
                                                                const KernelFactsMap &Facts) {
  // The code cache (`ferry compile --offload-arch` fills it ahead of time):
  // the key is the exact SIMT IR, the target, this build and the options.
  ferry::CodeCache &Cache = ferry::CodeCache::fromSettings();
  std::string Key;
  if (Cache.enabled()) {
    Key = cacheKey(T.Name, Bits, Opts);
    if (auto Hit = Cache.load(Key)) {
      auto D = decode(std::span(reinterpret_cast<const std::byte *>(Hit->data()), Hit->size()));
      if (D && D->Codes.size() == 1 && D->Codes[0].Target == T.Name) {
        log::cache().debug("AMD code object for {} loaded from the code cache", T.Name);
        return std::move(D->Codes[0]);
      }
      log::cache().warn("cached AMD code object unusable ({}); compiling again",
                        D ? "another target" : D.error().message());
    }
  }
  std::vector<KernelCompileError> Failed;
  auto CO = compileEachKernel(Bits, T.Name, Opts, Failed);
  // A kernel the AMD backend cannot compile is left out of the image; its
  // launch finds no kernel, and this line says why.
  for (const KernelCompileError &F : Failed)
    log::hsa().warn("kernel '{}' not compiled for {}: {}", F.Kernel, T.Name, F.Message);
  if (!CO) {
    std::string Msg = llvm::toString(CO.takeError());
    CUresult Code = Msg.find("NOT_SUPPORTED") != std::string::npos ? CUDA_ERROR_NO_BINARY_FOR_GPU
                                                                   : CUDA_ERROR_INVALID_PTX;
    return ferry::makeError(Code, "AMD compile for " + T.Name + ": " + Msg);
  }
  if (Cache.enabled()) {
    if (auto Bytes = HsaCodeObject(*CO, Facts).serialize())
      Cache.store(Key, std::string_view(reinterpret_cast<const char *>(Bytes->data()), Bytes->size()));
  }
  return std::move(*CO);
}

ferry::Expected<std::unique_ptr<ferry::CodeObject>>
HsaCompilerBackend::compile(llvm::Module &M, const ferry::CompileOptions &Options) {
  hsa::CompileOptions Opts;
  Opts.OptLevel = unsigned(std::clamp(Options.OptLevel, 0, 3));
  Opts.FlushDenormals = Options.FastMath;
  Opts.Kernels = Options.Kernels;
  std::string Bits;
  {
    llvm::raw_string_ostream OS(Bits);
    llvm::WriteBitcodeToFile(M, OS);
  }
  KernelFactsMap Facts = readKernelFacts(M);
  // Every target of the process's GPUs, so each device finds its own.
  std::vector<hsa::CodeObject> Codes;
  for (const TargetInfo &T : Targets) {
    auto CO = compileFor(T, Bits, Opts, Facts);
    if (!CO)
      return CO.takeError();
    Codes.push_back(std::move(*CO));
  }
  return std::unique_ptr<ferry::CodeObject>(
      std::make_unique<HsaCodeObject>(std::move(Codes), std::move(Facts)));
}

//===----------------------------------------------------------------------===//
// Kernel arguments.
//===----------------------------------------------------------------------===//

std::vector<uint8_t> buildKernarg(const hsa::KernelInfo &K, std::span<const std::byte> Params,
                                  const std::array<uint32_t, 3> &Grid,
                                  const std::array<uint32_t, 3> &Block, uint32_t DynamicLds,
                                  uint64_t QueuePtr, uint64_t GridWorkspace) {
  std::vector<uint8_t> Buf(std::max<size_t>(K.KernargSize, 8), 0);
  std::memcpy(Buf.data(), Params.data(), std::min<size_t>(Params.size(), K.ExplicitArgSize));
  uint16_t Dims = Grid[2] > 1 || Block[2] > 1 ? 3 : Grid[1] > 1 || Block[1] > 1 ? 2 : 1;
  for (const KernelArgInfo &A : K.Args) {
    if (A.Offset + uint64_t(A.Size) > Buf.size())
      continue; // Malformed metadata: never write outside the buffer.
    auto Put = [&](uint64_t V) { std::memcpy(Buf.data() + A.Offset, &V, std::min<size_t>(A.Size, 8)); };
    const std::string &Kind = A.ValueKind;
    int Axis = Kind.empty() ? 0 : Kind.back() - 'x';
    bool Axial = Axis >= 0 && Axis < 3;
    if (Kind.starts_with("hidden_block_count_") && Axial) Put(Grid[Axis]);
    else if (Kind.starts_with("hidden_group_size_") && Axial) Put(Block[Axis]);
    else if (Kind == "hidden_grid_dims") Put(Dims);
    else if (Kind == "hidden_dynamic_lds_size") Put(DynamicLds);
    else if (Kind == "hidden_queue_ptr") Put(QueuePtr);
    else if (Kind == "hidden_multigrid_sync_arg") Put(GridWorkspace);
    // Remainders (uniform grids: 0), global offsets (0), printf/hostcall/
    // heap/default queue/completion action (unsupported: null).
  }
  return Buf;
}

//===----------------------------------------------------------------------===//
// Cooperative launches.
//===----------------------------------------------------------------------===//

GridWorkspacePool::~GridWorkspacePool() {
  for (void *P : Retired)
    O.Release(P);
  if (Current)
    O.Release(Current);
}

ferry::Expected<void *> GridWorkspacePool::get(uint64_t DeviceFaults) {
  if (Current && DeviceFaults == Faults)
    return Current;
  auto P = O.Allocate();
  if (!P)
    return P.takeError();
  if (Current)
    Retired.push_back(Current);
  Current = *P;
  Faults = DeviceFaults;
  return Current;
}

namespace {
/// One compute unit's resources for waves (LLVM 19's AMDGPUBaseInfo:
/// getMaxWavesPerEU, getTotalNumVGPRs, getVGPRAllocGranule; AMD ISA guides).
struct CuResources {
  unsigned Simds = 4;
  unsigned MaxWavesPerSimd = 10;
  unsigned VgprsPerLane = 256; ///< Per SIMD, for this wave size.
  unsigned VgprGranule = 4;
  unsigned SgprsPerSimd = 0;   ///< 0: SGPRs do not limit (gfx10+).
  unsigned LdsBytes = 64 * 1024;
  unsigned MaxBarriers = 16;   ///< Workgroups of more than one wave.
};

CuResources cuResources(const TargetInfo &T) {
  unsigned Major = T.IsaVersion / 1000, Minor = T.IsaVersion / 100 % 10,
           Stepping = T.IsaVersion % 100;
  bool W32 = T.WavefrontSize == 32;
  CuResources R;
  if (Major < 10) {
    R.SgprsPerSimd = 800;
    if (Major == 9 && (Minor == 4 || (Minor == 0 && Stepping == 10))) { // gfx90a, gfx94x
      R.MaxWavesPerSimd = 8;
      R.VgprsPerLane = 512; // Unified VGPR + AGPR file.
      R.VgprGranule = 8;
    }
    return R;
  }
  // gfx10+: ROCr counts CUs; in WGP mode a WGP (two CUs, four SIMDs) shares
  // 128 KiB of LDS and 32 barriers, i.e. two SIMDs, 64 KiB and 16 per CU.
  R.Simds = 2;
  R.MaxWavesPerSimd = Major == 10 && Minor < 3 ? 20 : 16;
  bool Vgprs1_5x = T.Name == "gfx1100" || T.Name == "gfx1101" || T.Name == "gfx1151" ||
                   T.Name == "gfx1200" || T.Name == "gfx1201";
  R.VgprsPerLane = (Vgprs1_5x ? 1536 : 1024) / (W32 ? 1 : 2);
  R.VgprGranule = Vgprs1_5x ? 24 : Major > 10 || Minor >= 3 ? 16 : 8;
  if (!W32)
    R.VgprGranule /= 2;
  return R;
}

uint32_t roundUp(uint32_t N, uint32_t A) { return (N + A - 1) / A * A; }
} // namespace

namespace {
/// Workgroups one scheduling unit holds at once: a CU on gfx9, a WGP (two
/// of ROCr's CUs, four SIMDs, 128 KiB of LDS, 32 barriers) on gfx10+,
/// where LLVM compiles in WGP mode and so may give a workgroup more
/// VGPRs than one CU's two SIMDs hold (a 1024-thread wave32 kernel up to
/// 192, LLVM's getMaxNumVGPRs for 8 waves a SIMD). CusPerUnit: 1 or 2.
uint32_t residentPerUnit(const hsa::KernelInfo &K, const TargetInfo &T, uint32_t BlockThreads,
                         uint32_t DynamicLds, unsigned MaxWavesPerCu, unsigned &CusPerUnit) {
  CuResources R = cuResources(T);
  CusPerUnit = T.IsaVersion / 1000 >= 10 ? 2 : 1;
  unsigned Wave = K.WavefrontSize ? K.WavefrontSize : T.WavefrontSize;
  uint32_t WavesPerGroup = (std::max<uint32_t>(BlockThreads, 1) + Wave - 1) / Wave;
  // gfx90a: AGPRs follow the VGPRs (aligned to 4) in the unified file.
  uint32_t Vgprs = K.AgprCount ? roundUp(K.VgprCount, 4) + K.AgprCount : K.VgprCount;
  uint32_t PerSimd = std::min(R.MaxWavesPerSimd,
                              R.VgprsPerLane / roundUp(std::max<uint32_t>(Vgprs, 1), R.VgprGranule));
  if (R.SgprsPerSimd)
    PerSimd = std::min(PerSimd, R.SgprsPerSimd / roundUp(std::max<uint32_t>(K.SgprCount, 1), 16));
  uint32_t Slots = R.Simds * CusPerUnit * PerSimd;
  if (MaxWavesPerCu)
    Slots = std::min<uint32_t>(Slots, MaxWavesPerCu * CusPerUnit);
  uint32_t Groups = Slots / WavesPerGroup;
  if (WavesPerGroup > 1)
    Groups = std::min(Groups, R.MaxBarriers * CusPerUnit);
  uint64_t Lds = uint64_t(K.GroupSegmentSize) + DynamicLds;
  if (Lds > R.LdsBytes)
    return 0;
  if (Lds)
    Groups = std::min<uint32_t>(Groups, uint32_t(R.LdsBytes * CusPerUnit / Lds));
  return Groups;
}
} // namespace

uint32_t residentWorkgroupsPerCu(const hsa::KernelInfo &K, const TargetInfo &T,
                                 uint32_t BlockThreads, uint32_t DynamicLds,
                                 unsigned MaxWavesPerCu) {
  unsigned CusPerUnit = 1;
  uint32_t PerUnit = residentPerUnit(K, T, BlockThreads, DynamicLds, MaxWavesPerCu, CusPerUnit);
  // A workgroup that spans a WGP's two CUs still runs: one per CU, rounded
  // up, so occupancy never answers 0 blocks for a kernel that launches
  // (CUB divides by it). The cooperative check counts exactly.
  return PerUnit ? std::max<uint32_t>(PerUnit / CusPerUnit, 1) : 0;
}

ferry::Status checkCooperativeFit(const hsa::KernelInfo &K, const TargetInfo &T,
                                  unsigned ComputeUnits, unsigned MaxWavesPerCu,
                                  const std::array<uint32_t, 3> &Grid,
                                  const std::array<uint32_t, 3> &Block, uint32_t DynamicLds) {
  uint64_t Blocks = uint64_t(Grid[0]) * Grid[1] * Grid[2];
  uint32_t Threads = Block[0] * Block[1] * Block[2];
  unsigned CusPerUnit = 1;
  uint64_t PerUnit = residentPerUnit(K, T, Threads, DynamicLds, MaxWavesPerCu, CusPerUnit);
  uint64_t Fit = PerUnit * std::max(std::max(ComputeUnits, 1u) / CusPerUnit, 1u);
  if (Blocks <= Fit)
    return ferry::Status::ok();
  std::string Where = CusPerUnit == 1 ? " per CU" : " per WGP (two CUs)";
  return ferry::makeError(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                          "cooperative launch of " + std::to_string(Blocks) + " blocks of " +
                              std::to_string(Threads) + " threads; " + T.Name + " holds " +
                              std::to_string(PerUnit) + Where + " (" + std::to_string(K.VgprCount) +
                              " VGPRs, " + std::to_string(K.GroupSegmentSize + DynamicLds) +
                              " bytes of LDS) x " + std::to_string(ComputeUnits) +
                              " CUs at once");
}

//===----------------------------------------------------------------------===//
// Device seam.
//===----------------------------------------------------------------------===//

namespace {

class HsaDevice;

/// An HSA signal that starts at 1 and reaches 0 when its command is done.
/// After a queue error ROCr stops the queue and never completes the signals
/// of its pending packets, so a signal of a device that faulted since the
/// signal was made counts as complete (its command was abandoned; the
/// device's sticky fault says why) rather than blocking forever.
class HsaSignal : public ferry::Signal {
public:
  HsaSignal(const HsaRuntime &Rt, hsa_signal_t S, const std::atomic<uint64_t> *Faults)
      : Rt(Rt), S(S), Faults(Faults), FaultsAtStart(Faults ? Faults->load() : 0) {}
  ~HsaSignal() override { Rt.fn().hsa_signal_destroy(S); }
  bool isComplete() const override {
    int64_t V = Rt.fn().hsa_signal_load_scacquire(S);
    bool Done = V <= 0 || abandoned();
    if (Done) {
      stamp();
      if (V < 0)
        failed();
    }
    return Done;
  }
  void wait() const override {
    // Blocked waits of 10 ms, looking for a fault in between.
    uint64_t Ticks = uint64_t(1e7 / std::max(Rt.nsPerTick(), 1e-3));
    int64_t V;
    while ((V = Rt.fn().hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_LT, 1, Ticks,
                                                  HSA_WAIT_STATE_BLOCKED)) > 0 &&
           !abandoned()) {
    }
    stamp();
    if (V < 0)
      failed();
  }
  /// Called once when the signal is first seen negative: the command
  /// failed without a queue error (an async copy the DMA engine could not
  /// do, which sim/ reports so). Set before the signal is handed to ROCr.
  void onFailure(std::function<void()> F) { Failure = std::move(F); }
  /// When completion was first observed (host steady clock): profiling
  /// timestamps exist only for dispatches, and events need all commands.
  uint64_t timestampNs() const override { return Stamp.load(); }
  hsa_signal_t handle() const { return S; }

private:
  void stamp() const {
    uint64_t Zero = 0;
    uint64_t Now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now().time_since_epoch())
                       .count();
    Stamp.compare_exchange_strong(Zero, Now);
  }
  bool abandoned() const { return Faults && Faults->load() != FaultsAtStart; }
  void failed() const {
    if (Failure && !FailureSeen.exchange(true))
      Failure();
  }
  std::function<void()> Failure;
  mutable std::atomic<bool> FailureSeen{false};
  const HsaRuntime &Rt;
  hsa_signal_t S;
  const std::atomic<uint64_t> *Faults; ///< The device's fault count.
  uint64_t FaultsAtStart;
  mutable std::atomic<uint64_t> Stamp{0};
};

/// Faults: the device's fault counter (HsaDevice::Faults), so waits end
/// when the device faults; null for a signal no queue completes.
ferry::Expected<std::shared_ptr<HsaSignal>> newSignal(const HsaRuntime &Rt,
                                                      const std::atomic<uint64_t> *Faults,
                                                      int64_t Initial = 1) {
  hsa_signal_t S{};
  if (hsa_status_t E = Rt.fn().hsa_signal_create(Initial, 0, nullptr, &S))
    return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY, "hsa_signal_create: " + Rt.statusText(E));
  return std::make_shared<HsaSignal>(Rt, S, Faults);
}

/// The __ferry_assert records (AssertSymbol) of a device's loaded code
/// objects, by device address.
struct AssertRegistry {
  std::mutex Lock;
  std::set<uint64_t> Records;
};

/// How the host reads and writes device memory: directly where the CPU may
/// touch it (large BAR), else through the DMA engine (HsaDevice's).
struct DeviceMemoryIo {
  /// Reads up to Bytes (fewer where the allocation ends first); how many
  /// were read, 0 on failure.
  std::function<size_t(uint64_t Addr, void *Out, size_t Bytes)> Read;
  std::function<bool(uint64_t Addr, const void *In, size_t Bytes)> Write;
};

/// CUDA's device-side assert message from the record at Addr, and clears
/// it; nullopt when no assert completed there (or the record cannot be
/// read). The record is read after the kernel stopped (the queue error of
/// its trap); its strings lie in the code object's read-only data.
std::optional<std::string> takeAssert(uint64_t Addr, const DeviceMemoryIo &Io) {
  uint64_t W[AssertRecordWords];
  if (Io.Read(Addr, W, sizeof W) != sizeof W || W[0] != 2)
    return std::nullopt;
  auto Str = [&](uint64_t P) -> std::string {
    char Buf[4096];
    size_t N = P ? Io.Read(P, Buf, sizeof Buf) : 0;
    return N ? std::string(Buf, strnlen(Buf, N)) : "?";
  };
  char Where[160];
  snprintf(Where, sizeof Where, ":%u: ", unsigned(W[4]));
  char Ids[128];
  snprintf(Ids, sizeof Ids, "block: [%u,%u,%u], thread: [%u,%u,%u]", unsigned(W[5]),
           unsigned(W[5] >> 32), unsigned(W[6]), unsigned(W[6] >> 32), unsigned(W[7]),
           unsigned(W[7] >> 32));
  std::string Text = Str(W[2]) + Where + Str(W[3]) + ": " + Ids + " Assertion `" + Str(W[1]) +
                     "` failed.";
  uint64_t Zero[AssertRecordWords] = {};
  Io.Write(Addr, Zero, sizeof Zero);
  return Text;
}

struct LoadedKernel {
  uint64_t Object = 0;
  uint32_t PrivateSize = 0, GroupSize = 0;
  const hsa::KernelInfo *Meta = nullptr;
};

class HsaLoadedCode : public ferry::LoadedCode {
public:
  /// Code: CO's code object for the device's target.
  HsaLoadedCode(const HsaRuntime &Rt, const HsaCodeObject &CO, const hsa::CodeObject &Code)
      : Rt(Rt), Code(Code), Info(CO.kernelsOf(Code)) {}
  ~HsaLoadedCode() override {
    if (AssertAddr) {
      std::lock_guard<std::mutex> L(Asserts->Lock);
      Asserts->Records.erase(AssertAddr);
    }
    if (Exec.handle)
      Rt.fn().hsa_executable_destroy(Exec);
    if (Reader.handle)
      Rt.fn().hsa_code_object_reader_destroy(Reader);
  }
  std::span<const ferry::KernelInfo> info() const override { return Info; }
  std::optional<Global> global(std::string_view Name) const override {
    hsa_executable_symbol_t Sym{};
    std::string N(Name);
    if (Rt.fn().hsa_executable_get_symbol_by_name(Exec, N.c_str(), &Agent, &Sym))
      return std::nullopt;
    uint64_t Addr = 0;
    uint32_t Size = 0;
    Rt.fn().hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &Addr);
    Rt.fn().hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE, &Size);
    if (!Addr)
      return std::nullopt;
    return Global{reinterpret_cast<void *>(Addr), Size};
  }

  const HsaRuntime &Rt;
  hsa::CodeObject Code; ///< Owns the bytes ROCr loaded from.
  std::vector<ferry::KernelInfo> Info;
  hsa_agent_t Agent{};
  hsa_executable_t Exec{};
  hsa_code_object_reader_t Reader{};
  std::vector<LoadedKernel> Kernels;
  std::shared_ptr<AssertRegistry> Asserts; ///< The device's.
  uint64_t AssertAddr = 0;                 ///< This code's __ferry_assert, or 0.
};

class HsaDevice : public ferry::Device {
public:
  HsaDevice(const HsaRuntime &Rt, const AgentDescription &A, TargetInfo T);
  const ferry::DeviceProperties &properties() const override { return Props; }
  ferry::Expected<void *> allocate(ferry::MemoryKind Kind, size_t Bytes) override;
  ferry::Status release(ferry::MemoryKind Kind, void *Ptr, size_t Bytes) override {
    if (hsa_status_t E = Rt.fn().hsa_amd_memory_pool_free(Ptr))
      return ferry::makeError(CUDA_ERROR_INVALID_VALUE, "hsa_amd_memory_pool_free: " + Rt.statusText(E));
    return ferry::Status::ok();
  }
  ferry::Expected<void *> registerHost(void *Ptr, size_t Bytes) override {
    void *DevPtr = nullptr;
    hsa_agent_t Ag = A.Agent;
    if (hsa_status_t E = Rt.fn().hsa_amd_memory_lock(Ptr, Bytes, &Ag, 1, &DevPtr))
      return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY, "hsa_amd_memory_lock: " + Rt.statusText(E));
    return DevPtr;
  }
  ferry::Status unregisterHost(void *Ptr) override {
    Rt.fn().hsa_amd_memory_unlock(Ptr);
    return ferry::Status::ok();
  }
  MemoryInfo memoryInfo() const override {
    uint64_t Used = Allocated.load();
    return {A.DeviceMemory > Used ? A.DeviceMemory - Used : 0, A.DeviceMemory};
  }
  ferry::Expected<std::unique_ptr<ferry::Queue>> createQueue(int Priority) override;
  /// GridWorkspaceBytes of device memory, zeroed before any kernel can see
  /// it (hsa_amd_memory_fill is synchronous).
  ferry::Expected<void *> allocateGridWorkspace() {
    auto P = allocate(ferry::MemoryKind::Device, GridWorkspaceBytes);
    if (!P)
      return P;
    if (hsa_status_t E = Rt.fn().hsa_amd_memory_fill(*P, 0, GridWorkspaceBytes / 4)) {
      (void)release(ferry::MemoryKind::Device, *P, GridWorkspaceBytes);
      return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY,
                              "zeroing the grid workspace: " + Rt.statusText(E));
    }
    return P;
  }
  std::shared_ptr<ferry::Signal> completedSignal() override {
    auto S = newSignal(Rt, nullptr, 0);
    if (!S)
      return nullptr;
    (*S)->isComplete(); // Stamps "now".
    return *S;
  }
  ferry::Expected<std::unique_ptr<ferry::LoadedCode>> load(const ferry::CodeObject &Code) override;
  ferry::Status fault() const override {
    std::lock_guard<std::mutex> L(FaultLock);
    return Fault ? ferry::Status(*Fault) : ferry::Status::ok();
  }
  void clearFault() override {
    std::lock_guard<std::mutex> L(FaultLock);
    Fault.reset();
  }
  void setFault(CUresult Code, std::string Why) {
    std::lock_guard<std::mutex> L(FaultLock);
    log::hsa().error("{}: {}", Props.Name, Why);
    ++Faults;
    if (!Fault)
      Fault = ferry::Error(Code, std::move(Why));
  }

  const HsaRuntime &Rt;
  AgentDescription A;
  TargetInfo Target;
  ferry::DeviceProperties Props;
  std::atomic<uint64_t> Allocated{0};
  std::shared_ptr<AssertRegistry> Asserts = std::make_shared<AssertRegistry>();
  /// The message of a device-side assert some loaded code recorded, if any.
  std::optional<std::string> takeAssert();
  /// Reads or writes device memory for the host (DeviceMemoryIo).
  DeviceMemoryIo io();
  mutable std::mutex FaultLock;
  std::optional<ferry::Error> Fault;
  /// Faults ever set: GridWorkspacePool renews its workspace after one, and
  /// HsaSignal stops waiting for commands a fault abandoned.
  std::atomic<uint64_t> Faults{0};
};

HsaDevice::HsaDevice(const HsaRuntime &Rt, const AgentDescription &Ag, TargetInfo T)
    : Rt(Rt), A(Ag), Target(std::move(T)) {
  Props.Name = A.Name;
  Props.Uuid = A.Uuid;
  Props.TotalMemory = A.DeviceMemory;
  Props.MultiprocessorCount = int(A.ComputeUnits ? A.ComputeUnits : 1);
  Props.WarpSize = 32; // CUDA warps are 32 lanes on every AMD target here.
  Props.MaxThreadsPerBlock = 1024;
  Props.ClockRateKHz = int(A.ClockMHz * 1000);
  Props.MemoryClockRateKHz = int(A.MemoryClockMHz * 1000);
  Props.MemoryBusWidth = int(A.MemoryBusWidth);
  Props.SharedMemPerBlock = 48 * 1024;
  Props.SharedMemPerBlockOptin = 64 * 1024;
  Props.SharedMemPerMultiprocessor = 64 * 1024;
  Props.MaxThreadsPerMultiprocessor =
      int(A.MaxWavesPerCu ? A.MaxWavesPerCu * A.WavefrontSize : 2048);
  Props.PciDomain = int(A.PciDomain);
  Props.PciBus = int((A.PciBdf >> 8) & 0xff);
  Props.PciDevice = int((A.PciBdf >> 3) & 0x1f);
  // Cooperative groups synchronise the grid with atomics on the workspace
  // each cooperative launch gets (GridWorkspacePool).
  Props.CooperativeLaunch = true;
  Props.HostAccessesDeviceMemory = A.HostAccess;
}

ferry::Expected<void *> HsaDevice::allocate(ferry::MemoryKind Kind, size_t Bytes) {
  bool OnDevice = Kind == ferry::MemoryKind::Device;
  hsa_amd_memory_pool_t Pool = OnDevice ? A.DevicePool : A.HostPool;
  void *P = nullptr;
  if (hsa_status_t E = Rt.fn().hsa_amd_memory_pool_allocate(Pool, Bytes, 0, &P))
    return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY,
                            "hsa_amd_memory_pool_allocate(" + std::to_string(Bytes) +
                                "): " + Rt.statusText(E));
  // Every allocation is reachable by the GPU, and by the host where the
  // CPU may map the device pool (large BAR, APU); host memory always.
  hsa_agent_t Agents[2] = {A.Agent, A.HostAgent};
  bool WithHost = A.HostAgent.handle && (!OnDevice || A.HostAccess);
  Rt.fn().hsa_amd_agents_allow_access(WithHost ? 2 : 1, Agents, nullptr, P);
  if (OnDevice)
    Allocated += Bytes;
  return P;
}

ferry::Expected<std::unique_ptr<ferry::LoadedCode>> HsaDevice::load(const ferry::CodeObject &Code) {
  const auto *CO = dynamic_cast<const HsaCodeObject *>(&Code);
  if (!CO)
    return ferry::makeError(CUDA_ERROR_INVALID_IMAGE, "not an AMD code object");
  const hsa::CodeObject *Mine = CO->amdgpu(Target.Name);
  if (!Mine)
    return ferry::makeError(CUDA_ERROR_NO_BINARY_FOR_GPU,
                            "code for " + CO->amdgpu().Target + " on a " + Target.Name);
  auto L = std::make_unique<HsaLoadedCode>(Rt, *CO, *Mine);
  L->Agent = A.Agent;
  const Functions &F = Rt.fn();
  auto Fail = [&](const char *What, hsa_status_t E) {
    return ferry::makeError(CUDA_ERROR_INVALID_IMAGE, std::string(What) + ": " + Rt.statusText(E));
  };
  if (hsa_status_t E = F.hsa_code_object_reader_create_from_memory(L->Code.Bytes.data(),
                                                                    L->Code.Bytes.size(), &L->Reader))
    return Fail("hsa_code_object_reader_create_from_memory", E);
  if (hsa_status_t E = F.hsa_executable_create_alt(HSA_PROFILE_FULL,
                                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, "",
                                                   &L->Exec))
    return Fail("hsa_executable_create_alt", E);
  if (hsa_status_t E = F.hsa_executable_load_agent_code_object(L->Exec, A.Agent, L->Reader, "", nullptr))
    return Fail("hsa_executable_load_agent_code_object", E);
  if (hsa_status_t E = F.hsa_executable_freeze(L->Exec, ""))
    return Fail("hsa_executable_freeze", E);
  for (const hsa::KernelInfo &K : L->Code.Kernels) {
    hsa_executable_symbol_t Sym{};
    if (hsa_status_t E = F.hsa_executable_get_symbol_by_name(L->Exec, K.Symbol.c_str(), &A.Agent, &Sym))
      return Fail(("kernel symbol " + K.Symbol).c_str(), E);
    LoadedKernel LK;
    LK.Meta = &K;
    F.hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &LK.Object);
    F.hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &LK.PrivateSize);
    F.hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &LK.GroupSize);
    // ROCr 5.2 ignores dynamic stacks: reserve a fixed amount ourselves.
    if (K.UsesDynamicStack)
      LK.PrivateSize = std::max<uint32_t>(LK.PrivateSize, 16 * 1024);
    L->Kernels.push_back(LK);
  }
  // Occupancy by the AMD resource model: NVIDIA's reads the VGPR count as
  // registers and answered 0 blocks for a kernel with many (CUB's
  // DeviceRadixSort divided by it: SIGFPE on gfx1100).
  for (size_t I = 0; I < L->Info.size() && I < L->Code.Kernels.size(); ++I)
    L->Info[I].ResidentBlocks = [K = L->Code.Kernels[I], T = Target,
                                 Waves = A.MaxWavesPerCu](int Threads, size_t Dyn) {
      if (Threads <= 0 || Dyn > UINT32_MAX)
        return 0;
      return int(residentWorkgroupsPerCu(K, T, uint32_t(Threads), uint32_t(Dyn), Waves));
    };
  if (auto G = L->global(AssertSymbol); G && G->Bytes >= AssertRecordWords * 8) {
    L->Asserts = Asserts;
    L->AssertAddr = reinterpret_cast<uint64_t>(G->Address);
    std::lock_guard<std::mutex> Lk(Asserts->Lock);
    Asserts->Records.insert(L->AssertAddr);
  }
  return std::unique_ptr<ferry::LoadedCode>(std::move(L));
}

/// The sticky CUDA error of a queue error, as NVIDIA reports the like:
/// memory faults are illegal addresses, bad instructions illegal
/// instructions, the rest (s_trap, malformed packets) a failed launch.
CUresult queueErrorCode(hsa_status_t S) {
  switch (S) {
  case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION:
  case HSA_STATUS_ERROR_MEMORY_FAULT:
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  case HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION:
    return CUDA_ERROR_ILLEGAL_INSTRUCTION;
  default:
    return CUDA_ERROR_LAUNCH_FAILED;
  }
}

class HsaQueue : public ferry::Queue {
public:
  HsaQueue(HsaDevice &D, hsa_queue_t *Q)
      : D(D), Rt(D.Rt), Q(Q),
        Workspace({[Dev = &D] { return Dev->allocateGridWorkspace(); },
                   [Dev = &D](void *P) {
                     (void)Dev->release(ferry::MemoryKind::Device, P, GridWorkspaceBytes);
                   }}) {}
  ~HsaQueue() override {
    if (!Q)
      return;
    drain();
    for (auto &T : HostThreads)
      T.join();
    Rt.fn().hsa_queue_destroy(Q);
  }
  void attach(hsa_queue_t *Queue) { Q = Queue; }
  static void onError(hsa_status_t S, hsa_queue_t *, void *Data) {
    auto *Self = static_cast<HsaQueue *>(Data);
    Self->Dead = true;
    // A trap after a device-side assert recorded itself: CUDA's message on
    // stderr (as NVIDIA's driver prints it) and CUDA_ERROR_ASSERT.
    if (S == HSA_STATUS_ERROR_EXCEPTION)
      if (auto Text = Self->D.takeAssert()) {
        std::fprintf(stderr, "%s\n", Text->c_str());
        std::fflush(stderr);
        Self->D.setFault(CUDA_ERROR_ASSERT, "device-side assert: " + *Text);
        return;
      }
    // A barrier on a failed copy (its signal negative) stops the queue with
    // a generic error: the copy's own error, naming it, is the better
    // report (and an earlier failure the root cause of any other), so
    // failed signals still held are looked at first (their failure sets
    // the fault; the first fault stays). Not if an enqueuer holds the lock
    // (it may be waiting for room in this queue).
    {
      std::unique_lock<std::mutex> L(Self->Lock, std::try_to_lock);
      if (L.owns_lock())
        for (auto &[Until, Keep] : Self->Retained)
          Until->isComplete();
    }
    Self->D.setFault(queueErrorCode(S), "queue error: " + Self->Rt.statusText(S));
  }
  /// ROCr runs nothing more on a queue after an error: later commands would
  /// wait forever, so they are refused with the device's fault.
  ferry::Status refuseIfDead() const {
    if (!Dead)
      return ferry::Status::ok();
    ferry::Status F = D.fault();
    return F ? ferry::makeError(CUDA_ERROR_LAUNCH_FAILED, "the AMD queue stopped after a fault")
             : std::move(F);
  }

  ferry::Status enqueueCopy(const ferry::CopyRect &R) override;
  ferry::Status enqueueFill(const ferry::FillRect &R) override;
  ferry::Status enqueueLaunch(const ferry::LaunchRequest &L) override;
  ferry::Status enqueueHostFunction(std::function<void(CUresult)> Fn) override;
  ferry::Status enqueueWait(std::shared_ptr<ferry::Signal> S) override;
  ferry::Expected<std::shared_ptr<ferry::Signal>> enqueueSignal() override {
    std::lock_guard<std::mutex> L(Lock);
    if (Last)
      return std::shared_ptr<ferry::Signal>(Last);
    return D.completedSignal();
  }
  bool isIdle() const override {
    std::lock_guard<std::mutex> L(Lock);
    return !Last || Last->isComplete();
  }
  void drain() override {
    std::shared_ptr<HsaSignal> S;
    {
      std::lock_guard<std::mutex> L(Lock);
      S = Last;
    }
    if (S)
      S->wait();
    reclaim();
  }

private:
  template <typename Packet> void publish(Packet P, uint16_t Header, uint16_t Setup);
  /// AQL packets wait for out-of-queue work (copies, host functions).
  ferry::Status fenceOutOfQueueWork();
  ferry::Status barrierOn(std::initializer_list<std::shared_ptr<HsaSignal>> Deps,
                          std::shared_ptr<HsaSignal> &Completion);
  /// Keeps Keep (a signal handed to ROCr as a dependency or completion
  /// signal) alive until Until completed: ROCr reads and writes signals by
  /// address, so one destroyed while a packet or copy still refers to it is
  /// a use after free. Lock held.
  void retain(const std::shared_ptr<HsaSignal> &Until, std::shared_ptr<ferry::Signal> Keep) {
    Retained.emplace_back(Until, std::move(Keep));
  }
  /// Frees kernarg buffers and unlocks pageable host ranges whose command
  /// completed.
  void reclaim();

  HsaDevice &D;
  const HsaRuntime &Rt;
  hsa_queue_t *Q;
  mutable std::mutex Lock;
  std::shared_ptr<HsaSignal> Last;  ///< Completes after every command so far.
  std::atomic<bool> Dead{false};    ///< ROCr stopped the queue (onError).
  bool LastOutOfQueue = false;      ///< Last came from a copy or host function.
  /// Signals ROCr may still touch, each until its command completed.
  std::deque<std::pair<std::shared_ptr<HsaSignal>, std::shared_ptr<ferry::Signal>>> Retained;
  std::deque<std::pair<std::shared_ptr<HsaSignal>, void *>> Kernargs;
  /// Pageable host ranges locked for a copy, unlocked once it completed.
  std::deque<std::pair<std::shared_ptr<HsaSignal>, void *>> Locked;
  std::vector<std::thread> HostThreads;
  GridWorkspacePool Workspace; ///< Cooperative launches (under Lock).
};

template <typename Packet> void HsaQueue::publish(Packet P, uint16_t Header, uint16_t Setup) {
  const Functions &F = Rt.fn();
  uint64_t Index = F.hsa_queue_add_write_index_screlease(Q, 1);
  while (Index - F.hsa_queue_load_read_index_scacquire(Q) >= Q->size)
    std::this_thread::yield();
  auto *Slot = static_cast<uint8_t *>(Q->base_address) + (Index % Q->size) * 64;
  // The body first, then the header word with release semantics: the packet
  // processor starts reading once the type stops being INVALID.
  std::memcpy(Slot + 4, reinterpret_cast<const uint8_t *>(&P) + 4, 60);
  __atomic_store_n(reinterpret_cast<uint32_t *>(Slot), uint32_t(Header) | uint32_t(Setup) << 16,
                   __ATOMIC_RELEASE);
  F.hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
}

static uint16_t header(uint16_t Type) {
  return uint16_t(Type | 1u << HSA_PACKET_HEADER_BARRIER |
                  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE |
                  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
}

ferry::Status HsaQueue::barrierOn(std::initializer_list<std::shared_ptr<HsaSignal>> Deps,
                                  std::shared_ptr<HsaSignal> &Completion) {
  auto S = newSignal(Rt, &D.Faults);
  if (!S)
    return S.takeError();
  hsa_barrier_and_packet_t P{};
  size_t I = 0;
  for (const std::shared_ptr<HsaSignal> &Dep : Deps)
    if (Dep && I < 5) {
      P.dep_signal[I++] = Dep->handle();
      retain(*S, Dep);
    }
  P.completion_signal = (*S)->handle();
  retain(*S, *S);
  publish(P, header(HSA_PACKET_TYPE_BARRIER_AND), 0);
  Completion = *S;
  return ferry::Status::ok();
}

ferry::Status HsaQueue::fenceOutOfQueueWork() {
  if (!LastOutOfQueue || !Last)
    return ferry::Status::ok();
  std::shared_ptr<HsaSignal> C;
  if (ferry::Status St = barrierOn({Last}, C); !St)
    return St;
  Last = C;
  LastOutOfQueue = false;
  return ferry::Status::ok();
}

void HsaQueue::reclaim() {
  std::lock_guard<std::mutex> L(Lock);
  while (!Kernargs.empty() && Kernargs.front().first->isComplete()) {
    Rt.fn().hsa_amd_memory_pool_free(Kernargs.front().second);
    Kernargs.pop_front();
  }
  while (!Locked.empty() && Locked.front().first->isComplete()) {
    Rt.fn().hsa_amd_memory_unlock(Locked.front().second);
    Locked.pop_front();
  }
  while (!Retained.empty() && Retained.front().first->isComplete())
    Retained.pop_front();
}

ferry::Status HsaQueue::enqueueLaunch(const ferry::LaunchRequest &R) {
  if (ferry::Status St = refuseIfDead(); !St)
    return St;
  const auto *Code = dynamic_cast<const HsaLoadedCode *>(R.Code);
  if (!Code || R.KernelIndex >= Code->Kernels.size())
    return ferry::makeError(CUDA_ERROR_INVALID_VALUE, "launch of an unknown AMD kernel");
  const LoadedKernel &K = Code->Kernels[R.KernelIndex];
  // The core checked the program's shared memory against CUDA's limits; the
  // group segment may hold ferry's own LDS on top, and must fit the CU's.
  if (uint64_t Lds = uint64_t(K.GroupSize) + R.DynamicSharedBytes; Lds > cuResources(D.Target).LdsBytes)
    return ferry::makeError(CUDA_ERROR_INVALID_VALUE,
                            "launch needs " + std::to_string(Lds) + " bytes of LDS (" +
                                std::to_string(K.GroupSize) + " static incl. ferry's own, " +
                                std::to_string(R.DynamicSharedBytes) + " dynamic); " +
                                D.Target.Name + " has " +
                                std::to_string(cuResources(D.Target).LdsBytes));
  uint32_t GridItems[3];
  for (int I = 0; I < 3; ++I) {
    uint64_t N = uint64_t(R.Grid[I]) * R.Block[I];
    if (N > UINT32_MAX)
      return ferry::makeError(CUDA_ERROR_NOT_SUPPORTED,
                              "grid of more than 2^32 work-items in one dimension (grid splitting "
                              "is not implemented on the AMD backend)");
    GridItems[I] = uint32_t(N);
  }
  // The core checked co-residency with the generic occupancy model; this is
  // the AMD resource model, which decides whether the GPU can hold the grid.
  if (R.Cooperative)
    if (ferry::Status St = checkCooperativeFit(*K.Meta, D.Target, D.A.ComputeUnits,
                                               D.A.MaxWavesPerCu, R.Grid, R.Block,
                                               R.DynamicSharedBytes);
        !St)
      return St;
  reclaim();
  uint64_t GridWorkspace = 0;
  if (R.Cooperative) {
    std::lock_guard<std::mutex> L(Lock);
    auto W = Workspace.get(D.Faults.load());
    if (!W)
      return W.takeError();
    GridWorkspace = reinterpret_cast<uint64_t>(*W);
  }
  std::vector<uint8_t> Args = buildKernarg(*K.Meta, R.Args, R.Grid, R.Block, R.DynamicSharedBytes,
                                           reinterpret_cast<uint64_t>(Q), GridWorkspace);
  void *KernargMem = nullptr;
  if (hsa_status_t E = Rt.fn().hsa_amd_memory_pool_allocate(D.A.KernargPool, Args.size(), 0, &KernargMem))
    return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY, "kernarg allocation: " + Rt.statusText(E));
  hsa_agent_t Agent = D.A.Agent;
  Rt.fn().hsa_amd_agents_allow_access(1, &Agent, nullptr, KernargMem);
  std::memcpy(KernargMem, Args.data(), Args.size());
  auto S = newSignal(Rt, &D.Faults);
  if (!S) {
    Rt.fn().hsa_amd_memory_pool_free(KernargMem);
    return S.takeError();
  }
  std::lock_guard<std::mutex> L(Lock);
  if (ferry::Status St = fenceOutOfQueueWork(); !St) {
    Rt.fn().hsa_amd_memory_pool_free(KernargMem);
    return St;
  }
  hsa_kernel_dispatch_packet_t P{};
  P.workgroup_size_x = uint16_t(R.Block[0]);
  P.workgroup_size_y = uint16_t(R.Block[1]);
  P.workgroup_size_z = uint16_t(R.Block[2]);
  P.grid_size_x = GridItems[0];
  P.grid_size_y = GridItems[1];
  P.grid_size_z = GridItems[2];
  P.private_segment_size = K.PrivateSize;
  P.group_segment_size = K.GroupSize + R.DynamicSharedBytes;
  P.kernel_object = K.Object;
  P.kernarg_address = KernargMem;
  P.completion_signal = (*S)->handle();
  publish(P, header(HSA_PACKET_TYPE_KERNEL_DISPATCH), 3 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  retain(*S, *S);
  Last = *S;
  Kernargs.emplace_back(*S, KernargMem);
  return ferry::Status::ok();
}

/// What ROCr knows of the memory at P: an HSA allocation, locked host
/// memory (with the locked range), or nothing (pageable host memory, which
/// the DMA engines hsa_amd_memory_async_copy drives cannot reach).
static hsa_amd_pointer_info_t pointerInfo(const HsaRuntime &Rt, const void *P) {
  hsa_amd_pointer_info_t Info{};
  Info.size = sizeof Info;
  if (Rt.fn().hsa_amd_pointer_info(P, &Info, nullptr, nullptr, nullptr) != HSA_STATUS_SUCCESS)
    Info.type = HSA_EXT_POINTER_TYPE_HSA; // Cannot tell; the copy reports its own error.
  return Info;
}

/// A hex address for messages.
static std::string hexAddress(const void *P) {
  char Buf[24];
  snprintf(Buf, sizeof Buf, "%#lx", (unsigned long)reinterpret_cast<uintptr_t>(P));
  return Buf;
}

/// One transfer for the DMA engine: Bytes from Src to Dst, both within the
/// GPU agent's reach (device memory, pool or locked host memory).
struct DmaPiece {
  void *Dst;
  const void *Src;
  size_t Bytes;
};

/// Runs Pieces on the DMA engine (hsa_amd_memory_async_copy) and waits for
/// all of them: work of a host function, which already runs in stream
/// order. A copy the engine could not do (its signal went negative) is an
/// illegal address, naming it.
static ferry::Status dmaAndWait(HsaDevice &D, const std::vector<DmaPiece> &Pieces) {
  const Functions &F = D.Rt.fn();
  ferry::Status Result = ferry::Status::ok();
  std::vector<std::pair<hsa_signal_t, const DmaPiece *>> Issued;
  for (const DmaPiece &P : Pieces) {
    hsa_signal_t S{};
    if (hsa_status_t E = F.hsa_signal_create(1, 0, nullptr, &S)) {
      Result = ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY, "hsa_signal_create: " + D.Rt.statusText(E));
      break;
    }
    if (hsa_status_t E = F.hsa_amd_memory_async_copy(P.Dst, D.A.Agent, P.Src, D.A.Agent, P.Bytes,
                                                     0, nullptr, S)) {
      F.hsa_signal_destroy(S);
      Result = ferry::makeError(CUDA_ERROR_INVALID_VALUE,
                                "hsa_amd_memory_async_copy of " + std::to_string(P.Bytes) +
                                    " bytes to " + hexAddress(P.Dst) + ": " + D.Rt.statusText(E));
      break;
    }
    Issued.emplace_back(S, &P);
  }
  for (auto &[S, P] : Issued) {
    int64_t V = F.hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                            HSA_WAIT_STATE_BLOCKED);
    if (V < 0 && Result)
      Result = ferry::makeError(CUDA_ERROR_ILLEGAL_ADDRESS,
                                "the DMA engine failed an async copy of " + std::to_string(P->Bytes) +
                                    " bytes from " + hexAddress(P->Src) + " to " + hexAddress(P->Dst));
    F.hsa_signal_destroy(S);
  }
  return Result;
}

/// Host memory the DMA engine reaches (the host pool), freed with it.
class PinnedBuffer {
public:
  PinnedBuffer(HsaDevice &D, size_t Bytes) : D(D), Bytes(Bytes) {
    auto P = D.allocate(ferry::MemoryKind::HostPinned, std::max<size_t>(Bytes, 1));
    if (P)
      Data = static_cast<uint8_t *>(*P);
    else
      Why = P.error().message();
  }
  ~PinnedBuffer() {
    if (Data)
      (void)D.release(ferry::MemoryKind::HostPinned, Data, Bytes);
  }
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  uint8_t *Data = nullptr;
  std::string Why; ///< Why Data is null.

private:
  HsaDevice &D;
  size_t Bytes;
};

/// A copy with a side the DMA engine cannot reach and ROCr would not lock
/// (pageable host memory overlapping a range locked differently): that side
/// goes through a pinned staging buffer, the device side by DMA, so device
/// memory is never touched by the host. Both sides pageable: a host copy.
/// Runs on the host function path (in stream order).
static ferry::Status copyThroughStaging(HsaDevice &D, const ferry::CopyRect &C, bool SrcReached,
                                        bool DstReached, void *SrcAgent, void *DstAgent) {
  auto SrcRow = [&](const void *Base, size_t Z, size_t Y) {
    return static_cast<const uint8_t *>(Base) + Z * C.SrcSlicePitch + Y * C.SrcPitch;
  };
  auto DstRow = [&](void *Base, size_t Z, size_t Y) {
    return static_cast<uint8_t *>(Base) + Z * C.DstSlicePitch + Y * C.DstPitch;
  };
  if (!SrcReached && !DstReached) {
    for (size_t Z = 0; Z < C.Depth; ++Z)
      for (size_t Y = 0; Y < C.Height; ++Y)
        std::memmove(DstRow(C.Dst, Z, Y), SrcRow(C.Src, Z, Y), C.WidthBytes);
    return ferry::Status::ok();
  }
  size_t Rows = C.Height * C.Depth;
  PinnedBuffer Stage(D, C.WidthBytes * Rows);
  if (!Stage.Data)
    return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY, "staging buffer for a copy: " + Stage.Why);
  std::vector<DmaPiece> Pieces;
  for (size_t Z = 0, R = 0; Z < C.Depth; ++Z)
    for (size_t Y = 0; Y < C.Height; ++Y, ++R) {
      uint8_t *Staged = Stage.Data + R * C.WidthBytes;
      if (!SrcReached) {
        std::memcpy(Staged, SrcRow(C.Src, Z, Y), C.WidthBytes);
        Pieces.push_back({DstRow(DstAgent, Z, Y), Staged, C.WidthBytes});
      } else {
        Pieces.push_back({Staged, SrcRow(SrcAgent, Z, Y), C.WidthBytes});
      }
    }
  if (ferry::Status St = dmaAndWait(D, Pieces); !St)
    return St;
  if (!DstReached)
    for (size_t Z = 0, R = 0; Z < C.Depth; ++Z)
      for (size_t Y = 0; Y < C.Height; ++Y, ++R)
        std::memcpy(DstRow(C.Dst, Z, Y), Stage.Data + R * C.WidthBytes, C.WidthBytes);
  return ferry::Status::ok();
}

ferry::Status HsaQueue::enqueueCopy(const ferry::CopyRect &R) {
  if (ferry::Status St = refuseIfDead(); !St)
    return St;
  reclaim();
  // The bytes each side spans, first row to the end of the last.
  size_t SrcSpan = (R.Depth - 1) * R.SrcSlicePitch + (R.Height - 1) * R.SrcPitch + R.WidthBytes;
  size_t DstSpan = (R.Depth - 1) * R.DstSlicePitch + (R.Height - 1) * R.DstPitch + R.WidthBytes;
  // A pageable side is locked for the copy (as HIP pins or stages it) and
  // unlocked once the copy completed (reclaim). Where locking fails (e.g. a
  // range overlapping one locked differently), that side is staged through
  // pinned memory in stream order instead (copyThroughStaging).
  std::vector<void *> LockedHere;
  auto Pin = [&](const void *P, size_t Bytes, void *&AgentPtr) {
    hsa_amd_pointer_info_t Info = pointerInfo(Rt, P);
    if (Info.type != HSA_EXT_POINTER_TYPE_UNKNOWN && Info.type != HSA_EXT_POINTER_TYPE_LOCKED) {
      AgentPtr = const_cast<void *>(P);
      return true;
    }
    // Locked memory is locked again (the same range: ROCr counts), so an
    // earlier copy's unlock cannot pull it away from this one.
    auto *Base = static_cast<uint8_t *>(const_cast<void *>(P));
    size_t Size = Bytes;
    auto *Host = static_cast<uint8_t *>(Info.hostBaseAddress);
    if (Info.type == HSA_EXT_POINTER_TYPE_LOCKED && Host && Base >= Host &&
        size_t(Base - Host) + Bytes <= Info.sizeInBytes) {
      Size = Info.sizeInBytes;
      Base = Host;
    }
    hsa_agent_t Ag = D.A.Agent;
    void *Agent = nullptr;
    if (Rt.fn().hsa_amd_memory_lock(Base, Size, &Ag, 1, &Agent) != HSA_STATUS_SUCCESS)
      return false;
    LockedHere.push_back(Base);
    AgentPtr = static_cast<uint8_t *>(Agent) + (static_cast<const uint8_t *>(P) - Base);
    return true;
  };
  void *SrcAgent = nullptr, *DstAgent = nullptr;
  bool SrcReached = Pin(R.Src, SrcSpan, SrcAgent);
  bool DstReached = Pin(R.Dst, DstSpan, DstAgent);
  if (!SrcReached || !DstReached) {
    ferry::CopyRect Copy = R;
    HsaDevice *Dev = &D;
    ferry::Status St = enqueueHostFunction([Copy, Dev, SrcReached, DstReached, SrcAgent,
                                            DstAgent](CUresult Before) {
      if (Before != CUDA_SUCCESS)
        return; // The device faulted: the copy was abandoned with it.
      if (ferry::Status C = copyThroughStaging(*Dev, Copy, SrcReached, DstReached, SrcAgent, DstAgent); !C)
        Dev->setFault(C.code(), "copy of " + std::to_string(Copy.WidthBytes * Copy.Height * Copy.Depth) +
                                    " bytes through a staging buffer: " + C.message());
    });
    // The side that was locked stays locked until the staged copy ran.
    std::lock_guard<std::mutex> L(Lock);
    for (void *P : LockedHere) {
      if (St && Last)
        Locked.emplace_back(Last, P);
      else
        Rt.fn().hsa_amd_memory_unlock(P);
    }
    return St;
  }
  std::lock_guard<std::mutex> L(Lock);
  ferry::Status Result = ferry::Status::ok();
  // Rows become separate DMA copies chained on signals.
  for (size_t Z = 0; Z < R.Depth && Result; ++Z)
    for (size_t Y = 0; Y < R.Height && Result; ++Y) {
      auto S = newSignal(Rt, &D.Faults);
      if (!S) {
        Result = S.takeError();
        break;
      }
      size_t DstOff = Z * R.DstSlicePitch + Y * R.DstPitch;
      size_t SrcOff = Z * R.SrcSlicePitch + Y * R.SrcPitch;
      auto *Dst = static_cast<uint8_t *>(DstAgent) + DstOff;
      auto *Src = static_cast<const uint8_t *>(SrcAgent) + SrcOff;
      // A copy the DMA engine could not do (sim/: its memory went before it
      // ran) completes its signal negative: the program sees an error.
      (*S)->onFailure([Dev = &D, Dst, Src, Bytes = R.WidthBytes] {
        Dev->setFault(CUDA_ERROR_ILLEGAL_ADDRESS,
                      "the DMA engine failed an async copy of " + std::to_string(Bytes) +
                          " bytes from " + hexAddress(Src) + " to " + hexAddress(Dst));
      });
      hsa_signal_t Dep = Last ? Last->handle() : hsa_signal_t{0};
      // Under UVA the GPU agent can drive copies in every direction.
      if (hsa_status_t E = Rt.fn().hsa_amd_memory_async_copy(Dst, D.A.Agent, Src, D.A.Agent,
                                                             R.WidthBytes, Last ? 1 : 0, &Dep,
                                                             (*S)->handle())) {
        Result = ferry::makeError(CUDA_ERROR_INVALID_VALUE,
                                  "hsa_amd_memory_async_copy: " + Rt.statusText(E));
        break;
      }
      if (Last)
        retain(*S, Last);
      retain(*S, *S);
      Last = *S;
      LastOutOfQueue = true;
    }
  // Unlocked after the last row copied (or at once when nothing was queued
  // that could still read them).
  for (void *P : LockedHere) {
    if (Last)
      Locked.emplace_back(Last, P);
    else
      Rt.fn().hsa_amd_memory_unlock(P);
  }
  return Result;
}

/// Fills F on the GPU's side: each row's 4-byte-aligned middle with
/// hsa_amd_memory_fill (a 1-, 2- or 4-byte value's bytes repeat within a
/// dword, so the middle is one dword pattern, rotated to the phase it
/// starts at), and the up to 3 bytes before and after it by the host where
/// it may touch device memory (large BAR), else by DMA from a pinned buffer
/// holding the pattern. hsa_amd_memory_fill is synchronous: this runs on
/// the host function path, in stream order.
static ferry::Status fillRows(HsaDevice &D, const ferry::FillRect &F) {
  uint32_t Mask = F.ElemBytes == 4 ? ~0u : (1u << (8 * F.ElemBytes)) - 1;
  uint32_t V = F.Value & Mask;
  // Byte I of a row (each row starts with a whole element) is byte
  // I % ElemBytes of the value.
  auto ByteAt = [&](size_t I) { return uint8_t(V >> (8 * (I % F.ElemBytes))); };
  size_t RowBytes = F.Width * F.ElemBytes;
  // Contiguous rows are one row.
  size_t Rows = F.Height, Pitch = F.Pitch;
  if (Rows > 1 && Pitch == RowBytes) {
    RowBytes *= Rows;
    Rows = 1;
  }
  struct Edge {
    uint8_t *At;
    size_t Bytes, Phase; ///< Phase: the edge's first byte is ByteAt(Phase).
  };
  std::vector<Edge> Edges;
  for (size_t Y = 0; Y < Rows; ++Y) {
    auto *Row = static_cast<uint8_t *>(F.Dst) + Y * Pitch;
    size_t Head = std::min(RowBytes, size_t((4 - reinterpret_cast<uintptr_t>(Row) % 4) % 4));
    size_t Middle = (RowBytes - Head) & ~size_t(3);
    size_t Tail = RowBytes - Head - Middle;
    if (Middle) {
      uint32_t Pattern = 0;
      for (size_t K = 0; K < 4; ++K)
        Pattern |= uint32_t(ByteAt(Head + K)) << (8 * K);
      if (hsa_status_t E = D.Rt.fn().hsa_amd_memory_fill(Row + Head, Pattern, Middle / 4))
        return ferry::makeError(CUDA_ERROR_INVALID_VALUE,
                                "hsa_amd_memory_fill(" + hexAddress(Row + Head) + ", " +
                                    std::to_string(Middle / 4) + " dwords): " + D.Rt.statusText(E));
    }
    if (Head)
      Edges.push_back({Row, Head, 0});
    if (Tail)
      Edges.push_back({Row + Head + Middle, Tail, (Head + Middle) % F.ElemBytes});
  }
  if (Edges.empty())
    return ferry::Status::ok();
  if (D.A.HostAccess) {
    for (const Edge &E : Edges)
      for (size_t I = 0; I < E.Bytes; ++I)
        E.At[I] = ByteAt(E.Phase + I);
    return ferry::Status::ok();
  }
  // Edges are at most 3 bytes from a phase below 4.
  PinnedBuffer Bytes(D, 8);
  if (!Bytes.Data)
    return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY, "memset's pattern buffer: " + Bytes.Why);
  for (size_t I = 0; I < 8; ++I)
    Bytes.Data[I] = ByteAt(I);
  std::vector<DmaPiece> Pieces;
  Pieces.reserve(Edges.size());
  for (const Edge &E : Edges)
    Pieces.push_back({E.At, Bytes.Data + E.Phase, E.Bytes});
  return dmaAndWait(D, Pieces);
}

DeviceMemoryIo HsaDevice::io() {
  if (A.HostAccess)
    return {[](uint64_t Addr, void *Out, size_t N) {
              // Strings: up to N bytes, stopping at the terminator.
              auto *From = reinterpret_cast<const char *>(Addr);
              std::memcpy(Out, From, N == 4096 ? strnlen(From, N - 1) + 1 : N);
              return N;
            },
            [](uint64_t Addr, const void *In, size_t N) {
              std::memcpy(reinterpret_cast<void *>(Addr), In, N);
              return true;
            }};
  return {[this](uint64_t Addr, void *Out, size_t N) -> size_t {
            // Not past the end of the allocation holding Addr (a DMA copy
            // must lie inside one), where ROCr knows it.
            hsa_amd_pointer_info_t Info = pointerInfo(Rt, reinterpret_cast<const void *>(Addr));
            auto Base = reinterpret_cast<uint64_t>(Info.agentBaseAddress);
            if (Info.type != HSA_EXT_POINTER_TYPE_UNKNOWN && Base && Addr >= Base &&
                Addr - Base < Info.sizeInBytes)
              N = std::min<size_t>(N, Info.sizeInBytes - (Addr - Base));
            PinnedBuffer B(*this, N);
            if (!B.Data || !dmaAndWait(*this, {{B.Data, reinterpret_cast<const void *>(Addr), N}}))
              return 0;
            std::memcpy(Out, B.Data, N);
            return N;
          },
          [this](uint64_t Addr, const void *In, size_t N) {
            PinnedBuffer B(*this, N);
            if (!B.Data)
              return false;
            std::memcpy(B.Data, In, N);
            return bool(dmaAndWait(*this, {{reinterpret_cast<void *>(Addr), B.Data, N}}));
          }};
}

std::optional<std::string> HsaDevice::takeAssert() {
  DeviceMemoryIo Io = io();
  std::lock_guard<std::mutex> L(Asserts->Lock);
  for (uint64_t Addr : Asserts->Records)
    if (auto Text = hsa::takeAssert(Addr, Io))
      return Text;
  return std::nullopt;
}

ferry::Status HsaQueue::enqueueFill(const ferry::FillRect &R) {
  ferry::FillRect Fill = R;
  HsaDevice *Dev = &D;
  return enqueueHostFunction([Fill, Dev](CUresult Before) {
    if (Before != CUDA_SUCCESS)
      return; // The device faulted: the fill was abandoned with it.
    if (ferry::Status St = fillRows(*Dev, Fill); !St)
      Dev->setFault(St.code(), "memset of " + std::to_string(Fill.Height) + " x " +
                                   std::to_string(Fill.Width) + " " +
                                   std::to_string(8 * Fill.ElemBytes) + "-bit values at " +
                                   hexAddress(Fill.Dst) + ": " + St.message());
  });
}

ferry::Status HsaQueue::enqueueHostFunction(std::function<void(CUresult)> Fn) {
  if (ferry::Status St = refuseIfDead(); !St)
    return St;
  auto S = newSignal(Rt, &D.Faults);
  if (!S)
    return S.takeError();
  std::lock_guard<std::mutex> L(Lock);
  std::shared_ptr<HsaSignal> Before = Last, Done = *S;
  HsaDevice &Dev = D;
  HostThreads.emplace_back([Before, Done, Fn = std::move(Fn), &Dev]() mutable {
    if (Before)
      Before->wait();
    ferry::Status F = Dev.fault();
    Fn(F.code());
    // What the function holds (a graph launch's allocations) goes before
    // the command counts as done: a synchronize that returns must find it
    // released (cudaDeviceGraphMemTrim right after one saw it still held).
    Fn = nullptr;
    Dev.Rt.fn().hsa_signal_store_screlease(Done->handle(), 0);
  });
  Last = Done;
  LastOutOfQueue = true;
  return ferry::Status::ok();
}

ferry::Status HsaQueue::enqueueWait(std::shared_ptr<ferry::Signal> S) {
  if (ferry::Status St = refuseIfDead(); !St)
    return St;
  auto H = std::dynamic_pointer_cast<HsaSignal>(S);
  if (!H) {
    // A signal of another backend: wait for it on the host path.
    return enqueueHostFunction([S](CUresult) { S->wait(); });
  }
  reclaim();
  std::lock_guard<std::mutex> L(Lock);
  std::shared_ptr<HsaSignal> C;
  if (ferry::Status St = barrierOn({H, Last}, C); !St)
    return St;
  Last = C;
  LastOutOfQueue = false;
  return ferry::Status::ok();
}

ferry::Expected<std::unique_ptr<ferry::Queue>> HsaDevice::createQueue(int) {
  uint32_t Size = std::min<uint32_t>(A.QueueMaxSize ? A.QueueMaxSize : 4096, 4096);
  // The object exists first so the error callback can be given its address.
  auto Queue = std::make_unique<HsaQueue>(*this, nullptr);
  hsa_queue_t *Q = nullptr;
  if (hsa_status_t E = Rt.fn().hsa_queue_create(A.Agent, Size, HSA_QUEUE_TYPE_MULTIPLE,
                                                &HsaQueue::onError, Queue.get(), UINT32_MAX,
                                                UINT32_MAX, &Q))
    return ferry::makeError(CUDA_ERROR_OUT_OF_MEMORY, "hsa_queue_create: " + Rt.statusText(E));
  Queue->attach(Q);
  return std::unique_ptr<ferry::Queue>(std::move(Queue));
}

class HsaDeviceBackend : public ferry::DeviceBackend {
public:
  explicit HsaDeviceBackend(const HsaRuntime &Rt) {
    // One compiler for every distinct target of the GPUs (a machine may mix
    // them): each device loads the code object of its own.
    std::vector<TargetInfo> Targets;
    for (const AgentDescription &A : Rt.agents()) {
      auto T = resolveTarget(A.Isa);
      if (!T) {
        llvm::consumeError(T.takeError());
        continue;
      }
      if (std::none_of(Targets.begin(), Targets.end(),
                       [&](const TargetInfo &U) { return U.Name == T->Name; }))
        Targets.push_back(*T);
      Owned.push_back(std::make_unique<HsaDevice>(Rt, A, *T));
      Devices.push_back(Owned.back().get());
    }
    if (Targets.empty()) // No GPU: still compile (offline use), for a default ISA.
      Targets.push_back(checkedTargets()[1]);
    Compiler = std::make_unique<HsaCompilerBackend>(std::move(Targets));
  }
  std::string_view name() const override { return "hsa"; }
  std::span<ferry::Device *const> devices() const override { return Devices; }
  ferry::CompilerBackend *compiler() override { return Compiler.get(); }

private:
  std::vector<std::unique_ptr<HsaDevice>> Owned;
  std::vector<ferry::Device *> Devices;
  std::unique_ptr<HsaCompilerBackend> Compiler;
};

} // namespace

ferry::Expected<std::unique_ptr<ferry::DeviceBackend>> createHsaDeviceBackend() {
  const HsaRuntime &Rt = HsaRuntime::get();
  // With FERRY_BACKEND=hsa the user asked for AMD GPUs, so why there are
  // none is a warning (shown at the default log level); with `auto` it is
  // the ordinary way to fall back to the host backend.
  bool Forced = Settings::get().getString(SettingKey::Backend) == "hsa";
  if (!Rt.ready() || Rt.agents().empty()) {
    if (Forced)
      log::hsa().warn("FERRY_BACKEND=hsa but the AMD backend has no device: {}",
                      Rt.whyUnavailable());
    else
      log::hsa().info("{}", Rt.whyUnavailable());
  }
  if (!Rt.ready())
    return ferry::makeError(CUDA_ERROR_NO_DEVICE, Rt.whyUnavailable());
  return std::unique_ptr<ferry::DeviceBackend>(std::make_unique<HsaDeviceBackend>(Rt));
}

} // namespace ferry::hsa
