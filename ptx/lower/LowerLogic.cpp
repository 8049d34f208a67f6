//===- LowerLogic.cpp - logic, shifts, permutes, comparisons ---------------===//
/// \file
/// PTX ISA 9.7.8 (and/or/xor/not/cnot/lop3/shf/shl/shr), prmt (9.7.9.7) and
/// the comparison and selection instructions (9.7.6, 9.7.7: set/setp/selp/
/// slct, including the half forms). Shifts are defined for every amount, as
/// PTX specifies: amounts ≥ the width give 0 (shl, shr.u) or the sign fill
/// (shr.s); shf.clamp clamps to 32, shf.wrap takes the amount mod 32.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {
/// prmt's special modes as generic byte selectors, per c[1:0] (PTX ISA
/// 9.7.9.7 table): each entry lists the source bytes of d.b0..d.b3.
uint32_t prmtControl(Modifier Mode, unsigned Sel) {
  static const uint8_t F4e[4][4] = {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}};
  static const uint8_t B4e[4][4] = {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}};
  static const uint8_t Rc8[4][4] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}};
  static const uint8_t Ecl[4][4] = {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}};
  static const uint8_t Ecr[4][4] = {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
  static const uint8_t Rc16[4][4] = {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}};
  const uint8_t(*T)[4] = Mode == Modifier::F4e ? F4e : Mode == Modifier::B4e ? B4e
                       : Mode == Modifier::Rc8 ? Rc8 : Mode == Modifier::Ecl ? Ecl
                       : Mode == Modifier::Ecr ? Ecr : Rc16;
  uint32_t Ctl = 0;
  for (unsigned K = 0; K < 4; ++K)
    Ctl |= uint32_t(T[Sel][K]) << (4 * K);
  return Ctl;
}

CmpInst::Predicate cmpPredicate(Modifier M, bool Float, bool Signed) {
  switch (M) {
  case Modifier::Eq: return Float ? CmpInst::FCMP_OEQ : CmpInst::ICMP_EQ;
  case Modifier::Ne: return Float ? CmpInst::FCMP_ONE : CmpInst::ICMP_NE;
  case Modifier::Lt: return Float ? CmpInst::FCMP_OLT : Signed ? CmpInst::ICMP_SLT : CmpInst::ICMP_ULT;
  case Modifier::Le: return Float ? CmpInst::FCMP_OLE : Signed ? CmpInst::ICMP_SLE : CmpInst::ICMP_ULE;
  case Modifier::Gt: return Float ? CmpInst::FCMP_OGT : Signed ? CmpInst::ICMP_SGT : CmpInst::ICMP_UGT;
  case Modifier::Ge: return Float ? CmpInst::FCMP_OGE : Signed ? CmpInst::ICMP_SGE : CmpInst::ICMP_UGE;
  case Modifier::Lo: return CmpInst::ICMP_ULT;
  case Modifier::Ls: return CmpInst::ICMP_ULE;
  case Modifier::Hi: return CmpInst::ICMP_UGT;
  case Modifier::Hs: return CmpInst::ICMP_UGE;
  case Modifier::Equ: return CmpInst::FCMP_UEQ;
  case Modifier::Neu: return CmpInst::FCMP_UNE;
  case Modifier::Ltu: return CmpInst::FCMP_ULT;
  case Modifier::Leu: return CmpInst::FCMP_ULE;
  case Modifier::Gtu: return CmpInst::FCMP_UGT;
  case Modifier::Geu: return CmpInst::FCMP_UGE;
  case Modifier::Num: return CmpInst::FCMP_ORD;
  case Modifier::Nan: return CmpInst::FCMP_UNO;
  default: return CmpInst::BAD_ICMP_PREDICATE;
  }
}
} // namespace

Error FunctionLowering::lowerLogic(const Instruction &I) {
  std::optional<ScalarType> TO = I.lastType();
  if (!TO)
    return fail("missing type on " + spell(I));
  ScalarType T = *TO;
  auto Src = [&](unsigned K, ScalarType Ty) -> Expected<Value *> {
    if (K >= I.Ops.size())
      return fail(spell(I) + ": missing operand");
    return get(I.Ops[K], Ty);
  };
  unsigned W = bits(T);
  IntegerType *IT = T == ScalarType::Pred ? B.getInt1Ty() : B.getIntNTy(W);
  if (T != ScalarType::Pred)
    T = W == 16 ? ScalarType::B16 : W == 32 ? ScalarType::B32 : W == 64 ? ScalarType::B64 : T;

  switch (I.Op) {
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor: {
    Expected<Value *> A = Src(1, T), Bv = Src(2, T);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    Value *R = I.Op == Opcode::And ? B.CreateAnd(*A, *Bv) : I.Op == Opcode::Or ? B.CreateOr(*A, *Bv)
                                                                               : B.CreateXor(*A, *Bv);
    return set(I.Ops[0], R, T);
  }
  case Opcode::Not:
  case Opcode::Cnot: {
    Expected<Value *> A = Src(1, T);
    if (!A) return A.takeError();
    Value *R = I.Op == Opcode::Not ? B.CreateNot(*A)
                                   : B.CreateZExt(B.CreateICmpEQ(*A, ConstantInt::get(IT, 0)), IT);
    return set(I.Ops[0], R, T);
  }
  case Opcode::Lop3: {
    // lop3.b32 d, a, b, c, immLut: the LUT bit at index (a<<2 | b<<1 | c)
    // gives each result bit (a = 0xF0, b = 0xCC, c = 0xAA).
    Expected<Value *> A = Src(1, T), Bv = Src(2, T), Cv = Src(3, T);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!Cv) return Cv.takeError();
    if (I.Ops.size() < 5 || I.Ops[4].K != Operand::Kind::Int)
      return fail("lop3 needs an immediate LUT");
    unsigned Lut = unsigned(I.Ops[4].Int) & 0xFF;
    Value *R = ConstantInt::get(IT, 0);
    for (unsigned K = 0; K < 8; ++K) {
      if (!(Lut >> K & 1))
        continue;
      Value *X = (K & 4) ? *A : B.CreateNot(*A);
      Value *Y = (K & 2) ? *Bv : B.CreateNot(*Bv);
      Value *Z = (K & 1) ? *Cv : B.CreateNot(*Cv);
      R = B.CreateOr(R, B.CreateAnd(X, B.CreateAnd(Y, Z)));
    }
    if (I.Ops[0].K == Operand::Kind::Pair) {
      // lop3.BoolOp d|p, a, b, c, lut, q: p = (d != 0) BoolOp q.
      Expected<Value *> Q = getPred(I.Ops[5]);
      if (!Q) return Q.takeError();
      Value *NZ = B.CreateICmpNE(R, ConstantInt::get(IT, 0));
      Value *P = I.has(Modifier::And) ? B.CreateAnd(NZ, *Q) : B.CreateOr(NZ, *Q);
      if (Error E = set(I.Ops[0].Elems[0], R, T))
        return E;
      return setPred(I.Ops[0].Elems[1], P);
    }
    return set(I.Ops[0], R, T);
  }
  case Opcode::Shl:
  case Opcode::Shr: {
    ScalarType VT = *I.lastType();
    bool S = isSigned(VT);
    Expected<Value *> A = Src(1, VT), N = Src(2, ScalarType::U32);
    if (!A) return A.takeError();
    if (!N) return N.takeError();
    Value *Amt = B.CreateZExtOrTrunc(*N, IT);
    Value *Big = B.CreateICmpUGE(*N, B.getInt32(W));
    Value *R;
    if (I.Op == Opcode::Shl) {
      R = B.CreateSelect(Big, ConstantInt::get(IT, 0), B.CreateShl(*A, B.CreateSelect(Big, ConstantInt::get(IT, 0), Amt)));
    } else if (S) {
      R = B.CreateAShr(*A, B.CreateSelect(Big, ConstantInt::get(IT, W - 1), Amt));
    } else {
      R = B.CreateSelect(Big, ConstantInt::get(IT, 0), B.CreateLShr(*A, B.CreateSelect(Big, ConstantInt::get(IT, 0), Amt)));
    }
    return set(I.Ops[0], R, VT);
  }
  case Opcode::Shf: {
    // shf.l: the high word of (b:a) << n; shf.r: the low word of (b:a) >> n.
    Expected<Value *> A = Src(1, ScalarType::B32), Bv = Src(2, ScalarType::B32), N = Src(3, ScalarType::U32);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!N) return N.takeError();
    bool Left = I.has(Modifier::L);
    Value *R;
    if (I.has(Modifier::Clamp)) {
      Value *Full = B.CreateICmpUGE(*N, B.getInt32(32));
      Value *F = callLLVM(Left ? Intrinsic::fshl : Intrinsic::fshr, {B.getInt32Ty()}, {*Bv, *A, *N});
      R = B.CreateSelect(Full, Left ? *A : *Bv, F);
    } else {
      R = callLLVM(Left ? Intrinsic::fshl : Intrinsic::fshr, {B.getInt32Ty()}, {*Bv, *A, *N});
    }
    return set(I.Ops[0], R, ScalarType::B32);
  }
  case Opcode::Prmt: {
    Expected<Value *> A = Src(1, ScalarType::B32), Bv = Src(2, ScalarType::B32), Cv = Src(3, ScalarType::B32);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!Cv) return Cv.takeError();
    Value *Ctl = *Cv;
    std::optional<Modifier> Mode = I.firstOfClass(MC_Misc);
    if (Mode) {
      Value *Sel = B.CreateAnd(*Cv, 3);
      Ctl = B.getInt32(prmtControl(*Mode, 0));
      for (unsigned K = 1; K < 4; ++K)
        Ctl = B.CreateSelect(B.CreateICmpEQ(Sel, B.getInt32(K)), B.getInt32(prmtControl(*Mode, K)), Ctl);
    }
    Value *Tmp = B.CreateOr(B.CreateShl(B.CreateZExt(*Bv, B.getInt64Ty()), 32), B.CreateZExt(*A, B.getInt64Ty()));
    Value *R = B.getInt32(0);
    for (unsigned K = 0; K < 4; ++K) {
      Value *Nib = B.CreateAnd(B.CreateLShr(Ctl, 4 * K), 0xF);
      Value *Sh = B.CreateZExt(B.CreateMul(B.CreateAnd(Nib, 7), B.getInt32(8)), B.getInt64Ty());
      Value *Byte = B.CreateAnd(B.CreateTrunc(B.CreateLShr(Tmp, Sh), B.getInt32Ty()), 0xFF);
      if (!Mode) { // msb of the selector: replicate the byte's sign.
        Value *Rep = B.CreateICmpNE(B.CreateAnd(Nib, 8), B.getInt32(0));
        Value *Sign = B.CreateSelect(B.CreateICmpNE(B.CreateAnd(Byte, 0x80), B.getInt32(0)), B.getInt32(0xFF), B.getInt32(0));
        Byte = B.CreateSelect(Rep, Sign, Byte);
      }
      R = B.CreateOr(R, B.CreateShl(Byte, 8 * K));
    }
    return set(I.Ops[0], R, ScalarType::B32);
  }
  default:
    return notLowered(I);
  }
}

Error FunctionLowering::lowerCompare(const Instruction &I) {
  std::optional<ScalarType> TO = I.lastType();
  if (!TO)
    return fail("missing type on " + spell(I));
  ScalarType T = *TO;
  switch (I.Op) {
  case Opcode::Selp: {
    Expected<Value *> A = get(I.Ops[1], T), Bv = get(I.Ops[2], T), P = getPred(I.Ops[3]);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!P) return P.takeError();
    return set(I.Ops[0], B.CreateSelect(*P, *A, *Bv), T);
  }
  case Opcode::Slct: {
    // slct.dtype.ctype d, a, b, c: c >= 0 ? a : b (c is s32 or f32).
    ScalarType DT = *I.firstType();
    Expected<Value *> A = get(I.Ops[1], DT), Bv = get(I.Ops[2], DT), Cv = get(I.Ops[3], T);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!Cv) return Cv.takeError();
    Value *Cond;
    if (T == ScalarType::F32) {
      Value *X = I.has(Modifier::Ftz) ? flush(*Cv) : *Cv;
      Cond = B.CreateFCmpOGE(X, ConstantFP::get(X->getType(), 0.0));
    } else {
      Cond = B.CreateICmpSGE(*Cv, ConstantInt::get((*Cv)->getType(), 0));
    }
    return set(I.Ops[0], B.CreateSelect(Cond, *A, *Bv), DT);
  }
  case Opcode::Set:
  case Opcode::Setp: {
    std::optional<Modifier> CmpM = I.firstOfClass(MC_Cmp);
    if (!CmpM)
      return fail("missing comparison on " + spell(I));
    bool Fl = isFloat(T);
    CmpInst::Predicate Pred = cmpPredicate(*CmpM, Fl, isSigned(T));
    if (Pred == CmpInst::BAD_ICMP_PREDICATE || (Fl != CmpInst::isFPPredicate(Pred)))
      return fail("comparison ." + modifierName(*CmpM).str() + " does not apply to ." + typeName(T).str());
    Expected<Value *> A = get(I.Ops[1], T), Bv = get(I.Ops[2], T);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    Value *X = *A, *Y = *Bv;
    if (I.has(Modifier::Ftz)) {
      X = flush(X);
      Y = flush(Y);
    }
    Value *Cmp = Fl ? B.CreateFCmp(Pred, X, Y) : B.CreateICmp(Pred, X, Y);
    // Optional boolean combination with a predicate: .and/.or/.xor c.
    std::optional<Modifier> BoolOp;
    for (Modifier M : I.Mods)
      if (M == Modifier::And || M == Modifier::Or || M == Modifier::Xor)
        BoolOp = M;
    Value *Cin = nullptr;
    if (BoolOp) {
      if (I.Ops.size() < 4)
        return fail(spell(I) + " needs a predicate to combine with");
      Expected<Value *> P = getPred(I.Ops[3]);
      if (!P) return P.takeError();
      Cin = *P;
      if (Cmp->getType()->isVectorTy())
        Cin = B.CreateVectorSplat(2, Cin);
    }
    auto Combine = [&](Value *V) -> Value * {
      if (!BoolOp)
        return V;
      return *BoolOp == Modifier::And ? B.CreateAnd(V, Cin) : *BoolOp == Modifier::Or ? B.CreateOr(V, Cin)
                                                                                      : B.CreateXor(V, Cin);
    };
    if (I.Op == Opcode::Setp) {
      bool Pair = I.Ops[0].K == Operand::Kind::Pair;
      if (Cmp->getType()->isVectorTy()) {
        // setp.f16x2 p|q: p from the low halves, q from the high halves.
        Value *R = Combine(Cmp);
        const Operand &D0 = Pair ? I.Ops[0].Elems[0] : I.Ops[0];
        if (Error E = setPred(D0, B.CreateExtractElement(R, uint64_t(0))))
          return E;
        if (Pair)
          return setPred(I.Ops[0].Elems[1], B.CreateExtractElement(R, uint64_t(1)));
        return Error::success();
      }
      if (!Pair)
        return setPred(I.Ops[0], Combine(Cmp));
      if (Error E = setPred(I.Ops[0].Elems[0], Combine(Cmp)))
        return E;
      return setPred(I.Ops[0].Elems[1], Combine(B.CreateNot(Cmp)));
    }
    // set.cmp.dtype.stype d: 1.0 / 0xFFFFFFFF when true, 0 when false; the
    // f16x2 form sets each half.
    ScalarType DT = *I.firstType();
    Value *R = Combine(Cmp);
    Type *DVT = valType(DT);
    Value *True, *False = Constant::getNullValue(DVT);
    if (isFloat(DT))
      True = ConstantFP::get(DVT, 1.0);
    else if (DVT->isVectorTy())
      True = Constant::getAllOnesValue(DVT);
    else
      True = Constant::getAllOnesValue(DVT);
    if (R->getType()->isVectorTy() && !DVT->isVectorTy()) {
      // set.u32.f16x2: each 16-bit half of d is all ones or zero.
      Value *Halves = B.CreateSExt(R, FixedVectorType::get(B.getInt16Ty(), 2));
      return set(I.Ops[0], B.CreateBitCast(Halves, B.getInt32Ty()), DT);
    }
    return set(I.Ops[0], B.CreateSelect(R, True, False), DT);
  }
  default:
    return notLowered(I);
  }
}

} // namespace ferry::ptx::lower
