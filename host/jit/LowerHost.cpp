/// \file
/// SIMT IR → host IR. The host has one flat address space, so rather than
/// mutating types in place (which breaks constant uniquing) the module is
/// cloned into a fresh one through a type remapper that sends every
/// `ptr addrspace(N)` to `ptr`. Before cloning, shared variables are replaced
/// by arena offsets; after cloning, calls gain the hidden parameters and the
/// `ferry.*` intrinsics are lowered against them.
#include "host/jit/LowerHost.h"

#include "host/jit/KernelAbi.h"
#include "host/jit/Vectorize.h"
#include "support/Log.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <atomic>

using namespace llvm;

namespace ferry::host::detail {
namespace {

Error failure(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), Msg); }

constexpr unsigned SharedAS = 3;
constexpr unsigned NumHidden = 4; // BlockCtx *, tid.x, tid.y, tid.z
constexpr const char *SmemMarker = "ferry.host.smem";
constexpr const char *DynSmemMarker = "ferry.host.dynsmem";
/// Metadata on the volatile shared, global and generic accesses the
/// per-thread code takes lockstep turns at (markLockstepAccesses).
constexpr const char *LockstepMarker = "ferry.lockstep";

enum class Intr {
#define FERRY_INTRINSIC(Id, Name, ...) Id,
#include "ptx/lower/SimtIntrinsics.def"
#undef FERRY_INTRINSIC
  HostSmem,
  HostDynSmem,
};

const StringMap<Intr> &intrinsicTable() {
  static const StringMap<Intr> Table = [] {
    StringMap<Intr> T;
#define FERRY_INTRINSIC(Id, Name, ...) T[Name] = Intr::Id;
#include "ptx/lower/SimtIntrinsics.def"
#undef FERRY_INTRINSIC
    T[SmemMarker] = Intr::HostSmem;
    T[DynSmemMarker] = Intr::HostDynSmem;
    return T;
  }();
  return Table;
}

/// Sends every pointer type to address space 0, recursively through
/// aggregates, vectors and function types.
class FlatTypes final : public ValueMapTypeRemapper {
public:
  explicit FlatTypes(LLVMContext &C) : C(C) {}
  Type *remapType(Type *T) override {
    auto It = Cache.find(T);
    if (It != Cache.end())
      return It->second;
    Type *R = compute(T);
    Cache[T] = R;
    return R;
  }

private:
  Type *compute(Type *T) {
    if (isa<PointerType>(T))
      return PointerType::get(C, 0);
    if (auto *VT = dyn_cast<VectorType>(T))
      return VectorType::get(remapType(VT->getElementType()), VT->getElementCount());
    if (auto *AT = dyn_cast<ArrayType>(T))
      return ArrayType::get(remapType(AT->getElementType()), AT->getNumElements());
    if (auto *FT = dyn_cast<FunctionType>(T)) {
      SmallVector<Type *, 8> Ps;
      for (Type *P : FT->params())
        Ps.push_back(remapType(P));
      return FunctionType::get(remapType(FT->getReturnType()), Ps, FT->isVarArg());
    }
    if (auto *ST = dyn_cast<StructType>(T)) {
      if (ST->isOpaque())
        return ST;
      SmallVector<Type *, 8> Es;
      bool Changed = false;
      for (Type *E : ST->elements()) {
        Es.push_back(remapType(E));
        Changed |= Es.back() != E;
      }
      if (!Changed)
        return ST;
      if (ST->isLiteral())
        return StructType::get(C, Es, ST->isPacked());
      return StructType::create(C, Es, (ST->getName() + ".host").str(), ST->isPacked());
    }
    return T;
  }
  LLVMContext &C;
  DenseMap<Type *, Type *> Cache;
};

/// Address-space casts vanish once every space is 0; constant expressions
/// holding one are mapped to their (mapped) operand.
class DropCasts final : public ValueMaterializer {
public:
  DropCasts(ValueToValueMapTy &VMap, FlatTypes &Types) : VMap(VMap), Types(Types) {}
  Value *materialize(Value *V) override {
    auto *CE = dyn_cast<ConstantExpr>(V);
    if (!CE || CE->getOpcode() != Instruction::AddrSpaceCast)
      return nullptr;
    return MapValue(CE->getOperand(0), VMap, RF_None, &Types, this);
  }

private:
  ValueToValueMapTy &VMap;
  FlatTypes &Types;
};

std::vector<Function *> kernelsOf(Module &M) {
  std::vector<Function *> Kernels;
  NamedMDNode *List = M.getNamedMetadata(KernelListMetadata);
  if (!List)
    return Kernels;
  for (MDNode *N : List->operands()) {
    if (!N || N->getNumOperands() == 0)
      continue;
    auto *VM = dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get());
    auto *F = VM ? dyn_cast<Function>(VM->getValue()) : nullptr;
    if (F && !F->isDeclaration() && std::find(Kernels.begin(), Kernels.end(), F) == Kernels.end())
      Kernels.push_back(F);
  }
  return Kernels;
}

/// Where a use of a replaced value may get its new definition.
Instruction *insertionPointFor(Use &U) {
  auto *I = cast<Instruction>(U.getUser());
  if (auto *Phi = dyn_cast<PHINode>(I))
    return Phi->getIncomingBlock(U)->getTerminator();
  return I;
}

struct SharedLayout {
  /// Static shared bytes each kernel needs, in kernelsOf() order: the end of
  /// the furthest variable it can reach.
  std::vector<uint64_t> StaticBytes;
};

/// The functions each kernel can reach through calls: direct callees, and
/// every address-taken function from a function that calls indirectly.
std::vector<SmallPtrSet<Function *, 16>> reachableFrom(Module &M, const std::vector<Function *> &Kernels) {
  SmallVector<Function *, 16> AddressTaken;
  for (Function &F : M)
    if (!F.isDeclaration() && F.hasAddressTaken())
      AddressTaken.push_back(&F);
  DenseMap<Function *, SmallVector<Function *, 8>> Callees;
  for (Function &F : M) {
    auto &Out = Callees[&F];
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      if (Function *Callee = CB->getCalledFunction())
        Out.push_back(Callee);
      else
        Out.append(AddressTaken.begin(), AddressTaken.end());
    }
  }
  std::vector<SmallPtrSet<Function *, 16>> Reach(Kernels.size());
  for (size_t I = 0; I < Kernels.size(); ++I) {
    SmallVector<Function *, 16> Work = {Kernels[I]};
    while (!Work.empty()) {
      Function *F = Work.pop_back_val();
      if (!Reach[I].insert(F).second)
        continue;
      for (Function *C : Callees[F])
        Work.push_back(C);
    }
  }
  return Reach;
}

/// The functions whose code refers to G (through constant expressions too).
SmallPtrSet<Function *, 8> functionsUsing(GlobalValue &G) {
  SmallPtrSet<Function *, 8> Out;
  SmallVector<User *, 16> Work(G.users());
  SmallPtrSet<User *, 16> Seen;
  while (!Work.empty()) {
    User *U = Work.pop_back_val();
    if (!Seen.insert(U).second)
      continue;
    if (auto *I = dyn_cast<Instruction>(U))
      Out.insert(I->getFunction());
    else if (isa<ConstantExpr>(U))
      Work.append(U->user_begin(), U->user_end());
  }
  return Out;
}

/// Replaces every addrspace(3) global of Old by a call to the marker
/// `ferry.host.smem(i64 offset)`, and `ferry.dynamic_smem()` and extern
/// shared arrays by `ferry.host.dynsmem()` (the arena plus the BlockCtx's
/// DynSmemOffset), both lowered later against the BlockCtx.
///
/// Layout: each variable has one offset for the whole module (device
/// functions shared by kernels see it at one place), but variables that no
/// kernel uses together may overlap, so a kernel's static size is what it
/// uses, as on NVIDIA, not the sum over the translation unit.
Expected<SharedLayout> layOutShared(Module &Old) {
  const DataLayout &DL = Old.getDataLayout();
  std::vector<Function *> Kernels = kernelsOf(Old);
  auto Reach = reachableFrom(Old, Kernels);
  SharedLayout L;
  L.StaticBytes.assign(Kernels.size(), 0);
  struct Placed {
    GlobalVariable *G;
    uint64_t Offset, End;
    SmallVector<unsigned, 4> Users; // Kernel indices.
  };
  std::vector<Placed> Done;
  std::vector<GlobalVariable *> Dynamic;
  for (GlobalVariable &G : Old.globals()) {
    if (G.getAddressSpace() != SharedAS)
      continue;
    uint64_t Size = DL.getTypeAllocSize(G.getValueType());
    if (G.isDeclaration() || Size == 0) {
      Dynamic.push_back(&G); // `extern __shared__ T x[];`
      continue;
    }
    Align A = std::max(G.getAlign().value_or(DL.getABITypeAlign(G.getValueType())),
                       DL.getABITypeAlign(G.getValueType()));
    SmallPtrSet<Function *, 8> Using = functionsUsing(G);
    SmallVector<unsigned, 4> Users;
    for (unsigned K = 0; K < Kernels.size(); ++K)
      for (Function *F : Using)
        if (Reach[K].contains(F)) {
          Users.push_back(K);
          break;
        }
    // Lowest aligned offset clear of every placed variable sharing a kernel.
    uint64_t Off = 0;
    for (bool Moved = true; Moved;) {
      Moved = false;
      Off = alignTo(Off, A);
      for (const Placed &P : Done) {
        bool Shares = Users.empty() || P.Users.empty();
        for (unsigned K : Users)
          Shares |= is_contained(P.Users, K);
        if (Shares && Off < P.End && P.Offset < Off + Size) {
          Off = P.End;
          Moved = true;
        }
      }
    }
    Done.push_back({&G, Off, Off + Size, Users});
    for (unsigned K : Users)
      L.StaticBytes[K] = std::max(L.StaticBytes[K], Off + Size);
  }

  LLVMContext &C = Old.getContext();
  PointerType *SharedPtr = PointerType::get(C, SharedAS);
  FunctionCallee Marker =
      Old.getOrInsertFunction(SmemMarker, FunctionType::get(SharedPtr, {Type::getInt64Ty(C)}, false));
  FunctionCallee DynMarker = Old.getOrInsertFunction(DynSmemMarker, FunctionType::get(SharedPtr, false));
  auto Replace = [&](GlobalVariable *G, std::optional<uint64_t> Offset) -> Error {
    convertUsersOfConstantsToInstructions({G});
    SmallVector<Use *, 16> Uses;
    for (Use &U : G->uses())
      Uses.push_back(&U);
    for (Use *U : Uses) {
      if (!isa<Instruction>(U->getUser()))
        return failure("unsupported: shared variable '" + G->getName() +
                       "' is referenced from a global initializer");
      IRBuilder<> B(insertionPointFor(*U));
      U->set(Offset ? B.CreateCall(Marker, {B.getInt64(*Offset)}, G->getName())
                    : B.CreateCall(DynMarker, {}, G->getName()));
    }
    return Error::success();
  };
  for (Placed &P : Done)
    if (Error E = Replace(P.G, P.Offset))
      return E;
  for (GlobalVariable *G : Dynamic)
    if (Error E = Replace(G, std::nullopt))
      return E;
  if (Function *Dyn = Old.getFunction("ferry.dynamic_smem")) {
    SmallVector<CallBase *, 8> Calls;
    for (User *U : Dyn->users())
      if (auto *CB = dyn_cast<CallBase>(U))
        Calls.push_back(CB);
    for (CallBase *CB : Calls) {
      IRBuilder<> B(CB);
      Value *Ptr = B.CreateCall(DynMarker, {});
      CB->replaceAllUsesWith(Ptr);
      CB->eraseFromParent();
    }
  }
  for (Placed &P : Done)
    P.G->eraseFromParent();
  for (GlobalVariable *G : Dynamic)
    G->eraseFromParent();
  return L;
}

/// PTX shared-space addresses are offsets into the block's shared window
/// (32-bit values in `mov.u32 %r, smem_var`, `cvta.to.shared`, `ld.shared
/// [%r]`). Once shared variables are real host pointers into the arena, an
/// integer in the shared space must stay an offset: `ptrtoint` of a shared
/// pointer subtracts the arena base and `inttoptr` to the shared space adds
/// it back. Generic addresses stay full host addresses.
void rebaseSharedIntegers(Module &M) {
  LLVMContext &C = M.getContext();
  PointerType *SharedPtr = PointerType::get(C, SharedAS);
  FunctionCallee Marker =
      M.getOrInsertFunction(SmemMarker, FunctionType::get(SharedPtr, {Type::getInt64Ty(C)}, false));
  auto IsSharedCast = [](const Value *V) {
    if (auto *O = dyn_cast<Operator>(V)) {
      if (O->getOpcode() == Instruction::PtrToInt)
        return O->getOperand(0)->getType()->getPointerAddressSpace() == SharedAS;
      if (O->getOpcode() == Instruction::IntToPtr)
        return O->getType()->getPointerAddressSpace() == SharedAS;
    }
    return false;
  };
  // Constant expressions (a literal shared address) become instructions.
  SmallVector<Constant *, 8> Consts;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      for (Value *Op : I.operands())
        if (isa<ConstantExpr>(Op) && IsSharedCast(Op))
          Consts.push_back(cast<Constant>(Op));
  if (!Consts.empty())
    convertUsersOfConstantsToInstructions(Consts);
  Type *I8 = Type::getInt8Ty(C);
  for (Function &F : M) {
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      if (!IsSharedCast(&I))
        continue;
      IRBuilder<> B(&I);
      Value *Base = B.CreateCall(Marker, {B.getInt64(0)});
      if (auto *P2I = dyn_cast<PtrToIntInst>(&I)) {
        Value *Whole = B.CreatePtrToInt(P2I->getOperand(0), B.getInt64Ty());
        Value *Off = B.CreateSub(Whole, B.CreatePtrToInt(Base, B.getInt64Ty()));
        I.replaceAllUsesWith(B.CreateZExtOrTrunc(Off, I.getType()));
      } else {
        Value *Off = B.CreateZExtOrTrunc(I.getOperand(0), B.getInt64Ty());
        I.replaceAllUsesWith(B.CreateGEP(I8, Base, Off));
      }
      I.eraseFromParent();
    }
  }
}

/// Whether V, computed inside loop L, depends (through at most Depth
/// instructions of L) on a read other threads can change under it: an
/// atomic or volatile load, a compare-exchange or a read-modify-write.
bool readsSyncMemory(Value *V, const Loop &L, unsigned Depth) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !L.contains(I))
    return false;
  if (auto *Ld = dyn_cast<LoadInst>(I))
    return Ld->isAtomic() || Ld->isVolatile();
  if (isa<AtomicCmpXchgInst>(I) || isa<AtomicRMWInst>(I))
    return true;
  if (Depth == 0 || isa<PHINode>(I) || isa<CallBase>(I))
    return false;
  for (Value *Op : I->operands())
    if (readsSyncMemory(Op, L, Depth - 1))
      return true;
  return false;
}

/// Whether Cond, the exit test of loop L, only asks whether a
/// compare-exchange retry succeeded: X's expected value is a phi of L's
/// header that L's back edges feed with the word X read, and Cond is X's
/// success bit or compares X's result with its expected value. Such a loop
/// (an atomic update done as read, compute, compare-exchange: libcu++ and
/// ferry's own mbarrier arrive, atomicAdd on types without an atomic
/// instruction) fails only when another thread changed the word after this
/// one read it, so retrying at once makes progress and nobody is waited for.
/// A yield there cost a warp function one fiber switch per lane: its 32
/// lanes update one word in turn, each sweep lets one lane succeed, and
/// every failed sweep yielded (a 256-thread cuda::barrier phase took ~5 ms).
bool isCasRetryExit(Value *Cond, const Loop &L) {
  auto Retry = [&](AtomicCmpXchgInst *X) {
    if (!L.contains(X))
      return false;
    auto *P = dyn_cast<PHINode>(X->getCompareOperand());
    if (!P || P->getParent() != L.getHeader())
      return false;
    for (unsigned I = 0; I < P->getNumIncomingValues(); ++I) {
      if (!L.contains(P->getIncomingBlock(I)))
        continue;
      auto *EV = dyn_cast<ExtractValueInst>(P->getIncomingValue(I));
      if (!EV || EV->getAggregateOperand() != X || EV->getNumIndices() != 1 || EV->getIndices()[0] != 0)
        return false;
    }
    return true;
  };
  auto Field = [](Value *V, unsigned Index) -> AtomicCmpXchgInst * {
    auto *EV = dyn_cast<ExtractValueInst>(V);
    if (!EV || EV->getNumIndices() != 1 || EV->getIndices()[0] != Index)
      return nullptr;
    return dyn_cast<AtomicCmpXchgInst>(EV->getAggregateOperand());
  };
  if (AtomicCmpXchgInst *X = Field(Cond, 1))
    return Retry(X);
  auto *Cmp = dyn_cast<ICmpInst>(Cond);
  if (!Cmp || !Cmp->isEquality())
    return false;
  for (unsigned Side = 0; Side < 2; ++Side)
    if (AtomicCmpXchgInst *X = Field(Cmp->getOperand(Side), 0))
      if (X->getCompareOperand() == Cmp->getOperand(1 - Side))
        return Retry(X);
  return false;
}

/// Spin-waits: a loop whose exit test reads memory another thread writes
/// (a flag polled with an acquire or volatile load, a lock taken with a
/// compare-exchange) waits for another warp of the block, which on a GPU
/// runs meanwhile. Host warps run as fibers switched only at barriers and
/// sleeps, so such a loop would spin forever (libcu++'s
/// `while (flag.load(acquire) == 0)` between warps hung). Each of its
/// back edges gets a ferry.nanosleep, which yields to the block's other
/// fibers; loops that already sleep or hold a barrier are left alone, and
/// a compare-exchange that succeeds at once never takes the back edge.
/// Compare-exchange retry loops (isCasRetryExit) wait for nobody and get
/// no yield; a lock taken with a compare-exchange against a fixed value
/// (`while (atomicCAS(lock, 0, 1) != 0)`) still does.
void addSpinYields(Module &Old) {
  FunctionCallee Sleep;
  for (Function &F : Old) {
    if (F.isDeclaration())
      continue;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> Edges;
    for (Loop *L : LI.getLoopsInPreorder()) {
      bool Yields = false, Spins = false;
      for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB)
          if (auto *CI = dyn_cast<CallInst>(&I))
            if (Function *Callee = CI->getCalledFunction())
              Yields |= Callee->getName() == "ferry.nanosleep" || Callee->getName().starts_with("ferry.bar.");
      if (Yields)
        continue;
      SmallVector<BasicBlock *, 4> Exiting;
      L->getExitingBlocks(Exiting);
      for (BasicBlock *BB : Exiting) {
        Instruction *T = BB->getTerminator();
        if (auto *Br = dyn_cast<BranchInst>(T); Br && Br->isConditional())
          Spins |= !isCasRetryExit(Br->getCondition(), *L) && readsSyncMemory(Br->getCondition(), *L, 8);
        else if (auto *Sw = dyn_cast<SwitchInst>(T))
          Spins |= readsSyncMemory(Sw->getCondition(), *L, 8);
      }
      if (!Spins)
        continue;
      SmallVector<BasicBlock *, 4> Latches;
      L->getLoopLatches(Latches);
      for (BasicBlock *Latch : Latches)
        Edges.push_back({Latch, L->getHeader()});
    }
    if (Edges.empty())
      continue;
    if (!Sleep)
      Sleep = Old.getOrInsertFunction("ferry.nanosleep", Type::getVoidTy(Old.getContext()),
                                      Type::getInt32Ty(Old.getContext()));
    for (auto [From, To] : Edges) {
      BasicBlock *Y = SplitEdge(From, To);
      IRBuilder<> B(Y->getTerminator());
      B.CreateCall(Sleep, {B.getInt32(0)});
    }
  }
}

/// Pre-Volta warp-synchronous code trades values between the lanes of a
/// warp through `volatile` shared (or global) memory with no __syncwarp,
/// relying on the warp running in lockstep: in `vs[t] += vs[t + 16]` every
/// lane loads before any lane stores. Warp functions are lockstep by
/// construction; the per-thread code is not, so its volatile accesses to
/// memory other threads can see are marked here, while the address spaces
/// are still known (they are all 0 after cloneFlat), and become turns in
/// insertLockstepTurns. Volatile local accesses are private to the thread
/// and are left alone.
void markLockstepAccesses(Module &Old) {
  LLVMContext &C = Old.getContext();
  MDNode *Empty = MDNode::get(C, {});
  auto Visible = [](Value *P) {
    unsigned AS = P->getType()->getPointerAddressSpace();
    return (AS == 0 || AS == 1 || AS == SharedAS) && !isa<AllocaInst>(getUnderlyingObject(P));
  };
  for (Function &F : Old)
    for (Instruction &I : instructions(F)) {
      bool Mark = false;
      if (auto *L = dyn_cast<LoadInst>(&I))
        Mark = L->isVolatile() && Visible(L->getPointerOperand());
      else if (auto *S = dyn_cast<StoreInst>(&I))
        Mark = S->isVolatile() && Visible(S->getPointerOperand());
      if (Mark)
        I.setMetadata(LockstepMarker, Empty);
    }
}

/// Before each marked access of the per-thread functions: a call of
/// ferry_rt_lockstep, which hands the worker to the block's other threads,
/// one turn each (host/exec/Scheduler.cpp). The lanes of a converged warp
/// thus make their k-th volatile access only after every lane has made its
/// (k-1)-th one and has run the code up to its k-th: the loads of one
/// statement all come before its stores, and every lane's writes before the
/// next statement's loads, as in a warp that runs in lockstep. A lane that
/// skips accesses in divergent code runs ahead by that many turns, which
/// the idiom allows: the lanes a guarded step leaves out (`if (lane >= k)`)
/// neither write what the others read in it nor need their writes. The
/// calls make a kernel yielding, so kernels with such accesses never take
/// the block-loop fast path; kernels without them pay nothing. Warp
/// functions (built before this) only lose the marks.
void insertLockstepTurns(Module &NM, ArrayRef<Function *> PerThread) {
  LLVMContext &C = NM.getContext();
  unsigned Kind = C.getMDKindID(LockstepMarker);
  Type *Ptr = PointerType::get(C, 0);
  FunctionCallee Turn;
  for (Function *F : PerThread) {
    Argument *Ctx = F->getArg(F->arg_size() - NumHidden);
    for (Instruction &I : instructions(*F)) {
      if (!I.getMetadata(Kind))
        continue;
      if (!Turn.getCallee()) {
        Turn = NM.getOrInsertFunction("ferry_rt_lockstep", FunctionType::get(Type::getVoidTy(C), {Ptr}, false));
        cast<Function>(Turn.getCallee())->addFnAttr(Attribute::NoUnwind);
      }
      IRBuilder<> B(&I);
      B.CreateCall(Turn, {Ctx});
    }
  }
  for (Function &F : NM)
    for (Instruction &I : instructions(F))
      I.setMetadata(Kind, nullptr);
}

/// The new module's functions, with the hidden parameters, and what became of
/// each old global.
struct Cloned {
  std::unique_ptr<Module> M;
  std::vector<Function *> Kernels; // Same order as kernelsOf(Old).
  std::vector<LoweredGlobal> Globals;
};

Expected<Cloned> cloneFlat(Module &Old, const DataLayout &DL, StringRef Triple) {
  LLVMContext &C = Old.getContext();
  Cloned R;
  R.M = std::make_unique<Module>(Old.getModuleIdentifier() + ".host", C);
  Module &NM = *R.M;
  NM.setDataLayout(DL);
  NM.setTargetTriple(Triple);
  FlatTypes Types(C);
  ValueToValueMapTy VMap;
  DropCasts Mat(VMap, Types);

  if (!Old.aliases().empty() || !Old.ifuncs().empty())
    return failure("unsupported: global aliases");

  std::vector<std::pair<GlobalVariable *, GlobalVariable *>> Vars;
  for (GlobalVariable &G : Old.globals()) {
    auto *NG = new GlobalVariable(NM, Types.remapType(G.getValueType()), G.isConstant(),
                                  G.getLinkage(), nullptr, G.getName(), nullptr,
                                  G.getThreadLocalMode(), 0, G.isExternallyInitialized());
    NG->setAlignment(G.getAlign());
    NG->setUnnamedAddr(G.getUnnamedAddr());
    NG->setVisibility(G.getVisibility());
    VMap[&G] = NG;
    Vars.push_back({&G, NG});
  }

  Type *PtrTy = PointerType::get(C, 0);
  Type *I32 = Type::getInt32Ty(C);
  std::vector<std::pair<Function *, Function *>> Bodies;
  for (Function &F : Old) {
    auto *FT = cast<FunctionType>(Types.remapType(F.getFunctionType()));
    Function *NF;
    if (F.isDeclaration()) {
      NF = Function::Create(FT, F.getLinkage(), F.getName(), NM);
      NF->setAttributes(F.getAttributes());
    } else {
      if (FT->isVarArg())
        return failure("unsupported: variadic function '" + F.getName() + "'");
      SmallVector<Type *, 8> Ps(FT->params());
      Ps.append({PtrTy, I32, I32, I32});
      NF = Function::Create(FunctionType::get(FT->getReturnType(), Ps, false), F.getLinkage(),
                            F.getName(), NM);
      Bodies.push_back({&F, NF});
    }
    VMap[&F] = NF;
  }

  for (auto &[F, NF] : Bodies) {
    auto NA = NF->arg_begin();
    for (Argument &A : F->args()) {
      NA->setName(A.getName());
      VMap[&A] = &*NA++;
    }
    const char *Hidden[NumHidden] = {"ferry.ctx", "ferry.tid.x", "ferry.tid.y", "ferry.tid.z"};
    for (const char *N : Hidden)
      (NA++)->setName(N);
    SmallVector<ReturnInst *, 4> Returns;
    CloneFunctionInto(NF, F, VMap, CloneFunctionChangeType::DifferentModule, Returns, "",
                      nullptr, &Types, &Mat);
  }

  for (auto &[G, NG] : Vars) {
    if (G->hasInitializer())
      NG->setInitializer(MapValue(G->getInitializer(), VMap, RF_None, &Types, &Mat));
    if (G->isDeclaration() || !G->hasName())
      continue;
    unsigned AS = G->getAddressSpace();
    if (AS == 1 || AS == 4 || AS == 0) {
      // Module variables are written by the host (cuModuleGetGlobal +
      // copies, __constant__ included), so their initial value must never be
      // folded into code, and they must stay visible for lookup.
      NG->setConstant(false);
      NG->setExternallyInitialized(true);
      NG->setLinkage(GlobalValue::ExternalLinkage);
      NG->setVisibility(GlobalValue::DefaultVisibility);
      NG->setUnnamedAddr(GlobalValue::UnnamedAddr::None);
      R.Globals.push_back({NG->getName().str(), DL.getTypeAllocSize(NG->getValueType())});
    }
  }
  for (Function *K : kernelsOf(Old))
    R.Kernels.push_back(cast<Function>(VMap[K]));
  return R;
}

/// Direct and indirect calls to defined functions pass the caller's hidden
/// parameters along. Calls to declarations (intrinsics, ferry.*, libm) do
/// not.
Error forwardHiddenArgs(Module &NM) {
  for (Function &F : NM) {
    if (F.isDeclaration())
      continue;
    Argument *Hidden = F.getArg(F.arg_size() - NumHidden);
    SmallVector<CallBase *, 16> Calls;
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (!CB->isInlineAsm())
          Calls.push_back(CB);
    for (CallBase *CB : Calls) {
      auto *Callee = dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
      if (Callee && Callee->isDeclaration())
        continue;
      if (!isa<CallInst>(CB))
        return failure("unsupported: invoke/callbr in '" + F.getName() + "'");
      SmallVector<Value *, 8> Args(CB->args());
      for (unsigned I = 0; I < NumHidden; ++I)
        Args.push_back(Hidden + I);
      SmallVector<Type *, 8> Tys;
      for (Value *A : Args)
        Tys.push_back(A->getType());
      auto *FT = FunctionType::get(CB->getType(), Tys, false);
      IRBuilder<> B(CB);
      CallInst *NC = B.CreateCall(FT, CB->getCalledOperand(), Args);
      AttributeList AL = CB->getAttributes();
      SmallVector<AttributeSet, 8> ArgAttrs;
      for (unsigned I = 0; I < CB->arg_size(); ++I)
        ArgAttrs.push_back(AL.getParamAttrs(I));
      NC->setAttributes(AttributeList::get(NM.getContext(), AL.getFnAttrs(), AL.getRetAttrs(), ArgAttrs));
      NC->setCallingConv(CB->getCallingConv());
      NC->takeName(CB);
      CB->replaceAllUsesWith(NC);
      CB->eraseFromParent();
    }
  }
  return Error::success();
}

/// Casts between spaces that are now all 0, intrinsic names mangled with the
/// old spaces, and GPU sync scopes.
void tidyAfterClone(Module &NM) {
  LLVMContext &C = NM.getContext();
  SyncScope::ID Block = C.getOrInsertSyncScopeID("block");
  auto MapScope = [&](SyncScope::ID S) {
    // One block always runs on one OS thread, so block scope is
    // single-thread scope; everything wider is the whole system.
    return S == Block || S == SyncScope::SingleThread ? SyncScope::SingleThread : SyncScope::System;
  };
  for (Function &F : NM) {
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      if (auto *Cast = dyn_cast<AddrSpaceCastInst>(&I)) {
        Cast->replaceAllUsesWith(Cast->getOperand(0));
        Cast->eraseFromParent();
      } else if (auto *L = dyn_cast<LoadInst>(&I)) {
        if (L->isAtomic())
          L->setSyncScopeID(MapScope(L->getSyncScopeID()));
      } else if (auto *S = dyn_cast<StoreInst>(&I)) {
        if (S->isAtomic())
          S->setSyncScopeID(MapScope(S->getSyncScopeID()));
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
        RMW->setSyncScopeID(MapScope(RMW->getSyncScopeID()));
      } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
        CX->setSyncScopeID(MapScope(CX->getSyncScopeID()));
      } else if (auto *Fe = dyn_cast<FenceInst>(&I)) {
        Fe->setSyncScopeID(MapScope(Fe->getSyncScopeID()));
      }
    }
  }
  std::vector<Function *> Intrinsics;
  for (Function &F : NM)
    if (F.isIntrinsic())
      Intrinsics.push_back(&F);
  for (Function *F : Intrinsics)
    if (std::optional<Function *> New = Intrinsic::remangleIntrinsicFunction(F)) {
      F->replaceAllUsesWith(*New);
      F->eraseFromParent();
    }
}

/// bf16 → f32 truncation with round-to-nearest-even on the bits, keeping
/// subnormals and NaN. LLVM's x86 backend otherwise uses AVX512-BF16's
/// conversion where the CPU has it, which flushes subnormals to zero.
Value *truncToBf16(IRBuilder<> &B, Value *F) {
  Type *FT = F->getType();
  Type *I32 = B.getInt32Ty(), *I16 = B.getInt16Ty();
  auto *VT = dyn_cast<FixedVectorType>(FT);
  auto Ty = [&](Type *E) -> Type * { return VT ? static_cast<Type *>(FixedVectorType::get(E, VT->getNumElements())) : E; };
  auto C32 = [&](uint32_t V) { return ConstantInt::get(Ty(I32), V); };
  Value *Bits = B.CreateBitCast(F, Ty(I32));
  Value *Lsb = B.CreateAnd(B.CreateLShr(Bits, C32(16)), C32(1));
  Value *Rounded = B.CreateLShr(B.CreateAdd(Bits, B.CreateAdd(C32(0x7fff), Lsb)), C32(16));
  Value *Quiet = B.CreateLShr(B.CreateOr(Bits, C32(0x00400000)), C32(16));
  Value *IsNan = B.CreateFCmpUNO(F, F);
  Value *R = B.CreateTrunc(B.CreateSelect(IsNan, Quiet, Rounded), Ty(I16));
  return B.CreateBitCast(R, Ty(B.getBFloatTy()));
}

/// A double rounded to float with round-to-odd: the float to its nearest
/// even neighbour unless exact. Rounding that to a format with at most 22
/// fraction bits then equals rounding the double directly (one rounding).
Value *toFloatRoundToOdd(IRBuilder<> &B, Value *D) {
  Type *DT = D->getType();
  auto *VT = dyn_cast<FixedVectorType>(DT);
  auto Ty = [&](Type *E) -> Type * { return VT ? static_cast<Type *>(FixedVectorType::get(E, VT->getNumElements())) : E; };
  Value *F = B.CreateFPTrunc(D, Ty(B.getFloatTy()));
  Value *Back = B.CreateFPExt(F, DT);
  Value *Inexact = B.CreateAnd(B.CreateFCmpONE(Back, D), B.CreateFCmpORD(D, D));
  Value *Bits = B.CreateBitCast(F, Ty(B.getInt32Ty()));
  Value *Even = B.CreateICmpEQ(B.CreateAnd(Bits, ConstantInt::get(Ty(B.getInt32Ty()), 1)),
                               ConstantInt::get(Ty(B.getInt32Ty()), 0));
  // The odd neighbour lies towards D: one ulp down in magnitude when F
  // overshot |D|, one up otherwise (the bit patterns order by magnitude).
  Value *Over = B.CreateFCmpOGT(B.CreateUnaryIntrinsic(Intrinsic::fabs, Back),
                                B.CreateUnaryIntrinsic(Intrinsic::fabs, D));
  Value *Step = B.CreateSelect(Over, ConstantInt::get(Ty(B.getInt32Ty()), uint64_t(-1)),
                               ConstantInt::get(Ty(B.getInt32Ty()), 1));
  Value *Odd = B.CreateBitCast(B.CreateAdd(Bits, Step), Ty(B.getFloatTy()));
  return B.CreateSelect(B.CreateAnd(Inexact, Even), Odd, F);
}

/// Half-precision arithmetic the x86 backend would get subtly wrong: f32 →
/// bf16 truncations (see truncToBf16) and fma of f16/bf16, which LLVM
/// promotes to an f32 fma and rounds again (two roundings). The fma is
/// computed in double with round-to-odd (exact product, TwoSum error) and
/// rounded once more to the half format, which equals a single rounding.
void fixHalfPrecision(Module &M) {
  for (Function &F : M) {
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      if (auto *T = dyn_cast<FPTruncInst>(&I)) {
        if (T->getType()->getScalarType()->isBFloatTy() && T->getSrcTy()->getScalarType()->isFloatTy()) {
          IRBuilder<> B(T);
          T->replaceAllUsesWith(truncToBf16(B, T->getOperand(0)));
          T->eraseFromParent();
        }
        continue;
      }
      auto *II = dyn_cast<IntrinsicInst>(&I);
      if (!II || (II->getIntrinsicID() != Intrinsic::fma && II->getIntrinsicID() != Intrinsic::fmuladd))
        continue;
      Type *Ty = II->getType(), *E = Ty->getScalarType();
      if (!E->isHalfTy() && !E->isBFloatTy())
        continue;
      IRBuilder<> B(II);
      auto *VT = dyn_cast<FixedVectorType>(Ty);
      auto Wide = [&](Type *S) -> Type * { return VT ? static_cast<Type *>(FixedVectorType::get(S, VT->getNumElements())) : S; };
      Value *A = B.CreateFPExt(II->getArgOperand(0), Wide(B.getDoubleTy()));
      Value *Bv = B.CreateFPExt(II->getArgOperand(1), Wide(B.getDoubleTy()));
      Value *C = B.CreateFPExt(II->getArgOperand(2), Wide(B.getDoubleTy()));
      // The product of two half significands is exact in double; the sum
      // is rounded to odd with TwoSum's exact error, so the roundings to
      // float (odd) and to the half format (nearest even) add up to one.
      Type *DT = Wide(B.getDoubleTy()), *IT = Wide(B.getInt64Ty());
      Value *P = B.CreateFMul(A, Bv);
      Value *S = B.CreateFAdd(P, C);
      Value *BB = B.CreateFSub(S, P);
      Value *Err = B.CreateFAdd(B.CreateFSub(P, B.CreateFSub(S, BB)), B.CreateFSub(C, BB));
      Value *SBits = B.CreateBitCast(S, IT);
      Value *Even = B.CreateICmpEQ(B.CreateAnd(SBits, ConstantInt::get(IT, 1)), ConstantInt::get(IT, 0));
      Value *Inexact = B.CreateAnd(B.CreateFCmpONE(Err, ConstantFP::get(DT, 0.0)), B.CreateFCmpORD(S, S));
      Value *SameSign = B.CreateICmpEQ(B.CreateICmpSLT(B.CreateBitCast(Err, IT), ConstantInt::get(IT, 0)),
                                       B.CreateICmpSLT(SBits, ConstantInt::get(IT, 0)));
      Value *Step = B.CreateSelect(SameSign, ConstantInt::get(IT, 1), ConstantInt::get(IT, uint64_t(-1)));
      Value *Odd = B.CreateBitCast(B.CreateAdd(SBits, Step), DT);
      Value *D = B.CreateSelect(B.CreateAnd(Inexact, Even), Odd, S);
      Value *F32 = toFloatRoundToOdd(B, D);
      Value *R = E->isHalfTy() ? B.CreateFPTrunc(F32, Ty) : truncToBf16(B, F32);
      II->replaceAllUsesWith(R);
      II->eraseFromParent();
    }
  }
}

/// Lowers the ferry.* calls of one module.
class IntrinsicLowering {
public:
  IntrinsicLowering(Module &NM, const SmallPtrSetImpl<Function *> &Kernels)
      : NM(NM), C(NM.getContext()), Kernels(Kernels) {}

  Error run() {
    std::vector<Function *> Decls;
    for (Function &F : NM)
      if (F.isDeclaration() && F.getName().starts_with("ferry."))
        Decls.push_back(&F);
    for (Function *F : Decls) {
      // Declarations only the warp-function builder used (its scalar copy
      // is gone by now) have nothing left to lower.
      if (F->use_empty()) {
        F->eraseFromParent();
        continue;
      }
      auto It = intrinsicTable().find(F->getName());
      if (It == intrinsicTable().end())
        return failure("unsupported: intrinsic '" + F->getName() + "' on the host backend");
      SmallVector<CallInst *, 16> Calls;
      for (User *U : F->users()) {
        auto *CI = dyn_cast<CallInst>(U);
        if (!CI || CI->getCalledOperand() != F)
          return failure("'" + F->getName() + "' is used other than by a direct call");
        Calls.push_back(CI);
      }
      for (CallInst *CI : Calls)
        if (Error E = lower(It->second, CI))
          return E;
      if (F->use_empty())
        F->eraseFromParent();
    }
    return Error::success();
  }

private:
  FunctionCallee rt(StringRef Name, Type *Ret, ArrayRef<Type *> Params, bool NoReturn = false) {
    FunctionCallee FC = NM.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false));
    auto *F = cast<Function>(FC.getCallee());
    F->addFnAttr(Attribute::NoUnwind);
    if (NoReturn)
      F->addFnAttr(Attribute::NoReturn);
    return FC;
  }

  Value *field(IRBuilder<> &B, Value *Ctx, unsigned Offset, Type *Ty) {
    Value *P = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ctx, Offset);
    LoadInst *L = B.CreateAlignedLoad(Ty, P, Align(4));
    L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(C, {}));
    return L;
  }

  Value *linearTid(IRBuilder<> &B, Argument *H) {
    Value *Ctx = H, *Tx = H + 1, *Ty = H + 2, *Tz = H + 3;
    Value *Nx = field(B, Ctx, offsetof(BlockCtx, Ntid[0]), B.getInt32Ty());
    Value *Ny = field(B, Ctx, offsetof(BlockCtx, Ntid[1]), B.getInt32Ty());
    return B.CreateAdd(Tx, B.CreateMul(Nx, B.CreateAdd(Ty, B.CreateMul(Ny, Tz))));
  }

  Value *warpCall(IRBuilder<> &B, Value *Ctx, Value *Op, Value *Mask, Value *A, Value *Bv,
                  Value *Cv) {
    Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
    FunctionCallee F = rt("ferry_rt_warp", I64, {PointerType::get(C, 0), I32, I32, I64, I32, I32});
    // Bits 8-31 of the op name the call site, so the per-thread path
    // completes a collective only with the lanes at this instruction
    // (host/exec/Scheduler.cpp tryCompleteWarp).
    static std::atomic<uint32_t> Sites{0};
    Value *Tagged = B.CreateOr(Op, B.getInt32((++Sites & 0xffffffu) << 8));
    return B.CreateCall(F, {Ctx, Tagged, Mask, A, Bv, Cv});
  }
  Value *op(IRBuilder<> &B, WarpOp O) { return B.getInt32(static_cast<uint32_t>(O)); }
  Value *low32(IRBuilder<> &B, Value *R) { return B.CreateTrunc(R, B.getInt32Ty()); }
  Value *predBit(IRBuilder<> &B, Value *R) {
    return B.CreateTrunc(B.CreateLShr(R, 32), B.getInt1Ty());
  }
  Value *pair(IRBuilder<> &B, Type *StructTy, Value *V, Value *P) {
    Value *S = B.CreateInsertValue(PoisonValue::get(StructTy), V, 0);
    return B.CreateInsertValue(S, P, 1);
  }

  /// Textures and surfaces become calls of the executor's ferry_rt_tex
  /// family (host/exec/Texture.cpp), which read the object's descriptor at
  /// run time. Vectors go through 16-byte entry-block allocas rather than
  /// by value, so the C side needs no vector ABI. The level and gradients
  /// of tex.level/tex.grad are dropped: ferry has no mipmapped textures.
  Value *lowerTexture(IRBuilder<> &B, Intr Id, CallInst *CI, Value *Ctx) {
    Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty(), *Ptr = PointerType::get(C, 0);
    Type *Void = B.getVoidTy();
    auto *V4 = FixedVectorType::get(I32, 4);
    auto Buffer = [&](const Twine &Name) {
      Function *F = CI->getFunction();
      IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().getFirstInsertionPt());
      AllocaInst *A = EB.CreateAlloca(V4, nullptr, Name);
      A->setAlignment(Align(16));
      return A;
    };
    auto Arg = [&](unsigned I) { return CI->getArgOperand(I); };
    switch (Id) {
    case Intr::Txq:
    case Intr::Suq:
      return B.CreateCall(rt(Id == Intr::Txq ? "ferry_rt_txq" : "ferry_rt_suq", I32, {Ptr, I64, I32}),
                          {Ctx, Arg(0), Arg(1)});
    case Intr::Sust: {
      Value *In = Buffer("tex.coords"), *Vals = Buffer("surf.values");
      B.CreateAlignedStore(Arg(2), In, Align(16));
      B.CreateAlignedStore(Arg(3), Vals, Align(16));
      B.CreateCall(rt("ferry_rt_sust", Void, {Ptr, I64, I32, Ptr, Ptr}), {Ctx, Arg(0), Arg(1), In, Vals});
      return nullptr;
    }
    default: {
      const char *Name = Id == Intr::Suld                               ? "ferry_rt_suld"
                         : Id == Intr::TexF32 || Id == Intr::TexI32 ? "ferry_rt_tex"
                                                                      : "ferry_rt_tld4";
      Value *In = Buffer("tex.coords"), *Out = Buffer("tex.result");
      B.CreateAlignedStore(Arg(2), In, Align(16));
      B.CreateCall(rt(Name, Void, {Ptr, I64, I32, Ptr, Ptr}), {Ctx, Arg(0), Arg(1), In, Out});
      Value *R = B.CreateAlignedLoad(V4, Out, Align(16));
      return CI->getType() == V4 ? R : B.CreateBitCast(R, CI->getType());
    }
    }
  }

  Error lower(Intr Id, CallInst *CI) {
    Function *F = CI->getFunction();
    if (F->arg_size() < NumHidden)
      return failure("internal: ferry intrinsic outside a lowered function");
    Argument *H = F->getArg(F->arg_size() - NumHidden);
    Value *Ctx = H;
    IRBuilder<> B(CI);
    Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty(), *Ptr = PointerType::get(C, 0);
    auto Arg = [&](unsigned I) { return CI->getArgOperand(I); };
    Value *V = nullptr;
    switch (Id) {
    case Intr::TidX: V = H + 1; break;
    case Intr::TidY: V = H + 2; break;
    case Intr::TidZ: V = H + 3; break;
    case Intr::NtidX: V = field(B, Ctx, offsetof(BlockCtx, Ntid[0]), I32); break;
    case Intr::NtidY: V = field(B, Ctx, offsetof(BlockCtx, Ntid[1]), I32); break;
    case Intr::NtidZ: V = field(B, Ctx, offsetof(BlockCtx, Ntid[2]), I32); break;
    case Intr::NctaidX: V = field(B, Ctx, offsetof(BlockCtx, Nctaid[0]), I32); break;
    case Intr::NctaidY: V = field(B, Ctx, offsetof(BlockCtx, Nctaid[1]), I32); break;
    case Intr::NctaidZ: V = field(B, Ctx, offsetof(BlockCtx, Nctaid[2]), I32); break;
    case Intr::CtaidX: V = field(B, Ctx, offsetof(BlockCtx, Ctaid[0]), I32); break;
    case Intr::CtaidY: V = field(B, Ctx, offsetof(BlockCtx, Ctaid[1]), I32); break;
    case Intr::CtaidZ: V = field(B, Ctx, offsetof(BlockCtx, Ctaid[2]), I32); break;
    case Intr::LaneId: V = B.CreateAnd(linearTid(B, H), 31); break;
    case Intr::WarpId: V = B.CreateLShr(linearTid(B, H), 5); break;
    case Intr::NWarpId: V = B.getInt32(32); break;
    case Intr::SmId: V = field(B, Ctx, offsetof(BlockCtx, SmId), I32); break;
    case Intr::NSmId: V = field(B, Ctx, offsetof(BlockCtx, NSmId), I32); break;
    case Intr::GridId: V = field(B, Ctx, offsetof(BlockCtx, GridId), I64); break;
    case Intr::DynSmemSize: V = field(B, Ctx, offsetof(BlockCtx, DynSmemBytes), I32); break;
    case Intr::TotalSmemSize: V = field(B, Ctx, offsetof(BlockCtx, TotalSmemBytes), I32); break;
    case Intr::HostSmem: {
      Value *Base = field(B, Ctx, offsetof(BlockCtx, Smem), Ptr);
      V = B.CreateInBoundsGEP(B.getInt8Ty(), Base, Arg(0));
      break;
    }
    case Intr::HostDynSmem:
    case Intr::DynSmemBase: {
      Value *Base = field(B, Ctx, offsetof(BlockCtx, Smem), Ptr);
      Value *Off = field(B, Ctx, offsetof(BlockCtx, DynSmemOffset), B.getInt32Ty());
      V = B.CreateInBoundsGEP(B.getInt8Ty(), Base, B.CreateZExt(Off, B.getInt64Ty()));
      break;
    }
    case Intr::Clock:
    case Intr::Clock64: {
      Value *T = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {});
      V = Id == Intr::Clock ? B.CreateTrunc(T, I32) : T;
      break;
    }
    case Intr::GlobalTimer: V = B.CreateCall(rt("ferry_rt_globaltimer", I64, {})); break;
    case Intr::GridWorkspace: V = field(B, Ctx, offsetof(BlockCtx, GridWorkspace), I64); break;
    case Intr::BarSync:
    case Intr::BarArrive:
    case Intr::BarRedPopc:
    case Intr::BarRedAnd:
    case Intr::BarRedOr: {
      BarOp O = Id == Intr::BarSync     ? BarOp::Sync
                : Id == Intr::BarArrive ? BarOp::Arrive
                : Id == Intr::BarRedPopc ? BarOp::RedPopc
                : Id == Intr::BarRedAnd  ? BarOp::RedAnd
                                         : BarOp::RedOr;
      Value *Pred = CI->arg_size() > 2 ? B.CreateZExt(Arg(2), I32) : B.getInt32(0);
      Value *R = B.CreateCall(rt("ferry_rt_bar", I32, {Ptr, I32, I32, I32, I32}),
                              {Ctx, B.getInt32(static_cast<uint32_t>(O)), Arg(0), Arg(1), Pred});
      if (Id == Intr::BarRedPopc)
        V = R;
      else if (Id == Intr::BarRedAnd || Id == Intr::BarRedOr)
        V = B.CreateICmpNE(R, B.getInt32(0));
      break;
    }
    case Intr::GridSync: B.CreateCall(rt("ferry_rt_grid_sync", B.getVoidTy(), {Ptr}), {Ctx}); break;
    case Intr::BarWarpSync:
      warpCall(B, Ctx, op(B, WarpOp::Sync), Arg(0), B.getInt64(0), B.getInt32(0), B.getInt32(0));
      break;
    case Intr::ShflSync: {
      Value *O = B.CreateAdd(B.CreateAnd(Arg(0), 3), op(B, WarpOp::ShflUp));
      Value *R = warpCall(B, Ctx, O, Arg(1), B.CreateZExt(Arg(2), I64), Arg(3), Arg(4));
      V = pair(B, CI->getType(), low32(B, R), predBit(B, R));
      break;
    }
    case Intr::VoteAll:
    case Intr::VoteAny:
    case Intr::VoteUni:
    case Intr::VoteBallot: {
      WarpOp O = Id == Intr::VoteAll   ? WarpOp::VoteAll
                 : Id == Intr::VoteAny ? WarpOp::VoteAny
                 : Id == Intr::VoteUni ? WarpOp::VoteUni
                                       : WarpOp::Ballot;
      Value *R = warpCall(B, Ctx, op(B, O), Arg(0), B.CreateZExt(Arg(1), I64), B.getInt32(0),
                          B.getInt32(0));
      V = O == WarpOp::Ballot ? low32(B, R) : predBit(B, R);
      break;
    }
    case Intr::MatchAny32:
    case Intr::MatchAny64:
    case Intr::MatchAll32:
    case Intr::MatchAll64: {
      bool All = Id == Intr::MatchAll32 || Id == Intr::MatchAll64;
      Value *R = warpCall(B, Ctx, op(B, All ? WarpOp::MatchAll : WarpOp::MatchAny), Arg(0),
                          B.CreateZExt(Arg(1), I64), B.getInt32(0), B.getInt32(0));
      V = All ? pair(B, CI->getType(), low32(B, R), predBit(B, R)) : low32(B, R);
      break;
    }
    case Intr::ReduxAdd:
    case Intr::ReduxMinU:
    case Intr::ReduxMaxU:
    case Intr::ReduxMinS:
    case Intr::ReduxMaxS:
    case Intr::ReduxAnd:
    case Intr::ReduxOr:
    case Intr::ReduxXor: {
      WarpOp O = Id == Intr::ReduxAdd    ? WarpOp::ReduxAdd
                 : Id == Intr::ReduxMinU ? WarpOp::ReduxUMin
                 : Id == Intr::ReduxMaxU ? WarpOp::ReduxUMax
                 : Id == Intr::ReduxMinS ? WarpOp::ReduxSMin
                 : Id == Intr::ReduxMaxS ? WarpOp::ReduxSMax
                 : Id == Intr::ReduxAnd  ? WarpOp::ReduxAnd
                 : Id == Intr::ReduxOr   ? WarpOp::ReduxOr
                                         : WarpOp::ReduxXor;
      V = low32(B, warpCall(B, Ctx, op(B, O), Arg(0), B.CreateZExt(Arg(1), I64), B.getInt32(0),
                            B.getInt32(0)));
      break;
    }
    case Intr::ActiveMask:
      V = low32(B, warpCall(B, Ctx, op(B, WarpOp::ActiveMask), B.getInt32(~0u), B.getInt64(0),
                            B.getInt32(0), B.getInt32(0)));
      break;
    case Intr::ElectSync: {
      Value *R = warpCall(B, Ctx, op(B, WarpOp::Elect), Arg(0), B.getInt64(0), B.getInt32(0),
                          B.getInt32(0));
      V = pair(B, CI->getType(), low32(B, R), predBit(B, R));
      break;
    }
    case Intr::Fence: {
      auto *Scope = dyn_cast<ConstantInt>(Arg(0));
      // Threads of a block share one OS thread: a CTA fence only has to
      // stop the compiler from moving memory operations across it.
      B.CreateFence(AtomicOrdering::SequentiallyConsistent,
                    Scope && Scope->isZero() ? SyncScope::SingleThread : SyncScope::System);
      break;
    }
    case Intr::Exit:
      if (Kernels.contains(F)) {
        // Leaving the thread function is exit; the fiber trampoline (or the
        // block loop) handles the rest.
        BasicBlock *BB = CI->getParent();
        BasicBlock *Dead = BB->splitBasicBlock(CI->getIterator());
        BB->getTerminator()->eraseFromParent();
        ReturnInst::Create(C, BB);
        CI->eraseFromParent();
        if (Dead->hasNPredecessors(0))
          DeleteDeadBlock(Dead);
        return Error::success();
      }
      B.CreateCall(rt("ferry_rt_exit", B.getVoidTy(), {Ptr}, true), {Ctx});
      break;
    case Intr::Trap:
    case Intr::Brkpt:
      B.CreateCall(rt("ferry_rt_trap", B.getVoidTy(), {Ptr, I32, I32, I32, I32}, true),
                   {Ctx,
                    B.getInt32(static_cast<uint32_t>(Id == Intr::Trap ? TrapKind::Trap
                                                                      : TrapKind::Breakpoint)),
                    H + 1, H + 2, H + 3});
      break;
    case Intr::Nanosleep:
      B.CreateCall(rt("ferry_rt_nanosleep", B.getVoidTy(), {Ptr, I32}), {Ctx, Arg(0)});
      break;
    case Intr::Printf:
      V = B.CreateCall(rt("ferry_rt_printf", I32, {Ptr, Ptr, Ptr}), {Ctx, Arg(0), Arg(1)});
      break;
    case Intr::AssertFail:
      if (Kernels.contains(F)) {
        // The failure is recorded and the thread ends as by `exit`, so the
        // block loop (or the fiber trampoline) goes on with the others and
        // every failing thread is reported.
        B.CreateCall(rt("ferry_rt_assert_lane", B.getVoidTy(), {Ptr, Ptr, Ptr, I32, Ptr, I64, I32, I32, I32}),
                     {Ctx, Arg(0), Arg(1), Arg(2), Arg(3), Arg(4), H + 1, H + 2, H + 3});
        BasicBlock *BB = CI->getParent();
        BasicBlock *Dead = BB->splitBasicBlock(CI->getIterator());
        BB->getTerminator()->eraseFromParent();
        ReturnInst::Create(C, BB);
        CI->eraseFromParent();
        if (Dead->hasNPredecessors(0))
          DeleteDeadBlock(Dead);
        return Error::success();
      }
      // In a device function: the runtime ends the thread's fiber.
      B.CreateCall(
          rt("ferry_rt_assert", B.getVoidTy(), {Ptr, Ptr, Ptr, I32, Ptr, I64, I32, I32, I32}, true),
          {Ctx, Arg(0), Arg(1), Arg(2), Arg(3), Arg(4), H + 1, H + 2, H + 3});
      break;
    case Intr::Malloc: V = B.CreateCall(rt("ferry_rt_malloc", Ptr, {I64}), {Arg(0)}); break;
    case Intr::Free: B.CreateCall(rt("ferry_rt_free", B.getVoidTy(), {Ptr}), {Arg(0)}); break;
    case Intr::IsSpace: {
      // All memory is host memory. Shared is the block's arena; local is the
      // running thread's stack (near the stack pointer); the rest is global
      // (const cannot be told from global).
      Value *P = B.CreatePtrToInt(Arg(1), I64);
      Value *Base = B.CreatePtrToInt(field(B, Ctx, offsetof(BlockCtx, Smem), Ptr), I64);
      Value *Total = B.CreateZExt(field(B, Ctx, offsetof(BlockCtx, TotalSmemBytes), I32), I64);
      Value *InShared = B.CreateICmpULT(B.CreateSub(P, Base), Total);
      Value *Sp = B.CreatePtrToInt(B.CreateIntrinsic(Intrinsic::stacksave, {Ptr}, {}), I64);
      Value *InLocal = B.CreateICmpULT(B.CreateSub(P, Sp), B.getInt64(1 << 20));
      Value *Space = Arg(0);
      Value *IsShared = B.CreateICmpEQ(Space, B.getInt32(3));
      Value *IsLocal = B.CreateICmpEQ(Space, B.getInt32(5));
      Value *Global = B.CreateNot(B.CreateOr(InShared, InLocal));
      V = B.CreateSelect(IsShared, InShared, B.CreateSelect(IsLocal, InLocal, Global));
      break;
    }
    case Intr::TexF32:
    case Intr::TexI32:
    case Intr::Tld4F32:
    case Intr::Tld4I32:
    case Intr::Suld:
    case Intr::Sust:
    case Intr::Txq:
    case Intr::Suq:
      V = lowerTexture(B, Id, CI, Ctx);
      break;
    // The device runtime (dynamic parallelism): the calling thread's index
    // goes along, as the runtime keeps each thread's last error.
    case Intr::CdpParamBuffer:
      V = B.CreateCall(rt("ferry_rt_cdp_parambuf", Ptr, {Ptr, I64, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32}),
                       {Ctx, Arg(0), Arg(1), Arg(2), Arg(3), Arg(4), Arg(5), Arg(6), Arg(7), H + 1, H + 2, H + 3});
      break;
    case Intr::CdpLaunch:
      V = B.CreateCall(rt("ferry_rt_cdp_launch", I32, {Ptr, Ptr, I64, I32, I32, I32}),
                       {Ctx, Arg(0), Arg(1), H + 1, H + 2, H + 3});
      break;
    case Intr::CdpCall:
      V = B.CreateCall(rt("ferry_rt_cdp_call", I64, {Ptr, I32, I64, I64, I64, I64, I64, I32, I32, I32}),
                       {Ctx, Arg(0), Arg(1), Arg(2), Arg(3), Arg(4), Arg(5), H + 1, H + 2, H + 3});
      break;
    default:
      return failure("unsupported: '" + CI->getCalledFunction()->getName() + "' on the host backend");
    }
    if (V)
      CI->replaceAllUsesWith(V);
    else if (!CI->use_empty())
      return failure("internal: '" + CI->getCalledFunction()->getName() + "' result unused by lowering");
    CI->eraseFromParent();
    return Error::success();
  }

  Module &NM;
  LLVMContext &C;
  const SmallPtrSetImpl<Function *> &Kernels;
};

/// Functions that may call a runtime entry that switches fibers.
SmallPtrSet<Function *, 16> yieldingFunctions(Module &NM) {
  static const char *Yielders[] = {"ferry_rt_bar", "ferry_rt_grid_sync", "ferry_rt_warp",
                                   "ferry_rt_exit", "ferry_rt_assert", "ferry_rt_nanosleep",
                                   "ferry_rt_lockstep"};
  SmallPtrSet<Function *, 16> Yield;
  for (const char *N : Yielders)
    if (Function *F = NM.getFunction(N))
      Yield.insert(F);
  bool AnyYield = !Yield.empty();
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Function &F : NM) {
      if (F.isDeclaration() || Yield.contains(&F))
        continue;
      for (Instruction &I : instructions(F)) {
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB)
          continue;
        auto *Callee = dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
        if ((Callee && Yield.contains(Callee)) || (!Callee && !CB->isInlineAsm() && AnyYield)) {
          Yield.insert(&F);
          Changed = true;
          break;
        }
      }
    }
  }
  return Yield;
}

/// `void @K.ferry.block(ptr %params, ptr %ctx)`: every thread of the block
/// in x-fastest order. The thread function is inlined into the innermost
/// loop, where the loop vectoriser can widen it across threads.
Function *buildBlockFunction(Module &NM, Function *K) {
  LLVMContext &C = NM.getContext();
  Type *Ptr = PointerType::get(C, 0);
  Type *I32 = Type::getInt32Ty(C);
  auto *FT = FunctionType::get(Type::getVoidTy(C), {Ptr, Ptr}, false);
  Function *BF = Function::Create(FT, GlobalValue::ExternalLinkage, K->getName() + ".ferry.block", NM);
  // CUDA kernel parameters are read-only and private to the launch.
  BF->addParamAttr(0, Attribute::NoAlias);
  BF->addParamAttr(0, Attribute::ReadOnly);
  BF->addParamAttr(0, Attribute::NoCapture);
  BF->addParamAttr(0, Attribute::getWithAlignment(C, Align(16)));
  if (uint64_t N = K->getParamDereferenceableBytes(0))
    BF->addDereferenceableParamAttr(0, N);
  BF->addFnAttr(Attribute::NoUnwind);
  if (K->hasFnAttribute("target-cpu"))
    BF->addFnAttr(K->getFnAttribute("target-cpu"));
  Argument *Params = BF->getArg(0), *Ctx = BF->getArg(1);
  Params->setName("params");
  Ctx->setName("ctx");
  auto *Entry = BasicBlock::Create(C, "entry", BF);
  IRBuilder<> B(Entry);
  auto Dim = [&](unsigned I) {
    LoadInst *L = B.CreateAlignedLoad(I32, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ctx, 4 * I), Align(4));
    L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(C, {}));
    return L;
  };
  Value *N[3] = {Dim(0), Dim(1), Dim(2)};
  // Nested loops z { y { x { K(...) } } }; blockDim components are >= 1.
  BasicBlock *Exit = BasicBlock::Create(C, "exit", BF);
  Value *Idx[3] = {nullptr, nullptr, nullptr};
  BasicBlock *Pre = Entry;
  // Build outermost (z) to innermost (x).
  struct Level {
    BasicBlock *Head, *Latch;
    PHINode *Phi;
  };
  Level Lv[3];
  for (int D = 2; D >= 0; --D) {
    BasicBlock *Head = BasicBlock::Create(C, std::string("loop.") + "xyz"[D], BF);
    B.SetInsertPoint(Pre);
    B.CreateBr(Head);
    B.SetInsertPoint(Head);
    PHINode *Phi = B.CreatePHI(I32, 2, std::string("t") + "xyz"[D]);
    Phi->addIncoming(B.getInt32(0), Pre);
    Idx[D] = Phi;
    Lv[D] = {Head, nullptr, Phi};
    Pre = Head;
  }
  // Innermost body: the call.
  B.SetInsertPoint(Pre);
  SmallVector<Value *, 5> Args = {Params, Ctx, Idx[0], Idx[1], Idx[2]};
  B.CreateCall(K, Args);
  // Latches from innermost (x) to outermost (z).
  BasicBlock *Cur = Pre;
  for (int D = 0; D <= 2; ++D) {
    B.SetInsertPoint(Cur);
    Value *Next = B.CreateAdd(Lv[D].Phi, B.getInt32(1), "", true, true);
    Value *Done = B.CreateICmpUGE(Next, N[D]);
    BasicBlock *Out = D == 2 ? Exit : BasicBlock::Create(C, std::string("latch.") + "xyz"[D + 1], BF);
    B.CreateCondBr(Done, Out, Lv[D].Head);
    Lv[D].Phi->addIncoming(Next, Cur);
    Cur = Out;
  }
  B.SetInsertPoint(Exit);
  B.CreateRetVoid();
  return BF;
}

/// The extent of %params the kernel reads, when every use is a load at a
/// constant offset (what the PTX lowering emits for ld.param); 0 otherwise.
uint64_t inferParamExtent(Function &K) {
  const DataLayout &DL = K.getParent()->getDataLayout();
  uint64_t End = 0;
  SmallVector<std::pair<Value *, int64_t>, 16> Work = {{K.getArg(0), 0}};
  while (!Work.empty()) {
    auto [V, Off] = Work.pop_back_val();
    for (User *U : V->users()) {
      if (auto *L = dyn_cast<LoadInst>(U)) {
        if (Off < 0)
          return 0;
        End = std::max<uint64_t>(End, Off + DL.getTypeStoreSize(L->getType()));
      } else if (auto *G = dyn_cast<GEPOperator>(U)) {
        APInt C(DL.getIndexTypeSizeInBits(G->getType()), 0);
        if (G->getPointerOperand() != V || !G->accumulateConstantOffset(DL, C))
          return 0;
        Work.push_back({G, Off + C.getSExtValue()});
      } else if (auto *Cast = dyn_cast<AddrSpaceCastOperator>(U)) {
        Work.push_back({Cast, Off});
      } else {
        return 0;
      }
    }
  }
  return End;
}

/// The parameter buffer size: dereferenceable(N) when the lowering gave it,
/// else what the kernel provably reads (which then becomes the attribute so
/// the optimiser may hoist parameter loads out of the block loop).
uint32_t paramBytesOf(Function &K) {
  if (K.arg_size() == 0)
    return 0;
  if (uint64_t N = K.getParamDereferenceableBytes(0))
    return static_cast<uint32_t>(N);
  uint64_t N = inferParamExtent(K);
  if (N)
    K.addDereferenceableParamAttr(0, N);
  return static_cast<uint32_t>(N);
}

} // namespace

Expected<LoweredModule> lowerForHost(Module &Old, const DataLayout &DL, StringRef Triple,
                                     bool AllowFastPath) {
  StripDebugInfo(Old);
  std::vector<Function *> OldKernels = kernelsOf(Old);
  for (Function *K : OldKernels)
    if (K->arg_size() != 1 || !K->getArg(0)->getType()->isPointerTy() ||
        !K->getReturnType()->isVoidTy())
      return failure("entry '" + K->getName() + "' must be void (ptr %params)");
  std::vector<uint32_t> ParamBytes;
  for (Function *K : OldKernels) {
    ParamBytes.push_back(paramBytesOf(*K));
    // The executor hands every kernel whose parameter size it knows a
    // 16-byte aligned buffer (copying it when the caller's is not).
    if (ParamBytes.back() && !K->getParamAlign(0))
      K->addParamAttr(0, Attribute::getWithAlignment(K->getContext(), Align(16)));
  }

  Expected<SharedLayout> Shared = layOutShared(Old);
  if (!Shared)
    return Shared.takeError();
  rebaseSharedIntegers(Old);
  markLockstepAccesses(Old);
  addSpinYields(Old);
  Expected<Cloned> C = cloneFlat(Old, DL, Triple);
  if (!C)
    return C.takeError();
  Module &NM = *C->M;
  if (Error E = forwardHiddenArgs(NM))
    return E;
  tidyAfterClone(NM);
  fixHalfPrecision(NM);
  // Warp functions are built from the thread functions before their ferry.*
  // calls are lowered (the vectorizer lowers those itself).
  // Layouts other than x-contiguous warps are built only for kernels that
  // read threadIdx.y (two-dimensional blocks such as 16x16 tiles).
  struct WarpInfo {
    std::string Symbol[NumWarpLayouts];
    bool Yields[NumWarpLayouts] = {};
  };
  std::vector<WarpInfo> Warps(C->Kernels.size());
  std::vector<Function *> PerThread;
  for (Function &F : NM)
    if (!F.isDeclaration())
      PerThread.push_back(&F);
  Function *TidY = NM.getFunction("ferry.tid.y");
  for (size_t I = 0; I < C->Kernels.size(); ++I) {
    Function *K = C->Kernels[I];
    for (unsigned V = 0; V < NumWarpLayouts; ++V) {
      const WarpLayout &Lay = WarpLayouts[V];
      if (!Lay.Built || (Lay.X != 32 && (!TidY || TidY->use_empty())))
        continue;
      // An x-contiguous group needs blockDim.x a multiple of 128: rare in
      // kernels that index by threadIdx.y (2-D tiles are 16 or 32 wide).
      if (Lay.Lanes > 32 && Lay.X == 32 && TidY && !TidY->use_empty())
        continue;
      bool Yields = false;
      Expected<Function *> WF = vectorizeKernel(*K, Lay.X, Lay.Lanes, Yields);
      if (!WF) {
        ferry::log::jit().debug("kernel {}: no {}-lane warp function for layout {}: {}", K->getName().str(),
                                Lay.Lanes, Lay.X, toString(WF.takeError()));
        continue;
      }
      Warps[I].Symbol[V] = (*WF)->getName().str();
      Warps[I].Yields[V] = Yields;
    }
  }
  insertLockstepTurns(NM, PerThread);
  SmallPtrSet<Function *, 8> KernelSet(C->Kernels.begin(), C->Kernels.end());
  if (Error E = IntrinsicLowering(NM, KernelSet).run())
    return E;

  for (Function &F : NM)
    if (!F.isDeclaration() && !KernelSet.contains(&F))
      F.setLinkage(GlobalValue::InternalLinkage);
  for (const WarpInfo &WI : Warps)
    for (const std::string &Sym : WI.Symbol)
      if (!Sym.empty())
        NM.getFunction(Sym)->setLinkage(GlobalValue::ExternalLinkage);

  LoweredModule R;
  SmallPtrSet<Function *, 16> Yield = yieldingFunctions(NM);
  for (size_t I = 0; I < C->Kernels.size(); ++I) {
    Function *K = C->Kernels[I];
    LoweredKernel LK;
    LK.Name = K->getName().str();
    LK.StaticSharedBytes = static_cast<uint32_t>(Shared->StaticBytes[I]);
    LK.ParamBytes = ParamBytes[I];
    for (unsigned V = 0; V < NumWarpLayouts; ++V) {
      LK.WarpSymbol[V] = Warps[I].Symbol[V];
      LK.WarpYields[V] = Warps[I].Yields[V];
    }
    K->setLinkage(GlobalValue::ExternalLinkage);
    K->setVisibility(GlobalValue::DefaultVisibility);
    if (AllowFastPath && !Yield.contains(K)) {
      Function *BF = buildBlockFunction(NM, K);
      K->setLinkage(GlobalValue::InternalLinkage);
      K->removeFnAttr(Attribute::NoInline);
      K->removeFnAttr(Attribute::OptimizeNone);
      K->addFnAttr(Attribute::AlwaysInline);
      LK.UsesFibers = false;
      LK.Symbol = BF->getName().str();
    } else {
      LK.Symbol = LK.Name;
    }
    R.Kernels.push_back(std::move(LK));
  }
  std::string Msg;
  raw_string_ostream OS(Msg);
  if (verifyModule(NM, &OS))
    return failure("internal: host lowering produced invalid IR: " + OS.str());
  R.M = std::move(C->M);
  R.Globals = std::move(C->Globals);
  return R;
}

} // namespace ferry::host::detail
