/// \file
/// HostCompiler: drives LowerHost, the O2/O3 pipeline for the host CPU and
/// LLVM ORC LLJIT. One LLJIT serves every module; each compiled module lives
/// in its own JITDylib, which links against a "ferry.runtime" dylib holding
/// the executor's entry points (absolute symbols) and then the process, so
/// libm and memcpy resolve too. Freeing a CompiledModule removes its dylib.
#include "host/jit/HostCompiler.h"

#include "host/jit/LowerHost.h"
#include "host/jit/Vectorize.h"
#include "support/LlvmTargets.h"
#include "support/Log.h"
#include "support/Settings.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/MapperJITLinkMemoryManager.h"
#include "llvm/ExecutionEngine/Orc/MemoryMapper.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/SplitModule.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Bitcode/BitcodeReader.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>

#include <unistd.h>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

using namespace llvm;

// f32 → bf16 with round-to-nearest-even on the bits, subnormals kept and
// NaNs quieted: the libcall LLVM emits for bf16 truncation once the CPU's
// flushing conversion instructions are turned off. The float arrives in
// xmm0 and the bf16 bits return in the low half of xmm0 (the x86-64 ABI of
// __bf16), hence assembly.
asm(R"(
  .text
  .globl ferry_truncsfbf2
  .hidden ferry_truncsfbf2
  .type ferry_truncsfbf2,@function
  .p2align 4
ferry_truncsfbf2:
  movd %xmm0, %eax
  movl %eax, %ecx
  andl $0x7fffffff, %ecx
  cmpl $0x7f800000, %ecx
  ja 1f
  movl %eax, %ecx
  shrl $16, %ecx
  andl $1, %ecx
  addl $0x7fff, %ecx
  addl %ecx, %eax
  shrl $16, %eax
  movd %eax, %xmm0
  ret
1:
  shrl $16, %eax
  orl $0x40, %eax
  movd %eax, %xmm0
  ret
  .size ferry_truncsfbf2, .-ferry_truncsfbf2
)");
extern "C" void ferry_truncsfbf2();

// f64 → bf16 with round-to-nearest-even, the libcall LLVM emits for
// `fptrunc double to bfloat` (cvt.rn.bf16.f64; the directed roundings adjust
// its result). Rounding to f32 first and then to bf16 would round twice, so
// the f32 step rounds to odd: a second rounding to a format at least two
// bits narrower is then exact. NaNs keep their top payload bits, quieted
// (what NVIDIA returns). The bf16 bits go back in the low half of xmm0, the
// x86-64 ABI of __bf16, which a float return with those bits satisfies.
extern "C" float ferry_truncdfbf2(double X) {
  float F = static_cast<float>(X);
  uint32_t Bits;
  std::memcpy(&Bits, &F, sizeof Bits);
  if (X == X && static_cast<double>(F) != X) {
    // Inexact: step to the f32 on X's side of zero, then make it odd.
    if (std::fabs(static_cast<double>(F)) > std::fabs(X))
      Bits -= 1;
    Bits |= 1;
  }
  uint32_t Out = (Bits & 0x7fffffffu) > 0x7f800000u ? (Bits >> 16) | 0x40u
                                                     : (Bits + 0x7fffu + ((Bits >> 16) & 1u)) >> 16;
  float R;
  std::memcpy(&R, &Out, sizeof R);
  return R;
}

// Float atomic adds (atom/red.add of every float type) as an H100 performs
// them (tests/ptx-conformance): compare-and-swap loops that carry the bits,
// so a signalling NaN in memory compares equal and the loop ends (LLVM's own
// expansion of `atomicrmw fadd` converts the loaded value, which quiets it,
// and never terminates). NaN results: f32, f16 and bf16 store the canonical
// NaN (0x7fffffff, 0x7fff) whatever went in; f64 stores the operand's NaN,
// else the one in memory, bits unchanged (the atomic unit does not quiet a
// signalling NaN, unlike f64 arithmetic; in shared memory it does).
template <typename T> static T casLoop(T *Ptr, T (*Add)(T, T), T Val) {
  T Old = __atomic_load_n(Ptr, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(Ptr, &Old, Add(Old, Val), false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    ;
  return Old;
}

/// The sum of two bf16 values. Rounded once from f32, which is exact for
/// bf16 operands (24 >= 2 * 8 + 2 bits).
static uint16_t addBf16(uint16_t X, uint16_t Y) {
  uint32_t A = uint32_t(X) << 16, B = uint32_t(Y) << 16;
  float FA, FB;
  std::memcpy(&FA, &A, 4);
  std::memcpy(&FB, &B, 4);
  float Sum = FA + FB;
  uint32_t Bits;
  std::memcpy(&Bits, &Sum, 4);
  return Sum != Sum ? uint16_t(0x7fff) : uint16_t((Bits + 0x7fffu + ((Bits >> 16) & 1u)) >> 16);
}

/// The sum of two f16 values: exact in double (at most 50 significant
/// bits), rounded once to f16 (no flushing: PTX's f16 atomic add is .noftz).
static uint16_t addF16(uint16_t X, uint16_t Y) {
  _Float16 A, B;
  std::memcpy(&A, &X, 2);
  std::memcpy(&B, &Y, 2);
  _Float16 Sum = static_cast<_Float16>(static_cast<double>(A) + static_cast<double>(B));
  uint16_t Bits;
  std::memcpy(&Bits, &Sum, 2);
  return Sum != Sum ? uint16_t(0x7fff) : Bits;
}

/// Both 16-bit halves in one 32-bit compare-and-swap.
template <uint16_t (*Add)(uint16_t, uint16_t)> static uint32_t addPair(uint32_t X, uint32_t Y) {
  return Add(uint16_t(X), uint16_t(Y)) | uint32_t(Add(uint16_t(X >> 16), uint16_t(Y >> 16))) << 16;
}

// f32 atomic add as PTX defines it (atom/red.add.f32, PTX ISA 9.7.13.5):
// round to nearest even; in global memory subnormal inputs (the value in
// memory too) and results are flushed to a zero of the same sign, what an
// H100 does; the shared-memory form keeps them (!ferry.shared).
static uint32_t flushF32(uint32_t X) { return (X & 0x7f800000u) == 0 ? X & 0x80000000u : X; }

template <bool Ftz> static uint32_t addF32(uint32_t X, uint32_t Y) {
  uint32_t A = Ftz ? flushF32(X) : X, B = Ftz ? flushF32(Y) : Y;
  float FA, FB;
  std::memcpy(&FA, &A, 4);
  std::memcpy(&FB, &B, 4);
  float Sum = FA + FB;
  uint32_t New;
  std::memcpy(&New, &Sum, 4);
  return Sum != Sum ? 0x7fffffffu : Ftz ? flushF32(New) : New;
}

/// Shared: NaNs as f64 arithmetic gives them (the value in memory first,
/// quieted); global: the operand's NaN, else memory's, unchanged.
template <bool Shared> static uint64_t addF64(uint64_t X, uint64_t Y) {
  auto IsNaN = [](uint64_t V) { return (V & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; };
  constexpr uint64_t Quiet = Shared ? 0x0008000000000000ull : 0;
  if (IsNaN(X) && Shared)
    return X | Quiet;
  if (IsNaN(Y))
    return Y | Quiet;
  if (IsNaN(X))
    return X;
  double A, B;
  std::memcpy(&A, &X, 8);
  std::memcpy(&B, &Y, 8);
  double Sum = A + B;
  uint64_t New;
  std::memcpy(&New, &Sum, 8);
  return New;
}

extern "C" uint16_t ferry_atom_add_bf16(uint16_t *P, uint16_t V) { return casLoop<uint16_t>(P, addBf16, V); }
extern "C" uint32_t ferry_atom_add_bf16x2(uint32_t *P, uint32_t V) { return casLoop<uint32_t>(P, addPair<addBf16>, V); }
extern "C" uint16_t ferry_atom_add_f16(uint16_t *P, uint16_t V) { return casLoop<uint16_t>(P, addF16, V); }
extern "C" uint32_t ferry_atom_add_f16x2(uint32_t *P, uint32_t V) { return casLoop<uint32_t>(P, addPair<addF16>, V); }
extern "C" uint32_t ferry_atom_add_f32_ftz(uint32_t *P, uint32_t V) { return casLoop<uint32_t>(P, addF32<true>, V); }
extern "C" uint32_t ferry_atom_add_f32(uint32_t *P, uint32_t V) { return casLoop<uint32_t>(P, addF32<false>, V); }
extern "C" uint64_t ferry_atom_add_f64(uint64_t *P, uint64_t V) { return casLoop<uint64_t>(P, addF64<false>, V); }
extern "C" uint64_t ferry_atom_add_f64_shared(uint64_t *P, uint64_t V) { return casLoop<uint64_t>(P, addF64<true>, V); }

namespace ferry::host {
namespace {

/// Replaces every `atomicrmw fadd` by the matching ferry_atom_add_* (above):
/// an f32 atomic add of SIMT IR flushes subnormals unless it carries
/// !ferry.shared (ptx/lower/LowerAtom.cpp), and every float type gets the
/// H100's NaN results. Runs after the optimiser, on lane-scalar code, just
/// before code generation, where LLVM would expand the atomic itself.
const char *floatAtomicAdd(const AtomicRMWInst &RMW) {
  Type *T = RMW.getType();
  bool Pair = T->isVectorTy() && cast<FixedVectorType>(T)->getNumElements() == 2;
  if (T->isVectorTy() && !Pair)
    return nullptr;
  Type *S = T->getScalarType();
  if (S->isBFloatTy())
    return Pair ? "ferry_atom_add_bf16x2" : "ferry_atom_add_bf16";
  if (S->isHalfTy())
    return Pair ? "ferry_atom_add_f16x2" : "ferry_atom_add_f16";
  if (Pair)
    return nullptr;
  if (S->isFloatTy())
    return RMW.getMetadata("ferry.shared") ? "ferry_atom_add_f32" : "ferry_atom_add_f32_ftz";
  if (S->isDoubleTy())
    return RMW.getMetadata("ferry.shared") ? "ferry_atom_add_f64_shared" : "ferry_atom_add_f64";
  return nullptr;
}

void expandFloatAtomics(Module &M) {
  SmallVector<AtomicRMWInst *, 8> Work;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
        if (RMW->getOperation() == AtomicRMWInst::FAdd && floatAtomicAdd(*RMW))
          Work.push_back(RMW);
  for (AtomicRMWInst *RMW : Work) {
    IRBuilder<> B(RMW);
    Type *IT = B.getIntNTy(RMW->getType()->getPrimitiveSizeInBits());
    Type *Ptr = RMW->getPointerOperand()->getType();
    FunctionCallee Fn = M.getOrInsertFunction(floatAtomicAdd(*RMW), FunctionType::get(IT, {Ptr, IT}, false));
    Value *Old = B.CreateCall(Fn, {RMW->getPointerOperand(), B.CreateBitCast(RMW->getValOperand(), IT)});
    // Where the old value is only moved as bits, give it the bits: x86
    // passes a bfloat through f32, which would quiet a signalling NaN.
    for (User *U : make_early_inc_range(RMW->users())) {
      if (auto *Cast = dyn_cast<BitCastInst>(U); Cast && Cast->getType() == IT) {
        Cast->replaceAllUsesWith(Old);
        Cast->eraseFromParent();
      } else if (auto *St = dyn_cast<StoreInst>(U); St && St->getValueOperand() == RMW) {
        St->setOperand(0, Old);
      }
    }
    RMW->replaceAllUsesWith(B.CreateBitCast(Old, RMW->getType()));
    RMW->eraseFromParent();
  }
}

} // namespace

struct HostCompiler::Impl {
  std::recursive_mutex M;
  std::unique_ptr<orc::LLJIT> J;
  orc::JITDylib *Runtime = nullptr;
  std::optional<orc::JITTargetMachineBuilder> JTMB;
  std::unique_ptr<TargetMachine> TM; ///< For the optimiser; guarded by M.
  unsigned Counter = 0;
  /// What the session reported while a link ran (the symbols not found):
  /// the lookup's own error only says that materialisation failed.
  std::mutex ReportedM;
  std::string Reported;
  std::string takeReported() {
    std::lock_guard<std::mutex> Lock(ReportedM);
    return std::exchange(Reported, std::string());
  }
};

struct HostCompiler::ObjectTables {
  std::vector<detail::LoweredKernel> Kernels;
  std::vector<detail::LoweredGlobal> Globals;
};

struct CompiledModule::Impl {
  std::shared_ptr<HostCompiler::Impl> Owner;
  orc::JITDylib *JD = nullptr;
  /// Defines the variables this module declares; outlives JD (members go
  /// after ~CompiledModule removed JD).
  std::shared_ptr<const CompiledModule> LinkedWith;
};

namespace {

std::string errText(llvm::Error E) {
  std::string S;
  handleAllErrors(std::move(E), [&](const ErrorInfoBase &EI) {
    if (!S.empty())
      S += "; ";
    S += EI.message();
  });
  return S;
}

ferry::Error compileError(llvm::Error E, std::string_view What) {
  std::string Msg = errText(std::move(E));
  CUresult Code = CUDA_ERROR_INVALID_PTX;
  if (StringRef(Msg).starts_with("unsupported:"))
    Code = CUDA_ERROR_NOT_SUPPORTED;
  else if (StringRef(Msg).starts_with("internal:"))
    Code = CUDA_ERROR_UNKNOWN;
  return makeError(Code, std::string(What) + ": " + Msg);
}

void initialiseTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    std::lock_guard<std::mutex> Lock(llvmTargetRegistryMutex());
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    InitializeNativeTargetAsmParser();
  });
}

/// The data layout of x86-64 ELF targets in LLVM 19 (what the X86 target
/// machine computes; targetMachine() checks that it still does).
constexpr const char *HostDataLayout =
    "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";

/// The LLJIT's IR compiler, which nothing should reach: modules arrive as
/// object files (HostCompiler::compile runs its own code generation).
class NoIRCompiler : public orc::IRCompileLayer::IRCompiler {
public:
  NoIRCompiler() : IRCompiler(orc::IRSymbolMapper::ManglingOptions()) {}
  llvm::Expected<std::unique_ptr<MemoryBuffer>> operator()(Module &M) override {
    return make_error<StringError>("internal: the host JIT links objects only (" + M.getModuleIdentifier() + ")",
                                   inconvertibleErrorCode());
  }
};

/// The in-process mapper under MapperJITLinkMemoryManager, minus its
/// release(). In LLVM 19 the manager calls release() only to abandon a link
/// that failed after its memory was allocated (an unresolvable symbol), and
/// passes the allocation's address: InProcessMemoryMapper takes that for a
/// reservation base, so when the failed allocation opened a reservation it
/// unmapped the whole reservation — the code of modules already linked there
/// and the free rest the manager still hands out, whose next allocation then
/// wrote into unmapped memory. Here an abandoned allocation stays mapped and
/// unused until the JIT goes (the manager gives it no way back to its free
/// list); a failed link is an error path, so the leak is one module's size.
/// The reservations themselves are unmapped by the inner mapper's destructor.
class AbandonSafeMapper : public orc::MemoryMapper {
public:
  explicit AbandonSafeMapper(std::unique_ptr<orc::InProcessMemoryMapper> Inner) : Inner(std::move(Inner)) {}
  static llvm::Expected<std::unique_ptr<AbandonSafeMapper>> Create() {
    auto Inner = orc::InProcessMemoryMapper::Create();
    if (!Inner)
      return Inner.takeError();
    return std::make_unique<AbandonSafeMapper>(std::move(*Inner));
  }
  unsigned int getPageSize() override { return Inner->getPageSize(); }
  void reserve(size_t NumBytes, OnReservedFunction OnReserved) override {
    Inner->reserve(NumBytes, std::move(OnReserved));
  }
  char *prepare(orc::ExecutorAddr Addr, size_t ContentSize) override { return Inner->prepare(Addr, ContentSize); }
  void initialize(AllocInfo &AI, OnInitializedFunction OnInitialized) override {
    Inner->initialize(AI, std::move(OnInitialized));
  }
  void deinitialize(ArrayRef<orc::ExecutorAddr> Allocations, OnDeinitializedFunction OnDeinitialized) override {
    Inner->deinitialize(Allocations, std::move(OnDeinitialized));
  }
  void release(ArrayRef<orc::ExecutorAddr>, OnReleasedFunction OnReleased) override {
    OnReleased(llvm::Error::success());
  }

private:
  std::unique_ptr<orc::InProcessMemoryMapper> Inner;
};

/// Which FERRY_DUMP items are on.
bool dumpWanted(StringRef Item) {
  SmallVector<StringRef, 8> Parts;
  StringRef(Settings::get().getString(SettingKey::Dump)).split(Parts, ',', -1, false);
  for (StringRef P : Parts)
    if (P.trim() == Item)
      return true;
  return false;
}

std::string dumpPath(StringRef Name, StringRef Ext) {
  std::string Dir = Settings::get().getString(SettingKey::DumpDir);
  if (Dir.empty())
    Dir = "ferry-dump";
  sys::fs::create_directories(Dir);
  std::string Safe;
  for (char Ch : Name.take_front(120))
    Safe += isAlnum(static_cast<unsigned char>(Ch)) || Ch == '_' || Ch == '-' || Ch == '.' ? Ch : '_';
  return Dir + "/" + Safe + Ext.str();
}

void writeFile(const std::string &Path, StringRef Text) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  if (EC) {
    log::jit().warn("cannot write dump {}: {}", Path, EC.message());
    return;
  }
  OS << Text;
  log::jit().info("wrote {}", Path);
}

/// FERRY_DUMP=perfmap: names every function the JIT links in
/// /tmp/perf-<pid>.map, the file Linux perf reads to attribute samples in
/// code that no ELF file on disk describes (kernels show up in `perf
/// report` as sgemm_tiled.ferry.group16 rather than raw addresses).
class PerfMapPlugin : public orc::ObjectLinkingLayer::Plugin {
public:
  void modifyPassConfig(orc::MaterializationResponsibility &, jitlink::LinkGraph &,
                        jitlink::PassConfiguration &Config) override {
    Config.PostFixupPasses.push_back([this](jitlink::LinkGraph &G) {
      std::string Lines;
      for (jitlink::Symbol *Sym : G.defined_symbols())
        if (Sym->hasName() && Sym->isCallable() && Sym->getSize() > 0)
          Lines += formatv("{0:x} {1:x} {2}\n", Sym->getAddress().getValue(), Sym->getSize(),
                           Sym->getName())
                       .str();
      std::lock_guard<std::mutex> Lock(M);
      if (!Out) {
        std::string Path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
        Out = std::fopen(Path.c_str(), "a");
        if (!Out) {
          log::jit().warn("cannot write {}", Path);
          return llvm::Error::success();
        }
      }
      std::fputs(Lines.c_str(), Out);
      std::fflush(Out);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(orc::MaterializationResponsibility &) override { return llvm::Error::success(); }
  llvm::Error notifyRemovingResources(orc::JITDylib &, orc::ResourceKey) override { return llvm::Error::success(); }
  void notifyTransferringResources(orc::JITDylib &, orc::ResourceKey, orc::ResourceKey) override {}

private:
  std::mutex M;
  std::FILE *Out = nullptr;
};

void optimise(Module &M, TargetMachine &TM, unsigned Level, bool SLP = true) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PipelineTuningOptions PTO;
  PTO.LoopVectorization = Level >= 2;
  PTO.SLPVectorization = Level >= 2 && SLP;
  PassInstrumentationCallbacks PIC;
  PassBuilder PB(&TM, PTO, std::nullopt, &PIC);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  OptimizationLevel L = Level == 0   ? OptimizationLevel::O0
                        : Level == 1 ? OptimizationLevel::O1
                        : Level == 2 ? OptimizationLevel::O2
                                     : OptimizationLevel::O3;
  ModulePassManager MPM = Level == 0 ? PB.buildO0DefaultPipeline(L) : PB.buildPerModuleDefaultPipeline(L);
  if (!SLP && Level >= 2) {
    // Vector-only code: the default pipeline with GVN's load elimination
    // off. Its memory dependence queries over a group function's unrolled
    // tile loop (hundreds of loads after masked stores) took half of the
    // function's optimisation time; early CSE (on MemorySSA) and
    // instcombine still remove the redundant loads that matter.
    std::string Text;
    raw_string_ostream OS(Text);
    MPM.printPipeline(OS, [&](StringRef Class) { return PIC.getPassNameForClassName(Class); });
    size_t At = Text.find("gvn<>");
    if (At != std::string::npos) {
      Text.replace(At, 5, "gvn<no-memdep>");
      ModulePassManager Light;
      if (llvm::Error E = PB.parsePassPipeline(Light, Text))
        log::jit().warn("pipeline: {}", errText(std::move(E)));
      else
        MPM = std::move(Light);
    }
  }
  MPM.run(M, MAM);
  expandFloatAtomics(M);
}

ferry::Expected<std::string> emitAssembly(const Module &M, orc::JITTargetMachineBuilder &JTMB) {
  auto TM = JTMB.createTargetMachine();
  if (!TM)
    return makeError(CUDA_ERROR_UNKNOWN, errText(TM.takeError()));
  std::unique_ptr<Module> Clone = CloneModule(M);
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  legacy::PassManager PM;
  if ((*TM)->addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::AssemblyFile))
    return makeError(CUDA_ERROR_UNKNOWN, "the target cannot emit assembly");
  PM.run(*Clone);
  return std::string(Buf.str());
}

} // namespace

HostCompiler::HostCompiler() : P(std::make_shared<Impl>()) {}
HostCompiler::~HostCompiler() = default;

Expected<std::unique_ptr<HostCompiler>> HostCompiler::create(std::vector<RuntimeSymbol> Runtime) {
  std::unique_ptr<HostCompiler> C(new HostCompiler());
  auto JTMB = orc::JITTargetMachineBuilder::detectHost();
  if (!JTMB)
    return makeError(CUDA_ERROR_UNKNOWN, "host target: " + errText(JTMB.takeError()));
  if (JTMB->getTargetTriple().getArch() != Triple::x86_64 || !JTMB->getTargetTriple().isOSBinFormatELF())
    return makeError(CUDA_ERROR_NOT_SUPPORTED,
                     "host backend: x86-64 ELF hosts only, not " + JTMB->getTargetTriple().str());
  JTMB->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);
  // The CPU's f32 → bf16 conversion instructions (AVX512-BF16,
  // AVX-NE-CONVERT) flush subnormals, which PTX's cvt.rn.bf16 does not;
  // without them LLVM calls __truncsfbf2, which the runtime dylib below
  // provides with exact round-to-nearest-even.
  JTMB->getFeatures().AddFeature("avx512bf16", false);
  JTMB->getFeatures().AddFeature("avxneconvert", false);
  C->P->JTMB = *JTMB;
  // A process whose modules all come from the code cache never compiles:
  // the JIT here only links objects, so it gets no IR compiler, no platform
  // (PTX modules have no static initialisers) and a data layout given
  // rather than computed from a target machine. The optimiser's target
  // machine is made on the first compile (targetMachine()).
  auto J = orc::LLJITBuilder()
               .setJITTargetMachineBuilder(*JTMB)
               .setDataLayout(DataLayout(HostDataLayout))
               .setCompileFunctionCreator(
                   [](orc::JITTargetMachineBuilder) -> llvm::Expected<std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
                     return std::make_unique<NoIRCompiler>();
                   })
               .setPlatformSetUp(orc::setUpInactivePlatform)
               // Linked code is carved out of large reservations rather than
               // mapped object by object: a module is several objects (its
               // compile partitions) and each mapping costs system calls
               // and faults in a cached load.
               .setObjectLinkingLayerCreator(
                   [](orc::ExecutionSession &ES, const Triple &) -> llvm::Expected<std::unique_ptr<orc::ObjectLayer>> {
                     auto MM = orc::MapperJITLinkMemoryManager::CreateWithMapper<AbandonSafeMapper>(
                         size_t(8) << 20);
                     if (!MM)
                       return MM.takeError();
                     auto Layer = std::make_unique<orc::ObjectLinkingLayer>(ES, std::move(*MM));
                     if (dumpWanted("perfmap"))
                       Layer->addPlugin(std::make_unique<PerfMapPlugin>());
                     return Layer;
                   })
               .create();
  if (!J)
    return makeError(CUDA_ERROR_UNKNOWN, "LLJIT: " + errText(J.takeError()));
  C->P->J = std::move(*J);
  orc::LLJIT &Jit = *C->P->J;
  Jit.getExecutionSession().setErrorReporter([Impl = C->P.get()](llvm::Error E) {
    std::string Text = errText(std::move(E));
    log::jit().debug("JIT session: {}", Text);
    std::lock_guard<std::mutex> Lock(Impl->ReportedM);
    Impl->Reported += (Impl->Reported.empty() ? "" : "; ") + Text;
  });
  orc::JITDylib &RT = Jit.getExecutionSession().createBareJITDylib("ferry.runtime");
  orc::SymbolMap Syms;
  for (const RuntimeSymbol &S : Runtime)
    Syms[Jit.mangleAndIntern(S.Name)] = {orc::ExecutorAddr::fromPtr(S.Address),
                                         JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  Syms[Jit.mangleAndIntern("__truncsfbf2")] = {orc::ExecutorAddr::fromPtr(&ferry_truncsfbf2),
                                               JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  for (auto [Name, Fn] : {std::pair<const char *, void *>{"ferry_atom_add_bf16", (void *)&ferry_atom_add_bf16},
                           {"ferry_atom_add_bf16x2", (void *)&ferry_atom_add_bf16x2},
                           {"ferry_atom_add_f16", (void *)&ferry_atom_add_f16},
                           {"ferry_atom_add_f16x2", (void *)&ferry_atom_add_f16x2},
                           {"ferry_atom_add_f32_ftz", (void *)&ferry_atom_add_f32_ftz},
                           {"ferry_atom_add_f32", (void *)&ferry_atom_add_f32},
                           {"ferry_atom_add_f64", (void *)&ferry_atom_add_f64},
                           {"ferry_atom_add_f64_shared", (void *)&ferry_atom_add_f64_shared}})
    Syms[Jit.mangleAndIntern(Name)] = {orc::ExecutorAddr::fromPtr(Fn), JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  Syms[Jit.mangleAndIntern("__truncdfbf2")] = {orc::ExecutorAddr::fromPtr(&ferry_truncdfbf2),
                                               JITSymbolFlags::Exported | JITSymbolFlags::Callable};
  if (llvm::Error E = RT.define(orc::absoluteSymbols(std::move(Syms))))
    return makeError(CUDA_ERROR_UNKNOWN, "runtime symbols: " + errText(std::move(E)));
  // The library calls the code generator emits come from libm (fminf for a
  // promoted f16 min, exp2f for ex2.approx.f16, ...) and libgcc_s
  // (__fixdfti, __truncdfhf2, ... for i128 and f16 conversions). The
  // process's symbols hold them only when the program itself links those
  // libraries: one that dlopen()s libcuda.so.1 (RTLD_LOCAL) and links
  // neither (a C program, or C++ with a static libstdc++) would fail to
  // link such kernels, so both are searched by name as well.
  for (const char *Lib : {"libm.so.6", "libgcc_s.so.1"}) {
    auto G = orc::DynamicLibrarySearchGenerator::Load(Lib, Jit.getDataLayout().getGlobalPrefix());
    if (!G)
      return makeError(CUDA_ERROR_UNKNOWN, std::string(Lib) + " for JIT-compiled kernels: " + errText(G.takeError()));
    RT.addGenerator(std::move(*G));
  }
  C->P->Runtime = &RT;
  log::jit().debug("host compiler for {} ({})", C->P->JTMB->getCPU(), C->P->JTMB->getFeatures().getString());
  return C;
}

Expected<TargetMachine *> HostCompiler::targetMachine() {
  std::lock_guard<std::recursive_mutex> Lock(P->M);
  if (!P->TM) {
    initialiseTargets();
    auto TM = P->JTMB->createTargetMachine();
    if (!TM)
      return makeError(CUDA_ERROR_UNKNOWN, "host target machine: " + errText(TM.takeError()));
    std::string Layout = (*TM)->createDataLayout().getStringRepresentation();
    if (Layout != HostDataLayout)
      return makeError(CUDA_ERROR_UNKNOWN, "host target machine: data layout " + Layout +
                                               " is not the JIT's " + std::string(HostDataLayout));
    P->TM = std::move(*TM);
  }
  return P->TM.get();
}

std::string HostCompiler::targetDescription() const {
  return P->JTMB->getCPU() + " " + P->JTMB->getFeatures().getString();
}

Expected<std::unique_ptr<CompiledModule>>
HostCompiler::compileIR(std::string_view IROrBitcode, std::string_view Name,
                        const HostCompileOptions &Opts) {
  auto Ctx = std::make_unique<LLVMContext>();
  SMDiagnostic Diag;
  auto Buf = MemoryBuffer::getMemBuffer(StringRef(IROrBitcode.data(), IROrBitcode.size()),
                                        StringRef(Name.data(), Name.size()), false);
  std::unique_ptr<Module> M = parseIR(Buf->getMemBufferRef(), Diag, *Ctx);
  if (!M) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    Diag.print(std::string(Name).c_str(), OS, false);
    return makeError(CUDA_ERROR_INVALID_PTX, "SIMT IR does not parse: " + OS.str());
  }
  return compile(std::move(Ctx), std::move(M), Opts);
}

namespace {
/// Stack frames code generation found too large ("warn-stack-size"), by
/// function, from any partition's thread. Other diagnostics are logged:
/// the handler replaces LLVM's, which would print them and end the process
/// on an error.
struct FrameReport {
  std::mutex M;
  StringMap<uint64_t> Sizes;
  std::string Error; ///< The first error reported, if any.
  static void handle(const DiagnosticInfo *D, void *Self) {
    const DiagnosticInfo &DI = *D;
    auto *R = static_cast<FrameReport *>(Self);
    if (auto *SS = dyn_cast<DiagnosticInfoStackSize>(&DI)) {
      std::lock_guard<std::mutex> Lock(R->M);
      R->Sizes[SS->getFunction().getName()] = SS->getResourceSize();
      return;
    }
    std::string Text;
    raw_string_ostream OS(Text);
    DiagnosticPrinterRawOStream DP(OS);
    DI.print(DP);
    if (DI.getSeverity() == DS_Error) {
      std::lock_guard<std::mutex> Lock(R->M);
      if (R->Error.empty())
        R->Error = OS.str();
    } else if (DI.getSeverity() == DS_Warning)
      log::jit().warn("code generation: {}", OS.str());
    else
      log::jit().debug("code generation: {}", OS.str());
  }
};
} // namespace

Expected<std::unique_ptr<CompiledModule>>
HostCompiler::compile(std::unique_ptr<LLVMContext> Ctx, std::unique_ptr<Module> M,
                      const HostCompileOptions &Opts) {
  if (!Ctx || !M)
    return makeError(CUDA_ERROR_INVALID_VALUE, "compile: null module or context");
  std::lock_guard<std::recursive_mutex> Lock(P->M);
  Expected<TargetMachine *> TMOr = targetMachine();
  if (!TMOr)
    return TMOr.error();
  TargetMachine &TM = **TMOr;
  DataLayout DL = TM.createDataLayout();
  // Sizes of shared and module variables are host sizes.
  M->setDataLayout(DL);
  std::string ModuleName = M->getModuleIdentifier();
  if (dumpWanted("simt")) {
    std::string Text;
    raw_string_ostream OS(Text);
    M->print(OS, nullptr);
    std::string Name = Opts.DumpName.empty() ? ModuleName : Opts.DumpName;
    writeFile(dumpPath(Name, ".simt.ll"), OS.str());
  }
  llvm::Expected<detail::LoweredModule> L =
      detail::lowerForHost(*M, DL, TM.getTargetTriple().str(), Opts.AllowFastPath);
  auto T0 = std::chrono::steady_clock::now();
  M.reset();
  if (!L)
    return compileError(L.takeError(), "host compile of '" + ModuleName + "'");
  Module &NM = *L->M;
  std::string CPU = TM.getTargetCPU().str(), Features = TM.getTargetFeatureString().str();
  StringSet<> WarpFns;
  for (const detail::LoweredKernel &K : L->Kernels)
    for (const std::string &W : K.WarpSymbol)
      if (!W.empty())
        WarpFns.insert(W);
  for (Function &F : NM) {
    if (F.isDeclaration())
      continue;
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
    F.addFnAttr("target-cpu", CPU);
    F.addFnAttr("target-features", Features);
    // Frames larger than a page touch each page on the way down, so a
    // frame past its fiber stack faults in the guard page (a stack
    // overflow the executor reports) instead of writing over whatever lies
    // below it.
    F.addFnAttr("probe-stack", "inline-asm");
    // Code generation reports warp and group functions whose frame is too
    // large for the warp fibers (FrameReport); they are left out below.
    if (WarpFns.contains(F.getName()))
      F.addFnAttr("warn-stack-size", std::to_string(MaxWarpFrameBytes));
  }
  FrameReport Frames;
  auto ForgetFrames = make_scope_exit([&] { NM.getContext().setDiagnosticHandlerCallBack(nullptr, nullptr); });
  std::string DumpName = Opts.DumpName;
  if (DumpName.empty())
    DumpName = L->Kernels.empty() ? "module" + std::to_string(P->Counter) : L->Kernels[0].Name;
  bool Dumps = dumpWanted("ir") || dumpWanted("asm");

  // Large modules are split into partitions (kernels that share internal
  // functions stay together, so inlining is not lost) that are optimised
  // and compiled on parallel threads, each in its own LLVMContext: code
  // generation dominates a cold start and scales with the cores. The
  // partitions' objects link into one JITDylib. Dumps take the serial
  // path so they show one module.
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  unsigned Entries = 0; // Thread/block functions and warp functions.
  for (const detail::LoweredKernel &K : L->Kernels) {
    ++Entries;
    for (const std::string &W : K.WarpSymbol)
      Entries += !W.empty();
  }
  // Partitions are finer than the cores so that they balance (a group
  // function alone can cost more than the rest of a kernel's variants).
  unsigned Parts = Threads <= 1 ? 1 : std::min<unsigned>(Entries, 16u);
  std::vector<std::string> Objects;
  auto T1 = T0;
  if (Parts <= 1 || Dumps) {
    NM.getContext().setDiagnosticHandlerCallBack(FrameReport::handle, &Frames);
    optimise(NM, TM, Opts.OptLevel);
    detail::addStridePrefetches(NM);
    T1 = std::chrono::steady_clock::now();
    if (dumpWanted("ir")) {
      std::string Text;
      raw_string_ostream OS(Text);
      NM.print(OS, nullptr);
      writeFile(dumpPath(DumpName, ".host.ll"), OS.str());
    }
    if (dumpWanted("asm")) {
      ferry::Expected<std::string> Asm = emitAssembly(NM, *P->JTMB);
      if (Asm)
        writeFile(dumpPath(DumpName, ".host.s"), *Asm);
      else
        log::jit().warn("assembly dump failed: {}", Asm.error().message());
    }
    // Code generation to a relocatable object, which is both what the JIT
    // links and what the on-disk cache keeps.
    SmallVector<char, 0> Obj;
    raw_svector_ostream OS(Obj);
    legacy::PassManager PM;
    if (TM.addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::ObjectFile))
      return makeError(CUDA_ERROR_UNKNOWN, "the host target cannot emit object files");
    PM.run(NM);
    Objects.emplace_back(Obj.data(), Obj.size());
  } else {
    std::vector<std::string> Bitcode;
    std::vector<uint64_t> Costs;
    std::vector<bool> VectorOnly;
    SplitModule(
        NM, Parts,
        [&](std::unique_ptr<Module> Part) {
          bool Defines = false;
          for (const GlobalValue &G : Part->global_values())
            Defines |= !G.isDeclaration();
          if (!Defines)
            return;
          // Stray debug metadata without a version flag makes the reader
          // warn on every partition; the JIT never uses it.
          StripDebugInfo(*Part);
          // The cost guess orders the work (largest first): group
          // functions' 128- and 256-lane vectors cost code generation about
          // four times what their instruction count suggests. A partition
          // of warp and group functions only is vector code already: the
          // SLP vectorizer has nothing to do there, and GVN runs without
          // memory dependence analysis (below).
          uint64_t Cost = 0;
          bool OnlyWarps = true;
          for (Function &F : *Part)
            if (!F.isDeclaration()) {
              bool Group = F.getName().contains(".ferry.group");
              Cost += uint64_t(F.getInstructionCount()) * (Group ? 4 : 1);
              OnlyWarps &= Group || F.getName().contains(".ferry.warp");
            }
          std::string Bits;
          raw_string_ostream OS(Bits);
          WriteBitcodeToFile(*Part, OS);
          Bitcode.push_back(std::move(OS.str()));
          Costs.push_back(Cost);
          VectorOnly.push_back(OnlyWarps);
        },
        /*PreserveLocals=*/true, /*RoundRobin=*/true);
    Objects.resize(Bitcode.size());
    std::vector<std::string> Errors(Bitcode.size());
    std::vector<size_t> Order(Bitcode.size());
    for (size_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) { return Costs[A] > Costs[B]; });
    std::atomic<size_t> NextWork{0};
    std::vector<std::thread> Workers;
    unsigned Level = Opts.OptLevel;
    auto CompileOne = [&](size_t I) {
        LLVMContext Ctx;
        auto Part = parseBitcodeFile(MemoryBufferRef(Bitcode[I], "partition"), Ctx);
        if (!Part) {
          Errors[I] = errText(Part.takeError());
          return;
        }
        orc::JITTargetMachineBuilder Builder = *P->JTMB;
        auto PartTM = Builder.createTargetMachine();
        if (!PartTM) {
          Errors[I] = errText(PartTM.takeError());
          return;
        }
        auto P0 = std::chrono::steady_clock::now();
        optimise(**Part, **PartTM, VectorOnly[I] ? 2 : Level, /*SLP=*/!VectorOnly[I]);
        detail::addStridePrefetches(**Part);
        auto P1 = std::chrono::steady_clock::now();
        SmallVector<char, 0> Obj;
        raw_svector_ostream OS(Obj);
        legacy::PassManager PM;
        if ((*PartTM)->addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::ObjectFile)) {
          Errors[I] = "the host target cannot emit object files";
          return;
        }
        Ctx.setDiagnosticHandlerCallBack(FrameReport::handle, &Frames);
        PM.run(**Part);
        Objects[I].assign(Obj.data(), Obj.size());
        if (log::jit().should_log(spdlog::level::debug)) {
          std::string Names;
          for (Function &F : **Part)
            if (!F.isDeclaration())
              Names += (Names.empty() ? "" : " ") + F.getName().str();
          auto Ms = [](auto A, auto B) { return std::chrono::duration<double, std::milli>(B - A).count(); };
          log::jit().debug("partition {} (cost {}): optimise {:.1f} ms, code generation {:.1f} ms: {}", I,
                           Costs[I], Ms(P0, P1), Ms(P1, std::chrono::steady_clock::now()), Names);
        }
    };
    // One worker per core, each taking the next partition, largest first.
    size_t NumWorkers = std::min<size_t>(Threads, Bitcode.size());
    for (size_t T = 0; T < NumWorkers; ++T)
      Workers.emplace_back([&] {
        for (size_t K; (K = NextWork.fetch_add(1)) < Order.size();)
          CompileOne(Order[K]);
      });
    for (std::thread &W : Workers)
      W.join();
    for (const std::string &E : Errors)
      if (!E.empty())
        return makeError(CUDA_ERROR_UNKNOWN, "host code generation: " + E);
    T1 = std::chrono::steady_clock::now();
  }
  auto T2 = std::chrono::steady_clock::now();
  auto Ms = [](auto A, auto B) { return std::chrono::duration<double, std::milli>(B - A).count(); };
  if (Objects.size() > 1)
    log::jit().debug("compiled {} ({} kernels): {:.1f} ms in {} partitions on parallel threads", ModuleName,
                     L->Kernels.size(), Ms(T0, T2), Objects.size());
  else
    log::jit().debug("compiled {} ({} kernels): optimise {:.1f} ms, code generation {:.1f} ms", ModuleName,
                     L->Kernels.size(), Ms(T0, T1), Ms(T1, T2));
  if (!Frames.Error.empty())
    return makeError(CUDA_ERROR_UNKNOWN, "host code generation: " + Frames.Error);
  ObjectTables T;
  for (const detail::LoweredKernel &K : L->Kernels) {
    T.Kernels.push_back(K);
    for (std::string &W : T.Kernels.back().WarpSymbol) {
      auto Big = Frames.Sizes.find(W);
      if (W.empty() || Big == Frames.Sizes.end())
        continue;
      log::jit().info("{}: a {} KiB stack frame, more than the {} KiB a warp fiber gives it: not used", W,
                      Big->second / 1024, MaxWarpFrameBytes / 1024);
      W.clear();
    }
  }
  for (const detail::LoweredGlobal &G : L->Globals)
    T.Globals.push_back(G);
  return link(T, Objects, Opts.LinkWith);
}

namespace {
/// Little-endian fields of the serialized form.
void put32(std::string &Out, uint32_t V) { Out.append(reinterpret_cast<const char *>(&V), 4); }
void put64(std::string &Out, uint64_t V) { Out.append(reinterpret_cast<const char *>(&V), 8); }
void putStr(std::string &Out, StringRef S) {
  put32(Out, uint32_t(S.size()));
  Out.append(S.data(), S.size());
}
struct Reader {
  StringRef In;
  bool Ok = true;
  uint64_t get(unsigned Bytes) {
    if (In.size() < Bytes) {
      Ok = false;
      return 0;
    }
    uint64_t V = 0;
    std::memcpy(&V, In.data(), Bytes);
    In = In.drop_front(Bytes);
    return V;
  }
  std::string str() {
    uint64_t N = get(4);
    if (!Ok || In.size() < N) {
      Ok = false;
      return {};
    }
    std::string S = In.take_front(N).str();
    In = In.drop_front(N);
    return S;
  }
};
constexpr StringLiteral SerialMagic = "FERRY-HOST-OBJ-6";
} // namespace

Expected<std::unique_ptr<CompiledModule>> HostCompiler::load(std::string_view Bytes,
                                                            std::shared_ptr<const CompiledModule> LinkWith) {
  Reader R{StringRef(Bytes.data(), Bytes.size())};
  if (!R.In.consume_front(SerialMagic))
    return makeError(CUDA_ERROR_INVALID_IMAGE, "not a serialized host module");
  ObjectTables T;
  uint64_t NK = R.get(4);
  for (uint64_t I = 0; R.Ok && I < NK && I < (1u << 20); ++I) {
    detail::LoweredKernel K;
    K.Name = R.str();
    K.Symbol = R.str();
    K.UsesFibers = R.get(4) != 0;
    K.StaticSharedBytes = uint32_t(R.get(4));
    K.ParamBytes = uint32_t(R.get(4));
    K.MaxThreadsPerBlock = uint32_t(R.get(4));
    for (unsigned V = 0; V < NumWarpLayouts; ++V) {
      K.WarpSymbol[V] = R.str();
      K.WarpYields[V] = R.get(4) != 0;
    }
    T.Kernels.push_back(std::move(K));
  }
  uint64_t NG = R.get(4);
  for (uint64_t I = 0; R.Ok && I < NG && I < (1u << 20); ++I) {
    detail::LoweredGlobal G;
    G.Name = R.str();
    G.Bytes = R.get(8);
    T.Globals.push_back(std::move(G));
  }
  std::vector<std::string> Objects;
  uint64_t NO = R.get(4);
  for (uint64_t I = 0; R.Ok && I < NO && I < 4096; ++I)
    Objects.push_back(R.str());
  if (!R.Ok || !R.In.empty() || Objects.empty())
    return makeError(CUDA_ERROR_INVALID_IMAGE, "truncated or oversized serialized host module");
  std::lock_guard<std::recursive_mutex> Lock(P->M);
  return link(T, Objects, std::move(LinkWith));
}

Expected<std::unique_ptr<CompiledModule>> HostCompiler::link(const ObjectTables &T,
                                                            const std::vector<std::string> &Objects,
                                                            std::shared_ptr<const CompiledModule> LinkWith) {
  std::lock_guard<std::recursive_mutex> Lock(P->M);
  orc::LLJIT &J = *P->J;
  // The module's symbols resolve against the runtime first, then the
  // process (libm and libc calls the code generator emits): looking the
  // runtime's names up in the process first costs a dlsym miss each.
  orc::JITDylib *JD = &J.getExecutionSession().createBareJITDylib("ferry.module." + std::to_string(P->Counter++));
  if (LinkWith)
    JD->addToLinkOrder(*LinkWith->P->JD);
  JD->addToLinkOrder(*P->Runtime);
  if (orc::JITDylibSP Process = J.getProcessSymbolsJITDylib())
    JD->addToLinkOrder(*Process);
  auto Out = std::unique_ptr<CompiledModule>(new CompiledModule());
  Out->P = std::make_unique<CompiledModule::Impl>();
  Out->P->Owner = P;
  Out->P->JD = JD;
  Out->P->LinkedWith = std::move(LinkWith);

  std::string &S = Out->Serialized;
  S.append(SerialMagic.data(), SerialMagic.size());
  put32(S, uint32_t(T.Kernels.size()));
  for (const detail::LoweredKernel &K : T.Kernels) {
    putStr(S, K.Name);
    putStr(S, K.Symbol);
    put32(S, K.UsesFibers);
    put32(S, K.StaticSharedBytes);
    put32(S, K.ParamBytes);
    put32(S, K.MaxThreadsPerBlock);
    for (unsigned V = 0; V < NumWarpLayouts; ++V) {
      putStr(S, K.WarpSymbol[V]);
      put32(S, K.WarpYields[V]);
    }
  }
  put32(S, uint32_t(T.Globals.size()));
  for (const detail::LoweredGlobal &G : T.Globals) {
    putStr(S, G.Name);
    put64(S, G.Bytes);
  }
  put32(S, uint32_t(Objects.size()));
  for (const std::string &Obj : Objects)
    putStr(S, Obj);

  for (const std::string &Obj : Objects)
    if (llvm::Error E = J.addObjectFile(*JD, MemoryBuffer::getMemBufferCopy(Obj, "ferry-host-module")))
      return makeError(CUDA_ERROR_UNKNOWN, "JIT add: " + errText(std::move(E)));
  const std::vector<detail::LoweredKernel> &Kernels = T.Kernels;
  const std::vector<detail::LoweredGlobal> &Globals = T.Globals;

  P->takeReported(); // nothing of an earlier module's
  auto LinkError = [&](const std::string &What, llvm::Error E) {
    std::string Text = errText(std::move(E));
    if (std::string R = P->takeReported(); !R.empty())
      Text = R + " (" + Text + ")";
    return makeError(CUDA_ERROR_INVALID_PTX, "JIT link of " + What + ": " + Text);
  };
  for (const detail::LoweredKernel &K : Kernels) {
    auto Addr = J.lookup(*JD, K.Symbol);
    if (!Addr)
      return LinkError("kernel '" + K.Name + "'", Addr.takeError());
    HostKernel HK;
    HK.Name = K.Name;
    HK.StaticSharedBytes = K.StaticSharedBytes;
    HK.ParamBytes = K.ParamBytes;
    HK.MaxThreadsPerBlock = K.MaxThreadsPerBlock;
    HK.UsesFibers = K.UsesFibers;
    if (K.UsesFibers)
      HK.Thread = Addr->toPtr<ThreadFn>();
    else
      HK.Block = Addr->toPtr<BlockFn>();
    for (unsigned V = 0; V < NumWarpLayouts; ++V) {
      if (K.WarpSymbol[V].empty())
        continue;
      auto WA = J.lookup(*JD, K.WarpSymbol[V]);
      if (!WA)
        return LinkError("warp function '" + K.WarpSymbol[V] + "'", WA.takeError());
      HK.Warps[V] = {WA->toPtr<WarpFn>(), WarpLayouts[V].X, WarpLayouts[V].Lanes, K.WarpYields[V]};
    }
    log::jit().debug("kernel {}: {} path, {} B static shared", K.Name,
                     K.UsesFibers ? "fiber" : "block-loop", K.StaticSharedBytes);
    HK.Module = Out.get();
    Out->Kernels.push_back(std::move(HK));
  }
  for (const detail::LoweredGlobal &G : Globals) {
    auto Addr = J.lookup(*JD, G.Name);
    if (!Addr)
      return LinkError("variable '" + G.Name + "'", Addr.takeError());
    Out->Globals.push_back({G.Name, CompiledModule::Global{Addr->toPtr<void *>(), G.Bytes}});
  }
  return Out;
}

CompiledModule::~CompiledModule() {
  if (!P || !P->Owner || !P->JD)
    return;
  std::lock_guard<std::recursive_mutex> Lock(P->Owner->M);
  if (llvm::Error E = P->Owner->J->getExecutionSession().removeJITDylib(*P->JD))
    log::jit().warn("unloading a host module: {}", errText(std::move(E)));
}

const HostKernel *CompiledModule::kernel(std::string_view Name) const {
  for (const HostKernel &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

const HostKernel *CompiledModule::kernelByHandle(uint64_t Handle) const {
  constexpr std::string_view Prefix = "ferry.entry.";
  for (const auto &[N, G] : Globals)
    if (reinterpret_cast<uintptr_t>(G.Address) == Handle && std::string_view(N).substr(0, Prefix.size()) == Prefix)
      return kernel(std::string_view(N).substr(Prefix.size()));
  return nullptr;
}

std::optional<CompiledModule::Global> CompiledModule::global(std::string_view Name) const {
  for (const auto &[N, G] : Globals)
    if (N == Name)
      return G;
  return std::nullopt;
}

} // namespace ferry::host
