//===- LowerWarp.cpp - barriers, fences, warp collectives ------------------===//
/// \file
/// PTX ISA 9.7.13: bar/barrier (sync, arrive, red) → ferry.bar.*,
/// bar.warp.sync, membar/fence → ferry.fence(scope, semantics) (proxy fences
/// are no-ops: ferry has one memory proxy), vote/match/redux/activemask/
/// elect and shfl (9.7.9.6) → their ferry intrinsics. The pre-sm_70 forms
/// without .sync and a member mask take ferry.activemask() as the mask.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

using namespace llvm;

namespace ferry::ptx::lower {

Error FunctionLowering::lowerWarp(const Instruction &I) {
  auto U32 = [&](unsigned K) -> Expected<Value *> {
    if (K >= I.Ops.size())
      return fail(spell(I) + ": missing operand");
    return get(I.Ops[K], ScalarType::U32);
  };
  // The member mask operand at index K, or the active mask when absent.
  auto Mask = [&](unsigned K) -> Expected<Value *> {
    if (K < I.Ops.size())
      return U32(K);
    return static_cast<Value *>(call(Intr::ActiveMask));
  };
  switch (I.Op) {
  case Opcode::Bar:
  case Opcode::Barrier: {
    if (I.has(Modifier::Red)) {
      if (I.Ops.size() < 3)
        return fail(spell(I) + ": missing operands");
      Expected<Value *> Id = U32(1);
      if (!Id) return Id.takeError();
      Value *Count = B.getInt32(0);
      if (I.Ops.size() == 4) {
        Expected<Value *> N = U32(2);
        if (!N) return N.takeError();
        Count = *N;
      }
      Expected<Value *> P = getPred(I.Ops.back());
      if (!P) return P.takeError();
      if (I.has(Modifier::Popc))
        return set(I.Ops[0], call(Intr::BarRedPopc, {*Id, Count, *P}), ScalarType::U32);
      Value *R = call(I.has(Modifier::And) ? Intr::BarRedAnd : Intr::BarRedOr, {*Id, Count, *P});
      return setPred(I.Ops[0], R);
    }
    Value *Id = B.getInt32(0), *Count = B.getInt32(0);
    if (!I.Ops.empty()) {
      Expected<Value *> V = U32(0);
      if (!V) return V.takeError();
      Id = *V;
    }
    if (I.Ops.size() > 1) {
      Expected<Value *> V = U32(1);
      if (!V) return V.takeError();
      Count = *V;
    }
    call(I.has(Modifier::Arrive) ? Intr::BarArrive : Intr::BarSync, {Id, Count});
    return Error::success();
  }
  case Opcode::BarrierCluster: {
    // Every CTA is a cluster of one in ferry (LowerSreg.cpp), so the
    // cluster barrier is a block barrier: arrive does nothing (its release
    // is covered by the wait's barrier), wait is bar.sync 0 with the
    // cluster-scope acquire-release fence the PTX semantics imply.
    if (I.has(Modifier::Arrive))
      return Error::success();
    call(Intr::Fence, {B.getInt32(1), B.getInt32(1)});
    call(Intr::BarSync, {B.getInt32(0), B.getInt32(0)});
    return Error::success();
  }
  case Opcode::BarWarpSync: {
    Expected<Value *> M = U32(0);
    if (!M) return M.takeError();
    call(Intr::BarWarpSync, {*M});
    return Error::success();
  }
  case Opcode::Membar:
  case Opcode::Fence: {
    if (I.has(Modifier::Proxy) || I.has(Modifier::Alias) || I.has(Modifier::Async) ||
        I.has(Modifier::Tensormap))
      return Error::success();
    unsigned Scope = 3;
    if (I.has(Modifier::Cta)) Scope = 0;
    else if (I.has(Modifier::Cluster)) Scope = 1;
    else if (I.has(Modifier::Gpu) || I.has(Modifier::Gl)) Scope = 2;
    unsigned Sem = I.has(Modifier::AcqRel) ? 1 : I.has(Modifier::Acquire) ? 2 : I.has(Modifier::Release) ? 3 : 0;
    call(Intr::Fence, {B.getInt32(Scope), B.getInt32(Sem)});
    return Error::success();
  }
  case Opcode::Vote: {
    bool Sync = I.has(Modifier::Sync);
    Expected<Value *> P = getPred(I.Ops[1]);
    if (!P) return P.takeError();
    Expected<Value *> M = Sync ? U32(2) : Mask(99);
    if (!M) return M.takeError();
    if (I.has(Modifier::Ballot))
      return set(I.Ops[0], call(Intr::VoteBallot, {*M, *P}), ScalarType::B32);
    Intr K = I.has(Modifier::All) ? Intr::VoteAll : I.has(Modifier::Any) ? Intr::VoteAny : Intr::VoteUni;
    return setPred(I.Ops[0], call(K, {*M, *P}));
  }
  case Opcode::Match: {
    ScalarType T = I.lastType().value_or(ScalarType::B32);
    bool Wide = bits(T) == 64;
    Expected<Value *> V = get(I.Ops[1], Wide ? ScalarType::B64 : ScalarType::B32);
    if (!V) return V.takeError();
    Expected<Value *> M = U32(2);
    if (!M) return M.takeError();
    if (I.has(Modifier::Any))
      return set(I.Ops[0], call(Wide ? Intr::MatchAny64 : Intr::MatchAny32, {*M, *V}), ScalarType::B32);
    Value *R = call(Wide ? Intr::MatchAll64 : Intr::MatchAll32, {*M, *V});
    if (I.Ops[0].K == Operand::Kind::Pair) {
      if (Error E = set(I.Ops[0].Elems[0], B.CreateExtractValue(R, 0), ScalarType::B32))
        return E;
      return setPred(I.Ops[0].Elems[1], B.CreateExtractValue(R, 1));
    }
    return set(I.Ops[0], B.CreateExtractValue(R, 0), ScalarType::B32);
  }
  case Opcode::Activemask:
    return set(I.Ops[0], call(Intr::ActiveMask), ScalarType::B32);
  case Opcode::Redux: {
    ScalarType T = I.lastType().value_or(ScalarType::B32);
    if (isFloat(T))
      return notLowered(I, "float redux");
    Expected<Value *> V = U32(1), M = U32(2);
    if (!V) return V.takeError();
    if (!M) return M.takeError();
    bool S = isSigned(T);
    Intr K;
    if (I.has(Modifier::Add)) K = Intr::ReduxAdd;
    else if (I.has(Modifier::Min)) K = S ? Intr::ReduxMinS : Intr::ReduxMinU;
    else if (I.has(Modifier::Max)) K = S ? Intr::ReduxMaxS : Intr::ReduxMaxU;
    else if (I.has(Modifier::And)) K = Intr::ReduxAnd;
    else if (I.has(Modifier::Or)) K = Intr::ReduxOr;
    else if (I.has(Modifier::Xor)) K = Intr::ReduxXor;
    else return notLowered(I);
    return set(I.Ops[0], call(K, {*M, *V}), T);
  }
  case Opcode::Elect: {
    Expected<Value *> M = U32(1);
    if (!M) return M.takeError();
    Value *R = call(Intr::ElectSync, {*M});
    if (I.Ops[0].K == Operand::Kind::Pair) {
      if (Error E = set(I.Ops[0].Elems[0], B.CreateExtractValue(R, 0), ScalarType::B32))
        return E;
      return setPred(I.Ops[0].Elems[1], B.CreateExtractValue(R, 1));
    }
    return setPred(I.Ops[0], B.CreateExtractValue(R, 1));
  }
  case Opcode::Shfl: {
    unsigned Mode = I.has(Modifier::Up) ? 0 : I.has(Modifier::Down) ? 1 : I.has(Modifier::Bfly) ? 2 : 3;
    Expected<Value *> A = U32(1), Bv = U32(2), Cv = U32(3);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!Cv) return Cv.takeError();
    Expected<Value *> M = I.has(Modifier::Sync) ? U32(4) : Expected<Value *>(B.getInt32(~0u));
    if (!M) return M.takeError();
    Value *R = call(Intr::ShflSync, {B.getInt32(Mode), *M, *A, *Bv, *Cv});
    if (I.Ops[0].K == Operand::Kind::Pair) {
      if (Error E = set(I.Ops[0].Elems[0], B.CreateExtractValue(R, 0), ScalarType::B32))
        return E;
      return setPred(I.Ops[0].Elems[1], B.CreateExtractValue(R, 1));
    }
    return set(I.Ops[0], B.CreateExtractValue(R, 0), ScalarType::B32);
  }
  default:
    return notLowered(I);
  }
}

} // namespace ferry::ptx::lower
