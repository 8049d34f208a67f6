/// \file
/// The AMD compiler driver: parse SIMT IR into a private context, lower it
/// (LowerSimt.cpp, LowerWarp.cpp, DeviceLibs.cpp), optimise with the O3
/// pipeline plus the AMDGPU attributor (which drops the hidden kernel
/// arguments a kernel never reads), emit an object with the AMDGPU backend
/// and link it into a code object v5 (CodeObject.cpp).
#include "hsa/Lowering.h"

#include "support/LlvmTargets.h"
#include "support/Log.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/TargetParser.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"

#include <mutex>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
void LLVMInitializeAMDGPUAsmParser();
void LLVMInitializeAMDGPUDisassembler();
}

using namespace llvm;

namespace ferry::hsa {

void initializeAMDGPUTarget() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    std::lock_guard<std::mutex> Lock(llvmTargetRegistryMutex());
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
    LLVMInitializeAMDGPUDisassembler();
  });
}

static Error failure(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

ArrayRef<TargetInfo> checkedTargets() {
  static const std::vector<TargetInfo> Targets = {
      {"gfx90a", 9010, 64, ""},
      {"gfx942", 9402, 64, ""},
      {"gfx1030", 10300, 32, "+wavefrontsize32"},
      {"gfx1100", 11000, 32, "+wavefrontsize32"},
      {"gfx1201", 12001, 32, "+wavefrontsize32"},
  };
  return Targets;
}

Expected<TargetInfo> resolveTarget(StringRef Name) {
  StringRef Proc = Name;
  if (size_t Dash = Proc.rfind("--"); Dash != StringRef::npos)
    Proc = Proc.substr(Dash + 2); // "amdgcn-amd-amdhsa--gfx90a:xnack-"
  Proc = Proc.take_until([](char C) { return C == ':'; });
  for (const TargetInfo &T : checkedTargets())
    if (T.Name == Proc)
      return T;
  if (!Proc.starts_with("gfx") || AMDGPU::parseArchAMDGCN(Proc) == AMDGPU::GK_NONE)
    return failure("unknown AMD GPU target '" + Name + "' (expected e.g. gfx90a, gfx1100)");
  AMDGPU::IsaVersion V = AMDGPU::getIsaVersion(Proc);
  TargetInfo T;
  T.Name = Proc.str();
  T.IsaVersion = V.Major * 1000 + V.Minor * 100 + V.Stepping;
  // Warps are 32 lanes; RDNA (gfx10+) can run wave32, older ISAs only wave64.
  T.WavefrontSize = V.Major >= 10 ? 32 : 64;
  T.Features = V.Major >= 10 ? "+wavefrontsize32" : "";
  return T;
}

static Expected<std::unique_ptr<TargetMachine>> makeTargetMachine(const TargetInfo &T,
                                                                  unsigned OptLevel) {
  initializeAMDGPUTarget();
  Triple TT("amdgcn-amd-amdhsa");
  std::string Err;
  const Target *Tgt = TargetRegistry::lookupTarget(TT.str(), Err);
  if (!Tgt)
    return failure("AMDGPU target unavailable in this LLVM: " + Err);
  TargetOptions Options;
  CodeGenOptLevel Level = OptLevel >= 3   ? CodeGenOptLevel::Aggressive
                          : OptLevel == 2 ? CodeGenOptLevel::Default
                          : OptLevel == 1 ? CodeGenOptLevel::Less
                                          : CodeGenOptLevel::None;
  std::unique_ptr<TargetMachine> TM(Tgt->createTargetMachine(
      TT.str(), T.Name, T.Features, Options, Reloc::PIC_, std::nullopt, Level));
  if (!TM)
    return failure("cannot create an AMDGPU target machine for " + T.Name);
  return std::move(TM);
}

static void runPipeline(Module &M, TargetMachine &TM, const char *Pipeline, unsigned OptLevel) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB(&TM);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  ModulePassManager MPM;
  if (!Pipeline) {
    OptimizationLevel L = OptLevel >= 3   ? OptimizationLevel::O3
                          : OptLevel == 2 ? OptimizationLevel::O2
                                          : OptimizationLevel::O1;
    MPM = OptLevel ? PB.buildPerModuleDefaultPipeline(L) : PB.buildO0DefaultPipeline(L);
    if (OptLevel)
      cantFail(PB.parsePassPipeline(MPM, "amdgpu-attributor"));
  } else {
    cantFail(PB.parsePassPipeline(MPM, Pipeline));
  }
  MPM.run(M, MAM);
}

//===----------------------------------------------------------------------===//
// Forward progress between the two CUDA warps of a wave64 wavefront.
//===----------------------------------------------------------------------===//
//
// On wave64 targets a wavefront holds two CUDA warps, and its lanes run in
// lockstep: where a divergent loop exits, the lanes that left wait until
// every lane left. A spin-wait whose condition another warp of the same
// wavefront satisfies only after the wait (warps taking turns on a counter,
// libcudacxx's release/acquire message passing) then hangs, where NVIDIA's
// independent thread scheduling lets the other warp run on. For a spin loop
// (its exit test reads an atomic or volatile load, or is an atomic RMW)
// whose continuation up to the return has no barrier or other convergent
// operation and is entered only through the loop's exit, the continuation
// becomes part of the loop: a lane that leaves the loop runs it at once and
// comes back to the header marked done, and done lanes return there. The
// lanes still spinning then see what the others did. The done flag passes
// through an opaque copy so no later pass threads the edge back out.

/// Whether the exit test of L depends on memory another thread may change.
static bool isSpinLoop(Loop &L) {
  SmallVector<BasicBlock *, 4> Exiting;
  L.getExitingBlocks(Exiting);
  SmallVector<Value *, 16> Work;
  for (BasicBlock *BB : Exiting)
    if (auto *Br = dyn_cast<BranchInst>(BB->getTerminator()); Br && Br->isConditional())
      Work.push_back(Br->getCondition());
  SmallPtrSet<Value *, 32> Seen;
  while (!Work.empty()) {
    auto *I = dyn_cast<Instruction>(Work.pop_back_val());
    if (!I || !L.contains(I) || !Seen.insert(I).second)
      continue;
    if (auto *Ld = dyn_cast<LoadInst>(I); Ld && (Ld->isAtomic() || Ld->isVolatile()))
      return true;
    if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
      return true;
    for (Value *Op : I->operands())
      Work.push_back(Op);
  }
  return false;
}

/// Whether BB holds a call that needs the wavefront's lanes together
/// (barriers, cross-lane operations); a wave barrier (__syncwarp) is fine.
static bool hasConvergentCall(const BasicBlock &BB) {
  for (const Instruction &I : BB)
    if (const auto *CB = dyn_cast<CallBase>(&I)) {
      if (CB->isInlineAsm())
        return true;
      const Function *F = CB->getCalledFunction();
      if (F && F->getIntrinsicID() == Intrinsic::amdgcn_wave_barrier)
        continue;
      if (CB->isConvergent() || !F || !F->isIntrinsic())
        return true;
    }
  return false;
}

/// The blocks from L's single exit block on, if they qualify (see above).
static bool continuationOf(Loop &L, SmallPtrSetImpl<BasicBlock *> &R) {
  BasicBlock *E = L.getUniqueExitBlock();
  if (!E)
    return false;
  for (BasicBlock *P : predecessors(E))
    if (!L.contains(P))
      return false;
  SmallVector<BasicBlock *, 16> Work{E};
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (L.contains(BB))
      return false; // Comes back to the loop (an enclosing loop).
    if (!R.insert(BB).second)
      continue;
    Instruction *T = BB->getTerminator();
    if (!isa<BranchInst>(T) && !isa<SwitchInst>(T) && !isa<ReturnInst>(T) &&
        !isa<UnreachableInst>(T))
      return false;
    if (hasConvergentCall(*BB))
      return false;
    for (BasicBlock *S : successors(BB))
      Work.push_back(S);
  }
  for (BasicBlock *BB : R)
    if (BB != E)
      for (BasicBlock *P : predecessors(BB))
        if (!R.count(P))
          return false; // Entered from elsewhere too.
  return true;
}

/// Folds R into L's cycle (see above).
static void foldContinuation(Loop &L, const SmallPtrSetImpl<BasicBlock *> &R) {
  BasicBlock *H = L.getHeader();
  Function &F = *H->getParent();
  LLVMContext &Ctx = F.getContext();
  BasicBlock *Body = H->splitBasicBlock(H->getFirstNonPHIIt(), H->getName() + ".spin");
  SmallVector<BasicBlock *, 4> Preds(predecessors(H)); // Before Back exists.
  BasicBlock *Back = BasicBlock::Create(Ctx, "spin.done", &F);
  BasicBlock *Ret = BasicBlock::Create(Ctx, "spin.ret", &F);
  ReturnInst::Create(Ctx, Ret);
  BranchInst::Create(H, Back);
  for (BasicBlock *BB : R)
    if (auto *RI = dyn_cast<ReturnInst>(BB->getTerminator())) {
      BranchInst::Create(Back, RI);
      RI->eraseFromParent();
    }
  IRBuilder<> B(H, H->getFirstNonPHIIt());
  PHINode *Done = B.CreatePHI(B.getInt32Ty(), Preds.size() + 1, "spin.isdone");
  for (BasicBlock *P : Preds)
    Done->addIncoming(B.getInt32(0), P);
  Done->addIncoming(B.getInt32(1), Back);
  for (PHINode &Phi : H->phis())
    if (&Phi != Done)
      Phi.addIncoming(PoisonValue::get(Phi.getType()), Back);
  // An opaque copy: the done lanes' edge must not be threaded to Ret.
  FunctionType *Ty = FunctionType::get(B.getInt32Ty(), {B.getInt32Ty()}, false);
  InlineAsm *Copy = InlineAsm::get(Ty, "v_mov_b32 $0, $1", "=v,v", /*hasSideEffects=*/false);
  Value *Flag = B.CreateICmpNE(B.CreateCall(Copy, {Done}), B.getInt32(0));
  H->getTerminator()->eraseFromParent();
  BranchInst::Create(Ret, Body, Flag, H);
}

/// A divergent if/else runs one side, then the other, in the order of the
/// structurizer's reverse post-order, which puts a branch's false successor
/// first. Where a spin loop lies on the false side only, the condition is
/// inverted so the other side (which may be what it waits for: warp 0
/// publishing a flag that warp 1 of the same wavefront spins on) runs
/// first. Returns how many branches were inverted.
static unsigned spinningSidesLast(Function &F) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  SmallPtrSet<BranchInst *, 8> Swap;
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!isSpinLoop(*L))
      continue;
    BasicBlock *H = L->getHeader();
    for (DomTreeNode *N = DT.getNode(H)->getIDom(); N; N = N->getIDom()) {
      auto *Br = dyn_cast<BranchInst>(N->getBlock()->getTerminator());
      if (!Br || !Br->isConditional() || L->contains(Br))
        continue;
      BasicBlock *T = Br->getSuccessor(0), *Fs = Br->getSuccessor(1);
      if (T != Fs && DT.dominates(BasicBlockEdge(N->getBlock(), Fs), H) &&
          !DT.dominates(BasicBlockEdge(N->getBlock(), T), H))
        Swap.insert(Br);
    }
  }
  for (BranchInst *Br : Swap) {
    IRBuilder<> B(Br);
    Br->setCondition(B.CreateNot(Br->getCondition(), "spin.side"));
    Br->swapSuccessors();
  }
  return Swap.size();
}

/// Applies foldContinuation to every qualifying spin loop of M's functions
/// (wave64 targets only); returns how many.
static unsigned spinLoopsProgress(Module &M) {
  unsigned Count = 0;
  for (Function &F : M) {
    if (F.isDeclaration() || !F.getReturnType()->isVoidTy())
      continue;
    Count += spinningSidesLast(F);
    SmallPtrSet<BasicBlock *, 8> DoneHeaders;
    for (unsigned Round = 0; Round < 64; ++Round) {
      DominatorTree DT(F);
      LoopInfo LI(DT);
      Loop *Pick = nullptr;
      SmallPtrSet<BasicBlock *, 32> PickR;
      SmallVector<Loop *, 8> Candidates;
      for (Loop *L : LI.getLoopsInPreorder())
        if (!DoneHeaders.count(L->getHeader()) && isSpinLoop(*L) &&
            llvm::none_of(L->blocks(), [](BasicBlock *BB) { return hasConvergentCall(*BB); }))
          Candidates.push_back(L);
      // Inner continuations first: a loop whose continuation holds another
      // candidate waits until that one is folded.
      for (Loop *L : Candidates) {
        SmallPtrSet<BasicBlock *, 32> R;
        if (!continuationOf(*L, R))
          continue;
        if (llvm::any_of(Candidates, [&](Loop *O) { return O != L && R.count(O->getHeader()); }))
          continue;
        Pick = L;
        PickR = std::move(R);
        break;
      }
      if (!Pick)
        break;
      BasicBlock *Header = Pick->getHeader();
      foldContinuation(*Pick, PickR);
      DoneHeaders.insert(Header);
      ++Count;
    }
  }
  return Count;
}

namespace {
/// One compile, from IR text or bitcode to the requested stage.
struct Compile {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::unique_ptr<TargetMachine> TM;
  TargetInfo Target;

  Error load(StringRef Input, StringRef TargetName, const CompileOptions &Opts);
  void keepOnly(ArrayRef<std::string> Names);
  Error lower(const CompileOptions &Opts);
  Expected<SmallVector<char, 0>> emit(CodeGenFileType Type);
};
} // namespace

Error Compile::load(StringRef Input, StringRef TargetName, const CompileOptions &Opts) {
  Expected<TargetInfo> T = resolveTarget(TargetName);
  if (!T)
    return T.takeError();
  Target = *T;
  auto TMOr = makeTargetMachine(Target, Opts.OptLevel);
  if (!TMOr)
    return TMOr.takeError();
  TM = std::move(*TMOr);
  SMDiagnostic Diag;
  M = parseIR(MemoryBufferRef(Input, "simt-ir"), Diag, Ctx);
  if (!M) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    Diag.print("simt-ir", OS, /*ShowColors=*/false);
    return failure("cannot parse SIMT IR: " + Msg);
  }
  std::string Broken;
  raw_string_ostream OS(Broken);
  if (verifyModule(*M, &OS))
    return failure("invalid SIMT IR: " + Broken);
  if (!Opts.Kernels.empty())
    keepOnly(Opts.Kernels);
  return Error::success();
}

/// Drops the entries not named, and everything only they reach, before the
/// lowering sees them: an entry the AMD backend cannot compile must not take
/// the others of its module down with it. Non-entry functions become
/// internal first (the lowering internalises them anyway, and the image's
/// modules are already linked), so global DCE can remove what is unused;
/// __device__ variables keep their linkage (cuModuleGetGlobal finds them).
void Compile::keepOnly(ArrayRef<std::string> Names) {
  NamedMDNode *List = M->getNamedMetadata(KernelListMetadata);
  if (!List)
    return;
  SmallVector<MDNode *, 16> Keep;
  SmallPtrSet<Function *, 16> Entries, Dropped;
  for (MDNode *N : List->operands()) {
    auto *VM = N->getNumOperands() ? dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get())
                                   : nullptr;
    auto *F = VM ? dyn_cast<Function>(VM->getValue()) : nullptr;
    if (!F)
      continue;
    Entries.insert(F);
    if (llvm::is_contained(Names, F->getName().str()))
      Keep.push_back(N);
    else
      Dropped.insert(F);
  }
  List->clearOperands();
  for (MDNode *N : Keep)
    List->addOperand(N);
  for (Function &F : *M) {
    if (F.isDeclaration())
      continue;
    if (Dropped.count(&F))
      F.deleteBody();
    else if (!Entries.count(&F))
      F.setLinkage(GlobalValue::InternalLinkage);
  }
  runPipeline(*M, *TM, "globaldce", 0);
}

Error Compile::lower(const CompileOptions &Opts) {
  if (Error E = prepareSimtModule(*M, Target, *TM, Opts))
    return E;
  runPipeline(*M, *TM, "always-inline", Opts.OptLevel);
  if (Error E = lowerSimtModule(*M, Target, *TM, Opts))
    return E;
  M->addModuleFlag(Module::Error, "amdhsa_code_object_version", 500);
  std::string Broken;
  raw_string_ostream OS(Broken);
  if (verifyModule(*M, &OS))
    return failure("internal error: the amdgcn lowering produced invalid IR: " + Broken);
  return Error::success();
}

Expected<SmallVector<char, 0>> Compile::emit(CodeGenFileType Type) {
  SmallVector<char, 0> Out;
  raw_svector_ostream OS(Out);
  legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr, Type))
    return failure("the AMDGPU backend cannot emit this file type");
  PM.run(*M);
  return std::move(Out);
}

static std::string printModule(const Module &M) {
  std::string S;
  raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return S;
}

Expected<std::string> compileToText(StringRef Input, StringRef TargetName, Stage S,
                                    const CompileOptions &Opts) {
  Compile C;
  if (Error E = C.load(Input, TargetName, Opts))
    return std::move(E);
  if (Error E = C.lower(Opts))
    return std::move(E);
  if (S == Stage::Lowered)
    return printModule(*C.M);
  runPipeline(*C.M, *C.TM, nullptr, Opts.OptLevel);
  if (C.Target.WavefrontSize == 64)
    spinLoopsProgress(*C.M);
  if (S == Stage::Optimized)
    return printModule(*C.M);
  auto Asm = C.emit(CodeGenFileType::AssemblyFile);
  if (!Asm)
    return Asm.takeError();
  return std::string(Asm->begin(), Asm->end());
}

Expected<CodeObject> compileToCodeObject(StringRef Input, StringRef TargetName,
                                         const CompileOptions &Opts) {
  Compile C;
  if (Error E = C.load(Input, TargetName, Opts))
    return std::move(E);
  if (Error E = C.lower(Opts))
    return std::move(E);
  runPipeline(*C.M, *C.TM, nullptr, Opts.OptLevel);
  if (C.Target.WavefrontSize == 64)
    if (unsigned N = spinLoopsProgress(*C.M))
      log::hsa().debug("{}: {} spin loop(s) given forward progress within wave64", C.Target.Name, N);
  auto Obj = C.emit(CodeGenFileType::ObjectFile);
  if (!Obj)
    return Obj.takeError();
  auto Linked = linkCodeObject(*Obj);
  if (!Linked)
    return Linked.takeError();
  CodeObject CO;
  CO.Bytes = std::move(*Linked);
  CO.Target = C.Target.Name;
  auto Kernels = readKernelInfo(CO.Bytes);
  if (!Kernels)
    return Kernels.takeError();
  CO.Kernels = std::move(*Kernels);
  log::hsa().debug("compiled {} kernel(s) for {}: {} bytes", CO.Kernels.size(), CO.Target,
                    CO.Bytes.size());
  return std::move(CO);
}

Expected<std::vector<std::string>> entryNames(StringRef Input) {
  LLVMContext Ctx;
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIR(MemoryBufferRef(Input, "simt-ir"), Diag, Ctx);
  if (!M)
    return failure("cannot parse SIMT IR: " + Diag.getMessage());
  std::vector<std::string> Names;
  for (Function *F : kernelsOf(*M))
    Names.push_back(F->getName().str());
  return Names;
}

Expected<CodeObject> compileEachKernel(StringRef Input, StringRef TargetName,
                                       const CompileOptions &Opts,
                                       std::vector<KernelCompileError> &Failed) {
  Expected<CodeObject> Whole = compileToCodeObject(Input, TargetName, Opts);
  if (Whole)
    return Whole;
  std::string WholeError = toString(Whole.takeError());
  Expected<std::vector<std::string>> All = entryNames(Input);
  if (!All)
    return All.takeError();
  std::vector<std::string> Wanted = Opts.Kernels.empty() ? *All : Opts.Kernels;
  std::vector<std::string> Good;
  for (const std::string &K : Wanted) {
    if (!llvm::is_contained(*All, K))
      continue;
    CompileOptions One = Opts;
    One.Kernels = {K};
    Expected<CodeObject> CO = compileToCodeObject(Input, TargetName, One);
    if (CO)
      Good.push_back(K);
    else
      Failed.push_back({K, toString(CO.takeError())});
  }
  if (Good.empty())
    return failure(WholeError);
  CompileOptions Rest = Opts;
  Rest.Kernels = Good;
  return compileToCodeObject(Input, TargetName, Rest);
}

Expected<CodeObject> compileToCodeObject(const Module &M, StringRef TargetName,
                                         const CompileOptions &Opts) {
  SmallVector<char, 0> Bitcode;
  raw_svector_ostream OS(Bitcode);
  WriteBitcodeToFile(M, OS);
  return compileToCodeObject(StringRef(Bitcode.data(), Bitcode.size()), TargetName, Opts);
}

} // namespace ferry::hsa
