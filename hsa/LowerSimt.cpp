/// \file
/// SIMT IR → amdgcn IR: the module-level part of the AMD lowering.
/// Entries become amdgpu_kernel functions whose CUDA parameter buffer is one
/// explicit byref kernarg (so the bytes cuLaunchKernel packs are the kernarg
/// segment verbatim, followed by the code object v5 hidden arguments);
/// allocas move to the private address space; thread geometry, barriers,
/// fences, control and runtime-service intrinsics are replaced here (warp
/// operations in LowerWarp.cpp, textures and surfaces in LowerTexture.cpp);
/// syncscopes get AMDGPU's names.
///
/// Barriers: bar.sync on a barrier nothing arrives at is s_barrier (every
/// wave of the workgroup). bar.arrive (arrive without waiting) has no
/// s_barrier form on gfx9/10/11, so the barrier numbers it uses, in every
/// form, become LDS counters (namedBarrier): one word per barrier, the
/// arrival count in the low 16 bits and a generation in the high 16, updated
/// by one compare-and-swap per wavefront that adds 32 per CUDA warp with an
/// active lane (PTX counts whole warps). The arrival that reaches the
/// expected count starts the next generation in the same CAS; waiters spin
/// until the generation moves. Kernels reaching these counters zero them
/// on entry. Limits: a count of 0 means every thread of the block (threads
/// that exited are not subtracted, unlike s_barrier); on wave64 a
/// wavefront's two warps arrive together, so one must not wait for an
/// arrival of its other half; bar.red keeps its s_barrier form.
#include "hsa/Lowering.h"

#include "support/Log.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

#include <bitset>

using namespace llvm;

namespace ferry::hsa {

static Error failure(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

std::vector<Function *> kernelsOf(Module &M) {
  std::vector<Function *> Kernels;
  NamedMDNode *List = M.getNamedMetadata(KernelListMetadata);
  if (!List)
    return Kernels;
  // Each operand is a node whose first operand names the entry function.
  for (MDNode *N : List->operands()) {
    if (N->getNumOperands() == 0)
      continue;
    auto *VM = dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get());
    if (auto *F = VM ? dyn_cast<Function>(VM->getValue()) : nullptr)
      if (!F->isDeclaration() && std::find(Kernels.begin(), Kernels.end(), F) == Kernels.end())
        Kernels.push_back(F);
  }
  return Kernels;
}

//===----------------------------------------------------------------------===//
// Entries: the parameter buffer becomes the explicit kernarg.
//===----------------------------------------------------------------------===//

/// How many bytes of the parameter buffer an entry reads. The lowering says
/// so with `dereferenceable(N)` on %params; without it, the extent of the
/// constant-offset loads decides (enough for entries whose parameters are
/// only loaded, which is all PTX allows).
static Expected<uint64_t> paramBufferSize(Function &F) {
  if (F.arg_size() == 0)
    return 0;
  if (F.arg_size() != 1 || !F.getArg(0)->getType()->isPointerTy())
    return failure("entry '" + F.getName() + "' must take one argument, ptr %params");
  if (uint64_t N = F.getParamDereferenceableBytes(0))
    return N;
  const DataLayout &DL = F.getParent()->getDataLayout();
  uint64_t Extent = 0;
  SmallVector<std::pair<Value *, uint64_t>, 16> Work{{F.getArg(0), 0}};
  while (!Work.empty()) {
    auto [V, Base] = Work.pop_back_val();
    for (User *U : V->users()) {
      if (auto *GEP = dyn_cast<GetElementPtrInst>(U)) {
        APInt Off(64, 0);
        if (!GEP->accumulateConstantOffset(DL, Off))
          return failure("entry '" + F.getName() +
                         "': variable index into %params; mark it dereferenceable(N)");
        Work.push_back({GEP, Base + Off.getZExtValue()});
      } else if (auto *LI = dyn_cast<LoadInst>(U)) {
        Extent = std::max(Extent, Base + DL.getTypeStoreSize(LI->getType()).getFixedValue());
      } else {
        return failure("entry '" + F.getName() +
                       "': %params escapes; mark it dereferenceable(N)");
      }
    }
  }
  return Extent;
}

static Expected<Function *> rewriteEntry(Function &Old) {
  Module &M = *Old.getParent();
  LLVMContext &Ctx = M.getContext();
  Expected<uint64_t> Size = paramBufferSize(Old);
  if (!Size)
    return Size.takeError();
  Align A = Old.arg_size() ? Old.getParamAlign(0).valueOrOne() : Align(1);
  A = std::max(A, Align(8));

  auto *P4 = PointerType::get(Ctx, 4);
  SmallVector<Type *, 1> Params;
  if (*Size)
    Params.push_back(P4);
  auto *FT = FunctionType::get(Type::getVoidTy(Ctx), Params, false);
  Function *New = Function::Create(FT, GlobalValue::ExternalLinkage, Old.getAddressSpace(), "");
  M.getFunctionList().insert(Old.getIterator(), New);
  New->takeName(&Old);
  New->setCallingConv(CallingConv::AMDGPU_KERNEL);
  New->setAttributes(AttributeList::get(Ctx, Old.getAttributes().getFnAttrs(), {}, {}));
  New->setVisibility(GlobalValue::ProtectedVisibility);
  if (*Size) {
    New->addParamAttr(0, Attribute::getWithByRefType(Ctx, ArrayType::get(Type::getInt8Ty(Ctx), *Size)));
    New->addParamAttr(0, Attribute::getWithAlignment(Ctx, A));
    New->addParamAttr(0, Attribute::NoAlias);
    New->getArg(0)->setName("params");
  }
  New->splice(New->begin(), &Old);
  if (Old.arg_size()) {
    Argument *OldArg = Old.getArg(0);
    Value *Replacement = PoisonValue::get(OldArg->getType());
    if (*Size) {
      IRBuilder<> B(&*New->getEntryBlock().getFirstInsertionPt());
      Replacement = B.CreateAddrSpaceCast(New->getArg(0), OldArg->getType(), "params.generic");
    }
    OldArg->replaceAllUsesWith(Replacement);
  }
  Old.replaceAllUsesWith(New); // !ferry.kernels and any other reference.
  Old.eraseFromParent();
  return New;
}

//===----------------------------------------------------------------------===//
// Module preparation.
//===----------------------------------------------------------------------===//

/// AMDGPU allocas live in address space 5; SIMT IR's are generic. The cast
/// back to generic is removed again by InferAddressSpaces.
static void moveAllocasToPrivate(Module &M) {
  for (Function &F : M) {
    SmallVector<AllocaInst *, 16> Old;
    for (Instruction &I : instructions(F))
      if (auto *AI = dyn_cast<AllocaInst>(&I); AI && AI->getAddressSpace() != 5)
        Old.push_back(AI);
    for (AllocaInst *AI : Old) {
      auto *New = new AllocaInst(AI->getAllocatedType(), 5, AI->getArraySize(), AI->getAlign(),
                                 "", AI->getIterator());
      New->takeName(AI);
      auto *Cast = new AddrSpaceCastInst(New, AI->getType(), New->getName() + ".generic",
                                         AI->getIterator());
      AI->replaceAllUsesWith(Cast);
      AI->eraseFromParent();
    }
  }
}

static void setSyncScope(Instruction *I, SyncScope::ID S) {
  if (auto *X = dyn_cast<AtomicRMWInst>(I)) X->setSyncScopeID(S);
  else if (auto *X = dyn_cast<AtomicCmpXchgInst>(I)) X->setSyncScopeID(S);
  else if (auto *X = dyn_cast<FenceInst>(I)) X->setSyncScopeID(S);
  else if (auto *X = dyn_cast<LoadInst>(I)) X->setSyncScopeID(S);
  else if (auto *X = dyn_cast<StoreInst>(I)) X->setSyncScopeID(S);
}

/// Renames SIMT IR syncscopes ("block", "cluster", "device", default system)
/// to AMDGPU's ("workgroup", "agent", system).
static Error mapSyncScopes(Module &M) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<StringRef, 8> Names;
  Ctx.getSyncScopeNames(Names);
  SmallVector<SyncScope::ID, 8> Map(Names.size());
  for (unsigned Id = 0; Id < Names.size(); ++Id) {
    StringRef N = Names[Id];
    if (Id == SyncScope::System || Id == SyncScope::SingleThread) {
      Map[Id] = Id;
      continue;
    }
    StringRef To = StringSwitch<StringRef>(N)
                       .Cases("block", "cta", "cluster", "workgroup", "workgroup")
                       .Cases("device", "gpu", "agent", "agent")
                       .Cases("sys", "system", "")
                       .Cases("wavefront", "warp", "wavefront")
                       .Default("?");
    if (To == "?") {
      Map[Id] = SyncScope::System; // Unknown scopes are only an error if used.
      continue;
    }
    Map[Id] = To.empty() ? SyncScope::System : Ctx.getOrInsertSyncScopeID(To);
  }
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      std::optional<SyncScope::ID> S = getAtomicSyncScopeID(&I);
      if (!S)
        continue;
      if (*S >= Map.size())
        continue; // Already an AMDGPU scope we created.
      StringRef N = Names[*S];
      if (*S != SyncScope::System && *S != SyncScope::SingleThread && Map[*S] == SyncScope::System &&
          !N.empty() && N != "sys" && N != "system")
        return failure("unknown syncscope \"" + N + "\" in " + F.getName());
      setSyncScope(&I, Map[*S]);
    }
  return Error::success();
}

/// Functions that (transitively) execute ferry.exit are inlined into their
/// entries, where exit becomes a return.
static void markExitCallersAlwaysInline(Module &M) {
  Function *Exit = M.getFunction("ferry.exit");
  if (!Exit)
    return;
  SmallPtrSet<Function *, 16> Marked;
  SmallVector<Function *, 16> Work;
  for (User *U : Exit->users())
    if (auto *CI = dyn_cast<CallInst>(U))
      Work.push_back(CI->getFunction());
  while (!Work.empty()) {
    Function *F = Work.pop_back_val();
    if (F->getCallingConv() == CallingConv::AMDGPU_KERNEL || !Marked.insert(F).second)
      continue;
    F->removeFnAttr(Attribute::NoInline);
    F->addFnAttr(Attribute::AlwaysInline);
    for (User *U : F->users())
      if (auto *CI = dyn_cast<CallInst>(U))
        Work.push_back(CI->getFunction());
  }
}

static void setTargetAttributes(Module &M, const TargetInfo &T, const CompileOptions &Opts) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr("target-cpu", T.Name);
    std::string Features = F.getFnAttribute("target-features").getValueAsString().str();
    if (!T.Features.empty())
      Features = Features.empty() ? T.Features : Features + "," + T.Features;
    if (!Features.empty())
      F.addFnAttr("target-features", Features);
    if (Opts.FlushDenormals && !F.hasFnAttribute("denormal-fp-math-f32"))
      F.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
    if (F.getCallingConv() == CallingConv::AMDGPU_KERNEL) {
      // CUDA blocks hold at most 1024 threads and grids are whole blocks.
      // (.maxntid is reported from the SIMT IR, KernelFacts: narrowing the
      // range here lets LLVM use more VGPRs, which ferry's generic
      // occupancy model then reads as NVIDIA registers and answers 0 blocks
      // per SM: CUB divided by it.)
      F.addFnAttr("amdgpu-flat-work-group-size", "1,1024");
      F.addFnAttr("uniform-work-group-size", "true");
    } else if (F.hasExternalLinkage() || F.hasLinkOnceLinkage() || F.hasWeakLinkage()) {
      F.setLinkage(GlobalValue::InternalLinkage);
    }
  }
  // Shared memory must not be visible outside a kernel; __device__ globals
  // stay exported (cuModuleGetGlobal finds them by name).
  for (GlobalVariable &G : M.globals()) {
    if (G.getAddressSpace() == 3 && !G.isDeclaration())
      G.setLinkage(GlobalValue::InternalLinkage);
    else if (!G.isDeclaration() && G.hasExternalLinkage())
      G.setVisibility(GlobalValue::ProtectedVisibility);
  }
}

//===----------------------------------------------------------------------===//
// Intrinsics outside the warp family.
//===----------------------------------------------------------------------===//

namespace {
class Lowerer {
public:
  Lowerer(LowerContext &C) : C(C), Ctx(C.M.getContext()) {}
  /// Notes the barrier numbers bar.arrive uses (all of them for a
  /// non-constant number): those are LDS counters in every form.
  void findArrivedBarriers();
  Error lower(CallInst *CI);
  /// Zeroes the LDS barrier counters on entry to every kernel that reaches
  /// them (LDS starts undefined).
  void initNamedBarriers();

private:
  LowerContext &C;
  LLVMContext &Ctx;
  std::bitset<16> Arrived;                   ///< Barrier numbers bar.arrive uses.
  SmallPtrSet<Function *, 8> NamedBarrierUsers; ///< Functions using the counters.

  Type *i32() { return Type::getInt32Ty(Ctx); }
  Value *implicitArg(IRBuilder<> &B, unsigned Offset, Type *Ty);
  Value *dispatchField(IRBuilder<> &B, unsigned Offset, Type *Ty);
  Value *linearTid(IRBuilder<> &B);
  void blockBarrier(IRBuilder<> &B);
  Value *barrierReducePopc(IRBuilder<> &B, Value *Pred);
  bool isNamedBarrier(Value *Id) const;
  GlobalVariable *namedBarriers();
  void namedBarrier(CallInst *CI, bool Wait);
  Error replaceWithReturn(CallInst *CI);
};
} // namespace

Value *Lowerer::implicitArg(IRBuilder<> &B, unsigned Offset, Type *Ty) {
  // Code object v5 hidden arguments (AMDGPUUsage "Code Object V5 Metadata").
  Value *Base = B.CreateIntrinsic(Intrinsic::amdgcn_implicitarg_ptr, {}, {});
  Value *P = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Base, Offset);
  LoadInst *L = B.CreateAlignedLoad(Ty, P, Align(Ty->getPrimitiveSizeInBits() / 8));
  L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
  // Geometry fields are read as i32 whatever their width; 64-bit fields
  // (pointers such as the multigrid-sync argument) stay 64-bit.
  return Ty->isIntegerTy(64) ? static_cast<Value *>(L) : B.CreateZExtOrTrunc(L, i32());
}

Value *Lowerer::dispatchField(IRBuilder<> &B, unsigned Offset, Type *Ty) {
  // The AQL dispatch packet the kernel was launched with.
  Value *Base = B.CreateIntrinsic(Intrinsic::amdgcn_dispatch_ptr, {}, {});
  Value *P = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Base, Offset);
  LoadInst *L = B.CreateAlignedLoad(Ty, P, Align(4));
  L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
  return L;
}

Value *Lowerer::linearTid(IRBuilder<> &B) {
  Value *X = B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_x, {}, {});
  Value *Y = B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_y, {}, {});
  Value *Z = B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_z, {}, {});
  Value *NX = implicitArg(B, 12, B.getInt16Ty());
  Value *NY = implicitArg(B, 14, B.getInt16Ty());
  return B.CreateAdd(X, B.CreateMul(NX, B.CreateAdd(Y, B.CreateMul(NY, Z))), "ltid");
}

void Lowerer::blockBarrier(IRBuilder<> &B) {
  // bar.sync orders the block's memory: release before, acquire after.
  SyncScope::ID WG = Ctx.getOrInsertSyncScopeID("workgroup");
  B.CreateFence(AtomicOrdering::Release, WG);
  B.CreateIntrinsic(Intrinsic::amdgcn_s_barrier, {}, {});
  B.CreateFence(AtomicOrdering::Acquire, WG);
}

/// bar.red.popc: an LDS counter between three block barriers. The first
/// barrier keeps the reset away from the previous reduction's readers.
Value *Lowerer::barrierReducePopc(IRBuilder<> &B, Value *Pred) {
  const char *Name = "__ferry_bar_red_count";
  GlobalVariable *G = C.M.getNamedGlobal(Name);
  if (!G)
    G = new GlobalVariable(C.M, i32(), false, GlobalValue::InternalLinkage, PoisonValue::get(i32()),
                           Name, nullptr, GlobalValue::NotThreadLocal, 3);
  SyncScope::ID WG = Ctx.getOrInsertSyncScopeID("workgroup");
  blockBarrier(B);
  StoreInst *S = B.CreateAlignedStore(B.getInt32(0), G, Align(4));
  S->setAtomic(AtomicOrdering::Monotonic, WG);
  blockBarrier(B);
  B.CreateAtomicRMW(AtomicRMWInst::Add, G, B.CreateZExt(Pred, i32()), Align(4),
                    AtomicOrdering::Monotonic, WG);
  blockBarrier(B);
  LoadInst *L = B.CreateAlignedLoad(i32(), G, Align(4));
  L->setAtomic(AtomicOrdering::Monotonic, WG);
  return L;
}

static int constArg(CallInst *CI, unsigned I) {
  if (auto *K = dyn_cast<ConstantInt>(CI->getArgOperand(I)))
    return int(K->getSExtValue());
  return -1;
}

static constexpr const char *NamedBarriersName = "__ferry_named_barriers";

void Lowerer::findArrivedBarriers() {
  Function *Arrive = C.M.getFunction("ferry.bar.arrive");
  if (!Arrive)
    return;
  for (User *U : Arrive->users()) {
    auto *CI = dyn_cast<CallInst>(U);
    if (!CI)
      continue;
    if (auto *K = dyn_cast<ConstantInt>(CI->getArgOperand(0)))
      Arrived.set(K->getZExtValue() & 15);
    else
      Arrived.set(); // Any barrier may be the one arrived at.
  }
}

bool Lowerer::isNamedBarrier(Value *Id) const {
  if (auto *K = dyn_cast<ConstantInt>(Id))
    return Arrived.test(K->getZExtValue() & 15);
  return Arrived.any();
}

GlobalVariable *Lowerer::namedBarriers() {
  if (GlobalVariable *G = C.M.getNamedGlobal(NamedBarriersName))
    return G;
  auto *Ty = ArrayType::get(i32(), 16);
  auto *G = new GlobalVariable(C.M, Ty, false, GlobalValue::InternalLinkage, PoisonValue::get(Ty),
                               NamedBarriersName, nullptr, GlobalValue::NotThreadLocal, 3);
  G->setAlignment(Align(16));
  return G;
}

/// bar.arrive (Wait false) or bar.sync/barrier.sync (Wait true) on an LDS
/// counter (see the file comment). Replaces and erases CI.
void Lowerer::namedBarrier(CallInst *CI, bool Wait) {
  SyncScope::ID WG = Ctx.getOrInsertSyncScopeID("workgroup");
  IRBuilder<> B(CI);
  GlobalVariable *G = namedBarriers();
  NamedBarrierUsers.insert(CI->getFunction());
  Value *Slot = B.CreateInBoundsGEP(G->getValueType(), G,
                                    {B.getInt32(0), B.CreateAnd(CI->getArgOperand(0), 15)},
                                    "bar.slot");
  // Count 0: every thread of the block, in whole warps.
  Value *Expected = CI->getArgOperand(1);
  if (constArg(CI, 1) <= 0) {
    Value *Threads = B.CreateMul(implicitArg(B, 12, B.getInt16Ty()),
                                 B.CreateMul(implicitArg(B, 14, B.getInt16Ty()),
                                             implicitArg(B, 16, B.getInt16Ty())));
    Value *Whole = B.CreateAnd(B.CreateAdd(Threads, B.getInt32(31)), ~31u);
    Expected = B.CreateSelect(B.CreateICmpEQ(Expected, B.getInt32(0)), Whole, Expected,
                              "bar.expected");
  }
  // Arriving releases this thread's earlier writes to the block.
  B.CreateFence(AtomicOrdering::Release, WG);
  // 32 per CUDA warp of this wavefront with an active lane; the first
  // active lane arrives for the wavefront.
  Value *Add, *Active;
  if (C.wave64()) {
    Active = B.CreateIntrinsic(Intrinsic::amdgcn_ballot, {B.getInt64Ty()}, {B.getTrue()});
    Value *Lo = B.CreateICmpNE(B.CreateTrunc(Active, i32()), B.getInt32(0));
    Value *Hi = B.CreateICmpNE(B.CreateLShr(Active, 32), B.getInt64(0));
    Add = B.CreateShl(B.CreateAdd(B.CreateZExt(Lo, i32()), B.CreateZExt(Hi, i32())), 5, "bar.add");
  } else {
    Active = B.CreateIntrinsic(Intrinsic::amdgcn_ballot, {i32()}, {B.getTrue()});
    Add = B.getInt32(32);
  }
  Value *First = B.CreateZExtOrTrunc(
      B.CreateIntrinsic(Intrinsic::cttz, {Active->getType()}, {Active, B.getTrue()}), i32());
  Value *Elected = B.CreateICmpEQ(waveLaneId(C, B), First, "bar.elected");

  BasicBlock *Head = CI->getParent();
  BasicBlock *Tail = Head->splitBasicBlock(CI, "bar.done");
  Function *F = Head->getParent();
  BasicBlock *Cas = BasicBlock::Create(Ctx, "bar.cas", F, Tail);
  BasicBlock *Join = BasicBlock::Create(Ctx, "bar.arrived", F, Tail);
  Head->getTerminator()->eraseFromParent();
  B.SetInsertPoint(Head);
  B.CreateCondBr(Elected, Cas, Join);

  // One CAS: join the current generation, or complete it and start the
  // next (generation + 1, the surplus of this arrival as its count). The
  // first try guesses 0 and learns the word when it fails.
  B.SetInsertPoint(Cas);
  PHINode *Old = B.CreatePHI(i32(), 2, "bar.old");
  Old->addIncoming(B.getInt32(0), Head);
  Value *Sum = B.CreateAdd(B.CreateAnd(Old, 0xffff), Add);
  Value *Done = B.CreateICmpUGE(Sum, Expected, "bar.complete");
  Value *NextGen = B.CreateOr(B.CreateAdd(B.CreateAnd(Old, 0xffff0000u), B.getInt32(0x10000)),
                              B.CreateSub(Sum, Expected));
  Value *New = B.CreateSelect(Done, NextGen, B.CreateAdd(Old, Add));
  AtomicCmpXchgInst *X = B.CreateAtomicCmpXchg(Slot, Old, New, Align(4), AtomicOrdering::Monotonic,
                                              AtomicOrdering::Monotonic, WG);
  Old->addIncoming(B.CreateExtractValue(X, 0), Cas);
  Value *OldGen = B.CreateLShr(Old, 16);
  Value *Completed = B.CreateZExt(Done, i32());
  B.CreateCondBr(B.CreateExtractValue(X, 1), Join, Cas);

  B.SetInsertPoint(Join);
  if (!Wait) {
    B.CreateBr(Tail);
    CI->eraseFromParent();
    return;
  }
  PHINode *GenPhi = B.CreatePHI(i32(), 2);
  GenPhi->addIncoming(B.getInt32(0), Head);
  GenPhi->addIncoming(OldGen, Cas);
  PHINode *CompletedPhi = B.CreatePHI(i32(), 2);
  CompletedPhi->addIncoming(B.getInt32(0), Head);
  CompletedPhi->addIncoming(Completed, Cas);
  // The first active lane is the one that arrived: its view is the wave's.
  Value *Gen = B.CreateIntrinsic(Intrinsic::amdgcn_readfirstlane, {i32()}, {GenPhi}, nullptr, "bar.gen");
  Value *Mine = B.CreateIntrinsic(Intrinsic::amdgcn_readfirstlane, {i32()}, {CompletedPhi});
  BasicBlock *Spin = BasicBlock::Create(Ctx, "bar.wait", F, Tail);
  BasicBlock *Sleep = BasicBlock::Create(Ctx, "bar.sleep", F, Tail);
  B.CreateCondBr(B.CreateICmpNE(Mine, B.getInt32(0)), Tail, Spin);
  B.SetInsertPoint(Spin);
  LoadInst *Now = B.CreateAlignedLoad(i32(), Slot, Align(4), "bar.now");
  Now->setAtomic(AtomicOrdering::Monotonic, WG);
  Value *NowGen = B.CreateIntrinsic(Intrinsic::amdgcn_readfirstlane, {i32()}, {B.CreateLShr(Now, 16)});
  B.CreateCondBr(B.CreateICmpEQ(NowGen, Gen), Sleep, Tail);
  B.SetInsertPoint(Sleep);
  B.CreateIntrinsic(Intrinsic::amdgcn_s_sleep, {}, {B.getInt32(1)});
  B.CreateBr(Spin);
  // Waiting acquires what the arrivals released.
  B.SetInsertPoint(CI);
  B.CreateFence(AtomicOrdering::Acquire, WG);
  CI->eraseFromParent();
}

void Lowerer::initNamedBarriers() {
  GlobalVariable *G = C.M.getNamedGlobal(NamedBarriersName);
  if (!G)
    return;
  SmallVector<Function *, 8> Work(NamedBarrierUsers.begin(), NamedBarrierUsers.end());
  SmallPtrSet<Function *, 8> Seen(NamedBarrierUsers.begin(), NamedBarrierUsers.end());
  while (!Work.empty()) {
    Function *F = Work.pop_back_val();
    if (F->getCallingConv() == CallingConv::AMDGPU_KERNEL) {
      // Thread 0 zeroes the 16 words before anyone arrives.
      BasicBlock &Entry = F->getEntryBlock();
      IRBuilder<> B(&*Entry.getFirstNonPHIOrDbgOrAlloca());
      auto Id = [&](Intrinsic::ID I) { return B.CreateIntrinsic(I, {}, {}); };
      Value *Tid = B.CreateOr(Id(Intrinsic::amdgcn_workitem_id_x),
                              B.CreateOr(Id(Intrinsic::amdgcn_workitem_id_y),
                                         Id(Intrinsic::amdgcn_workitem_id_z)));
      Instruction *Then =
          SplitBlockAndInsertIfThen(B.CreateICmpEQ(Tid, B.getInt32(0)), &*B.GetInsertPoint(), false);
      IRBuilder<> T(Then);
      T.CreateAlignedStore(Constant::getNullValue(G->getValueType()), G, Align(16));
      B.SetInsertPoint(Then->getParent()->getSingleSuccessor()->getFirstNonPHI());
      blockBarrier(B);
      continue;
    }
    for (User *U : F->users())
      if (auto *CI = dyn_cast<CallInst>(U); CI && Seen.insert(CI->getFunction()).second)
        Work.push_back(CI->getFunction());
  }
}

Error Lowerer::replaceWithReturn(CallInst *CI) {
  Function *F = CI->getFunction();
  if (F->getCallingConv() != CallingConv::AMDGPU_KERNEL)
    return failure("ferry.exit in '" + F->getName() +
                   "', which could not be inlined into its kernel (recursive?)");
  Instruction *Next = CI->getNextNode();
  BasicBlock *BB = CI->getParent();
  changeToUnreachable(Next);
  BB->getTerminator()->eraseFromParent();
  ReturnInst::Create(Ctx, BB);
  CI->eraseFromParent();
  return Error::success();
}

Error Lowerer::lower(CallInst *CI) {
  StringRef Name = CI->getCalledFunction()->getName();
  Expected<bool> Warp = lowerWarpCall(C, CI);
  if (!Warp)
    return Warp.takeError();
  if (*Warp)
    return Error::success();
  Expected<bool> Texture = lowerTextureCall(C, CI);
  if (!Texture)
    return Texture.takeError();
  if (*Texture)
    return Error::success();

  IRBuilder<> B(CI);
  Value *R = nullptr;
  auto Id = [&](Intrinsic::ID I) { return B.CreateIntrinsic(I, {}, {}); };
  StringRef Fn = CI->getFunction()->getName();

  if (Name == "ferry.tid.x") R = Id(Intrinsic::amdgcn_workitem_id_x);
  else if (Name == "ferry.tid.y") R = Id(Intrinsic::amdgcn_workitem_id_y);
  else if (Name == "ferry.tid.z") R = Id(Intrinsic::amdgcn_workitem_id_z);
  else if (Name == "ferry.ctaid.x") R = Id(Intrinsic::amdgcn_workgroup_id_x);
  else if (Name == "ferry.ctaid.y") R = Id(Intrinsic::amdgcn_workgroup_id_y);
  else if (Name == "ferry.ctaid.z") R = Id(Intrinsic::amdgcn_workgroup_id_z);
  // Hidden arguments: block_count x/y/z u32 @0/4/8, group_size u16 @12/14/16.
  else if (Name == "ferry.nctaid.x") R = implicitArg(B, 0, i32());
  else if (Name == "ferry.nctaid.y") R = implicitArg(B, 4, i32());
  else if (Name == "ferry.nctaid.z") R = implicitArg(B, 8, i32());
  else if (Name == "ferry.ntid.x") R = implicitArg(B, 12, B.getInt16Ty());
  else if (Name == "ferry.ntid.y") R = implicitArg(B, 14, B.getInt16Ty());
  else if (Name == "ferry.ntid.z") R = implicitArg(B, 16, B.getInt16Ty());
  else if (Name == "ferry.laneid") R = warpLaneId(C, B);
  else if (Name == "ferry.warpid") R = B.CreateLShr(linearTid(B), 5);
  else if (Name == "ferry.nwarpid") {
    // The warps of this block (PTX's is a per-SM constant; code uses it as
    // an upper bound of %warpid, which this is).
    Value *N = B.CreateMul(implicitArg(B, 12, B.getInt16Ty()),
                           B.CreateMul(implicitArg(B, 14, B.getInt16Ty()),
                                       implicitArg(B, 16, B.getInt16Ty())));
    R = B.CreateLShr(B.CreateAdd(N, B.getInt32(31)), 5);
  } else if (Name == "ferry.smid") R = B.getInt32(0);   // Not exposed portably across
  else if (Name == "ferry.nsmid") R = B.getInt32(1);    // gfx9/10/11 HW_ID layouts.
  else if (Name == "ferry.gridid") R = Id(Intrinsic::amdgcn_dispatch_id);
  else if (Name == "ferry.total_smem_size") R = dispatchField(B, 28, i32());
  else if (Name == "ferry.dynamic_smem_size") {
    // The packet's group segment = static LDS (with padding) + dynamic.
    R = B.CreateSub(dispatchField(B, 28, i32()), Id(Intrinsic::amdgcn_groupstaticsize));
  } else if (Name == "ferry.dynamic_smem") {
    const char *DynName = "__ferry_dynamic_smem";
    GlobalVariable *G = C.M.getNamedGlobal(DynName);
    if (!G) {
      auto *Ty = ArrayType::get(B.getInt8Ty(), 0);
      G = new GlobalVariable(C.M, Ty, false, GlobalValue::ExternalLinkage, nullptr, DynName,
                             nullptr, GlobalValue::NotThreadLocal, 3);
      G->setAlignment(Align(16));
    }
    R = G;
  } else if (Name == "ferry.clock64") R = Id(Intrinsic::readcyclecounter);
  else if (Name == "ferry.clock") R = B.CreateTrunc(Id(Intrinsic::readcyclecounter), i32());
  else if (Name == "ferry.grid.workspace") {
    // The v5 hidden multigrid-sync argument (+88): HsaBackend puts a
    // cooperative launch's zeroed barrier memory there (GridWorkspacePool)
    // and null for other launches, where cooperative groups' grid.sync
    // traps as on NVIDIA.
    R = implicitArg(B, 88, B.getInt64Ty());
  } else if (Name == "ferry.globaltimer") {
    // The steady counter runs at the 100 MHz reference clock on current GPUs.
    R = B.CreateMul(Id(Intrinsic::readsteadycounter), B.getInt64(10));
  } else if (Name == "ferry.bar.sync" && isNamedBarrier(CI->getArgOperand(0))) {
    namedBarrier(CI, true);
    return Error::success();
  } else if (Name == "ferry.bar.arrive") {
    namedBarrier(CI, false);
    return Error::success();
  } else if (Name == "ferry.bar.sync") {
    if (constArg(CI, 1) != 0)
      log::hsa().warn("{}: bar.sync with a thread count is lowered to a whole-block "
                       "barrier (correct only when every thread of the block arrives)", Fn);
    blockBarrier(B);
  } else if (Name == "ferry.bar.red.popc") {
    R = barrierReducePopc(B, CI->getArgOperand(2));
  } else if (Name == "ferry.bar.red.and" || Name == "ferry.bar.red.or") {
    Value *False = barrierReducePopc(B, B.CreateNot(CI->getArgOperand(2)));
    Value *True = barrierReducePopc(B, CI->getArgOperand(2));
    R = Name == "ferry.bar.red.and" ? B.CreateICmpEQ(False, B.getInt32(0))
                                     : B.CreateICmpNE(True, B.getInt32(0));
  } else if (Name == "ferry.fence") {
    int Scope = constArg(CI, 0), Sem = constArg(CI, 1);
    if (Scope < 0 || Scope > 3 || Sem < 0 || Sem > 3)
      return failure("ferry.fence needs constant scope 0..3 and semantics 0..3 in " + Fn);
    static const char *const Scopes[] = {"workgroup", "workgroup", "agent", ""};
    static const AtomicOrdering Orders[] = {AtomicOrdering::SequentiallyConsistent,
                                            AtomicOrdering::AcquireRelease, AtomicOrdering::Acquire,
                                            AtomicOrdering::Release};
    B.CreateFence(Orders[Sem], *Scopes[Scope] ? Ctx.getOrInsertSyncScopeID(Scopes[Scope])
                                              : SyncScope::System);
  } else if (Name == "ferry.isspacep") {
    // Generic addresses: the apertures tell shared and private apart from
    // global. Constant and parameter data live in global memory on AMD, so
    // they cannot be told from it: isspacep.const/.param answer false and
    // isspacep.global answers true for them.
    Value *P = CI->getArgOperand(1);
    Value *Shared = B.CreateIntrinsic(Intrinsic::amdgcn_is_shared, {}, {P});
    Value *Private = B.CreateIntrinsic(Intrinsic::amdgcn_is_private, {}, {P});
    switch (constArg(CI, 0)) {
    case 1: R = B.CreateNot(B.CreateOr(Shared, Private)); break;
    case 3: R = Shared; break;
    case 5: R = Private; break;
    case 4:
    case 6: R = B.getFalse(); break;
    default:
      return failure("ferry.isspacep needs a constant space 1, 3, 4, 5 or 6 in " + Fn);
    }
  } else if (Name == "ferry.exit") {
    return replaceWithReturn(CI);
  } else if (Name == "ferry.trap" || Name == "ferry.brkpt") {
    // s_trap: the queue reports an error, which becomes LAUNCH_FAILED.
    Id(Intrinsic::trap);
  } else if (Name == "ferry.assertfail") {
    // The first failing thread of the module records where and why in
    // __ferry_assert (AssertRecord in HsaBackend.h), then traps; the queue
    // error that follows becomes CUDA_ERROR_ASSERT with CUDA's message.
    auto *I64 = B.getInt64Ty();
    GlobalVariable *G = C.M.getNamedGlobal(AssertSymbol);
    if (!G) {
      auto *Ty = ArrayType::get(I64, AssertRecordWords);
      G = new GlobalVariable(C.M, Ty, false, GlobalValue::ExternalLinkage,
                             ConstantAggregateZero::get(Ty), AssertSymbol, nullptr,
                             GlobalValue::NotThreadLocal, 1);
      G->setVisibility(GlobalValue::ProtectedVisibility);
      G->setAlignment(Align(8));
    }
    auto Word = [&](unsigned I) { return B.CreateConstInBoundsGEP2_32(G->getValueType(), G, 0, I); };
    Value *Old = B.CreateAtomicCmpXchg(Word(0), B.getInt64(0), B.getInt64(1), MaybeAlign(8),
                                       AtomicOrdering::Monotonic, AtomicOrdering::Monotonic);
    Value *First = B.CreateExtractValue(Old, 1);
    Instruction *Then = SplitBlockAndInsertIfThen(First, CI->getIterator(), false);
    IRBuilder<> T(Then);
    auto Ptr = [&](unsigned Arg) { return T.CreatePtrToInt(CI->getArgOperand(Arg), I64); };
    auto Pair = [&](Value *Lo, Value *Hi) {
      return T.CreateOr(T.CreateZExt(Lo, I64), T.CreateShl(T.CreateZExt(Hi, I64), 32));
    };
    auto Tid = [&](Intrinsic::ID I) { return T.CreateIntrinsic(I, {}, {}); };
    T.CreateStore(Ptr(0), Word(1));
    T.CreateStore(Ptr(1), Word(2));
    T.CreateStore(Ptr(3), Word(3));
    T.CreateStore(T.CreateZExt(CI->getArgOperand(2), I64), Word(4));
    T.CreateStore(Pair(Tid(Intrinsic::amdgcn_workgroup_id_x), Tid(Intrinsic::amdgcn_workgroup_id_y)),
                  Word(5));
    T.CreateStore(Pair(Tid(Intrinsic::amdgcn_workgroup_id_z), Tid(Intrinsic::amdgcn_workitem_id_x)),
                  Word(6));
    T.CreateStore(Pair(Tid(Intrinsic::amdgcn_workitem_id_y), Tid(Intrinsic::amdgcn_workitem_id_z)),
                  Word(7));
    // The record is complete before the flag says so to the host.
    T.CreateFence(AtomicOrdering::Release, C.M.getContext().getOrInsertSyncScopeID("agent"));
    T.CreateStore(T.getInt64(2), Word(0));
    B.SetInsertPoint(CI);
    Id(Intrinsic::trap);
  } else if (Name == "ferry.nanosleep") {
    // s_sleep N waits about 64*N clocks (N ≤ 127): a hint, as in PTX.
    int T = constArg(CI, 0);
    unsigned N = T < 0 ? 1 : std::clamp(unsigned(T) / 32u, 1u, 127u);
    B.CreateIntrinsic(Intrinsic::amdgcn_s_sleep, {}, {B.getInt32(N)});
  } else if (Name == "ferry.printf" || Name == "ferry.malloc") {
    // Not faked: printf printing nothing, or malloc answering NULL with
    // free memory left, would be silent wrong results. compileEachKernel
    // leaves out only the kernels that use them; their launches fail with
    // a CUDA error and the log names why.
    return failure(std::string("NOT_SUPPORTED by the AMD backend: device-side ") +
                   (Name == "ferry.printf" ? "printf" : "malloc (the device heap)") + " in " + Fn.str());
  } else if (Name == "ferry.free") {
    // No kernel that allocates is compiled, so no heap pointer exists:
    // free(NULL) is a no-op and any other argument undefined, as in CUDA.
    // (Virtual deleting destructors reach free from kernels that never
    // call it: templates_fnptr.)
  } else if (Name.starts_with("ferry.cdp.")) {
    // compileEachKernel then drops only the kernels that use it.
    return failure("NOT_SUPPORTED by the AMD backend: dynamic parallelism (device-side launches and "
                   "the CUDA device runtime, " + Name + ") in " + Fn);
  } else {
    return failure("NOT_SUPPORTED by the AMD backend: " + Name + " (in " + Fn + ")");
  }
  if (R) {
    if (R->getType() != CI->getType())
      return failure("internal: lowering of " + Name + " has the wrong type");
    CI->replaceAllUsesWith(R);
  }
  CI->eraseFromParent();
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Precise libm intrinsics the AMDGPU backend cannot select (f64) or selects
// only approximately (f32 sin/cos/tan/pow without afn) go to ocml.
//===----------------------------------------------------------------------===//

static void mapMathToOcml(Module &M) {
  SmallVector<IntrinsicInst *, 16> Calls;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        Calls.push_back(II);
  for (IntrinsicInst *II : Calls) {
    Type *Ty = II->getType();
    if (!Ty->isFloatTy() && !Ty->isDoubleTy())
      continue;
    bool F64 = Ty->isDoubleTy();
    bool Approx = isa<FPMathOperator>(II) && II->hasApproxFunc();
    const char *Base = nullptr;
    switch (II->getIntrinsicID()) {
    case Intrinsic::sin: Base = "sin"; break;
    case Intrinsic::cos: Base = "cos"; break;
    case Intrinsic::tan: Base = "tan"; break;
    case Intrinsic::pow: Base = "pow"; break;
    case Intrinsic::exp: Base = F64 ? "exp" : nullptr; break;
    case Intrinsic::exp2: Base = F64 ? "exp2" : nullptr; break;
    case Intrinsic::exp10: Base = F64 ? "exp10" : nullptr; break;
    case Intrinsic::log: Base = F64 ? "log" : nullptr; break;
    case Intrinsic::log2: Base = F64 ? "log2" : nullptr; break;
    case Intrinsic::log10: Base = F64 ? "log10" : nullptr; break;
    default: break;
    }
    if (!Base || (Approx && !F64))
      continue;
    std::string Name = std::string("__ocml_") + Base + (F64 ? "_f64" : "_f32");
    SmallVector<Type *, 2> ArgTys;
    SmallVector<Value *, 2> Args;
    for (Value *A : II->args()) {
      ArgTys.push_back(A->getType());
      Args.push_back(A);
    }
    FunctionCallee Callee = M.getOrInsertFunction(Name, FunctionType::get(Ty, ArgTys, false));
    IRBuilder<> B(II);
    CallInst *Call = B.CreateCall(Callee, Args);
    Call->copyFastMathFlags(II);
    II->replaceAllUsesWith(Call);
    II->eraseFromParent();
  }
}

//===----------------------------------------------------------------------===//
// bf16 min/max: PTX's min.bf16 of a signalling NaN and a number is the
// number (as for f32). The AMDGPU backend promotes bf16 minnum to f32 with a
// shift and takes that extension as quieting (an fpext is canonical), so it
// leaves out the quieting it does before an f32 v_min in IEEE mode, and
// v_min_f32 returns the signalling operand quieted. Widening by hand, as
// bits, makes the operands unknown f32 values that the backend quiets; the
// result (one of the operands, or a NaN) narrows back exactly.
//===----------------------------------------------------------------------===//

static void widenBf16MinMax(Module &M) {
  SmallVector<IntrinsicInst *, 8> Calls;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if ((II->getIntrinsicID() == Intrinsic::minnum || II->getIntrinsicID() == Intrinsic::maxnum) &&
            II->getType()->getScalarType()->isBFloatTy())
          Calls.push_back(II);
  for (IntrinsicInst *II : Calls) {
    IRBuilder<> B(II);
    Type *Ty = II->getType();
    Type *I16 = Ty->getWithNewType(B.getInt16Ty()), *I32 = Ty->getWithNewType(B.getInt32Ty());
    Type *F32 = Ty->getWithNewType(B.getFloatTy());
    auto Widen = [&](Value *V) {
      Value *Bits = B.CreateShl(B.CreateZExt(B.CreateBitCast(V, I16), I32), 16);
      return B.CreateBitCast(Bits, F32);
    };
    Value *R = B.CreateBinaryIntrinsic(II->getIntrinsicID(), Widen(II->getArgOperand(0)),
                                       Widen(II->getArgOperand(1)));
    II->replaceAllUsesWith(B.CreateFPTrunc(R, Ty));
    II->eraseFromParent();
  }
}

//===----------------------------------------------------------------------===//
// Driver.
//===----------------------------------------------------------------------===//

Error prepareSimtModule(Module &M, const TargetInfo &T, TargetMachine &TM,
                        const CompileOptions &Opts) {
  M.setTargetTriple(TM.getTargetTriple().str());
  M.setDataLayout(TM.createDataLayout());
  if (!M.getNamedMetadata(KernelListMetadata))
    return failure(Twine("the module has no !") + KernelListMetadata + " list of entries");
  for (Function *F : kernelsOf(M))
    if (Expected<Function *> New = rewriteEntry(*F); !New)
      return New.takeError();
  moveAllocasToPrivate(M);
  markExitCallersAlwaysInline(M);
  return Error::success();
}

Error lowerSimtModule(Module &M, const TargetInfo &T, TargetMachine &TM,
                      const CompileOptions &Opts) {
  LowerContext C{M, T};
  Lowerer L(C);
  L.findArrivedBarriers();
  SmallVector<Function *, 32> Intrinsics;
  for (Function &F : M)
    if (F.getName().starts_with("ferry.") && F.isDeclaration())
      Intrinsics.push_back(&F);
  for (Function *F : Intrinsics) {
    SmallVector<CallInst *, 16> Calls;
    for (User *U : F->users()) {
      auto *CI = dyn_cast<CallInst>(U);
      if (!CI || CI->getCalledFunction() != F)
        return failure("'" + F->getName() + "' is used other than by a direct call");
      Calls.push_back(CI);
    }
    for (CallInst *CI : Calls)
      if (Error E = L.lower(CI))
        return E;
    if (F->use_empty())
      F->eraseFromParent();
  }
  L.initNamedBarriers();
  if (Error E = mapSyncScopes(M))
    return E;
  // Before the math mapping: the sampler's sRGB curve calls llvm.pow,
  // which goes to ocml like the kernels' own.
  if (Error E = linkTextureSampler(M))
    return E;
  mapMathToOcml(M);
  widenBf16MinMax(M);
  exactBf16Fmas(M);
  if (Error E = linkDeviceLibs(M, T, Opts))
    return E;
  setTargetAttributes(M, T, Opts);
  exactFloatAtomicAdds(M, TM, T.WavefrontSize);
  return Error::success();
}

} // namespace ferry::hsa
