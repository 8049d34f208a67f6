//===- LowerMem.cpp - loads, stores, address conversion (PTX ISA 9.7.9) ----===//
/// \file
/// ld/ldu/st in every state space with .v2/.v4/.v8 vectors, the memory
/// semantics (.volatile → volatile; .relaxed/.acquire/.release with a scope
/// → atomic load/store with that ordering and syncscope), cvta/isspacep
/// (address-space casts; isspacep asks ferry.isspacep), the cache hints and
/// prefetches (no-ops: they never change results), and cp.async, which is
/// lowered to an immediate copy (memcpy of src-size bytes, zero fill to
/// cp-size), so commit_group/wait_group/wait_all have nothing to wait for
/// and are no-ops; visibility to other threads still comes from the
/// bar.sync that CUDA code issues after the wait.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {
unsigned vecCount(const Instruction &I) {
  return I.has(Modifier::V8) ? 8 : I.has(Modifier::V4) ? 4 : I.has(Modifier::V2) ? 2 : 1;
}

/// The numbering ferry.isspacep takes (SimtIntrinsics.def), 6 for param.
unsigned spaceCode(StateSpace S) {
  switch (S) {
  case StateSpace::Global: return 1;
  case StateSpace::Shared: return 3;
  case StateSpace::Const: return 4;
  case StateSpace::Local: return 5;
  case StateSpace::Param: return 6;
  default: return 0;
  }
}

/// The state spaces written on an instruction, in order (cp.async and cvta
/// name two or one).
SmallVector<StateSpace, 2> spaces(const Instruction &I) {
  SmallVector<StateSpace, 2> Out;
  for (Modifier M : I.Mods)
    switch (M) {
    case Modifier::Global: Out.push_back(StateSpace::Global); break;
    case Modifier::Shared: case Modifier::SharedCta: case Modifier::SharedCluster:
      Out.push_back(StateSpace::Shared); break;
    case Modifier::Const: Out.push_back(StateSpace::Const); break;
    case Modifier::Local: Out.push_back(StateSpace::Local); break;
    case Modifier::Param: case Modifier::ParamEntry: case Modifier::ParamFunc:
      Out.push_back(StateSpace::Param); break;
    default: break;
    }
  return Out;
}
} // namespace

Error FunctionLowering::lowerMem(const Instruction &I) {
  switch (I.Op) {
  case Opcode::Prefetch:
  case Opcode::Prefetchu:
  case Opcode::Applypriority:
  case Opcode::Discard:
  case Opcode::CpAsyncCommitGroup:
  case Opcode::CpAsyncWaitGroup:
  case Opcode::CpAsyncWaitAll:
    return Error::success();
  case Opcode::Createpolicy:
    return set(I.Ops[0], B.getInt64(0), ScalarType::B64);
  case Opcode::Mapa: {
    // Clusters have one CTA (LowerSreg.cpp): the only valid rank is 0 and
    // the address maps to itself.
    ScalarType T = I.lastType().value_or(ScalarType::U64);
    Expected<Value *> A = get(I.Ops[1], T);
    if (!A) return A.takeError();
    return set(I.Ops[0], *A, T);
  }
  case Opcode::Getctarank:
    return set(I.Ops[0], B.getInt32(0), ScalarType::U32);
  default:
    break;
  }

  if (I.Op == Opcode::Cvta) {
    // cvta.space.size d, a (space → generic); cvta.to.space.size (generic →
    // space). Both as address-space casts of the integer address.
    ScalarType T = I.lastType().value_or(ScalarType::U64);
    SmallVector<StateSpace, 2> Sp = spaces(I);
    if (Sp.size() != 1)
      return fail(spell(I) + " needs one state space");
    bool To = I.has(Modifier::To);
    // .address_size 32: generic and global addresses are the same 32-bit
    // numbers here, but a generic address of shared, local or constant
    // memory would be a host address above 4 GiB.
    if (ML.P.AddressSize == 32 && !To && Sp[0] != StateSpace::Global && bits(T) < 64)
      return fail("not lowered: " + spell(I) + " (.address_size 32): a generic address of ." +
                  stateSpaceName(Sp[0]).str() + " memory does not fit 32 bits on this 64-bit host");
    unsigned From = To ? 0 : addrSpaceOf(Sp[0]), Dest = To ? addrSpaceOf(Sp[0]) : 0;
    Expected<Value *> A = get(I.Ops[1], T);
    if (!A) return A.takeError();
    Value *P = B.CreateIntToPtr(B.CreateZExtOrTrunc(*A, B.getInt64Ty()), ptrTy(C, From));
    P = castPtr(P, Dest);
    return set(I.Ops[0], B.CreatePtrToInt(P, B.getIntNTy(bits(T))), T);
  }
  if (I.Op == Opcode::Isspacep) {
    SmallVector<StateSpace, 2> Sp = spaces(I);
    if (Sp.size() != 1)
      return fail(spell(I) + " needs one state space");
    Expected<Value *> A = get(I.Ops[1], ScalarType::U64);
    if (!A) return A.takeError();
    Value *R = call(Intr::IsSpace, {B.getInt32(spaceCode(Sp[0])), B.CreateIntToPtr(*A, ptrTy(C, 0))});
    return setPred(I.Ops[0], R);
  }
  if (I.Op == Opcode::CpAsync) {
    SmallVector<StateSpace, 2> Sp = spaces(I);
    if (Sp.size() != 2 || I.Ops.size() < 3 || I.Ops[2].K != Operand::Kind::Int)
      return notLowered(I);
    Expected<Value *> Dst = address(I.Ops[0], Sp[0]), Src = address(I.Ops[1], Sp[1]);
    if (!Dst) return Dst.takeError();
    if (!Src) return Src.takeError();
    uint64_t N = uint64_t(I.Ops[2].Int);
    Value *SrcSize = B.getInt64(N);
    if (I.Ops.size() > 3 && I.Ops[3].K != Operand::Kind::Sink) {
      RegRef R = lookupReg(I.Ops[3].Name);
      if (R.D && R.D->Type == ScalarType::Pred) { // ignore-src predicate
        Expected<Value *> P = getPred(I.Ops[3]);
        if (!P) return P.takeError();
        SrcSize = B.CreateSelect(*P, B.getInt64(0), B.getInt64(N));
      } else {
        Expected<Value *> S = get(I.Ops[3], ScalarType::U32);
        if (!S) return S.takeError();
        SrcSize = callLLVM(Intrinsic::umin, {B.getInt64Ty()}, {B.CreateZExt(*S, B.getInt64Ty()), B.getInt64(N)});
      }
    }
    B.CreateMemCpy(*Dst, MaybeAlign(), *Src, MaybeAlign(), SrcSize);
    if (!isa<ConstantInt>(SrcSize) || cast<ConstantInt>(SrcSize)->getZExtValue() != N)
      B.CreateMemSet(B.CreateGEP(B.getInt8Ty(), *Dst, SrcSize), B.getInt8(0),
                     B.CreateSub(B.getInt64(N), SrcSize), MaybeAlign());
    return Error::success();
  }

  // ld / ldu / st.
  std::optional<ScalarType> TO = I.lastType();
  if (!TO)
    return fail("missing type on " + spell(I));
  ScalarType T = *TO;
  StateSpace S = I.space();
  unsigned N = vecCount(I);
  bool IsStore = I.Op == Opcode::St;
  const Operand &AddrOp = IsStore ? I.Ops[0] : I.Ops[1];
  const Operand &ValOp = IsStore ? I.Ops[1] : I.Ops[0];
  Expected<Value *> P = address(AddrOp, S);
  if (!P)
    return P.takeError();
  Type *ET = valType(T);
  if (T == ScalarType::Pred)
    return fail("ld/st of .pred");
  Type *MT = N > 1 ? static_cast<Type *>(FixedVectorType::get(ET, N)) : ET;
  Align Al(std::max<uint64_t>(1, (bits(T) + 7) / 8 * N));
  bool Volatile = I.has(Modifier::Volatile) || I.has(Modifier::Mmio);
  AtomicOrdering Ord = AtomicOrdering::NotAtomic;
  if (I.has(Modifier::Relaxed)) Ord = AtomicOrdering::Monotonic;
  else if (I.has(Modifier::Acquire)) Ord = AtomicOrdering::Acquire;
  else if (I.has(Modifier::Release)) Ord = AtomicOrdering::Release;
  if (Ord != AtomicOrdering::NotAtomic && (N > 1 || bits(T) > 64)) {
    Ord = AtomicOrdering::NotAtomic; // Vector accesses cannot be atomic in LLVM.
    Volatile = true;
  }
  if (!IsStore) {
    LoadInst *L = B.CreateAlignedLoad(MT, *P, Al, Volatile);
    if (Ord != AtomicOrdering::NotAtomic)
      L->setAtomic(Ord, syncScope(I, true));
    if (N == 1)
      return set(ValOp, L, T);
    if (ValOp.K != Operand::Kind::Vector || ValOp.Elems.size() != N)
      return fail(spell(I) + " needs a {vector} of " + Twine(N) + " destinations");
    for (unsigned K = 0; K < N; ++K)
      if (Error E = set(ValOp.Elems[K], B.CreateExtractElement(L, K), T))
        return E;
    return Error::success();
  }
  Value *V;
  if (N == 1) {
    Expected<Value *> X = get(ValOp, T);
    if (!X) return X.takeError();
    V = *X;
  } else {
    if (ValOp.K != Operand::Kind::Vector || ValOp.Elems.size() != N)
      return fail(spell(I) + " needs a {vector} of " + Twine(N) + " sources");
    V = PoisonValue::get(MT);
    for (unsigned K = 0; K < N; ++K) {
      Value *E;
      if (ValOp.Elems[K].K == Operand::Kind::Sink) {
        E = Constant::getNullValue(ET);
      } else {
        Expected<Value *> X = get(ValOp.Elems[K], T);
        if (!X) return X.takeError();
        E = *X;
      }
      V = B.CreateInsertElement(V, E, K);
    }
  }
  StoreInst *St = B.CreateAlignedStore(V, *P, Al, Volatile);
  if (Ord != AtomicOrdering::NotAtomic)
    St->setAtomic(Ord, syncScope(I, true));
  return Error::success();
}

} // namespace ferry::ptx::lower
