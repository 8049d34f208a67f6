/// \file
/// The warp vectorizer (see Vectorize.h for the method). Terms used below:
/// the *source* is the prepared scalar copy of the kernel (one thread's
/// view); the *warp function* is what is built from it. A *shape* says how a
/// source value varies over the lanes (32 for a warp function, 128 or 256
/// for a group function of four or eight warps: lane L is lane L % 32 of
/// warp L / 32, and warp collectives work on each 32-lane segment).
#include "host/jit/Vectorize.h"

#include "host/jit/KernelAbi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"

#include <array>
#include <functional>
#include <map>

using namespace llvm;

namespace ferry::host::detail {
namespace {

/// The most lanes a function has (group functions, KernelAbi.h); a
/// function's own count is Lanes in Analysis and Emitter. Offsets past it
/// stay zero.
constexpr unsigned MaxLanes = 256;
/// The largest kernel (instructions after inlining) given a group function.
constexpr unsigned GroupMaxInstructions = 600;
/// The same for the 256-lane x-contiguous group, whose code generation
/// grows much faster with the kernel (a 464-instruction b1 mma kernel took
/// 77 s, its 128-lane group seconds; the ldmatrix and stmatrix tests, 300
/// and 350 instructions, added 70% to their module's compile time).
/// Grid-stride loops, reductions and stencils are well under it.
constexpr unsigned WideGroupMaxInstructions = 250;
/// The largest kernel (instructions after inlining) given a warp function
/// at all. Past it the kernel keeps the per-thread path, whose functions
/// keep their calls: inlined into one warp function, the 8 point additions
/// and doublings of a secp256k1 scalar multiplication (apps/ecdh_multiword,
/// 57K and 116K instructions) cost LLVM 1.5 to 3 CPU-minutes each to
/// optimise and compile, against 2 s for the thread functions. Hot kernels
/// (loops over tiles, reductions, stencils, even unrolled mma tiles) are a
/// few thousand instructions.
constexpr unsigned WarpMaxInstructions = 20000;
using Offsets = std::array<int64_t, MaxLanes>;

Error refuse(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), "warp: " + Msg); }

/// How a source value varies over the lanes. Affine values are a scalar
/// base plus a constant offset per lane (Pats[Pat]); for pointers the
/// offsets are bytes. An affine value may also have a symbolic part: a
/// constant coefficient per lane (Pats[Coef]) times a uniform source value
/// Sym, as row * pitch gives in narrow layouts and groups (a[row * n + x]:
/// each row of lanes its own contiguous run, n known only at run time).
/// Sym enters wider arithmetic sign- or zero-extended (SymZext).
struct Shape {
  enum Kind : uint8_t { Bot, Uni, Aff, Var } K = Bot;
  bool SymZext = false;
  uint32_t Pat = 0;
  uint32_t Coef = 0;
  const Value *Sym = nullptr;
  bool operator==(const Shape &O) const {
    return K == O.K && (K != Aff || (Pat == O.Pat && Sym == O.Sym && (!Sym || (Coef == O.Coef && SymZext == O.SymZext))));
  }
};

int64_t normalise(int64_t V, unsigned Bits) {
  if (Bits >= 64)
    return V;
  return static_cast<int64_t>(static_cast<uint64_t>(V) << (64 - Bits)) >> (64 - Bits);
}

/// Offset arithmetic wraps (two's complement), as the IR it models does.
int64_t wrapAdd(int64_t A, int64_t B) { return int64_t(uint64_t(A) + uint64_t(B)); }
int64_t wrapMul(int64_t A, int64_t B) { return int64_t(uint64_t(A) * uint64_t(B)); }

unsigned bitsOf(Type *T) { return T->isPointerTy() ? 64 : T->getScalarSizeInBits(); }

//===----------------------------------------------------------------------===//
// Preparation: a scalar copy of the kernel with every callee inlined.
//===----------------------------------------------------------------------===//

/// Whether a function defined in the module is reachable from K through a
/// call cycle (a recursive device function): inlining could only unroll it
/// until the budget runs out, each round scanning an ever larger clone.
bool reachesRecursion(Function &K) {
  enum Colour : uint8_t { Open, Done };
  DenseMap<Function *, Colour> Seen;
  SmallVector<std::pair<Function *, SmallVector<Function *, 8>>, 8> Stack;
  auto Callees = [](Function &F) {
    SmallVector<Function *, 8> Out;
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *C = CB->getCalledFunction(); C && !C->isDeclaration())
          Out.push_back(C);
    return Out;
  };
  Seen[&K] = Open;
  Stack.push_back({&K, Callees(K)});
  while (!Stack.empty()) {
    auto &[F, Todo] = Stack.back();
    if (Todo.empty()) {
      Seen[F] = Done;
      Stack.pop_back();
      continue;
    }
    Function *C = Todo.pop_back_val();
    auto It = Seen.find(C);
    if (It != Seen.end()) {
      if (It->second == Open)
        return true;
      continue;
    }
    Seen[C] = Open;
    Stack.push_back({C, Callees(*C)});
  }
  return false;
}

Expected<Function *> prepare(Function &K) {
  // Refused before any cloning: a recursive callee would be inlined 2000
  // times over (minutes of JIT time for one small kernel) before the
  // budget below gave up.
  if (reachesRecursion(K))
    return refuse("recursive device function");
  ValueToValueMapTy VMap;
  Function *S = CloneFunction(&K, VMap);
  S->setName(K.getName() + ".ferry.warpsrc");
  S->setLinkage(GlobalValue::InternalLinkage);
  unsigned Inlined = 0;
  for (bool Changed = true; Changed;) {
    Changed = false;
    SmallVector<CallBase *, 16> Calls;
    for (Instruction &I : instructions(*S))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (CB->isInlineAsm())
          return refuse("inline assembly");
        Function *Callee = CB->getCalledFunction();
        if (!Callee)
          return refuse("indirect call");
        if (!Callee->isDeclaration())
          Calls.push_back(CB);
      }
    for (CallBase *CB : Calls) {
      if (++Inlined > 2000)
        return refuse("call graph too deep (recursion?)");
      InlineFunctionInfo IFI;
      if (!InlineFunction(*CB, IFI).isSuccess())
        return refuse("a call cannot be inlined");
      Changed = true;
    }
  }
  // `exit` ends the thread: a return. A failed assert ends the failing
  // lanes the same way once they are recorded (ferry.assertfail.lane, which
  // returns), so the warp's other lanes and warps go on and every failing
  // thread of the launch is reported.
  SmallVector<CallInst *, 4> Exits, Asserts;
  for (Instruction &I : instructions(*S))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (Function *Callee = CI->getCalledFunction()) {
        if (Callee->getName() == "ferry.exit")
          Exits.push_back(CI);
        else if (Callee->getName() == "ferry.assertfail")
          Asserts.push_back(CI);
      }
  for (CallInst *CI : Exits) {
    BasicBlock *BB = CI->getParent();
    BB->splitBasicBlock(CI->getIterator());
    BB->getTerminator()->eraseFromParent();
    ReturnInst::Create(S->getContext(), BB);
    CI->eraseFromParent();
  }
  for (CallInst *CI : Asserts) {
    FunctionCallee Lane = S->getParent()->getOrInsertFunction("ferry.assertfail.lane", CI->getFunctionType());
    SmallVector<Value *, 5> Args(CI->args());
    auto *Rec = CallInst::Create(Lane, Args, "", CI->getIterator());
    Rec->setDoesNotThrow();
    BasicBlock *BB = Rec->getParent();
    BB->splitBasicBlock(CI->getIterator());
    BB->getTerminator()->eraseFromParent();
    ReturnInst::Create(S->getContext(), BB);
    CI->eraseFromParent();
  }
  removeUnreachableBlocks(*S);

  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  FunctionPassManager FPM;
  FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  FPM.addPass(EarlyCSEPass());
  FPM.addPass(LoopSimplifyPass());
  FPM.addPass(LCSSAPass());
  FPM.run(*S, FAM);
  return S;
}

//===----------------------------------------------------------------------===//
// Shapes.
//===----------------------------------------------------------------------===//

class Analysis {
public:
  Analysis(Function &S, unsigned XW, unsigned Lanes, DominatorTree &DT, LoopInfo &LI)
      : S(S), XW(XW), Lanes(Lanes), DT(DT), LI(LI), DL(S.getParent()->getDataLayout()) {}

  Error run();
  Shape shape(const Value *V) const {
    if (isa<Constant>(V) || isa<BasicBlock>(V))
      return {Shape::Uni};
    if (auto *A = dyn_cast<Argument>(V))
      return A->getArgNo() < 2 ? Shape{Shape::Uni} : Shape{Shape::Var};
    auto It = Sh.find(V);
    return It == Sh.end() ? Shape{Shape::Bot} : It->second;
  }
  const Offsets &pattern(const Shape &X) const { return Pats[X.Pat]; }
  const Offsets &coefficients(const Shape &X) const { return Pats[X.Coef]; }
  /// A non-varying value's per-lane parts: offsets, coefficients, symbol.
  struct Lin {
    Offsets O{}, C{};
    const Value *Sym = nullptr;
    bool Zext = false;
  };
  Lin lin(const Value *V) const {
    Shape X = shape(V);
    Lin R;
    if (X.K == Shape::Aff) {
      R.O = Pats[X.Pat];
      if (X.Sym) {
        R.C = Pats[X.Coef];
        R.Sym = X.Sym;
        R.Zext = X.SymZext;
      }
    }
    return R;
  }
  bool divergentLoop(const Loop *L) const { return DivLoops.contains(L); }
  bool sharedPointer(const Value *V) const { return Shared.contains(V); }
  /// Whether V is the symbol of some affine value (emission keeps it in a
  /// slot: uses of those values may come in later blocks).
  bool isSymbol(const Value *V) const { return Syms.contains(V); }
  /// Whether a branch ending BB gives lanes different successors.
  bool divergentBranch(const BasicBlock *BB) const {
    const Instruction *T = BB->getTerminator();
    if (auto *Br = dyn_cast<BranchInst>(T))
      return Br->isConditional() && Br->getSuccessor(0) != Br->getSuccessor(1) &&
             shape(Br->getCondition()).K != Shape::Uni;
    if (auto *Sw = dyn_cast<SwitchInst>(T))
      return shape(Sw->getCondition()).K != Shape::Uni;
    return false;
  }
  /// Whether the edge P → Succ leaves a divergent loop.
  bool divergentExit(const BasicBlock *P, const BasicBlock *Succ) const {
    for (Loop *L = LI.getLoopFor(P); L && !L->contains(Succ); L = L->getParentLoop())
      if (DivLoops.contains(L))
        return true;
    return false;
  }

private:
  uint32_t intern(const Offsets &O) {
    for (uint32_t I = 0; I < Pats.size(); ++I)
      if (Pats[I] == O)
        return I;
    Pats.push_back(O);
    return static_cast<uint32_t>(Pats.size() - 1);
  }
  Shape make(const Offsets &O) {
    bool Zero = true;
    for (int64_t X : O)
      Zero &= X == 0;
    if (Zero)
      return {Shape::Uni};
    Shape R{Shape::Aff};
    R.Pat = intern(O);
    return R;
  }
  Shape make(const Lin &X) {
    bool NoSym = !X.Sym;
    if (!NoSym) {
      NoSym = true;
      for (int64_t V : X.C)
        NoSym &= V == 0;
    }
    if (NoSym)
      return make(X.O);
    Shape R{Shape::Aff};
    R.Pat = intern(X.O);
    R.Coef = intern(X.C);
    R.Sym = X.Sym;
    Syms.insert(X.Sym);
    R.SymZext = X.Zext;
    return R;
  }
  /// The symbol of a sum of A's and B's parts, false when they differ.
  static bool sameSym(Lin &Out, const Lin &A, const Lin &B) {
    if (A.Sym && B.Sym && (A.Sym != B.Sym || A.Zext != B.Zext))
      return false;
    Out.Sym = A.Sym ? A.Sym : B.Sym;
    Out.Zext = A.Sym ? A.Zext : B.Zext;
    return true;
  }
  Shape join(Shape A, Shape B) const {
    if (A.K == Shape::Bot)
      return B;
    if (B.K == Shape::Bot)
      return A;
    if (A == B)
      return A;
    return {Shape::Var};
  }
  Expected<Shape> transfer(Instruction &I);
  Expected<Shape> callShape(CallInst &CI);
  bool allUniform(const Instruction &I) const {
    for (const Value *Op : I.operands())
      if (!isa<BasicBlock>(Op) && !isa<Function>(Op) && shape(Op).K != Shape::Uni)
        return false;
    return true;
  }
  Shape tid(unsigned Dim);

  Function &S;
  unsigned XW;
  unsigned Lanes;
  DominatorTree &DT;
  LoopInfo &LI;
  const DataLayout &DL;
  DenseMap<const Value *, Shape> Sh;
  std::vector<Offsets> Pats;
  DenseSet<const Loop *> DivLoops;
  DenseSet<const Value *> Shared;
  DenseSet<const Value *> Syms;
  /// Per join block: the blocks whose divergent branch makes it a divergent
  /// join (its immediate dominator and what lies between).
  DenseMap<const BasicBlock *, SmallVector<const BasicBlock *, 8>> JoinRegion;
};

Shape Analysis::tid(unsigned Dim) {
  Offsets O{};
  for (unsigned L = 0; L < Lanes; ++L) {
    if (XW == 32)
      O[L] = Dim == 0 ? L : 0;
    else
      O[L] = Dim == 0 ? L % XW : Dim == 1 ? L / XW : 0;
  }
  return make(O);
}

Expected<Shape> Analysis::callShape(CallInst &CI) {
  Function *F = CI.getCalledFunction();
  StringRef N = F->getName();
  if (N.starts_with("ferry.")) {
    if (N == "ferry.tid.x")
      return tid(0);
    if (N == "ferry.tid.y")
      return tid(1);
    if (N == "ferry.tid.z")
      return tid(2);
    if (N == "ferry.laneid" || (N == "ferry.warpid" && Lanes > 32)) {
      Offsets O{};
      for (unsigned L = 0; L < Lanes; ++L)
        O[L] = N == "ferry.laneid" ? L % 32 : L / 32;
      return make(O);
    }
    if (Lanes > 32) {
      // Group functions: a warp collective's result differs between the
      // warps of the group; match and elect are left to warp functions, and
      // so are barriers other than a whole block's __syncthreads (named or
      // counted barriers serve warp-specialised code, whose warps may wait
      // for each other inside one group).
      if (N.starts_with("ferry.match.") || N == "ferry.elect.sync")
        return refuse("group function: " + N);
      if (N.starts_with("ferry.bar.") && N != "ferry.bar.warp.sync") {
        auto *Id = dyn_cast<ConstantInt>(CI.getArgOperand(0));
        auto *Count = CI.arg_size() > 1 ? dyn_cast<ConstantInt>(CI.getArgOperand(1)) : nullptr;
        if (N != "ferry.bar.sync" || !Id || !Id->isZero() || (CI.arg_size() > 1 && (!Count || !Count->isZero())))
          return refuse("group function: barrier other than bar.sync 0");
      }
      if (N.starts_with("ferry.vote.") || N.starts_with("ferry.redux.") || N == "ferry.shfl.sync") {
        if (shape(CI.getArgOperand(0)).K == Shape::Bot)
          return Shape{Shape::Bot};
        if (shape(CI.getArgOperand(0)).K != Shape::Uni)
          return refuse("group function: a member mask that varies");
      }
      if (N.starts_with("ferry.vote.") || N.starts_with("ferry.redux.") || N == "ferry.activemask")
        return Shape{Shape::Var};
    }
    if (N == "ferry.host.smem" || N == "ferry.host.dynsmem" || N == "ferry.dynamic_smem") {
      Shared.insert(&CI);
      return allUniform(CI) ? Shape{Shape::Uni} : Shape{Shape::Var};
    }
    if (N == "ferry.grid.sync")
      return refuse("grid.sync");
    // Sub-warp collectives (CUB's logical warps of 4, 8 or 16 lanes) give
    // each group of lanes its own member mask, and each group its own
    // result: a vote or reduction is then per lane. match and elect with a
    // varying mask are left to the per-thread path.
    if (N.starts_with("ferry.vote.") || N.starts_with("ferry.redux.") || N.starts_with("ferry.match.") ||
        N == "ferry.elect.sync") {
      Shape M = shape(CI.getArgOperand(0));
      if (M.K == Shape::Bot)
        return Shape{Shape::Bot};
      if (M.K != Shape::Uni) {
        if (N.starts_with("ferry.match.") || N == "ferry.elect.sync")
          return refuse(N + " with a member mask that varies over the warp");
        return Shape{Shape::Var};
      }
    }
    if (N == "ferry.shfl.sync" || N == "ferry.match.any.b32" || N == "ferry.match.any.b64" ||
        N == "ferry.elect.sync" || N == "ferry.printf" || N == "ferry.malloc" ||
        N.starts_with("ferry.tex.") || N.starts_with("ferry.tld4.") || N == "ferry.suld")
      return Shape{Shape::Var};
    if (N == "ferry.isspacep" || N == "ferry.txq" || N == "ferry.suq")
      return allUniform(CI) ? Shape{Shape::Uni} : Shape{Shape::Var};
    static const char *Known[] = {
        "ferry.ntid.x", "ferry.ntid.y", "ferry.ntid.z", "ferry.ctaid.x", "ferry.ctaid.y",
        "ferry.ctaid.z", "ferry.nctaid.x", "ferry.nctaid.y", "ferry.nctaid.z", "ferry.warpid",
        "ferry.nwarpid", "ferry.smid", "ferry.nsmid", "ferry.gridid", "ferry.dynamic_smem_size",
        "ferry.total_smem_size", "ferry.clock", "ferry.clock64", "ferry.globaltimer",
        "ferry.grid.workspace", "ferry.bar.sync", "ferry.bar.arrive", "ferry.bar.red.popc",
        "ferry.bar.red.and", "ferry.bar.red.or", "ferry.bar.warp.sync", "ferry.vote.all",
        "ferry.vote.any", "ferry.vote.uni", "ferry.vote.ballot", "ferry.match.all.b32",
        "ferry.match.all.b64", "ferry.redux.add", "ferry.redux.umin", "ferry.redux.umax",
        "ferry.redux.smin", "ferry.redux.smax", "ferry.redux.and", "ferry.redux.or",
        "ferry.redux.xor", "ferry.activemask", "ferry.fence", "ferry.trap", "ferry.brkpt",
        "ferry.nanosleep", "ferry.assertfail.lane", "ferry.free", "ferry.sust"};
    for (const char *K : Known)
      if (N == K)
        return Shape{Shape::Uni};
    return refuse("intrinsic '" + N + "'");
  }
  if (F->isIntrinsic()) {
    if (CI.getType()->isVoidTy())
      return Shape{Shape::Uni};
    if (allUniform(CI) && !CI.mayHaveSideEffects())
      return Shape{Shape::Uni};
    return Shape{Shape::Var};
  }
  return refuse("call to '" + N + "'");
}

Expected<Shape> Analysis::transfer(Instruction &I) {
  if (auto *CI = dyn_cast<CallInst>(&I))
    return callShape(*CI);
  if (isa<InvokeInst>(I) || isa<CallBrInst>(I) || isa<IndirectBrInst>(I))
    return refuse("unsupported terminator");
  if (auto *A = dyn_cast<AllocaInst>(&I)) {
    if (!A->isStaticAlloca() || !A->getAllocationSize(DL))
      return refuse("dynamic alloca");
    Offsets O{};
    uint64_t Size = A->getAllocationSize(DL)->getFixedValue();
    Size = alignTo(Size, A->getAlign());
    for (unsigned L = 0; L < Lanes; ++L)
      O[L] = int64_t(L * Size);
    return make(O);
  }
  if (auto *Phi = dyn_cast<PHINode>(&I)) {
    Shape R;
    BasicBlock *BB = Phi->getParent();
    Value *Same = Phi->getIncomingValue(0);
    bool AllSame = true;
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      R = join(R, shape(Phi->getIncomingValue(K)));
      AllSame &= Phi->getIncomingValue(K) == Same;
      if (divergentExit(Phi->getIncomingBlock(K), BB))
        return Shape{Shape::Var};
    }
    Loop *L = LI.getLoopFor(BB);
    bool Header = L && L->getHeader() == BB;
    if (!Header && !AllSame) {
      auto It = JoinRegion.find(BB);
      if (It != JoinRegion.end())
        for (const BasicBlock *Y : It->second)
          if (divergentBranch(Y))
            return Shape{Shape::Var};
    }
    // Shared memory only when every incoming pointer is (the span loads
    // rely on the arena's guard zones).
    bool AllShared = R.K == Shape::Aff;
    for (unsigned K = 0; K < Phi->getNumIncomingValues() && AllShared; ++K)
      AllShared = Shared.contains(Phi->getIncomingValue(K)) || Phi->getIncomingValue(K) == Phi;
    if (AllShared)
      Shared.insert(Phi);
    return R;
  }
  if (auto *L = dyn_cast<LoadInst>(&I))
    return shape(L->getPointerOperand()).K == Shape::Uni ? Shape{Shape::Uni} : Shape{Shape::Var};
  if (isa<StoreInst>(I) || isa<FenceInst>(I) || I.isTerminator())
    return Shape{Shape::Uni};
  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
    return Shape{Shape::Var};
  if (auto *G = dyn_cast<GetElementPtrInst>(&I)) {
    Shape P = shape(G->getPointerOperand());
    if (P.K == Shape::Var || G->getType()->isVectorTy())
      return Shape{Shape::Var};
    if (P.K == Shape::Bot)
      return Shape{Shape::Bot};
    Lin R = lin(G->getPointerOperand());
    for (auto GTI = gep_type_begin(G), E = gep_type_end(G); GTI != E; ++GTI) {
      Shape X = shape(GTI.getOperand());
      if (X.K == Shape::Bot)
        return Shape{Shape::Bot};
      if (X.K == Shape::Var)
        return Shape{Shape::Var};
      if (X.K == Shape::Uni || GTI.isStruct())
        continue;
      int64_t Stride = static_cast<int64_t>(GTI.getSequentialElementStride(DL).getFixedValue());
      Lin Ix = lin(GTI.getOperand());
      // GEP indices narrower than pointers are sign-extended.
      if (Ix.Sym && Ix.Zext && GTI.getOperand()->getType()->getScalarSizeInBits() < 64)
        return Shape{Shape::Var};
      Lin Sum;
      if (!sameSym(Sum, R, Ix))
        return Shape{Shape::Var};
      for (unsigned L = 0; L < Lanes; ++L) {
        R.O[L] = wrapAdd(R.O[L], wrapMul(Ix.O[L], Stride));
        R.C[L] = wrapAdd(R.C[L], wrapMul(Ix.C[L], Stride));
      }
      R.Sym = Sum.Sym;
      R.Zext = Sum.Zext;
    }
    if (Shared.contains(G->getPointerOperand()))
      Shared.insert(G);
    return make(R);
  }
  // Everything else: uniform when every operand is.
  for (const Value *Op : I.operands())
    if (shape(Op).K == Shape::Bot)
      return Shape{Shape::Bot};
  if (allUniform(I))
    return Shape{Shape::Uni};
  Type *T = I.getType();
  bool Scalar = T->isIntegerTy() || T->isPointerTy();
  auto Affine = [&](const Value *V) { return shape(V).K != Shape::Var; };
  if (auto *BO = dyn_cast<BinaryOperator>(&I); BO && Scalar) {
    Value *A = BO->getOperand(0), *B = BO->getOperand(1);
    if (!Affine(A) || !Affine(B))
      return Shape{Shape::Var};
    Lin LA = lin(A), LB = lin(B), R;
    unsigned Bits = bitsOf(T);
    auto *KB = dyn_cast<ConstantInt>(B), *KA = dyn_cast<ConstantInt>(A);
    auto Combine = [&](int64_t Sign) -> Shape {
      if (!sameSym(R, LA, LB))
        return Shape{Shape::Var};
      for (unsigned L = 0; L < Lanes; ++L) {
        R.O[L] = normalise(wrapAdd(LA.O[L], wrapMul(Sign, LB.O[L])), Bits);
        R.C[L] = normalise(wrapAdd(LA.C[L], wrapMul(Sign, LB.C[L])), Bits);
      }
      return make(R);
    };
    auto Scale = [&](const Lin &X, int64_t K) {
      R = X;
      for (unsigned L = 0; L < Lanes; ++L) {
        R.O[L] = normalise(wrapMul(X.O[L], K), Bits);
        R.C[L] = normalise(wrapMul(X.C[L], K), Bits);
      }
      return make(R);
    };
    switch (BO->getOpcode()) {
    case Instruction::Add:
      return Combine(1);
    case Instruction::Or:
      if (!cast<PossiblyDisjointInst>(BO)->isDisjoint())
        return Shape{Shape::Var};
      return Combine(1);
    case Instruction::Sub:
      return Combine(-1);
    case Instruction::Mul:
      if (KB)
        return Scale(LA, KB->getSExtValue());
      if (KA)
        return Scale(LB, KA->getSExtValue());
      // (base + O[L]) * n: base * n plus O[L] times the symbol n.
      if (shape(B).K == Shape::Uni && !LA.Sym) {
        R.C = LA.O;
        R.Sym = B;
        return make(R);
      }
      if (shape(A).K == Shape::Uni && !LB.Sym) {
        R.C = LB.O;
        R.Sym = A;
        return make(R);
      }
      return Shape{Shape::Var};
    case Instruction::Shl:
      if (!KB || KB->getZExtValue() >= Bits || shape(B).K != Shape::Uni)
        return Shape{Shape::Var};
      return Scale(LA, int64_t(uint64_t(1) << KB->getZExtValue()));
    default:
      return Shape{Shape::Var};
    }
  }
  if (auto *Cast = dyn_cast<CastInst>(&I)) {
    Value *A = Cast->getOperand(0);
    Type *From = A->getType();
    bool IntLike = (From->isIntegerTy() || From->isPointerTy()) && Scalar;
    if (!IntLike || shape(A).K != Shape::Aff)
      return Shape{Shape::Var};
    switch (Cast->getOpcode()) {
    case Instruction::Trunc:
    case Instruction::SExt:
    case Instruction::ZExt:
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
    case Instruction::BitCast: {
      // Index arithmetic is assumed not to wrap within one warp (that would
      // be signed overflow in the source program).
      Lin X = lin(A);
      for (unsigned L = 0; L < Lanes; ++L) {
        X.O[L] = normalise(X.O[L], bitsOf(T));
        X.C[L] = normalise(X.C[L], bitsOf(T));
      }
      if (X.Sym && (Cast->getOpcode() == Instruction::SExt || Cast->getOpcode() == Instruction::ZExt)) {
        // The symbol widens the way the value does (no wrap assumed);
        // one value's symbol widens one way only.
        bool Z = Cast->getOpcode() == Instruction::ZExt;
        if (X.Sym->getType()->getScalarSizeInBits() < From->getScalarSizeInBits() && X.Zext != Z)
          return Shape{Shape::Var};
        X.Zext = Z;
      }
      if (Shared.contains(A))
        Shared.insert(Cast);
      return make(X);
    }
    default:
      return Shape{Shape::Var};
    }
  }
  if (auto *Sel = dyn_cast<SelectInst>(&I)) {
    if (shape(Sel->getCondition()).K != Shape::Uni)
      return Shape{Shape::Var};
    return join(shape(Sel->getTrueValue()), shape(Sel->getFalseValue()));
  }
  if (auto *Fr = dyn_cast<FreezeInst>(&I))
    return shape(Fr->getOperand(0));
  return Shape{Shape::Var};
}

Error Analysis::run() {
  // Join regions: blocks from the immediate dominator down to the
  // predecessors, following forward edges only.
  for (BasicBlock &BB : S) {
    if (BB.hasNPredecessorsOrMore(2) == false)
      continue;
    Loop *L = LI.getLoopFor(&BB);
    if (L && L->getHeader() == &BB)
      continue;
    const BasicBlock *IDom = DT.getNode(&BB)->getIDom()->getBlock();
    SmallVector<const BasicBlock *, 8> Region = {IDom};
    SmallPtrSet<const BasicBlock *, 16> Seen = {IDom};
    SmallVector<const BasicBlock *, 16> Work(pred_begin(&BB), pred_end(&BB));
    while (!Work.empty()) {
      const BasicBlock *Y = Work.pop_back_val();
      if (!Seen.insert(Y).second)
        continue;
      Region.push_back(Y);
      Loop *YL = LI.getLoopFor(Y);
      bool YHeader = YL && YL->getHeader() == Y;
      for (const BasicBlock *P : predecessors(Y)) {
        if (YHeader && YL->contains(P))
          continue; // backedge
        Work.push_back(P);
      }
    }
    JoinRegion[&BB] = std::move(Region);
  }
  ReversePostOrderTraversal<Function *> RPOT(&S);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock *BB : RPOT)
      for (Instruction &I : *BB) {
        Expected<Shape> X = transfer(I);
        if (!X)
          return X.takeError();
        Shape Old = shape(&I);
        Shape New = join(Old, *X);
        if (!(New == Old)) {
          Sh[&I] = New;
          Changed = true;
        }
      }
    for (Loop *L : LI.getLoopsInPreorder()) {
      if (DivLoops.contains(L))
        continue;
      SmallVector<BasicBlock *, 4> Exiting;
      L->getExitingBlocks(Exiting);
      for (BasicBlock *E : Exiting)
        if (divergentBranch(E)) {
          DivLoops.insert(L);
          Changed = true;
          break;
        }
    }
  }
  for (Instruction &I : instructions(S))
    if (!I.getType()->isVoidTy() && shape(&I).K == Shape::Bot)
      Sh[&I] = Shape{Shape::Var};
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Block order: topological, each loop's blocks contiguous.
//===----------------------------------------------------------------------===//

struct Item {
  BasicBlock *BB = nullptr;
  Loop *L = nullptr;
  std::vector<Item> Kids;
};

std::vector<Item> orderRegion(Function &F, LoopInfo &LI, Loop *L) {
  // Nodes: blocks whose innermost loop is L, and L's subloops.
  auto NodeOf = [&](BasicBlock *BB) -> std::pair<BasicBlock *, Loop *> {
    Loop *In = LI.getLoopFor(BB);
    if (In == L)
      return {BB, nullptr};
    while (In && In->getParentLoop() != L)
      In = In->getParentLoop();
    if (!In)
      return {nullptr, nullptr}; // outside the region
    return {nullptr, In};
  };
  using Node = std::pair<BasicBlock *, Loop *>;
  auto Succs = [&](Node N) {
    SmallVector<Node, 4> Out;
    SmallVector<BasicBlock *, 8> From;
    if (N.first) {
      for (BasicBlock *S : successors(N.first))
        From.push_back(S);
    } else {
      SmallVector<BasicBlock *, 4> Exits;
      N.second->getExitBlocks(Exits);
      From.append(Exits.begin(), Exits.end());
    }
    for (BasicBlock *S : From) {
      if (L && S == L->getHeader())
        continue;
      if (L && !L->contains(S))
        continue;
      Node M = NodeOf(S);
      if (M.first || M.second)
        if (!is_contained(Out, M))
          Out.push_back(M);
    }
    return Out;
  };
  Node Start = NodeOf(L ? L->getHeader() : &F.getEntryBlock());
  std::vector<Node> Post;
  DenseSet<Node> Seen;
  // Iterative DFS post-order.
  SmallVector<std::pair<Node, unsigned>, 16> Stack = {{Start, 0}};
  Seen.insert(Start);
  while (!Stack.empty()) {
    auto &[N, Idx] = Stack.back();
    SmallVector<Node, 4> Ss = Succs(N);
    if (Idx < Ss.size()) {
      Node M = Ss[Idx++];
      if (Seen.insert(M).second)
        Stack.push_back({M, 0});
      continue;
    }
    Post.push_back(N);
    Stack.pop_back();
  }
  std::vector<Item> Out;
  for (auto It = Post.rbegin(); It != Post.rend(); ++It) {
    Item I;
    I.BB = It->first;
    I.L = It->second;
    if (I.L)
      I.Kids = orderRegion(F, LI, I.L);
    Out.push_back(std::move(I));
  }
  return Out;
}

void flatten(const std::vector<Item> &Items, std::vector<BasicBlock *> &Out) {
  for (const Item &I : Items) {
    if (I.BB)
      Out.push_back(I.BB);
    else
      flatten(I.Kids, Out);
  }
}

//===----------------------------------------------------------------------===//
// Emission.
//===----------------------------------------------------------------------===//

class Emitter {
public:
  Emitter(Function &Src, Function *W, Analysis &A, LoopInfo &LI, unsigned XW, unsigned Lanes)
      : Src(Src), W(W), A(A), LI(LI), XW(XW), Lanes(Lanes), M(*W->getParent()), C(M.getContext()),
        DL(M.getDataLayout()), B(C) {}

  Error run(const std::vector<Item> &Order);
  bool Yields = false;

private:
  // Types and constants.
  Type *wide(Type *T) {
    if (T->isVoidTy())
      return T;
    if (auto *VT = dyn_cast<FixedVectorType>(T))
      return FixedVectorType::get(VT->getElementType(), Lanes * VT->getNumElements());
    if (auto *ST = dyn_cast<StructType>(T)) {
      SmallVector<Type *, 4> Es;
      for (Type *E : ST->elements())
        Es.push_back(wide(E));
      return StructType::get(C, Es, ST->isPacked());
    }
    if (auto *AT = dyn_cast<ArrayType>(T))
      return ArrayType::get(wide(AT->getElementType()), AT->getNumElements());
    return FixedVectorType::get(T, Lanes);
  }
  VectorType *maskTy() { return FixedVectorType::get(B.getInt1Ty(), Lanes); }
  Constant *zeroMask() { return Constant::getNullValue(maskTy()); }
  Value *any(Value *Mask) { return B.CreateICmpNE(bits(Mask), ConstantInt::get(maskInt(), 0)); }
  /// The mask as an integer of Lanes bits (bit L: lane L).
  IntegerType *maskInt() { return B.getIntNTy(Lanes); }
  Value *bits(Value *Mask) { return B.CreateBitCast(Mask, maskInt()); }
  Value *full(Value *Mask) {
    if (Lanes <= 64)
      return B.CreateICmpEQ(bits(Mask), ConstantInt::getAllOnesValue(maskInt()));
    // As 64-bit words: an i128/i256 compare of the mask's bits made the
    // code generator move the mask out byte by byte (two hundred
    // instructions per test in a 256-lane group).
    Value *Words = B.CreateBitCast(Mask, FixedVectorType::get(B.getInt64Ty(), Lanes / 64));
    return B.CreateICmpEQ(B.CreateAndReduce(Words), B.getInt64(~uint64_t(0)));
  }
  /// A warp's 32-bit mask as a lane mask: every warp of a group gets it.
  Value *maskOf(Value *Bits32) {
    if (Lanes == 32)
      return B.CreateBitCast(Bits32, maskTy());
    return B.CreateBitCast(B.CreateVectorSplat(Lanes / 32, Bits32), maskTy());
  }
  /// Per warp of the function, its 32 mask bits (<Lanes/32 x i32>).
  Value *warpBits(Value *Mask) { return B.CreateBitCast(Mask, FixedVectorType::get(B.getInt32Ty(), Lanes / 32)); }
  /// A per-warp vector (<Lanes/32 x T>) given to every lane of each warp.
  Value *spreadWarps(Value *PerWarp) {
    SmallVector<int, 128> Idx;
    for (unsigned L = 0; L < Lanes; ++L)
      Idx.push_back(int(L / 32));
    return B.CreateShuffleVector(PerWarp, Idx);
  }
  Constant *lanesConst(Type *E, const Offsets &O) {
    SmallVector<Constant *, 32> Cs;
    for (unsigned L = 0; L < Lanes; ++L)
      Cs.push_back(ConstantInt::get(E, O[L], true));
    return ConstantVector::get(Cs);
  }
  Constant *iota() {
    Offsets O{};
    for (unsigned L = 0; L < Lanes; ++L)
      O[L] = L;
    return lanesConst(B.getInt32Ty(), O);
  }
  /// Per lane, X where Mask is set, else Y (widened values of source type
  /// T; structs and arrays select member by member, as select cannot).
  Value *selectLanes(Value *Mask, Value *X, Value *Y, Type *T) {
    if (!T->isStructTy() && !T->isArrayTy())
      return B.CreateSelect(expandMask(Mask, T), X, Y);
    Value *R = PoisonValue::get(wide(T));
    unsigned N = T->isStructTy() ? T->getStructNumElements() : T->getArrayNumElements();
    for (unsigned I = 0; I < N; ++I) {
      Type *ET = T->isStructTy() ? T->getStructElementType(I) : T->getArrayElementType();
      R = B.CreateInsertValue(
          R, selectLanes(Mask, B.CreateExtractValue(X, I), B.CreateExtractValue(Y, I), ET), I);
    }
    return R;
  }
  /// Repeats each lane's mask bit N times (for values of type <N x T>).
  Value *expandMask(Value *Mask, Type *T) {
    auto *VT = dyn_cast<FixedVectorType>(T);
    if (!VT || VT->getNumElements() == 1)
      return Mask;
    unsigned N = VT->getNumElements();
    SmallVector<int, 128> Idx;
    for (unsigned L = 0; L < Lanes; ++L)
      for (unsigned E = 0; E < N; ++E)
        Idx.push_back(L);
    return B.CreateShuffleVector(Mask, Idx);
  }
  /// The address of every element of every lane's vector of type VT (lane
  /// L's elements at Ptrs[L] + E * element size), in the order wide(VT)
  /// lays them out; null when the elements are not whole bytes apart.
  Value *elementPointers(Value *Ptrs, FixedVectorType *VT) {
    Type *E = VT->getElementType();
    uint64_t Bits = E->getPrimitiveSizeInBits().getFixedValue();
    if (Bits == 0 || Bits % 8 != 0 || DL.getTypeAllocSize(E) * 8 != Bits)
      return nullptr;
    unsigned N = VT->getNumElements();
    SmallVector<int, 128> Spread;
    SmallVector<Constant *, 128> Offs;
    for (unsigned L = 0; L < Lanes; ++L)
      for (unsigned K = 0; K < N; ++K) {
        Spread.push_back(int(L));
        Offs.push_back(B.getInt64(K * (Bits / 8)));
      }
    return B.CreateGEP(B.getInt8Ty(), B.CreateShuffleVector(Ptrs, Spread), ConstantVector::get(Offs));
  }

  // Values.
  AllocaInst *entryAlloca(Type *T, const Twine &Name, Align Al = Align(1)) {
    IRBuilder<> EB(&W->getEntryBlock(), W->getEntryBlock().begin());
    AllocaInst *AI = EB.CreateAlloca(T, nullptr, Name);
    AI->setAlignment(std::max(Al, DL.getPrefTypeAlign(T)));
    return AI;
  }
  bool isVar(const Value *V) { return A.shape(V).K == Shape::Var; }
  Type *slotType(const Value *V) { return isVar(V) ? wide(V->getType()) : V->getType(); }
  AllocaInst *slot(const Value *V) {
    AllocaInst *&S = Slots[V];
    if (!S)
      S = entryAlloca(slotType(V), V->getName() + ".slot");
    return S;
  }
  Value *mapConst(Value *V) {
    if (auto *Arg = dyn_cast<Argument>(V))
      return W->getArg(Arg->getArgNo());
    return V;
  }
  /// The representation: the scalar (uniform/affine base) or the vector.
  Value *rep(Value *V) {
    if (isa<Constant>(V) || isa<Argument>(V))
      return mapConst(V);
    auto It = Local.find(V);
    if (It != Local.end())
      return It->second;
    AllocaInst *S = slot(V);
    return B.CreateLoad(S->getAllocatedType(), S, V->getName());
  }
  void define(Instruction *I, Value *R) {
    Local[I] = R;
    if (Slots.count(I) || needsSlot(I))
      B.CreateStore(R, slot(I));
  }
  bool needsSlot(const Instruction *I) {
    if (A.isSymbol(I))
      return true;
    for (const User *U : I->users()) {
      auto *UI = cast<Instruction>(U);
      if (UI->getParent() != I->getParent() || isa<PHINode>(UI))
        return true;
    }
    return false;
  }
  Value *uni(Value *V) { return rep(V); }
  Value *splat(Value *S, Type *T) {
    if (auto *VT = dyn_cast<FixedVectorType>(T)) {
      SmallVector<int, 128> Idx;
      for (unsigned L = 0; L < Lanes; ++L)
        for (unsigned E = 0; E < VT->getNumElements(); ++E)
          Idx.push_back(E);
      return B.CreateShuffleVector(S, Idx);
    }
    if (T->isStructTy() || T->isArrayTy()) {
      Value *R = PoisonValue::get(wide(T));
      unsigned N = T->isStructTy() ? T->getStructNumElements() : T->getArrayNumElements();
      for (unsigned I = 0; I < N; ++I) {
        Type *ET = T->isStructTy() ? T->getStructElementType(I) : T->getArrayElementType();
        R = B.CreateInsertValue(R, splat(B.CreateExtractValue(S, I), ET), I);
      }
      return R;
    }
    return B.CreateVectorSplat(Lanes, S);
  }
  Value *materialise(Value *Base, const Offsets &O) {
    Type *T = Base->getType();
    if (T->isPointerTy())
      return B.CreateGEP(B.getInt8Ty(), B.CreateVectorSplat(Lanes, Base), lanesConst(B.getInt64Ty(), O));
    return B.CreateAdd(B.CreateVectorSplat(Lanes, Base), lanesConst(T, O));
  }
  /// The symbol of an affine shape as an integer of type T.
  Value *symValue(const Shape &X, Type *T) {
    Value *S = uni(const_cast<Value *>(X.Sym));
    unsigned From = S->getType()->getScalarSizeInBits(), To = T->getScalarSizeInBits();
    if (From < To)
      return X.SymZext ? B.CreateZExt(S, T) : B.CreateSExt(S, T);
    return B.CreateTrunc(S, T);
  }
  Value *vec(Value *V) {
    Shape X = A.shape(V);
    if (X.K == Shape::Var)
      return rep(V);
    Value *S = rep(V);
    if (X.K == Shape::Aff && X.Sym) {
      Type *IT = S->getType()->isPointerTy() ? B.getInt64Ty() : S->getType();
      Value *Off = B.CreateAdd(lanesConst(IT, A.pattern(X)),
                               B.CreateMul(lanesConst(IT, A.coefficients(X)),
                                           B.CreateVectorSplat(Lanes, symValue(X, IT))));
      if (S->getType()->isPointerTy())
        return B.CreateGEP(B.getInt8Ty(), B.CreateVectorSplat(Lanes, S), Off);
      return B.CreateAdd(B.CreateVectorSplat(Lanes, S), Off);
    }
    if (X.K == Shape::Aff)
      return materialise(S, A.pattern(X));
    return splat(S, V->getType());
  }
  /// Lane L (an i32 value) of a source value, as a scalar of its type.
  Value *lane(Value *V, Value *L) {
    Shape X = A.shape(V);
    if (X.K == Shape::Uni)
      return rep(V);
    if (X.K == Shape::Aff) {
      Value *Base = rep(V);
      Value *Off = B.CreateExtractElement(lanesConst(B.getInt64Ty(), A.pattern(X)), L);
      if (X.Sym)
        Off = B.CreateAdd(Off, B.CreateMul(B.CreateExtractElement(lanesConst(B.getInt64Ty(), A.coefficients(X)), L),
                                           symValue(X, B.getInt64Ty())));
      if (Base->getType()->isPointerTy())
        return B.CreateGEP(B.getInt8Ty(), Base, Off);
      return B.CreateAdd(Base, B.CreateTrunc(Off, Base->getType()));
    }
    return extractLane(rep(V), V->getType(), L);
  }
  Value *extractLane(Value *Wv, Type *T, Value *L) {
    if (auto *VT = dyn_cast<FixedVectorType>(T)) {
      unsigned N = VT->getNumElements();
      Value *R = PoisonValue::get(VT);
      for (unsigned E = 0; E < N; ++E)
        R = B.CreateInsertElement(
            R, B.CreateExtractElement(Wv, B.CreateAdd(B.CreateMul(L, B.getInt32(N)), B.getInt32(E))), E);
      return R;
    }
    if (T->isStructTy() || T->isArrayTy()) {
      Value *R = PoisonValue::get(T);
      unsigned N = T->isStructTy() ? T->getStructNumElements() : T->getArrayNumElements();
      for (unsigned I = 0; I < N; ++I) {
        Type *ET = T->isStructTy() ? T->getStructElementType(I) : T->getArrayElementType();
        R = B.CreateInsertValue(R, extractLane(B.CreateExtractValue(Wv, I), ET, L), I);
      }
      return R;
    }
    return B.CreateExtractElement(Wv, L);
  }
  Value *insertLane(Value *Wv, Value *S, Type *T, Value *L) {
    if (auto *VT = dyn_cast<FixedVectorType>(T)) {
      unsigned N = VT->getNumElements();
      for (unsigned E = 0; E < N; ++E)
        Wv = B.CreateInsertElement(Wv, B.CreateExtractElement(S, E),
                                   B.CreateAdd(B.CreateMul(L, B.getInt32(N)), B.getInt32(E)));
      return Wv;
    }
    if (T->isStructTy() || T->isArrayTy()) {
      unsigned N = T->isStructTy() ? T->getStructNumElements() : T->getArrayNumElements();
      for (unsigned I = 0; I < N; ++I) {
        Type *ET = T->isStructTy() ? T->getStructElementType(I) : T->getArrayElementType();
        Wv = B.CreateInsertValue(
            Wv, insertLane(B.CreateExtractValue(Wv, I), B.CreateExtractValue(S, I), ET, L), I);
      }
      return Wv;
    }
    return B.CreateInsertElement(Wv, S, L);
  }

  /// Runs Body(lane) for each lane set in Mask, in lane order; Body returns
  /// the lane's result (or null). Returns the widened results.
  Value *perLane(Value *Mask, Type *ResTy, const std::function<Value *(Value *)> &Body) {
    // Half and bfloat results gather as integers: x86 holds a lone
    // bfloat/half in an f32 register and converts it back when it goes
    // into a vector, which quiets a signalling NaN (the old value of a bf16
    // atomic add, issue 21); its bits must come back unchanged.
    Type *FinalTy = ResTy;
    if (!ResTy->isVoidTy() && (ResTy->getScalarType()->isBFloatTy() || ResTy->getScalarType()->isHalfTy()))
      ResTy = ResTy->getWithNewType(B.getInt16Ty());
    BasicBlock *Pre = B.GetInsertBlock();
    BasicBlock *Head = BasicBlock::Create(C, "lane.head", W);
    BasicBlock *Do = BasicBlock::Create(C, "lane.do", W);
    BasicBlock *Latch = BasicBlock::Create(C, "lane.next", W);
    BasicBlock *Done = BasicBlock::Create(C, "lane.done", W);
    Value *MaskBits = bits(Mask);
    B.CreateBr(Head);
    B.SetInsertPoint(Head);
    PHINode *L = B.CreatePHI(B.getInt32Ty(), 2, "lane");
    L->addIncoming(B.getInt32(0), Pre);
    PHINode *Acc = nullptr;
    Type *WT = ResTy->isVoidTy() ? nullptr : wide(ResTy);
    if (WT) {
      Acc = B.CreatePHI(WT, 2);
      Acc->addIncoming(PoisonValue::get(WT), Pre);
    }
    Value *On = B.CreateTrunc(B.CreateLShr(MaskBits, B.CreateZExt(L, maskInt())), B.getInt1Ty());
    B.CreateCondBr(On, Do, Latch);
    B.SetInsertPoint(Do);
    Value *R = Body(L);
    if (R && R->getType() != ResTy)
      R = B.CreateBitCast(R, ResTy);
    Value *Acc2 = WT ? insertLane(Acc, R, ResTy, L) : nullptr;
    BasicBlock *DoEnd = B.GetInsertBlock();
    B.CreateBr(Latch);
    B.SetInsertPoint(Latch);
    PHINode *AccN = nullptr;
    if (WT) {
      AccN = B.CreatePHI(WT, 2);
      AccN->addIncoming(Acc, Head);
      AccN->addIncoming(Acc2, DoEnd);
      Acc->addIncoming(AccN, Latch);
    }
    Value *Next = B.CreateAdd(L, B.getInt32(1));
    L->addIncoming(Next, Latch);
    B.CreateCondBr(B.CreateICmpEQ(Next, B.getInt32(Lanes)), Done, Head);
    B.SetInsertPoint(Done);
    if (AccN && FinalTy != ResTy)
      return B.CreateBitCast(AccN, wide(FinalTy));
    return AccN;
  }
  /// Emit(true) when every lane is active, else Emit(false): masked
  /// memory operations cost more than plain ones on some CPUs.
  Value *fullOrMasked(Value *Mask, Type *ResTy, const std::function<Value *(bool)> &Emit) {
    BasicBlock *Full = BasicBlock::Create(C, "full", W);
    BasicBlock *Part = BasicBlock::Create(C, "partial", W);
    BasicBlock *Join = BasicBlock::Create(C, "joined", W);
    B.CreateCondBr(full(Mask), Full, Part);
    B.SetInsertPoint(Full);
    Value *A = Emit(true);
    BasicBlock *FullEnd = B.GetInsertBlock();
    B.CreateBr(Join);
    B.SetInsertPoint(Part);
    Value *Bv = Emit(false);
    BasicBlock *PartEnd = B.GetInsertBlock();
    B.CreateBr(Join);
    B.SetInsertPoint(Join);
    if (!ResTy)
      return nullptr;
    PHINode *Phi = B.CreatePHI(ResTy, 2);
    Phi->addIncoming(A, FullEnd);
    Phi->addIncoming(Bv, PartEnd);
    return Phi;
  }
  /// A store of every lane's value to consecutive addresses. Where the
  /// kernel allows streaming stores (Streams), the store goes to global
  /// memory (Size bytes per lane, else 0), covers whole cache lines and
  /// the launch writes more than the last-level cache holds
  /// (BlockCtx::StreamMin), a 64-byte aligned address gets a non-temporal
  /// store: it does not read the lines it overwrites.
  void storeWhole(Value *V, Value *P, Align Al, uint64_t Size) {
    if (!Streams || Size == 0 || (Lanes * Size) % 64 != 0) {
      B.CreateAlignedStore(V, P, Al);
      return;
    }
    Value *Want = B.CreateICmpUGE(B.getInt32(uint32_t(Size)), field(offsetof(BlockCtx, StreamMin), B.getInt32Ty()));
    Value *Line = B.CreateICmpEQ(B.CreateAnd(B.CreatePtrToInt(P, B.getInt64Ty()), B.getInt64(63)), B.getInt64(0));
    BasicBlock *Nt = BasicBlock::Create(C, "store.stream", W);
    BasicBlock *Plain = BasicBlock::Create(C, "store.plain", W);
    BasicBlock *Join = BasicBlock::Create(C, "store.done", W);
    B.CreateCondBr(B.CreateAnd(Want, Line), Nt, Plain);
    B.SetInsertPoint(Nt);
    StoreInst *St = B.CreateAlignedStore(V, P, Align(64));
    St->setMetadata(LLVMContext::MD_nontemporal, MDNode::get(C, ConstantAsMetadata::get(B.getInt32(1))));
    B.CreateBr(Join);
    B.SetInsertPoint(Plain);
    B.CreateAlignedStore(V, P, Al);
    B.CreateBr(Join);
    B.SetInsertPoint(Join);
  }
  /// Whether a source pointer may be global memory rather than the block's
  /// shared arena or a thread's local variables (address spaces are gone
  /// by now: LowerHost.cpp). A streaming store to shared memory would
  /// still be right, only slow: a core sees its own streaming stores.
  static bool outsideBlock(const Value *Ptr) {
    const Value *U = getUnderlyingObject(Ptr);
    if (isa<AllocaInst>(U))
      return false;
    if (auto *CI = dyn_cast<CallInst>(U))
      if (const Function *F = CI->getCalledFunction())
        return !F->getName().starts_with("ferry.host.") && F->getName() != "ferry.dynamic_smem";
    return true;
  }
  /// Whether elements of type E (an element of a gather or scatter) are
  /// narrower than 32 bits and never straddle an aligned 32-bit word at
  /// alignment Al: x86 has no byte or word gathers and scatters, and LLVM
  /// expands one into a branch and a scalar access per element, which the
  /// code generator digests slowly (a grid-stride byte copy unrolled four
  /// times: 2,500 blocks in a 256-lane group function, 18 s or more of llc).
  bool subWordElement(Type *E, Align Al) {
    uint64_t Size = DL.getTypeStoreSize(E);
    return (E->isIntegerTy() || E->isHalfTy() || E->isBFloatTy()) && (Size == 1 || Size == 2) &&
           E->getPrimitiveSizeInBits() == Size * 8 && Al.value() >= Size;
  }
  /// A masked gather of WT (<N x E>) from Ptrs. Sub-word elements are read
  /// as the aligned 32-bit words that hold them (a hardware gather) and
  /// shifted out; the word never crosses a page, so it faults only where
  /// the element would, and the other bytes it reads are discarded.
  Value *gather(Type *WT, Value *Ptrs, Align Al, Value *Mask) {
    auto *VT = cast<FixedVectorType>(WT);
    Type *E = VT->getElementType();
    if (!subWordElement(E, Al))
      return B.CreateMaskedGather(WT, Ptrs, Al, Mask, PoisonValue::get(WT));
    unsigned N = VT->getNumElements(), Bits = unsigned(E->getPrimitiveSizeInBits());
    auto *I64s = FixedVectorType::get(B.getInt64Ty(), N), *I32s = FixedVectorType::get(B.getInt32Ty(), N);
    Value *Low = B.CreateAnd(B.CreatePtrToInt(Ptrs, I64s), B.CreateVectorSplat(N, B.getInt64(3)));
    Value *Words = B.CreateGEP(B.getInt8Ty(), Ptrs, B.CreateNeg(Low));
    Value *G = B.CreateMaskedGather(I32s, Words, Align(4), Mask, PoisonValue::get(I32s));
    Value *Shift = B.CreateShl(B.CreateTrunc(Low, I32s), B.CreateVectorSplat(N, B.getInt32(3)));
    Value *R = B.CreateTrunc(B.CreateLShr(G, Shift), FixedVectorType::get(B.getIntNTy(Bits), N));
    return E->isIntegerTy() ? R : B.CreateBitCast(R, WT);
  }
  /// A masked scatter of V to Ptrs. Sub-word elements cannot be widened
  /// (the neighbouring bytes may be another thread's), so they are stored
  /// by a loop over the elements, in element order (where lanes overlap,
  /// the last one's value stays, as a scatter leaves it): a few
  /// instructions of code whatever the lane count. The values, addresses
  /// and mask go through stack slots shared by every such scatter of the
  /// function (one finishes before the next starts).
  void scatter(Value *V, Value *Ptrs, Align Al, Value *Mask) {
    auto *VT = cast<FixedVectorType>(V->getType());
    Type *E = VT->getElementType();
    unsigned N = VT->getNumElements();
    if (!subWordElement(E, Al)) {
      B.CreateMaskedScatter(V, Ptrs, Al, Mask);
      return;
    }
    auto Slot = [&](Type *T, const char *Name) {
      AllocaInst *&S = ScatterSlots[{T, Name}];
      if (!S)
        S = entryAlloca(T, Name, Align(64));
      return S;
    };
    auto *MaskBytes = FixedVectorType::get(B.getInt8Ty(), N);
    AllocaInst *ValSlot = Slot(VT, "scatter.val"), *PtrSlot = Slot(Ptrs->getType(), "scatter.ptr"),
               *OnSlot = Slot(MaskBytes, "scatter.on");
    B.CreateStore(V, ValSlot);
    B.CreateStore(Ptrs, PtrSlot);
    B.CreateStore(B.CreateZExt(Mask, MaskBytes), OnSlot);
    BasicBlock *Pre = B.GetInsertBlock();
    BasicBlock *Head = BasicBlock::Create(C, "scatter.head", W);
    BasicBlock *Do = BasicBlock::Create(C, "scatter.do", W);
    BasicBlock *Latch = BasicBlock::Create(C, "scatter.next", W);
    BasicBlock *Done = BasicBlock::Create(C, "scatter.done", W);
    B.CreateBr(Head);
    B.SetInsertPoint(Head);
    PHINode *I = B.CreatePHI(B.getInt64Ty(), 2, "elem");
    I->addIncoming(B.getInt64(0), Pre);
    Value *On = B.CreateLoad(B.getInt8Ty(), B.CreateGEP(B.getInt8Ty(), OnSlot, I));
    B.CreateCondBr(B.CreateICmpNE(On, B.getInt8(0)), Do, Latch);
    B.SetInsertPoint(Do);
    Value *P = B.CreateLoad(B.getPtrTy(), B.CreateGEP(B.getPtrTy(), PtrSlot, I));
    B.CreateAlignedStore(B.CreateLoad(E, B.CreateGEP(E, ValSlot, I)), P, Al);
    B.CreateBr(Latch);
    B.SetInsertPoint(Latch);
    Value *Next = B.CreateAdd(I, B.getInt64(1));
    I->addIncoming(Next, Latch);
    // Kept a loop: unrolled or vectorised, it would be the scatter again.
    MDNode *Loop = MDNode::getDistinct(
        C, {nullptr, MDNode::get(C, MDString::get(C, "llvm.loop.unroll.disable")),
            MDNode::get(C, {MDString::get(C, "llvm.loop.vectorize.enable"), ConstantAsMetadata::get(B.getFalse())})});
    Loop->replaceOperandWith(0, Loop);
    B.CreateCondBr(B.CreateICmpEQ(Next, B.getInt64(N)), Done, Head)->setMetadata(LLVMContext::MD_loop, Loop);
    B.SetInsertPoint(Done);
  }
  /// The instruction run lane by lane.
  Value *scalarise(Instruction &I, Value *Mask) {
    return perLane(Mask, I.getType(), [&](Value *L) -> Value * {
      Instruction *NI = I.clone();
      for (unsigned K = 0; K < I.getNumOperands(); ++K) {
        Value *Op = I.getOperand(K);
        if (isa<BasicBlock>(Op) || isa<Function>(Op) || isa<InlineAsm>(Op) || isa<MetadataAsValue>(Op))
          continue;
        NI->setOperand(K, lane(Op, L));
      }
      B.Insert(NI);
      return I.getType()->isVoidTy() ? nullptr : NI;
    });
  }
  /// A value the program means to be uniform: the first active lane's.
  Value *uniformish(Value *V, Value *Mask) {
    return A.shape(V).K == Shape::Uni ? rep(V) : lane(V, firstLane(Mask));
  }
  Value *firstLane(Value *Mask) {
    return B.CreateTrunc(B.CreateIntrinsic(Intrinsic::cttz, {maskInt()}, {bits(Mask), B.getTrue()}), B.getInt32Ty());
  }
  Value *lastLane(Value *Mask) {
    return B.CreateSub(B.getInt32(Lanes - 1),
                       B.CreateTrunc(B.CreateIntrinsic(Intrinsic::ctlz, {maskInt()}, {bits(Mask), B.getTrue()}),
                                     B.getInt32Ty()));
  }
  /// The smallest and largest of the function's lanes' offsets.
  std::pair<int64_t, int64_t> extent(const Offsets &O) const {
    return {*std::min_element(O.begin(), O.begin() + Lanes), *std::max_element(O.begin(), O.begin() + Lanes)};
  }
  /// redux.sync's identity for operation K ("add", "umin", ...).
  static uint32_t reduxIdentity(StringRef K) {
    return K == "add" || K == "or" || K == "xor" || K == "umax" ? 0u
           : K == "umin" || K == "and"                          ? ~0u
           : K == "smin"                                        ? 0x7fffffffu
                                                                : 0x80000000u;
  }
  /// Operation K of redux.sync over every element of V.
  Value *reduxReduce(StringRef K, Value *V) {
    return K == "add"    ? B.CreateAddReduce(V)
           : K == "and"  ? B.CreateAndReduce(V)
           : K == "or"   ? B.CreateOrReduce(V)
           : K == "xor"  ? B.CreateXorReduce(V)
           : K == "umin" ? B.CreateIntMinReduce(V, false)
           : K == "umax" ? B.CreateIntMaxReduce(V, false)
           : K == "smin" ? B.CreateIntMinReduce(V, true)
                         : B.CreateIntMaxReduce(V, true);
  }
  Value *popcount(Value *Mask) {
    return B.CreateTrunc(B.CreateIntrinsic(Intrinsic::ctpop, {maskInt()}, {bits(Mask)}), B.getInt32Ty());
  }

  Value *field(unsigned Offset, Type *T) {
    Value *P = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), W->getArg(1), Offset);
    LoadInst *L = B.CreateAlignedLoad(T, P, Align(4));
    L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(C, {}));
    return L;
  }
  FunctionCallee rt(StringRef Name, Type *Ret, ArrayRef<Type *> Params, bool NoReturn = false) {
    FunctionCallee FC = M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false));
    auto *F = cast<Function>(FC.getCallee());
    F->addFnAttr(Attribute::NoUnwind);
    if (NoReturn)
      F->addFnAttr(Attribute::NoReturn);
    return FC;
  }
  /// Thread index Dim of every lane, as a vector.
  Value *tidVector(unsigned Dim) {
    Offsets O{};
    for (unsigned L = 0; L < Lanes; ++L)
      O[L] = XW == 32 ? (Dim == 0 ? L : 0) : (Dim == 0 ? L % XW : Dim == 1 ? L / XW : 0);
    Value *Base = XW != 32 && Dim == 0 ? static_cast<Value *>(B.getInt32(0)) : W->getArg(2 + Dim);
    return B.CreateAdd(B.CreateVectorSplat(Lanes, Base), lanesConst(B.getInt32Ty(), O));
  }

  Error emitBlock(BasicBlock *BB);
  Value *fastLatchTest(BasicBlock *BB, BranchInst *Br);
  Error emitLoop(const Item &It);
  Error emitItems(const std::vector<Item> &Items);
  Error emitInst(Instruction &I, Value *Mask);
  Error emitCall(CallInst &CI, Value *Mask);
  Error emitGroupCollective(CallInst &CI, Value *Mask);
  Value *emitLoad(LoadInst &L, Value *Mask);
  Value *rowsOrGather(Value *Ptrs, Type *T, Align Al, Value *Mask);
  Value *symbolicRows(Value *Ptr, Type *T, Align Al, Value *Mask, Value *StoreVal);
  void emitStore(StoreInst &S, Value *Mask);
  Value *emitVarGeneric(Instruction &I, Value *Mask);
  Value *blockMask(BasicBlock *BB);
  bool isBackedge(BasicBlock *P, BasicBlock *S) {
    Loop *L = LI.getLoopFor(S);
    return L && L->getHeader() == S && L->contains(P);
  }
  bool isExit(BasicBlock *P, BasicBlock *S) {
    Loop *L = LI.getLoopFor(P);
    return L && !L->contains(S);
  }
  /// The outermost loop the edge P → S leaves.
  Loop *outermostExited(BasicBlock *P, BasicBlock *S) {
    Loop *Out = nullptr;
    for (Loop *L = LI.getLoopFor(P); L && !L->contains(S); L = L->getParentLoop())
      Out = L;
    return Out;
  }
  AllocaInst *edgeSlot(BasicBlock *P, BasicBlock *S) {
    AllocaInst *&X = EdgeSlots[{P, S}];
    if (!X)
      X = entryAlloca(maskTy(), "edge");
    return X;
  }
  AllocaInst *accSlot(BasicBlock *P, BasicBlock *S) {
    AllocaInst *&X = AccSlots[{P, S}];
    if (!X)
      X = entryAlloca(maskTy(), "exitmask");
    return X;
  }
  /// Whether the value Phi takes on the loop exit P → its block is kept
  /// in a capture slot when the edge is taken, rather than read from the
  /// incoming value's slot when Phi's block runs. A divergent exit needs
  /// that for every value (lanes leave at different iterations). Any exit
  /// needs it for a header phi of a loop it leaves: by the time the exit
  /// block runs, that loop's latch has stored the next iteration's values
  /// in the header phis' slots (a rotated register, `below = here; here =
  /// above`, read after the loop would get the value one step on).
  bool capturedExit(PHINode *Phi, BasicBlock *P) {
    BasicBlock *S = Phi->getParent();
    if (!isExit(P, S))
      return false;
    if (A.divergentExit(P, S))
      return true;
    auto *In = dyn_cast<PHINode>(Phi->getIncomingValueForBlock(P));
    if (!In)
      return false;
    Loop *L = LI.getLoopFor(In->getParent());
    return L && L->getHeader() == In->getParent() && L->contains(P) && !L->contains(S);
  }
  /// The capture of Phi's value on the exit from P: widened where Phi
  /// varies, scalar (its uniform part) otherwise.
  AllocaInst *captureSlot(PHINode *Phi, BasicBlock *P) {
    AllocaInst *&X = Captures[{Phi, P}];
    if (!X)
      X = entryAlloca(isVar(Phi) ? wide(Phi->getType()) : Phi->getType(), "liveout");
    return X;
  }
  AllocaInst *loopSlot(DenseMap<const Loop *, AllocaInst *> &Map, const Loop *L, const char *Name) {
    AllocaInst *&X = Map[L];
    if (!X)
      X = entryAlloca(maskTy(), Name);
    return X;
  }
  Value *loadMask(AllocaInst *S) { return B.CreateLoad(maskTy(), S); }
  Value *edgeMaskFor(BasicBlock *P, BasicBlock *S) {
    return loadMask(isExit(P, S) ? accSlot(P, S) : edgeSlot(P, S));
  }
  void recordEdge(BasicBlock *P, BasicBlock *S, Value *E);

  Function &Src;
  Function *W;
  Analysis &A;
  LoopInfo &LI;
  unsigned XW;
  unsigned Lanes;
  Module &M;
  LLVMContext &C;
  const DataLayout &DL;
  IRBuilder<> B;
  /// The kernel may use streaming (non-temporal) stores (run()).
  bool Streams = false;
  DenseMap<const Value *, Value *> Local;
  DenseMap<const Value *, AllocaInst *> Slots;
  /// The stack slots of sub-word scatters, by type and use (scatter()).
  std::map<std::pair<Type *, StringRef>, AllocaInst *> ScatterSlots;
  DenseMap<std::pair<BasicBlock *, BasicBlock *>, AllocaInst *> EdgeSlots, AccSlots;
  DenseMap<std::pair<PHINode *, BasicBlock *>, AllocaInst *> Captures;
  DenseMap<const Loop *, AllocaInst *> HeadMasks, ContMasks;
  /// Loops whose body is being emitted for iterations that every lane of
  /// the function runs (emitLoop's fast copy): the header mask is a
  /// constant, so the masks of the body fold away.
  DenseSet<const Loop *> FastLoops;
  /// Where the fast copy's latch keeps its scalar test (fastLatchTest):
  /// true when every lane goes round again; false where it was not run.
  DenseMap<const Loop *, AllocaInst *> FastStay;
  DenseMap<const Value *, Value *> Privates; // alloca → warp copy
};

Value *Emitter::blockMask(BasicBlock *BB) {
  if (BB == &Src.getEntryBlock())
    return Lanes == 32 ? maskOf(W->getArg(5)) : Constant::getAllOnesValue(maskTy()); // groups run whole
  Loop *L = LI.getLoopFor(BB);
  if (L && L->getHeader() == BB)
    return FastLoops.contains(L) ? Constant::getAllOnesValue(maskTy())
                                 : loadMask(loopSlot(HeadMasks, L, "headmask"));
  Value *Mk = nullptr;
  SmallPtrSet<BasicBlock *, 4> Seen;
  for (BasicBlock *P : predecessors(BB)) {
    if (!Seen.insert(P).second)
      continue;
    Value *E = edgeMaskFor(P, BB);
    Mk = Mk ? B.CreateOr(Mk, E) : E;
  }
  return Mk ? Mk : zeroMask();
}

void Emitter::recordEdge(BasicBlock *P, BasicBlock *S, Value *E) {
  if (isBackedge(P, S)) {
    B.CreateStore(E, loopSlot(ContMasks, LI.getLoopFor(S), "contmask"));
    return;
  }
  if (!isExit(P, S)) {
    B.CreateStore(E, edgeSlot(P, S));
    return;
  }
  AllocaInst *Acc = accSlot(P, S);
  B.CreateStore(B.CreateOr(loadMask(Acc), E), Acc);
  for (PHINode &Phi : S->phis()) {
    if (!capturedExit(&Phi, P))
      continue;
    AllocaInst *Cap = captureSlot(&Phi, P);
    Value *In = Phi.getIncomingValueForBlock(P);
    Value *Old = B.CreateLoad(Cap->getAllocatedType(), Cap);
    Value *New = isVar(&Phi) ? selectLanes(E, vec(In), Old, Phi.getType()) : B.CreateSelect(any(E), uni(In), Old);
    B.CreateStore(New, Cap);
  }
}

/// For the latch of a loop's fast copy whose branch compares an affine
/// value (constant offsets) with a uniform one, one backedge and one exit
/// (a grid-stride loop's `i < n`): a scalar that is true when every lane
/// takes the backedge, judged by the lane with the extreme offset (no wrap
/// assumed, as for all affine arithmetic). Null otherwise.
Value *Emitter::fastLatchTest(BasicBlock *BB, BranchInst *Br) {
  Loop *L = LI.getLoopFor(BB);
  if (!L || !FastLoops.contains(L) || L->getLoopLatch() != BB)
    return nullptr;
  auto *Cmp = dyn_cast<ICmpInst>(Br->getCondition());
  if (!Cmp || !Cmp->getOperand(0)->getType()->isIntegerTy())
    return nullptr;
  bool BackIsTrue = isBackedge(BB, Br->getSuccessor(0));
  if (!BackIsTrue && !isBackedge(BB, Br->getSuccessor(1)))
    return nullptr;
  if (!isExit(BB, Br->getSuccessor(BackIsTrue ? 1 : 0)))
    return nullptr;
  Value *X = Cmp->getOperand(0), *Y = Cmp->getOperand(1);
  CmpInst::Predicate P = BackIsTrue ? Cmp->getPredicate() : Cmp->getInversePredicate();
  Shape SX = A.shape(X), SY = A.shape(Y);
  if (SY.K == Shape::Aff && SX.K == Shape::Uni) {
    std::swap(X, Y);
    std::swap(SX, SY);
    P = CmpInst::getSwappedPredicate(P);
  }
  if (SX.K != Shape::Aff || SX.Sym || SY.K != Shape::Uni || CmpInst::isEquality(P))
    return nullptr;
  auto [Lo, Hi] = extent(A.pattern(SX));
  bool Below = P == CmpInst::ICMP_SLT || P == CmpInst::ICMP_SLE || P == CmpInst::ICMP_ULT || P == CmpInst::ICMP_ULE;
  Value *Base = uni(X);
  Value *Extreme = B.CreateAdd(Base, ConstantInt::get(Base->getType(), Below ? Hi : Lo, true));
  return B.CreateICmp(P, Extreme, uni(Y));
}

Error Emitter::emitBlock(BasicBlock *BB) {
  Local.clear();
  Value *Mask = blockMask(BB);
  Loop *L = LI.getLoopFor(BB);
  bool Header = L && L->getHeader() == BB;
  BasicBlock *Body = BasicBlock::Create(C, BB->getName() + ".body", W);
  BasicBlock *Skip = BasicBlock::Create(C, BB->getName() + ".skip", W);
  BasicBlock *Next = BasicBlock::Create(C, BB->getName() + ".next", W);
  // A loop header runs only while some lane is in the loop (emitLoop tests
  // that), so it needs no test of its own; that keeps the loop's induction
  // variables plain for the optimiser.
  B.CreateCondBr(Header ? static_cast<Value *>(B.getTrue()) : any(Mask), Body, Skip);
  B.SetInsertPoint(Skip);
  SmallPtrSet<BasicBlock *, 4> Seen;
  for (BasicBlock *S : successors(BB)) {
    if (!Seen.insert(S).second || isExit(BB, S))
      continue;
    if (isBackedge(BB, S))
      B.CreateStore(zeroMask(), loopSlot(ContMasks, LI.getLoopFor(S), "contmask"));
    else
      B.CreateStore(zeroMask(), edgeSlot(BB, S));
  }
  B.CreateBr(Next);
  B.SetInsertPoint(Body);

  // Phis.
  SmallVector<std::pair<PHINode *, Value *>, 8> Phis;
  for (PHINode &Phi : BB->phis()) {
    if (Header) {
      AllocaInst *S = slot(&Phi);
      Phis.push_back({&Phi, B.CreateLoad(S->getAllocatedType(), S, Phi.getName())});
      continue;
    }
    Shape X = A.shape(&Phi);
    Value *R = nullptr;
    for (unsigned K = 0; K < Phi.getNumIncomingValues(); ++K) {
      BasicBlock *P = Phi.getIncomingBlock(K);
      Value *In = Phi.getIncomingValue(K);
      bool Dup = false;
      for (unsigned J = 0; J < K; ++J)
        Dup |= Phi.getIncomingBlock(J) == P;
      if (Dup)
        continue;
      Value *E = edgeMaskFor(P, BB);
      Value *Cap = nullptr;
      if (capturedExit(&Phi, P)) {
        AllocaInst *CS = captureSlot(&Phi, P);
        Cap = B.CreateLoad(CS->getAllocatedType(), CS);
      }
      if (X.K == Shape::Var) {
        Value *V = Cap ? Cap : vec(In);
        R = R ? selectLanes(E, V, R, Phi.getType()) : V;
      } else {
        Value *V = Cap ? Cap : uni(In);
        R = R ? B.CreateSelect(any(E), V, R) : V;
      }
    }
    Phis.push_back({&Phi, R});
  }
  for (auto &[Phi, V] : Phis) {
    Local[Phi] = V;
    if (!Header && (Slots.count(Phi) || needsSlot(Phi)))
      B.CreateStore(V, slot(Phi));
  }

  for (Instruction &I : *BB) {
    if (isa<PHINode>(I) || I.isTerminator())
      continue;
    if (Error E = emitInst(I, Mask))
      return E;
  }

  // Edges.
  Instruction *T = BB->getTerminator();
  if (auto *Br = dyn_cast<BranchInst>(T)) {
    if (!Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1)) {
      recordEdge(BB, Br->getSuccessor(0), Mask);
    } else {
      Value *Cond = Br->getCondition();
      Value *ET, *EF;
      BasicBlock *Joined = nullptr;
      if (Value *Stay = fastLatchTest(BB, Br)) {
        // The fast copy's latch: when every lane goes round again (one
        // scalar comparison), no lane leaves and nothing is recorded for
        // the exit; otherwise the lanes' comparison as usual.
        BasicBlock *AllIn = BasicBlock::Create(C, BB->getName() + ".allin", W);
        BasicBlock *Mixed = BasicBlock::Create(C, BB->getName() + ".mixed", W);
        Joined = BasicBlock::Create(C, BB->getName() + ".latched", W);
        B.CreateStore(Stay, FastStay.lookup(LI.getLoopFor(BB)));
        B.CreateCondBr(Stay, AllIn, Mixed);
        B.SetInsertPoint(AllIn);
        bool BackIsTrue = isBackedge(BB, Br->getSuccessor(0));
        recordEdge(BB, Br->getSuccessor(0), BackIsTrue ? Mask : zeroMask());
        recordEdge(BB, Br->getSuccessor(1), BackIsTrue ? zeroMask() : Mask);
        B.CreateBr(Joined);
        B.SetInsertPoint(Mixed);
      }
      if (A.shape(Cond).K == Shape::Uni) {
        Value *Cs = uni(Cond);
        ET = B.CreateSelect(Cs, Mask, zeroMask());
        EF = B.CreateSelect(Cs, zeroMask(), Mask);
      } else {
        Value *Cv = vec(Cond);
        ET = B.CreateAnd(Mask, Cv);
        EF = B.CreateAnd(Mask, B.CreateNot(Cv));
      }
      recordEdge(BB, Br->getSuccessor(0), ET);
      recordEdge(BB, Br->getSuccessor(1), EF);
      if (Joined) {
        B.CreateBr(Joined);
        B.SetInsertPoint(Joined);
      }
    }
  } else if (auto *Sw = dyn_cast<SwitchInst>(T)) {
    Value *Cv = vec(Sw->getCondition());
    DenseMap<BasicBlock *, Value *> To;
    Value *Taken = zeroMask();
    for (auto &Case : Sw->cases()) {
      Value *Eq = B.CreateAnd(Mask, B.CreateICmpEQ(Cv, splat(Case.getCaseValue(), Case.getCaseValue()->getType())));
      Value *&Slot = To[Case.getCaseSuccessor()];
      Slot = Slot ? B.CreateOr(Slot, Eq) : Eq;
      Taken = B.CreateOr(Taken, Eq);
    }
    Value *Def = B.CreateAnd(Mask, B.CreateNot(Taken));
    Value *&DS = To[Sw->getDefaultDest()];
    DS = DS ? B.CreateOr(DS, Def) : Def;
    for (auto &[S, E] : To)
      recordEdge(BB, S, E);
  } else if (!isa<ReturnInst>(T) && !isa<UnreachableInst>(T)) {
    return refuse("terminator " + Twine(T->getOpcodeName()));
  }
  B.CreateBr(Next);
  B.SetInsertPoint(Next);
  Local.clear();
  return Error::success();
}

Error Emitter::emitLoop(const Item &It) {
  Loop *L = It.L;
  BasicBlock *H = L->getHeader();
  BasicBlock *Pre = L->getLoopPreheader();
  BasicBlock *Latch = L->getLoopLatch();
  if (!Pre || !Latch)
    return refuse("loop without preheader or single latch");
  Local.clear();
  // Exit masks of edges whose outermost exited loop is L start empty.
  SmallVector<BasicBlock *, 16> Blocks(L->blocks());
  for (BasicBlock *P : Blocks)
    for (BasicBlock *S : successors(P))
      if (isExit(P, S) && outermostExited(P, S) == L)
        B.CreateStore(zeroMask(), accSlot(P, S));
  Value *Entry = edgeMaskFor(Pre, H);
  B.CreateStore(Entry, loopSlot(HeadMasks, L, "headmask"));
  for (PHINode &Phi : H->phis()) {
    Value *In = Phi.getIncomingValueForBlock(Pre);
    B.CreateStore(isVar(&Phi) ? vec(In) : uni(In), slot(&Phi));
  }
  BasicBlock *Top = BasicBlock::Create(C, H->getName() + ".loop", W);
  BasicBlock *After = BasicBlock::Create(C, H->getName() + ".after", W);
  // A divergent innermost loop of modest size (a grid-stride loop above
  // all) gets a second copy of its body for iterations that every lane
  // runs: its masks are constants there, so its loads and stores are
  // plain and the bookkeeping of lanes leaving folds away. The copy runs
  // while all lanes stay; the general copy takes over when some leave.
  BasicBlock *Fast = nullptr;
  if (A.divergentLoop(L) && L->getSubLoops().empty() && !FastLoops.contains(L)) {
    size_t Size = 0;
    for (BasicBlock *BB : L->blocks())
      Size += BB->size();
    if (Size <= 400)
      Fast = BasicBlock::Create(C, H->getName() + ".fast", W);
  }
  auto Latch2 = [&](BasicBlock *Again) {
    Local.clear();
    Value *Cont = loadMask(loopSlot(ContMasks, L, "contmask"));
    SmallVector<std::pair<PHINode *, Value *>, 8> Next;
    for (PHINode &Phi : H->phis()) {
      Value *In = Phi.getIncomingValueForBlock(Latch);
      Next.push_back({&Phi, isVar(&Phi) ? vec(In) : uni(In)});
    }
    // The header's values move on only when some lane goes round again.
    // When none does, the last step's values stay: an exit that every lane
    // took at once (a uniform exit, which captures nothing) leaves the loop
    // with them, and so does a return from inside nested loops (I, J, K of
    // a search), read after the loop through the header's phis. The latch
    // may not even have run in that step, so its incoming values can be
    // stale, from an earlier step or an earlier run of the loop.
    BasicBlock *Round = BasicBlock::Create(C, H->getName() + ".round", W);
    B.CreateCondBr(any(Cont), Round, After);
    B.SetInsertPoint(Round);
    for (auto &[Phi, V] : Next)
      B.CreateStore(V, slot(Phi));
    B.CreateStore(Cont, loopSlot(HeadMasks, L, "headmask"));
    if (Again == Fast) {
      // Where the latch's scalar test said every lane stays, the fast
      // copy goes round again without looking at the lanes' mask.
      BasicBlock *Some = BasicBlock::Create(C, H->getName() + ".some", W);
      if (AllocaInst *StaySlot = FastStay.lookup(L)) {
        // Cleared for the next step: a step in which no lane reaches the
        // latch (all left by a break) must not reuse this one's answer.
        Value *Stay = B.CreateLoad(B.getInt1Ty(), StaySlot);
        B.CreateStore(B.getFalse(), StaySlot);
        BasicBlock *Look = BasicBlock::Create(C, H->getName() + ".look", W);
        B.CreateCondBr(Stay, Fast, Look);
        B.SetInsertPoint(Look);
      }
      B.CreateCondBr(full(Cont), Fast, Some);
      B.SetInsertPoint(Some);
    }
    B.CreateBr(Top);
  };
  if (Fast) {
    BasicBlock *Check = BasicBlock::Create(C, H->getName() + ".check", W);
    B.CreateCondBr(any(Entry), Check, After);
    B.SetInsertPoint(Check);
    AllocaInst *StaySlot = entryAlloca(B.getInt1Ty(), "stay");
    FastStay[L] = StaySlot;
    B.CreateStore(B.getFalse(), StaySlot);
    B.CreateCondBr(full(Entry), Fast, Top);
    B.SetInsertPoint(Fast);
    FastLoops.insert(L);
    Error E = emitItems(It.Kids);
    FastLoops.erase(L);
    if (E)
      return E;
    Latch2(Fast);
  } else {
    B.CreateCondBr(any(Entry), Top, After);
  }
  B.SetInsertPoint(Top);
  if (Error E = emitItems(It.Kids))
    return E;
  Latch2(Top);
  B.SetInsertPoint(After);
  return Error::success();
}

Error Emitter::emitItems(const std::vector<Item> &Items) {
  for (const Item &I : Items) {
    if (Error E = I.BB ? emitBlock(I.BB) : emitLoop(I))
      return E;
  }
  return Error::success();
}

Error Emitter::run(const std::vector<Item> &Order) {
  // Streaming stores are weakly ordered on x86: a kernel that orders its
  // memory operations for other threads (atomics, fences, volatile
  // accesses, grid sync, calls into unknown code) keeps plain stores
  // throughout. Barriers order only the block, whose warps share a core.
  Streams = true;
  for (Instruction &I : instructions(Src)) {
    auto *CI = dyn_cast<CallInst>(&I);
    Function *F = CI ? CI->getCalledFunction() : nullptr;
    StringRef N = F ? F->getName() : "";
    Streams &= !I.isAtomic() && !I.isVolatile() && !(CI && !F) && N != "ferry.fence" && N != "ferry.grid.sync";
  }
  BasicBlock *Entry = BasicBlock::Create(C, "entry", W);
  BasicBlock *Start = BasicBlock::Create(C, "start", W);
  B.SetInsertPoint(Entry);
  B.CreateBr(Start);
  B.SetInsertPoint(Start);
  if (Error E = emitItems(Order))
    return E;
  B.CreateRetVoid();
  return Error::success();
}

Value *Emitter::emitLoad(LoadInst &L, Value *Mask) {
  Value *Ptr = L.getPointerOperand();
  Shape PS = A.shape(Ptr);
  Type *T = L.getType();
  Align Al = L.getAlign();
  bool Simple = L.isSimple();
  bool ScalarElem = !T->isStructTy() && !T->isArrayTy();
  if (Simple && ScalarElem && PS.K == Shape::Aff && PS.Sym && !T->isVectorTy())
    if (Value *R = symbolicRows(L.getPointerOperand(), T, Al, Mask, nullptr))
      return R;
  if (Simple && ScalarElem && PS.K == Shape::Aff && !PS.Sym) {
    const Offsets &O = A.pattern(PS);
    uint64_t Size = DL.getTypeStoreSize(T), Alloc = DL.getTypeAllocSize(T);
    bool Contiguous = Size == Alloc;
    for (unsigned I = 0; I < Lanes && Contiguous; ++I)
      Contiguous = O[I] == wrapAdd(O[0], int64_t(I * Size));
    if (Contiguous) {
      Value *P = B.CreateGEP(B.getInt8Ty(), uni(Ptr), B.getInt64(O[0]));
      return fullOrMasked(Mask, wide(T), [&](bool Full) -> Value * {
        return Full ? static_cast<Value *>(B.CreateAlignedLoad(wide(T), P, Al))
                    : B.CreateMaskedLoad(wide(T), P, Al, expandMask(Mask, T), PoisonValue::get(wide(T)));
      });
    }
    // Shared memory: the arena has a guard zone on both sides, so one load
    // over the lanes' span is safe whatever the mask.
    auto [Lo, Hi] = extent(O);
    bool Even = Size == Alloc && !T->isVectorTy();
    for (unsigned L = 0; L < Lanes; ++L)
      Even &= (uint64_t(O[L]) - uint64_t(Lo)) % Size == 0;
    if (A.sharedPointer(Ptr) && Even && uint64_t(Hi) - uint64_t(Lo) + Size <= 256) {
      unsigned K = unsigned((Hi - Lo) / int64_t(Size)) + 1;
      Value *P = B.CreateGEP(B.getInt8Ty(), uni(Ptr), B.getInt64(Lo));
      Value *Span = B.CreateAlignedLoad(FixedVectorType::get(T, K), P, commonAlignment(Al, Lo));
      SmallVector<int, 32> Idx;
      for (unsigned L = 0; L < Lanes; ++L)
        Idx.push_back(int((O[L] - Lo) / int64_t(Size)));
      return B.CreateShuffleVector(Span, Idx);
    }
    // Shared memory read at a few distinct places (a row of a tile per
    // 16-lane row of a group: As[ty][k]): one scalar load each, spread over
    // the lanes (broadcasts). The places lie within the arena's guard zone
    // of one another.
    SmallVector<int64_t, 16> Distinct;
    for (unsigned L = 0; L < Lanes && Distinct.size() <= 16; ++L)
      if (!is_contained(Distinct, O[L]))
        Distinct.push_back(O[L]);
    if (A.sharedPointer(Ptr) && !T->isVectorTy() && Distinct.size() <= 16 && uint64_t(Hi) - uint64_t(Lo) <= 2048) {
      Value *Base = uni(Ptr);
      Value *Vals = PoisonValue::get(FixedVectorType::get(T, Distinct.size()));
      for (unsigned D = 0; D < Distinct.size(); ++D) {
        Value *P = B.CreateGEP(B.getInt8Ty(), Base, B.getInt64(Distinct[D]));
        Vals = B.CreateInsertElement(Vals, B.CreateAlignedLoad(T, P, commonAlignment(Al, Distinct[D])), D);
      }
      SmallVector<int, 128> Idx;
      for (unsigned L = 0; L < Lanes; ++L)
        Idx.push_back(int(find(Distinct, O[L]) - Distinct.begin()));
      return B.CreateShuffleVector(Vals, Idx);
    }
  }
  if (Simple && ScalarElem && !T->isVectorTy()) {
    Value *Ptrs = vec(Ptr);
    if (XW < 32 && PS.K == Shape::Var && DL.getTypeStoreSize(T) == DL.getTypeAllocSize(T))
      return rowsOrGather(Ptrs, T, Al, Mask);
    return gather(wide(T), Ptrs, Al, Mask);
  }
  // A vector per lane (ld.v2/ld.v4) at scattered places: one gather of
  // every element. Lane by lane, the results would be assembled by
  // inserts at a variable index into the whole wide vector, which LLVM
  // lowers through a stack copy each: megabyte frames for 128-lane
  // groups, past the fiber stacks, and minutes of code generation.
  if (Simple && ScalarElem && T->isVectorTy())
    if (Value *EPtrs = elementPointers(vec(Ptr), cast<FixedVectorType>(T)))
      return gather(wide(T), EPtrs, commonAlignment(Al, T->getScalarSizeInBits() / 8), expandMask(Mask, T));
  return scalarise(L, Mask);
}

/// A load (StoreVal null) or store through an affine pointer with a
/// symbolic part whose lanes form equal runs, each contiguous with one
/// coefficient (a row of a tile: a[row * n + x]): with every lane active,
/// one vector access per run at base + O + C * sym; otherwise a gather or
/// scatter. Null when the lanes do not form such runs.
Value *Emitter::symbolicRows(Value *Ptr, Type *T, Align Al, Value *Mask, Value *StoreVal) {
  Shape PS = A.shape(Ptr);
  const Offsets &O = A.pattern(PS), &Co = A.coefficients(PS);
  uint64_t Size = DL.getTypeStoreSize(T);
  if (Size != DL.getTypeAllocSize(T))
    return nullptr;
  unsigned Run = 1;
  while (Run < Lanes && Co[Run] == Co[0] && O[Run] == wrapAdd(O[0], int64_t(Run * Size)))
    ++Run;
  if (Lanes % Run != 0 || Lanes / Run > 16)
    return nullptr;
  for (unsigned L = 0; L < Lanes; ++L)
    if (Co[L] != Co[L - L % Run] || O[L] != wrapAdd(O[L - L % Run], int64_t((L % Run) * Size)))
      return nullptr;
  Value *Base = uni(Ptr);
  Value *Sym = symValue(PS, B.getInt64Ty());
  auto *RowTy = FixedVectorType::get(T, Run);
  auto RowPtr = [&](unsigned G) {
    unsigned L = G * Run;
    Value *Off = B.CreateAdd(B.getInt64(O[L]), B.CreateMul(B.getInt64(Co[L]), Sym));
    return B.CreateGEP(B.getInt8Ty(), Base, Off);
  };
  if (StoreVal) {
    Value *V = vec(StoreVal);
    fullOrMasked(Mask, nullptr, [&](bool Full) -> Value * {
      if (!Full) {
        scatter(V, vec(Ptr), Al, Mask);
        return nullptr;
      }
      for (unsigned G = 0; G < Lanes / Run; ++G) {
        SmallVector<int, 32> Idx;
        for (unsigned K = 0; K < Run; ++K)
          Idx.push_back(int(G * Run + K));
        B.CreateAlignedStore(B.CreateShuffleVector(V, Idx), RowPtr(G), Al);
      }
      return nullptr;
    });
    return V;
  }
  return fullOrMasked(Mask, wide(T), [&](bool Full) -> Value * {
    if (!Full)
      return gather(wide(T), vec(Ptr), Al, Mask);
    SmallVector<Value *, 16> Rows;
    for (unsigned G = 0; G < Lanes / Run; ++G)
      Rows.push_back(B.CreateAlignedLoad(RowTy, RowPtr(G), Al));
    return Rows.size() == 1 ? Rows[0] : concatenateVectors(B, Rows);
  });
}

/// Narrow layouts: a warp covers 32 / XW rows of XW threads, and row-major
/// indexing with a run-time pitch (a[row * n + x]) gives each row its own
/// contiguous run. When that holds at run time and every lane is active,
/// one vector load per row; otherwise a gather.
Value *Emitter::rowsOrGather(Value *Ptrs, Type *T, Align Al, Value *Mask) {
  uint64_t Size = DL.getTypeStoreSize(T);
  Type *I64 = B.getInt64Ty();
  Value *PI = B.CreatePtrToInt(Ptrs, wide(I64));
  SmallVector<int, 32> Lead;
  Offsets Within{};
  for (unsigned L = 0; L < Lanes; ++L) {
    Lead.push_back(int(L - L % XW));
    Within[L] = int64_t((L % XW) * Size);
  }
  Value *Want = B.CreateAdd(B.CreateShuffleVector(PI, Lead), lanesConst(I64, Within));
  Value *Rows = full(B.CreateICmpEQ(PI, Want));
  Value *Go = B.CreateAnd(Rows, full(Mask));
  BasicBlock *Fast = BasicBlock::Create(C, "rows", W);
  BasicBlock *Slow = BasicBlock::Create(C, "gather", W);
  BasicBlock *Join = BasicBlock::Create(C, "rows.join", W);
  B.CreateCondBr(Go, Fast, Slow);
  B.SetInsertPoint(Fast);
  auto *RowTy = FixedVectorType::get(T, XW);
  Value *R = nullptr;
  for (unsigned G = 0; G < Lanes / XW; ++G) {
    Value *P = B.CreateExtractElement(Ptrs, uint64_t(G * XW));
    Value *Row = B.CreateAlignedLoad(RowTy, P, Al);
    SmallVector<int, 32> Grow;
    for (unsigned L = 0; L < Lanes; ++L)
      Grow.push_back(L < XW ? int(L) : -1);
    Row = B.CreateShuffleVector(Row, Grow);
    if (!R) {
      R = Row;
      continue;
    }
    SmallVector<int, 32> Pick;
    for (unsigned L = 0; L < Lanes; ++L)
      Pick.push_back(L / XW == G ? int(Lanes + L % XW) : int(L));
    R = B.CreateShuffleVector(R, Row, Pick);
  }
  BasicBlock *FastEnd = B.GetInsertBlock();
  B.CreateBr(Join);
  B.SetInsertPoint(Slow);
  Value *Gv = gather(wide(T), Ptrs, Al, Mask);
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
  PHINode *Phi = B.CreatePHI(wide(T), 2);
  Phi->addIncoming(R, FastEnd);
  Phi->addIncoming(Gv, Slow);
  return Phi;
}

void Emitter::emitStore(StoreInst &S, Value *Mask) {
  Value *Ptr = S.getPointerOperand(), *Val = S.getValueOperand();
  Shape PS = A.shape(Ptr), VS = A.shape(Val);
  Type *T = Val->getType();
  if (!S.isSimple() || T->isStructTy() || T->isArrayTy()) {
    if (PS.K == Shape::Uni && VS.K == Shape::Uni) {
      Instruction *NI = S.clone();
      NI->setOperand(0, uni(Val));
      NI->setOperand(1, uni(Ptr));
      B.Insert(NI);
    } else {
      scalarise(S, Mask);
    }
    return;
  }
  if (PS.K == Shape::Uni) {
    // Every lane writes the same place: the last active lane's value stays.
    Value *V = VS.K == Shape::Var ? extractLane(rep(Val), T, lastLane(Mask)) : lane(Val, B.getInt32(0));
    if (VS.K == Shape::Aff)
      V = lane(Val, lastLane(Mask));
    B.CreateAlignedStore(V, uni(Ptr), S.getAlign());
    return;
  }
  if (PS.K == Shape::Aff && PS.Sym && !T->isVectorTy() && symbolicRows(Ptr, T, S.getAlign(), Mask, Val))
    return;
  if (PS.K == Shape::Aff && !PS.Sym) {
    const Offsets &O = A.pattern(PS);
    uint64_t Size = DL.getTypeStoreSize(T);
    bool Contiguous = Size == DL.getTypeAllocSize(T);
    for (unsigned I = 0; I < Lanes && Contiguous; ++I)
      Contiguous = O[I] == wrapAdd(O[0], int64_t(I * Size));
    if (Contiguous) {
      Value *P = B.CreateGEP(B.getInt8Ty(), uni(Ptr), B.getInt64(O[0]));
      Value *V = vec(Val);
      fullOrMasked(Mask, nullptr, [&](bool Full) -> Value * {
        if (Full)
          storeWhole(V, P, S.getAlign(), outsideBlock(Ptr) ? Size : 0);
        else
          B.CreateMaskedStore(V, P, S.getAlign(), expandMask(Mask, T));
        return nullptr;
      });
      return;
    }
  }
  if (!T->isVectorTy()) {
    scatter(vec(Val), vec(Ptr), S.getAlign(), Mask);
    return;
  }
  // A vector per lane at scattered places: one scatter of every element
  // (see emitLoad for why not lane by lane). Elements of one lane never
  // overlap, and lanes that overlap keep the higher lane's value, as a
  // scatter does.
  if (Value *EPtrs = elementPointers(vec(Ptr), cast<FixedVectorType>(T))) {
    scatter(vec(Val), EPtrs, commonAlignment(S.getAlign(), T->getScalarSizeInBits() / 8), expandMask(Mask, T));
    return;
  }
  scalarise(S, Mask);
}

/// A varying instruction without side effects: the same operation on the
/// widened operands.
Value *Emitter::emitVarGeneric(Instruction &I, Value *Mask) {
  if (auto *EE = dyn_cast<ExtractElementInst>(&I)) {
    auto *Idx = dyn_cast<ConstantInt>(EE->getIndexOperand());
    auto *VT = cast<FixedVectorType>(EE->getVectorOperandType());
    if (!Idx || Idx->getZExtValue() >= VT->getNumElements())
      return scalarise(I, Mask);
    unsigned N = VT->getNumElements(), E = unsigned(Idx->getZExtValue());
    SmallVector<int, 32> Sel;
    for (unsigned L = 0; L < Lanes; ++L)
      Sel.push_back(int(L * N + E));
    return B.CreateShuffleVector(vec(EE->getVectorOperand()), Sel);
  }
  if (auto *IE = dyn_cast<InsertElementInst>(&I)) {
    auto *Idx = dyn_cast<ConstantInt>(IE->getOperand(2));
    auto *VT = cast<FixedVectorType>(IE->getType());
    unsigned N = VT->getNumElements();
    if (!Idx || Idx->getZExtValue() >= N)
      return scalarise(I, Mask);
    unsigned E = unsigned(Idx->getZExtValue());
    SmallVector<int, 128> Spread, Pick;
    for (unsigned L = 0; L < Lanes; ++L)
      for (unsigned K = 0; K < N; ++K) {
        Spread.push_back(K == E ? int(L) : -1);
        Pick.push_back(K == E ? int(Lanes * N + L * N + K) : int(L * N + K));
      }
    Value *Val = B.CreateShuffleVector(vec(IE->getOperand(1)), Spread);
    return B.CreateShuffleVector(vec(IE->getOperand(0)), Val, Pick);
  }
  if (auto *SV = dyn_cast<ShuffleVectorInst>(&I)) {
    unsigned N = cast<FixedVectorType>(SV->getOperand(0)->getType())->getNumElements();
    ArrayRef<int> Mk = SV->getShuffleMask();
    SmallVector<int, 128> Idx;
    for (unsigned L = 0; L < Lanes; ++L)
      for (int X : Mk)
        Idx.push_back(X < 0 ? -1 : X < int(N) ? int(L * N + X) : int(Lanes * N + L * N + (X - N)));
    return B.CreateShuffleVector(vec(SV->getOperand(0)), vec(SV->getOperand(1)), Idx);
  }
  if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
    Intrinsic::ID ID = II->getIntrinsicID();
    switch (ID) {
    case Intrinsic::uadd_with_overflow:
    case Intrinsic::usub_with_overflow:
    case Intrinsic::sadd_with_overflow:
    case Intrinsic::ssub_with_overflow:
    case Intrinsic::umul_with_overflow:
    case Intrinsic::smul_with_overflow:
      // PTX's carry chains (add.cc, addc, sub.cc, mad.cc): multiword
      // arithmetic has thousands of them. LLVM 19 does not list these as
      // trivially vectorizable, but they take vectors and return
      // {vector, mask vector}, the wide form of their {iN, i1} here; lane
      // by lane, each was a 32-trip loop, and a few thousand such loops
      // made SROA's promotion quadratic in the blocks of the function.
      if (!II->getArgOperand(0)->getType()->isVectorTy())
        return B.CreateBinaryIntrinsic(ID, vec(II->getArgOperand(0)), vec(II->getArgOperand(1)));
      break;
    default:
      break;
    }
    if (!isTriviallyVectorizable(ID) || II->getType()->isVectorTy())
      return scalarise(I, Mask);
    Type *ET = II->getType()->getScalarType();
    if ((ID == Intrinsic::maximum || ID == Intrinsic::minimum) && (ET->isHalfTy() || ET->isBFloatTy())) {
      // x86 widens these wrongly for vectors of halves (a NaN operand can
      // give a number): compute in float; a NaN result is PTX's canonical
      // 0x7fff.
      Type *FT = wide(B.getFloatTy());
      Value *X = vec(II->getArgOperand(0)), *Y = vec(II->getArgOperand(1));
      Value *R = B.CreateBinaryIntrinsic(ID, B.CreateFPExt(X, FT), B.CreateFPExt(Y, FT));
      Value *NaN = B.CreateBitCast(splat(B.getInt16(0x7fff), B.getInt16Ty()), wide(ET));
      return B.CreateSelect(B.CreateFCmpUNO(X, Y), NaN, B.CreateFPTrunc(R, wide(ET)));
    }
    SmallVector<Type *, 4> Tys;
    SmallVector<Value *, 4> Args;
    if (isVectorIntrinsicWithOverloadTypeAtArg(ID, -1))
      Tys.push_back(wide(II->getType()));
    for (unsigned K = 0; K < II->arg_size(); ++K) {
      Value *Op = II->getArgOperand(K);
      Value *NA = isVectorIntrinsicWithScalarOpAtArg(ID, K) ? uni(Op) : vec(Op);
      Args.push_back(NA);
      if (isVectorIntrinsicWithOverloadTypeAtArg(ID, K))
        Tys.push_back(NA->getType());
    }
    Function *Decl = Intrinsic::getDeclaration(&M, ID, Tys);
    CallInst *NC = B.CreateCall(Decl, Args);
    if (isa<FPMathOperator>(NC))
      NC->copyFastMathFlags(II);
    return NC;
  }
  if (isa<CallBase>(I))
    return scalarise(I, Mask);
  if (auto *Sel = dyn_cast<SelectInst>(&I); Sel && (I.getType()->isStructTy() || I.getType()->isArrayTy()) &&
                                             A.shape(Sel->getCondition()).K != Shape::Uni)
    return selectLanes(vec(Sel->getCondition()), vec(Sel->getTrueValue()),
                       vec(Sel->getFalseValue()), I.getType());
  Instruction *NI = I.clone();
  NI->dropUnknownNonDebugMetadata();
  if (auto *G = dyn_cast<GetElementPtrInst>(&I)) {
    unsigned K = 1;
    NI->setOperand(0, vec(G->getPointerOperand()));
    for (auto GTI = gep_type_begin(G), E = gep_type_end(G); GTI != E; ++GTI, ++K)
      NI->setOperand(K, GTI.isStruct() ? uni(GTI.getOperand()) : vec(GTI.getOperand()));
  } else if (auto *Sel = dyn_cast<SelectInst>(&I)) {
    Value *Cond = Sel->getCondition();
    // A scalar condition per lane covers all elements of that lane.
    NI->setOperand(0, A.shape(Cond).K == Shape::Uni ? uni(Cond)
                      : Cond->getType()->isVectorTy() ? vec(Cond)
                                                      : expandMask(vec(Cond), I.getType()));
    NI->setOperand(1, vec(Sel->getTrueValue()));
    NI->setOperand(2, vec(Sel->getFalseValue()));
  } else if (isa<ExtractValueInst>(I) || isa<InsertValueInst>(I) || isa<BinaryOperator>(I) ||
             isa<CmpInst>(I) || isa<CastInst>(I) || isa<UnaryOperator>(I) || isa<FreezeInst>(I)) {
    for (unsigned K = 0; K < I.getNumOperands(); ++K)
      NI->setOperand(K, vec(I.getOperand(K)));
    // x86 has no vector division: each lane divides, the inactive ones too,
    // whose divisors may be 0 (gcd's `a % b` loop ends at b == 0) and would
    // trap. They divide by 1 instead.
    if (I.isIntDivRem() && Mask) {
      Value *On = I.getType()->isVectorTy() ? expandMask(Mask, I.getType()) : Mask;
      NI->setOperand(1, B.CreateSelect(On, NI->getOperand(1), ConstantInt::get(NI->getOperand(1)->getType(), 1)));
    }
  } else {
    NI->deleteValue();
    return scalarise(I, Mask);
  }
  NI->mutateType(wide(I.getType()));
  B.Insert(NI, I.getName());
  return NI;
}

Error Emitter::emitInst(Instruction &I, Value *Mask) {
  if (auto *CI = dyn_cast<CallInst>(&I))
    return emitCall(*CI, Mask);
  Shape X = A.shape(&I);
  Value *R = nullptr;
  if (auto *AI = dyn_cast<AllocaInst>(&I)) {
    uint64_t Size = alignTo(AI->getAllocationSize(DL)->getFixedValue(), AI->getAlign());
    AllocaInst *Copy = entryAlloca(ArrayType::get(B.getInt8Ty(), Size * Lanes), AI->getName(), AI->getAlign());
    define(&I, Copy);
    return Error::success();
  }
  if (auto *L = dyn_cast<LoadInst>(&I)) {
    if (X.K == Shape::Uni) {
      Instruction *NI = I.clone();
      NI->setOperand(0, uni(L->getPointerOperand()));
      R = B.Insert(NI, I.getName());
    } else {
      R = emitLoad(*L, Mask);
    }
    define(&I, R);
    return Error::success();
  }
  if (auto *S = dyn_cast<StoreInst>(&I)) {
    emitStore(*S, Mask);
    return Error::success();
  }
  if (isa<FenceInst>(I)) {
    B.Insert(I.clone());
    return Error::success();
  }
  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) {
    define(&I, scalarise(I, Mask));
    return Error::success();
  }
  if (I.getOpcode() == Instruction::Or && X.K != Shape::Var &&
      (A.shape(I.getOperand(0)).K == Shape::Aff || A.shape(I.getOperand(1)).K == Shape::Aff)) {
    // A disjoint or of affine values adds their bases.
    define(&I, B.CreateAdd(uni(I.getOperand(0)), uni(I.getOperand(1)), I.getName()));
    return Error::success();
  }
  if (auto *Z = dyn_cast<ZExtInst>(&I); Z && X.K == Shape::Aff) {
    // An unsigned 32-bit index (shared addresses above all) may wrap below
    // zero in lanes the mask turns off, lane 0 included (`S[i - d]` with
    // i < d, or CUB's `keys[tile * items - 1]` with tile 0 masked): when
    // lane 0 plus the largest offset passes the top of the source type, the
    // lanes that wrapped are the ones to get right, so the base is taken as
    // lane 0's value minus 2^width. With a symbolic part (a run-time stride)
    // the largest offset is known only at run time: it is the maximum of the
    // lanes' offsets, as the wide value's users compute them.
    Value *Src = uni(Z->getOperand(0));
    unsigned W = Src->getType()->getIntegerBitWidth();
    Type *WT = I.getType();
    Value *Wide = B.CreateZExt(Src, WT, I.getName());
    Value *Over = nullptr;
    if (W < WT->getIntegerBitWidth() && !X.Sym) {
      int64_t Max = extent(A.pattern(A.shape(Z->getOperand(0)))).second;
      if (Max > 0) {
        APInt Lim = APInt::getMaxValue(W) - uint64_t(Max);
        Over = B.CreateICmpUGT(Src, ConstantInt::get(Src->getType(), Lim));
      }
    } else if (W < WT->getIntegerBitWidth()) {
      Value *Off = B.CreateAdd(lanesConst(WT, A.pattern(X)),
                               B.CreateMul(lanesConst(WT, A.coefficients(X)), B.CreateVectorSplat(Lanes, symValue(X, WT))));
      Value *Max = B.CreateIntMaxReduce(Off, /*IsSigned=*/true);
      Value *Top = ConstantInt::get(WT, APInt::getMaxValue(W).zext(WT->getIntegerBitWidth()));
      Over = B.CreateAnd(B.CreateICmpSGT(Max, ConstantInt::get(WT, 0)), B.CreateICmpUGT(B.CreateAdd(Wide, Max), Top));
    }
    if (Over) {
      Value *Down = B.CreateSub(Wide, ConstantInt::get(WT, APInt::getOneBitSet(WT->getIntegerBitWidth(), W)));
      Wide = B.CreateSelect(Over, Down, Wide);
    }
    define(&I, Wide);
    return Error::success();
  }
  if (X.K == Shape::Uni || X.K == Shape::Aff) {
    Instruction *NI = I.clone();
    for (unsigned K = 0; K < I.getNumOperands(); ++K) {
      Value *Op = I.getOperand(K);
      if (!isa<BasicBlock>(Op) && !isa<Function>(Op) && !isa<MetadataAsValue>(Op))
        NI->setOperand(K, uni(Op));
    }
    R = B.Insert(NI, I.getName());
    define(&I, R);
    return Error::success();
  }
  R = emitVarGeneric(I, Mask);
  if (R)
    define(&I, R);
  return Error::success();
}

/// Warp collectives of a group function: each warp (32-lane segment) of the
/// group on its own; member masks are uniform (Analysis checks).
Error Emitter::emitGroupCollective(CallInst &CI, Value *Mask) {
  StringRef N = CI.getCalledFunction()->getName();
  Type *I32 = B.getInt32Ty();
  unsigned G = Lanes / 32;
  auto *GV = FixedVectorType::get(I32, G);
  auto Def = [&](Value *V) {
    define(&CI, V);
    return Error::success();
  };
  if (N == "ferry.activemask")
    return Def(spreadWarps(warpBits(Mask)));
  Value *Act = B.CreateAnd(Mask, maskOf(uni(CI.getArgOperand(0))));
  Value *In = vec(CI.getArgOperand(1));
  if (N.starts_with("ferry.vote.")) {
    Value *Yes = warpBits(B.CreateAnd(Act, In));
    Value *All = warpBits(Act);
    Value *Zero = Constant::getNullValue(GV);
    if (N == "ferry.vote.ballot")
      return Def(spreadWarps(Yes));
    if (N == "ferry.vote.all")
      return Def(spreadWarps(B.CreateICmpEQ(Yes, All)));
    if (N == "ferry.vote.any")
      return Def(spreadWarps(B.CreateICmpNE(Yes, Zero)));
    return Def(spreadWarps(B.CreateOr(B.CreateICmpEQ(Yes, All), B.CreateICmpEQ(Yes, Zero))));
  }
  StringRef K = N.drop_front(strlen("ferry.redux."));
  Value *V = B.CreateSelect(Act, In, splat(B.getInt32(reduxIdentity(K)), I32));
  Value *R = PoisonValue::get(GV);
  for (unsigned Wp = 0; Wp < G; ++Wp) {
    SmallVector<int, 32> Idx;
    for (unsigned L = 0; L < 32; ++L)
      Idx.push_back(int(Wp * 32 + L));
    R = B.CreateInsertElement(R, reduxReduce(K, B.CreateShuffleVector(V, Idx)), Wp);
  }
  return Def(spreadWarps(R));
}

Error Emitter::emitCall(CallInst &CI, Value *Mask) {
  Function *F = CI.getCalledFunction();
  StringRef N = F->getName();
  Shape X = A.shape(&CI);
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty(), *Ptr = B.getPtrTy();
  Value *Ctx = W->getArg(1);
  auto Arg = [&](unsigned K) { return CI.getArgOperand(K); };
  auto Def = [&](Value *V) {
    define(&CI, V);
    return Error::success();
  };
  if (!N.starts_with("ferry.")) {
    if (auto *II = dyn_cast<IntrinsicInst>(&CI)) {
      switch (II->getIntrinsicID()) {
      case Intrinsic::lifetime_start:
      case Intrinsic::lifetime_end:
      case Intrinsic::assume:
      case Intrinsic::experimental_noalias_scope_decl:
        return Error::success();
      default:
        break;
      }
    }
    if (X.K == Shape::Uni) {
      bool AllUni = true;
      for (Value *Op : CI.args())
        AllUni &= A.shape(Op).K == Shape::Uni;
      if (AllUni) {
        Instruction *NI = CI.clone();
        for (unsigned K = 0; K < CI.arg_size(); ++K)
          NI->setOperand(K, uni(Arg(K)));
        Value *R = B.Insert(NI);
        if (!CI.getType()->isVoidTy())
          define(&CI, R);
        return Error::success();
      }
    }
    Value *R = CI.mayHaveSideEffects() ? scalarise(CI, Mask) : emitVarGeneric(CI, Mask);
    if (!CI.getType()->isVoidTy())
      define(&CI, R);
    return Error::success();
  }

  auto Geo = [&](unsigned Off, Type *T) { return Def(field(Off, T)); };
  if (N == "ferry.tid.x" || N == "ferry.tid.y" || N == "ferry.tid.z") {
    unsigned Dim = N.back() - 'x';
    // Uniform or affine, the scalar is lane 0's index.
    return Def(XW != 32 && Dim == 0 ? static_cast<Value *>(B.getInt32(0)) : W->getArg(2 + Dim));
  }
  if (N == "ferry.laneid")
    return Def(B.getInt32(0));
  if (Lanes > 32 && (N == "ferry.activemask" || N.starts_with("ferry.vote.") || N.starts_with("ferry.redux.")))
    return emitGroupCollective(CI, Mask);
  if (N == "ferry.ntid.x") return Geo(offsetof(BlockCtx, Ntid[0]), I32);
  if (N == "ferry.ntid.y") return Geo(offsetof(BlockCtx, Ntid[1]), I32);
  if (N == "ferry.ntid.z") return Geo(offsetof(BlockCtx, Ntid[2]), I32);
  if (N == "ferry.nctaid.x") return Geo(offsetof(BlockCtx, Nctaid[0]), I32);
  if (N == "ferry.nctaid.y") return Geo(offsetof(BlockCtx, Nctaid[1]), I32);
  if (N == "ferry.nctaid.z") return Geo(offsetof(BlockCtx, Nctaid[2]), I32);
  if (N == "ferry.ctaid.x") return Geo(offsetof(BlockCtx, Ctaid[0]), I32);
  if (N == "ferry.ctaid.y") return Geo(offsetof(BlockCtx, Ctaid[1]), I32);
  if (N == "ferry.ctaid.z") return Geo(offsetof(BlockCtx, Ctaid[2]), I32);
  if (N == "ferry.smid") return Geo(offsetof(BlockCtx, SmId), I32);
  if (N == "ferry.nsmid") return Geo(offsetof(BlockCtx, NSmId), I32);
  if (N == "ferry.gridid") return Geo(offsetof(BlockCtx, GridId), I64);
  if (N == "ferry.dynamic_smem_size") return Geo(offsetof(BlockCtx, DynSmemBytes), I32);
  if (N == "ferry.total_smem_size") return Geo(offsetof(BlockCtx, TotalSmemBytes), I32);
  if (N == "ferry.grid.workspace") return Geo(offsetof(BlockCtx, GridWorkspace), I64);
  if (N == "ferry.nwarpid")
    return Def(B.getInt32(32));
  if (N == "ferry.warpid") {
    Value *Nx = field(offsetof(BlockCtx, Ntid[0]), I32), *Ny = field(offsetof(BlockCtx, Ntid[1]), I32);
    Value *Lin = B.CreateAdd(W->getArg(2), B.CreateMul(Nx, B.CreateAdd(W->getArg(3), B.CreateMul(Ny, W->getArg(4)))));
    return Def(B.CreateLShr(Lin, 5));
  }
  if (N == "ferry.host.smem") {
    Value *Base = field(offsetof(BlockCtx, Smem), Ptr);
    return Def(B.CreateInBoundsGEP(B.getInt8Ty(), Base, uni(Arg(0))));
  }
  if (N == "ferry.host.dynsmem" || N == "ferry.dynamic_smem") {
    Value *Base = field(offsetof(BlockCtx, Smem), Ptr);
    Value *Off = field(offsetof(BlockCtx, DynSmemOffset), I32);
    return Def(B.CreateInBoundsGEP(B.getInt8Ty(), Base, B.CreateZExt(Off, I64)));
  }
  if (N == "ferry.clock" || N == "ferry.clock64") {
    Value *T = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {});
    return Def(N == "ferry.clock" ? B.CreateTrunc(T, I32) : T);
  }
  if (N == "ferry.globaltimer")
    return Def(B.CreateCall(rt("ferry_rt_globaltimer", I64, {})));
  if (N == "ferry.fence") {
    auto *Scope = dyn_cast<ConstantInt>(Arg(0));
    B.CreateFence(AtomicOrdering::SequentiallyConsistent,
                  Scope && Scope->isZero() ? SyncScope::SingleThread : SyncScope::System);
    return Error::success();
  }
  if (N == "ferry.bar.warp.sync") {
    B.CreateFence(AtomicOrdering::SequentiallyConsistent, SyncScope::SingleThread);
    return Error::success();
  }
  if (N.starts_with("ferry.bar.")) {
    BarOp Op = N == "ferry.bar.sync"       ? BarOp::Sync
               : N == "ferry.bar.arrive"   ? BarOp::Arrive
               : N == "ferry.bar.red.popc" ? BarOp::RedPopc
               : N == "ferry.bar.red.and"  ? BarOp::RedAnd
                                           : BarOp::RedOr;
    Value *Popc = B.getInt32(0);
    if (CI.arg_size() > 2)
      Popc = popcount(B.CreateAnd(Mask, vec(Arg(2))));
    Value *Active = popcount(Mask);
    Value *Id = uniformish(Arg(0), Mask), *Count = uniformish(Arg(1), Mask);
    BasicBlock *Join = nullptr;
    if (Op == BarOp::Sync) {
      // A function that runs the whole block (a group of 256 lanes for a
      // 16x16 block, a warp for a block of 32) is the block's only fiber:
      // the runtime would count its lanes, find the barrier complete and
      // return. Skipping the call keeps the FMA accumulators of a tiled
      // loop in registers across __syncthreads().
      Value *Nx = field(offsetof(BlockCtx, Ntid[0]), I32), *Ny = field(offsetof(BlockCtx, Ntid[1]), I32);
      Value *Nz = field(offsetof(BlockCtx, Ntid[2]), I32);
      Value *Alone = B.CreateICmpEQ(B.CreateMul(B.CreateMul(Nx, Ny), Nz), B.getInt32(Lanes));
      Value *Counted = B.CreateICmpULE(Count, B.getInt32(Lanes));
      BasicBlock *Call = BasicBlock::Create(C, "bar.call", W);
      Join = BasicBlock::Create(C, "bar.done", W);
      // The call weighs as unlikely, so that the register allocator puts
      // the spills around it (sixteen accumulators of a tile loop) on the
      // call's own path: where the call is taken it needs them anyway.
      B.CreateCondBr(B.CreateAnd(Alone, Counted), Join, Call, MDBuilder(C).createLikelyBranchWeights());
      B.SetInsertPoint(Call);
    }
    Value *R = B.CreateCall(rt("ferry_rt_wbar", I64, {Ptr, I32, I32, I32, I32, I32}),
                            {Ctx, B.getInt32(uint32_t(Op)), Id, Count, Popc, Active});
    Yields = true;
    if (Join) {
      B.CreateBr(Join);
      B.SetInsertPoint(Join);
      return Error::success();
    }
    if (Op == BarOp::RedPopc)
      return Def(B.CreateTrunc(R, I32));
    if (Op == BarOp::RedAnd)
      return Def(B.CreateICmpEQ(B.CreateTrunc(R, I32), B.CreateTrunc(B.CreateLShr(R, 32), I32)));
    if (Op == BarOp::RedOr)
      return Def(B.CreateICmpNE(B.CreateTrunc(R, I32), B.getInt32(0)));
    return Error::success();
  }
  if (N == "ferry.nanosleep") {
    B.CreateCall(rt("ferry_rt_wyield", B.getVoidTy(), {Ptr}), {Ctx});
    Yields = true;
    return Error::success();
  }
  // Warp collectives. Member masks are honoured together with the current
  // execution mask: a lane outside either does not take part.
  auto Members = [&](Value *MemberMask) { return B.CreateAnd(Mask, maskOf(uniformish(MemberMask, Mask))); };
  if (N == "ferry.activemask")
    return Def(bits(Mask));
  // A member mask that varies over the warp (sub-warp collectives): lane L
  // takes part with the running lanes of its own mask m_L.
  bool VaryingMembers = (N.starts_with("ferry.vote.") || N.starts_with("ferry.redux.")) &&
                        A.shape(Arg(0)).K != Shape::Uni;
  if (VaryingMembers && Lanes != 32)
    return refuse(N + " with a varying member mask in a group function");
  if (VaryingMembers && N.starts_with("ferry.vote.")) {
    Value *MemV = vec(Arg(0));
    Value *Yes = B.CreateAnd(B.CreateVectorSplat(Lanes, bits(B.CreateAnd(Mask, vec(Arg(1))))), MemV);
    Value *All = B.CreateAnd(B.CreateVectorSplat(Lanes, bits(Mask)), MemV);
    Value *Zero = splat(B.getInt32(0), I32);
    if (N == "ferry.vote.ballot")
      return Def(Yes);
    if (N == "ferry.vote.all")
      return Def(B.CreateICmpEQ(Yes, All));
    if (N == "ferry.vote.any")
      return Def(B.CreateICmpNE(Yes, Zero));
    return Def(B.CreateOr(B.CreateICmpEQ(Yes, All), B.CreateICmpEQ(Yes, Zero)));
  }
  if (VaryingMembers) {
    StringRef K = N.drop_front(strlen("ferry.redux."));
    Value *MemV = vec(Arg(0)), *In = vec(Arg(1));
    return Def(perLane(Mask, I32, [&](Value *L) -> Value * {
      Value *Act = B.CreateAnd(Mask, maskOf(B.CreateExtractElement(MemV, L)));
      return reduxReduce(K, B.CreateSelect(Act, In, splat(B.getInt32(reduxIdentity(K)), I32)));
    }));
  }
  if (N.starts_with("ferry.vote.")) {
    Value *Act = Members(Arg(0));
    Value *Yes = bits(B.CreateAnd(Act, vec(Arg(1))));
    Value *All = bits(Act);
    if (N == "ferry.vote.ballot")
      return Def(Yes);
    if (N == "ferry.vote.all")
      return Def(B.CreateICmpEQ(Yes, All));
    if (N == "ferry.vote.any")
      return Def(B.CreateICmpNE(Yes, B.getInt32(0)));
    return Def(B.CreateOr(B.CreateICmpEQ(Yes, All), B.CreateICmpEQ(Yes, B.getInt32(0))));
  }
  if (N.starts_with("ferry.redux.")) {
    Value *Act = Members(Arg(0));
    StringRef K = N.drop_front(strlen("ferry.redux."));
    Value *V = B.CreateSelect(Act, vec(Arg(1)), splat(B.getInt32(reduxIdentity(K)), I32));
    return Def(reduxReduce(K, V));
  }
  if (N == "ferry.elect.sync") {
    Value *Act = Members(Arg(0));
    Value *Leader = firstLane(Act);
    Value *Me = B.CreateICmpEQ(iota(), B.CreateVectorSplat(Lanes, Leader));
    Value *R = PoisonValue::get(wide(CI.getType()));
    R = B.CreateInsertValue(R, B.CreateVectorSplat(Lanes, Leader), 0);
    return Def(B.CreateInsertValue(R, Me, 1));
  }
  if (N.starts_with("ferry.match.")) {
    Value *Act = Members(Arg(0));
    Value *V = vec(Arg(1));
    bool All = N.starts_with("ferry.match.all");
    if (All) {
      Value *First = B.CreateExtractElement(V, firstLane(Act));
      Value *Same = B.CreateOr(B.CreateNot(Act), B.CreateICmpEQ(V, B.CreateVectorSplat(Lanes, First)));
      Value *Ok = B.CreateICmpEQ(bits(Same), B.getInt32(~0u));
      Value *R = PoisonValue::get(CI.getType());
      R = B.CreateInsertValue(R, B.CreateSelect(Ok, bits(Act), B.getInt32(0)), 0);
      return Def(B.CreateInsertValue(R, Ok, 1));
    }
    Value *ActBits = bits(Act);
    Value *R = perLane(Act, I32, [&](Value *L) -> Value * {
      Value *Mine = B.CreateVectorSplat(Lanes, B.CreateExtractElement(V, L));
      return B.CreateAnd(bits(B.CreateICmpEQ(V, Mine)), ActBits);
    });
    return Def(R);
  }
  if (N == "ferry.shfl.sync") {
    // PTX ISA shfl.sync: c packs the clamp (bits 0-4) and the segment mask
    // (bits 8-12); the source lane j and the in-range predicate per lane.
    auto *Mode = dyn_cast<ConstantInt>(Arg(0));
    if (!Mode)
      return refuse("shfl.sync with a variable mode");
    unsigned Md = unsigned(Mode->getZExtValue() & 3);
    Value *Val = vec(Arg(2));
    auto *KB = dyn_cast<ConstantInt>(Arg(3)), *KC = dyn_cast<ConstantInt>(Arg(4));
    Value *Out, *Pred;
    // The lanes a shuffle can read: those running it now, whatever the
    // member mask says (a converged warp exchanges among all its active
    // lanes: a mask from a ballot of `tid < n` is common), and live lanes
    // the mask names, which the program has running a matching shuffle on
    // another path. Any other source lane -- one that diverged away, has
    // exited, or does not exist in a partial warp -- gives 0, as NVIDIA
    // GPUs do; reduction code (the CUDA samples' reduce7 among it) sums
    // such reads and is right only with 0.
    Value *Live = Lanes == 32 ? maskOf(W->getArg(5)) : Constant::getAllOnesValue(maskTy());
    // With member masks that vary (sub-warp shuffles), the lanes any of the
    // running lanes' masks name.
    Value *Named = A.shape(Arg(1)).K == Shape::Uni
                       ? rep(Arg(1))
                       : B.CreateOrReduce(B.CreateSelect(Mask, vec(Arg(1)), splat(B.getInt32(0), I32)));
    Value *Present = B.CreateOr(Mask, B.CreateAnd(Live, maskOf(Named)));
    Value *Zero = Constant::getNullValue(Val->getType());
    if (KB && KC) {
      int32_t BV = int32_t(KB->getZExtValue() & 31), CV = int32_t(KC->getZExtValue() & 31),
              Seg = int32_t((KC->getZExtValue() >> 8) & 31);
      SmallVector<int, 32> Src;
      SmallVector<Constant *, 32> Ps;
      for (int32_t GL = 0; GL < int32_t(Lanes); ++GL) {
        // Lane L of the warp whose lane 0 is function lane Base.
        int32_t L = GL % 32, Base = GL - L;
        int32_t MaxLane = (L & Seg) | (CV & ~Seg), MinLane = L & Seg, J;
        bool P;
        switch (Md) {
        case 0: J = L - BV; P = J >= MaxLane; break;
        case 1: J = L + BV; P = J <= MaxLane; break;
        case 2: J = L ^ BV; P = J <= MaxLane; break;
        default: J = MinLane | (BV & ~Seg); P = J <= MaxLane; break;
        }
        if (!P || J < 0 || J > 31)
          J = L;
        Src.push_back(Base + J);
        Ps.push_back(B.getInt1(P));
      }
      Out = B.CreateSelect(B.CreateShuffleVector(Present, Src), B.CreateShuffleVector(Val, Src), Zero);
      Pred = ConstantVector::get(Ps);
    } else {
      Offsets InWarp{}, WarpBase{};
      for (unsigned L = 0; L < Lanes; ++L) {
        InWarp[L] = L % 32;
        WarpBase[L] = L - L % 32;
      }
      Value *Lane = lanesConst(I32, InWarp);
      Value *BV = B.CreateAnd(vec(Arg(3)), splat(B.getInt32(31), I32));
      Value *Cw = vec(Arg(4));
      Value *CV = B.CreateAnd(Cw, splat(B.getInt32(31), I32));
      Value *Seg = B.CreateAnd(B.CreateLShr(Cw, splat(B.getInt32(8), I32)), splat(B.getInt32(31), I32));
      Value *NotSeg = B.CreateNot(Seg);
      Value *MaxLane = B.CreateOr(B.CreateAnd(Lane, Seg), B.CreateAnd(CV, NotSeg));
      Value *J;
      switch (Md) {
      case 0: J = B.CreateSub(Lane, BV); Pred = B.CreateICmpSGE(J, MaxLane); break;
      case 1: J = B.CreateAdd(Lane, BV); Pred = B.CreateICmpSLE(J, MaxLane); break;
      case 2: J = B.CreateXor(Lane, BV); Pred = B.CreateICmpSLE(J, MaxLane); break;
      default:
        J = B.CreateOr(B.CreateAnd(Lane, Seg), B.CreateAnd(BV, NotSeg));
        Pred = B.CreateICmpSLE(J, MaxLane);
        break;
      }
      Value *InRange = B.CreateAnd(B.CreateICmpSGE(J, splat(B.getInt32(0), I32)),
                                   B.CreateICmpSLE(J, splat(B.getInt32(31), I32)));
      J = B.CreateSelect(B.CreateAnd(Pred, InRange), J, Lane);
      AllocaInst *Tmp = entryAlloca(wide(I32), "shfl.tmp", Align(64));
      B.CreateStore(Val, Tmp);
      Value *Ptrs = B.CreateGEP(I32, B.CreateVectorSplat(Lanes, Tmp), B.CreateAdd(J, lanesConst(I32, WarpBase)));
      Out = B.CreateMaskedGather(wide(I32), Ptrs, Align(4), Constant::getAllOnesValue(maskTy()),
                                 PoisonValue::get(wide(I32)));
      Value *SrcBits = B.CreateLShr(spreadWarps(warpBits(Present)), J);
      Value *SrcOn = B.CreateTrunc(SrcBits, FixedVectorType::get(B.getInt1Ty(), Lanes));
      Out = B.CreateSelect(SrcOn, Out, Zero);
    }
    Value *R = PoisonValue::get(wide(CI.getType()));
    R = B.CreateInsertValue(R, Out, 0);
    return Def(B.CreateInsertValue(R, Pred, 1));
  }
  if (N == "ferry.trap" || N == "ferry.brkpt") {
    Value *L = firstLane(Mask);
    B.CreateCall(rt("ferry_rt_trap", B.getVoidTy(), {Ptr, I32, I32, I32, I32}, true),
                 {Ctx, B.getInt32(uint32_t(N == "ferry.trap" ? TrapKind::Trap : TrapKind::Breakpoint)),
                  B.CreateExtractElement(tidVector(0), L), B.CreateExtractElement(tidVector(1), L),
                  B.CreateExtractElement(tidVector(2), L)});
    return Error::success();
  }
  if (N == "ferry.assertfail.lane") {
    // Every failing lane is reported, in lane order; prepare() made the
    // lanes return right after this call.
    perLane(Mask, B.getVoidTy(), [&](Value *L) -> Value * {
      B.CreateCall(rt("ferry_rt_assert_lane", B.getVoidTy(), {Ptr, Ptr, Ptr, I32, Ptr, I64, I32, I32, I32}),
                   {Ctx, lane(Arg(0), L), lane(Arg(1), L), lane(Arg(2), L), lane(Arg(3), L), lane(Arg(4), L),
                    B.CreateExtractElement(tidVector(0), L), B.CreateExtractElement(tidVector(1), L),
                    B.CreateExtractElement(tidVector(2), L)});
      return nullptr;
    });
    return Error::success();
  }
  if (N == "ferry.printf")
    return Def(perLane(Mask, I32, [&](Value *L) -> Value * {
      return B.CreateCall(rt("ferry_rt_printf", I32, {Ptr, Ptr, Ptr}), {Ctx, lane(Arg(0), L), lane(Arg(1), L)});
    }));
  if (N == "ferry.malloc")
    return Def(perLane(Mask, Ptr, [&](Value *L) -> Value * {
      return B.CreateCall(rt("ferry_rt_malloc", Ptr, {I64}), {lane(Arg(0), L)});
    }));
  if (N == "ferry.free") {
    perLane(Mask, B.getVoidTy(), [&](Value *L) -> Value * {
      B.CreateCall(rt("ferry_rt_free", B.getVoidTy(), {Ptr}), {lane(Arg(0), L)});
      return nullptr;
    });
    return Error::success();
  }
  if (N == "ferry.isspacep") {
    auto Test = [&](Value *Space, Value *P) -> Value * {
      Value *PI = B.CreatePtrToInt(P, I64);
      Value *Base = B.CreatePtrToInt(field(offsetof(BlockCtx, Smem), Ptr), I64);
      Value *Total = B.CreateZExt(field(offsetof(BlockCtx, TotalSmemBytes), I32), I64);
      Value *InShared = B.CreateICmpULT(B.CreateSub(PI, Base), Total);
      Value *Sp = B.CreatePtrToInt(B.CreateIntrinsic(Intrinsic::stacksave, {Ptr}, {}), I64);
      Value *InLocal = B.CreateICmpULT(B.CreateSub(PI, Sp), B.getInt64(1 << 22));
      Value *Global = B.CreateNot(B.CreateOr(InShared, InLocal));
      return B.CreateSelect(B.CreateICmpEQ(Space, B.getInt32(3)), InShared,
                            B.CreateSelect(B.CreateICmpEQ(Space, B.getInt32(5)), InLocal, Global));
    };
    if (X.K == Shape::Uni)
      return Def(Test(uni(Arg(0)), uni(Arg(1))));
    return Def(perLane(Mask, B.getInt1Ty(), [&](Value *L) { return Test(lane(Arg(0), L), lane(Arg(1), L)); }));
  }
  if (N == "ferry.txq" || N == "ferry.suq") {
    FunctionCallee Fn = rt(N == "ferry.txq" ? "ferry_rt_txq" : "ferry_rt_suq", I32, {Ptr, I64, I32});
    if (X.K == Shape::Uni)
      return Def(B.CreateCall(Fn, {Ctx, uni(Arg(0)), uni(Arg(1))}));
    return Def(perLane(Mask, I32, [&](Value *L) -> Value * {
      return B.CreateCall(Fn, {Ctx, lane(Arg(0), L), lane(Arg(1), L)});
    }));
  }
  if (N.starts_with("ferry.tex.") || N.starts_with("ferry.tld4.") || N == "ferry.suld" || N == "ferry.sust") {
    auto *V4 = FixedVectorType::get(I32, 4);
    AllocaInst *In = entryAlloca(V4, "tex.coords", Align(16));
    AllocaInst *Out = entryAlloca(V4, "tex.result", Align(16));
    const char *Name = N == "ferry.suld"                    ? "ferry_rt_suld"
                       : N == "ferry.sust"                  ? "ferry_rt_sust"
                       : N.starts_with("ferry.tex.")        ? "ferry_rt_tex"
                                                            : "ferry_rt_tld4";
    FunctionCallee Fn = rt(Name, B.getVoidTy(), {Ptr, I64, I32, Ptr, Ptr});
    Type *RT = CI.getType();
    Value *R = perLane(Mask, RT, [&](Value *L) -> Value * {
      B.CreateAlignedStore(B.CreateBitCast(lane(Arg(2), L), V4), In, Align(16));
      if (N == "ferry.sust")
        B.CreateAlignedStore(B.CreateBitCast(lane(Arg(3), L), V4), Out, Align(16));
      B.CreateCall(Fn, {Ctx, lane(Arg(0), L), lane(Arg(1), L), In, Out});
      if (RT->isVoidTy())
        return nullptr;
      return B.CreateBitCast(B.CreateAlignedLoad(V4, Out, Align(16)), RT);
    });
    if (!RT->isVoidTy())
      define(&CI, R);
    return Error::success();
  }
  return refuse("intrinsic '" + N + "'");
}

} // namespace

void addStridePrefetches(Module &M) {
  for (Function &F : M) {
    if (F.isDeclaration() || !(F.getName().contains(".ferry.warp") || F.getName().contains(".ferry.group")))
      continue;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    if (LI.empty())
      continue;
    TargetLibraryInfoImpl TLII(Triple(M.getTargetTriple()));
    TargetLibraryInfo TLI(TLII);
    AssumptionCache AC(F);
    ScalarEvolution SE(F, TLI, AC, DT, LI);
    SCEVExpander Exp(SE, M.getDataLayout(), "prefetch");
    SmallVector<std::pair<Instruction *, Value *>, 8> Sites;
    for (Instruction &I : instructions(F)) {
      Value *Ptr = nullptr;
      if (auto *L = dyn_cast<LoadInst>(&I); L && L->getType()->isVectorTy())
        Ptr = L->getPointerOperand();
      else if (auto *II = dyn_cast<IntrinsicInst>(&I); II && II->getIntrinsicID() == Intrinsic::masked_load)
        Ptr = II->getArgOperand(0);
      if (Ptr && LI.getLoopFor(I.getParent()))
        Sites.push_back({&I, Ptr});
    }
    // The address advance per iteration of L: SCEV does not see through the
    // integer address arithmetic PTX uses (inttoptr, sign extensions of
    // 32-bit indices), so walk the expression, assuming no wrap as the
    // vectorizer does.
    std::function<const SCEV *(const SCEV *, const Loop *)> Stride =
        [&](const SCEV *S, const Loop *L) -> const SCEV * {
      if (SE.isLoopInvariant(S, L))
        return SE.getZero(S->getType());
      if (auto *AR = dyn_cast<SCEVAddRecExpr>(S))
        return AR->getLoop() == L && AR->isAffine() && SE.isLoopInvariant(AR->getStepRecurrence(SE), L)
                   ? AR->getStepRecurrence(SE)
                   : nullptr;
      if (auto *C = dyn_cast<SCEVCastExpr>(S)) {
        const SCEV *X = Stride(C->getOperand(0), L);
        return X ? SE.getTruncateOrSignExtend(X, S->getType()) : nullptr;
      }
      if (auto *A = dyn_cast<SCEVAddExpr>(S)) {
        const SCEV *Sum = SE.getZero(S->getType());
        for (const SCEV *Op : A->operands()) {
          const SCEV *X = Stride(Op, L);
          if (!X)
            return nullptr;
          Sum = SE.getAddExpr(Sum, SE.getTruncateOrSignExtend(X, S->getType()));
        }
        return Sum;
      }
      if (auto *Mu = dyn_cast<SCEVMulExpr>(S); Mu && Mu->getNumOperands() == 2 && isa<SCEVConstant>(Mu->getOperand(0))) {
        const SCEV *X = Stride(Mu->getOperand(1), L);
        return X ? SE.getMulExpr(Mu->getOperand(0), SE.getTruncateOrSignExtend(X, S->getType())) : nullptr;
      }
      return nullptr;
    };
    for (auto &[I, Ptr] : Sites) {
      Loop *L = LI.getLoopFor(I->getParent());
      Value *Addr = Ptr;
      if (auto *I2P = dyn_cast<IntToPtrInst>(Ptr))
        Addr = I2P->getOperand(0);
      if (!SE.isSCEVable(Addr->getType()))
        continue;
      const SCEV *Step = Stride(SE.getSCEV(Addr), L);
      if (!Step || Step->isZero())
        continue;
      if (auto *K = dyn_cast<SCEVConstant>(Step); K && K->getAPInt().abs().ult(4096))
        continue; // The hardware prefetcher follows this.
      Step = SE.getTruncateOrSignExtend(Step, Type::getInt64Ty(M.getContext()));
      // The warp function's fast copy of a loop (every lane in it) is
      // entered from a block that also branches to the general copy: no
      // preheader, but one predecessor outside, where the distance can be
      // computed as well.
      BasicBlock *Pre = L->getLoopPredecessor();
      if (!Pre || !Exp.isSafeToExpandAt(Step, Pre->getTerminator()))
        continue;
      // Sixteen iterations ahead, every line of the access (two for a
      // warp's 128 bytes, eight for a group's 512).
      Value *Ahead = Exp.expandCodeFor(SE.getMulExpr(Step, SE.getConstant(Step->getType(), 16)),
                                       Type::getInt64Ty(M.getContext()), Pre->getTerminator());
      IRBuilder<> B(I);
      Value *P = B.CreateGEP(B.getInt8Ty(), Ptr, Ahead);
      uint64_t Bytes = M.getDataLayout().getTypeStoreSize(I->getType());
      for (uint64_t Off = 0; Off < Bytes; Off += 64)
        B.CreateIntrinsic(Intrinsic::prefetch, {P->getType()},
                          {B.CreateConstGEP1_64(B.getInt8Ty(), P, Off), B.getInt32(0), B.getInt32(3), B.getInt32(1)});
    }
  }
}

Expected<Function *> vectorizeKernel(Function &K, unsigned XWidth, unsigned Lanes, bool &Yields) {
  Expected<Function *> Prepared = prepare(K);
  if (!Prepared)
    return Prepared.takeError();
  Function *S = *Prepared;
  Module &M = *K.getParent();
  LLVMContext &C = M.getContext();
  auto Fail = [&](Error E) -> Expected<Function *> {
    S->eraseFromParent();
    return std::move(E);
  };
  for (unsigned I = 2; I < S->arg_size(); ++I)
    if (!S->getArg(I)->use_empty())
      return Fail(refuse("hidden thread-index parameters in use"));
  if (XWidth != 32) {
    // The narrow layouts only pay off for kernels that index by threadIdx.y.
    bool ReadsY = false;
    for (Instruction &I : instructions(*S))
      if (auto *CI = dyn_cast<CallInst>(&I))
        ReadsY |= CI->getCalledFunction() && CI->getCalledFunction()->getName() == "ferry.tid.y";
    if (!ReadsY)
      return Fail(refuse("layout " + Twine(XWidth) + " not needed: threadIdx.y is not read"));
  }
  if (S->getInstructionCount() > WarpMaxInstructions)
    return Fail(refuse("warp function not built: " + Twine(S->getInstructionCount()) + " instructions (most " +
                       Twine(WarpMaxInstructions) + ")"));
  DominatorTree DT(*S);
  LoopInfo LI(DT);
  if (Lanes > 32 && LI.empty())
    return Fail(refuse("group function not needed: no loop"));
  // A group function costs several times a warp function's compile time;
  // hot loops worth it (reductions, tiles, stencils) are small kernels.
  bool WideX = XWidth == 32 && Lanes > 128; // the 256-lane x-contiguous group
  if (Lanes > 32 && S->getInstructionCount() > (WideX ? WideGroupMaxInstructions : GroupMaxInstructions))
    return Fail(refuse("group function not built: " + Twine(S->getInstructionCount()) + " instructions"));
  if (Lanes > 32) {
    // Warps of a group run in lockstep, so a warp that waits in a loop for
    // another warp of its group (a flag, an mbarrier, a lock) would wait
    // forever: loops with atomics, volatile loads or sleeps keep the
    // kernel on warp functions, whose warps are separate fibers.
    for (Loop *L : LI.getLoopsInPreorder())
      for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB) {
          auto *CI = dyn_cast<CallInst>(&I);
          bool Sleeps = CI && CI->getCalledFunction() && CI->getCalledFunction()->getName() == "ferry.nanosleep";
          auto *Ld = dyn_cast<LoadInst>(&I);
          if (I.isAtomic() || (Ld && Ld->isVolatile()) || Sleeps)
            return Fail(refuse("group function: a loop may wait for another warp"));
        }
  }
  Analysis A(*S, XWidth, Lanes, DT, LI);
  if (Error E = A.run())
    return Fail(std::move(E));
  std::vector<Item> Order = orderRegion(*S, LI, nullptr);
  // Every edge must go forward in the order or be a loop's backedge;
  // anything else is irreducible control flow.
  std::vector<BasicBlock *> Flat;
  flatten(Order, Flat);
  if (Flat.size() != S->size())
    return Fail(refuse("unreachable or irreducible blocks"));
  DenseMap<BasicBlock *, unsigned> Pos;
  for (unsigned I = 0; I < Flat.size(); ++I)
    Pos[Flat[I]] = I;
  for (BasicBlock *BB : Flat)
    for (BasicBlock *Succ : successors(BB)) {
      Loop *L = LI.getLoopFor(Succ);
      bool Back = L && L->getHeader() == Succ && L->contains(BB);
      if (!Back && Pos[Succ] <= Pos[BB])
        return Fail(refuse("irreducible control flow"));
    }
  Type *I32 = Type::getInt32Ty(C), *Ptr = PointerType::get(C, 0);
  auto *FT = FunctionType::get(Type::getVoidTy(C), {Ptr, Ptr, I32, I32, I32, I32}, false);
  Function *W = Function::Create(FT, GlobalValue::ExternalLinkage,
                                 K.getName() + (Lanes > 32 ? ".ferry.group" : ".ferry.warp") + Twine(XWidth) +
                                     (WideX ? "x256" : ""),
                                 M);
  W->addParamAttr(0, Attribute::NoAlias);
  W->addParamAttr(0, Attribute::ReadOnly);
  W->addParamAttr(0, Attribute::NoCapture);
  if (uint64_t N = K.getParamDereferenceableBytes(0))
    W->addDereferenceableParamAttr(0, N);
  if (MaybeAlign PA = K.getParamAlign(0))
    W->addParamAttr(0, Attribute::getWithAlignment(C, *PA));
  W->addFnAttr(Attribute::NoUnwind);
  W->getArg(0)->setName("params");
  W->getArg(1)->setName("ctx");
  W->getArg(2)->setName("x0");
  W->getArg(3)->setName("y0");
  W->getArg(4)->setName("z0");
  W->getArg(5)->setName("mask");
  Emitter E(*S, W, A, LI, XWidth, Lanes);
  if (Error Err = E.run(Order)) {
    W->eraseFromParent();
    return Fail(std::move(Err));
  }
  Yields = E.Yields;
  S->eraseFromParent();
  // A vectorizer bug must cost this kernel its warp function, not the
  // module its compile.
  std::string Msg;
  raw_string_ostream OS(Msg);
  if (verifyFunction(*W, &OS)) {
    W->eraseFromParent();
    return refuse("internal: invalid warp function: " + OS.str());
  }
  return W;
}

} // namespace ferry::host::detail
