//===- LowerArith.cpp - integer arithmetic (PTX ISA 9.7.1, 9.7.2) ----------===//
/// \file
/// Integer arithmetic, extended-precision carry chains and the bit-field
/// instructions. Every form produces a defined value for every input, since
/// LLVM's division, remainder and shifts have undefined cases PTX does not:
///  - division by zero: quotient and remainder all ones (-1 / 0xFF..FF),
///    signed or not; INT_MIN / -1 (signed): quotient INT_MIN, remainder 0
///    (SimtIR.md; PTX leaves both unspecified, and these are what an H100
///    returns: tests/ptx-conformance);
///  - CC.CF (add.cc/addc/sub.cc/subc/mad.cc/madc) is an i1 per-function
///    register (readCarry/writeCarry), the carry out of a + b (+ CF) for
///    additions and of a + ~b + (1 or CF) for subtractions, so 1 means "no
///    borrow" (what an H100 leaves: tests/ptx-conformance);
///  - bfe with a zero length yields 0; bfe/bfi.b32 take pos and len from
///    the low bytes of their operands (the ISA's pseudocode), the 64-bit
///    forms take the whole 32-bit values (what an H100 does: a position past
///    63 leaves nothing to extract or insert);
///  - add/sub/min/max on .u16x2/.s16x2 work on each half on its own.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {
ScalarType widened(ScalarType T) {
  switch (T) {
  case ScalarType::U16: return ScalarType::U32;
  case ScalarType::S16: return ScalarType::S32;
  case ScalarType::U32: return ScalarType::U64;
  case ScalarType::S32: return ScalarType::S64;
  case ScalarType::B16: return ScalarType::B32;
  case ScalarType::B32: return ScalarType::B64;
  default: return T;
  }
}
} // namespace

/// add/sub/min/max{.relu} on .u16x2/.s16x2 (PTX ISA 9.7.1.1, 9.7.1.12,
/// 9.7.1.13): each 16-bit half on its own, as a <2 x i16> vector.
Error FunctionLowering::lowerIntPairArith(const Instruction &I, bool S) {
  if (I.Ops.size() != 3 || I.has(Modifier::Sat) || I.has(Modifier::Cc))
    return notLowered(I);
  auto *VT = FixedVectorType::get(B.getInt16Ty(), 2);
  Expected<Value *> A = get(I.Ops[1], ScalarType::B32), Bv = get(I.Ops[2], ScalarType::B32);
  if (!A) return A.takeError();
  if (!Bv) return Bv.takeError();
  Value *X = B.CreateBitCast(*A, VT), *Y = B.CreateBitCast(*Bv, VT), *R;
  switch (I.Op) {
  case Opcode::Add: R = B.CreateAdd(X, Y); break;
  case Opcode::Sub: R = B.CreateSub(X, Y); break;
  case Opcode::Min:
  case Opcode::Max: {
    Intrinsic::ID Id = I.Op == Opcode::Min ? (S ? Intrinsic::smin : Intrinsic::umin)
                                           : (S ? Intrinsic::smax : Intrinsic::umax);
    R = callLLVM(Id, {VT}, {X, Y});
    if (I.has(Modifier::Relu))
      R = callLLVM(Intrinsic::smax, {VT}, {R, Constant::getNullValue(VT)});
    break;
  }
  default: return notLowered(I);
  }
  return set(I.Ops[0], B.CreateBitCast(R, B.getInt32Ty()), ScalarType::B32);
}

Error FunctionLowering::lowerIntArith(const Instruction &I) {
  std::optional<ScalarType> TO = I.lastType();
  if (!TO)
    return fail("missing type on " + spell(I));
  ScalarType T = *TO;
  unsigned W = bits(T);
  if (W == 0 || W > 64 || typeKind(T) == TypeKind::Float || typeKind(T) == TypeKind::Pred)
    return notLowered(I, "type ." + typeName(T).str());
  bool S = isSigned(T);
  if (T == ScalarType::U16x2 || T == ScalarType::S16x2)
    return lowerIntPairArith(I, S);
  IntegerType *IT = B.getIntNTy(W);
  auto Src = [&](unsigned K) { return get(I.Ops[K], T); };
  auto Ext = [&](Value *V, unsigned To) { return S ? B.CreateSExt(V, B.getIntNTy(To)) : B.CreateZExt(V, B.getIntNTy(To)); };
  auto Need = [&](unsigned N) -> Error {
    return I.Ops.size() < N ? fail(spell(I) + " needs " + Twine(N) + " operands") : Error::success();
  };
  if (Error E = Need(2))
    return E;

  // Carry helpers: CC.CF is readCarry()/writeCarry().
  auto LoadCF = [&]() { return B.CreateZExt(readCarry(), IT); };
  auto AddCarry = [&](Value *A, Value *Bv, Value *Cin) -> std::pair<Value *, Value *> {
    Intrinsic::ID Id = Intrinsic::uadd_with_overflow;
    Value *R1 = callLLVM(Id, {IT}, {A, Bv});
    Value *V = B.CreateExtractValue(R1, 0), *O = B.CreateExtractValue(R1, 1);
    if (Cin) {
      Value *R2 = callLLVM(Id, {IT}, {V, Cin});
      V = B.CreateExtractValue(R2, 0);
      O = B.CreateOr(O, B.CreateExtractValue(R2, 1));
    }
    return {V, O};
  };

  switch (I.Op) {
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::Addc:
  case Opcode::Subc: {
    if (Error E = Need(3))
      return E;
    Expected<Value *> A = Src(1), Bv = Src(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    bool Sub = I.Op == Opcode::Sub || I.Op == Opcode::Subc;
    bool WithCin = I.Op == Opcode::Addc || I.Op == Opcode::Subc;
    Value *R;
    if (I.has(Modifier::Cc) || WithCin) {
      // A subtraction is a + ~b + carry-in, with carry-in 1 for sub.cc and
      // CC.CF for subc: CC.CF holds "no borrow" after a subtraction, as on
      // NVIDIA (a chain sub.cc/subc gives the same difference either way;
      // mixing add and sub carries, or reading CC.CF, shows which it is).
      auto [V, O] = Sub ? AddCarry(*A, B.CreateNot(*Bv), WithCin ? LoadCF() : ConstantInt::get(IT, 1))
                        : AddCarry(*A, *Bv, WithCin ? LoadCF() : nullptr);
      R = V;
      if (I.has(Modifier::Cc))
        writeCarry(O);
    } else if (I.has(Modifier::Sat)) {
      R = callLLVM(Sub ? Intrinsic::ssub_sat : Intrinsic::sadd_sat, {IT}, {*A, *Bv});
    } else {
      R = Sub ? B.CreateSub(*A, *Bv) : B.CreateAdd(*A, *Bv);
    }
    return set(I.Ops[0], R, T);
  }
  case Opcode::Mul:
  case Opcode::Mad:
  case Opcode::Madc: {
    bool IsMad = I.Op != Opcode::Mul;
    if (Error E = Need(IsMad ? 4 : 3))
      return E;
    Expected<Value *> A = Src(1), Bv = Src(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    Value *P;
    ScalarType RT = T;
    if (I.has(Modifier::Wide)) {
      RT = widened(T);
      P = B.CreateMul(Ext(*A, 2 * W), Ext(*Bv, 2 * W));
    } else if (I.has(Modifier::Hi)) {
      P = B.CreateTrunc(B.CreateLShr(B.CreateMul(Ext(*A, 2 * W), Ext(*Bv, 2 * W)), W), IT);
    } else {
      P = B.CreateMul(*A, *Bv);
    }
    if (!IsMad)
      return set(I.Ops[0], P, RT);
    Expected<Value *> Cv = get(I.Ops[3], RT);
    if (!Cv)
      return Cv.takeError();
    Value *R;
    if (I.has(Modifier::Sat) && I.has(Modifier::Hi) && T == ScalarType::S32) {
      // mad.hi.sat.s32: the sum saturates to the s32 range.
      R = callLLVM(Intrinsic::sadd_sat, {IT}, {P, *Cv});
    } else if (I.has(Modifier::Cc) || I.Op == Opcode::Madc) {
      IntegerType *RIT = cast<IntegerType>(P->getType());
      Value *Cin = I.Op == Opcode::Madc ? B.CreateZExt(readCarry(), RIT) : nullptr;
      Value *R1 = callLLVM(Intrinsic::uadd_with_overflow, {RIT}, {P, *Cv});
      R = B.CreateExtractValue(R1, 0);
      Value *O = B.CreateExtractValue(R1, 1);
      if (Cin) {
        Value *R2 = callLLVM(Intrinsic::uadd_with_overflow, {RIT}, {R, Cin});
        R = B.CreateExtractValue(R2, 0);
        O = B.CreateOr(O, B.CreateExtractValue(R2, 1));
      }
      if (I.has(Modifier::Cc))
        writeCarry(O);
    } else {
      R = B.CreateAdd(P, *Cv);
    }
    return set(I.Ops[0], R, RT);
  }
  case Opcode::Mul24:
  case Opcode::Mad24: {
    if (Error E = Need(I.Op == Opcode::Mad24 ? 4 : 3))
      return E;
    Expected<Value *> A = Src(1), Bv = Src(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    auto Low24 = [&](Value *V) {
      Value *X = S ? B.CreateAShr(B.CreateShl(V, 8), 8) : B.CreateAnd(V, 0xFFFFFF);
      return Ext(X, 64);
    };
    Value *P = B.CreateMul(Low24(*A), Low24(*Bv));
    Value *R = I.has(Modifier::Hi) ? B.CreateTrunc(B.CreateLShr(P, 16), IT) : B.CreateTrunc(P, IT);
    if (I.Op == Opcode::Mad24) {
      Expected<Value *> Cv = Src(3);
      if (!Cv) return Cv.takeError();
      R = I.has(Modifier::Sat) ? callLLVM(Intrinsic::sadd_sat, {IT}, {R, *Cv}) : B.CreateAdd(R, *Cv);
    }
    return set(I.Ops[0], R, T);
  }
  case Opcode::Sad: {
    if (Error E = Need(4))
      return E;
    Expected<Value *> A = Src(1), Bv = Src(2), Cv = Src(3);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!Cv) return Cv.takeError();
    Value *Gt = S ? B.CreateICmpSGT(*A, *Bv) : B.CreateICmpUGT(*A, *Bv);
    Value *D = B.CreateSelect(Gt, B.CreateSub(*A, *Bv), B.CreateSub(*Bv, *A));
    return set(I.Ops[0], B.CreateAdd(*Cv, D), T);
  }
  case Opcode::Div:
  case Opcode::Rem: {
    if (Error E = Need(3))
      return E;
    Expected<Value *> A = Src(1), Bv = Src(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    Value *Zero = ConstantInt::get(IT, 0);
    Value *IsZero = B.CreateICmpEQ(*Bv, Zero);
    Value *Bad = IsZero;
    if (S) // INT_MIN / -1 overflows in LLVM: divide by 1 instead.
      Bad = B.CreateOr(Bad, B.CreateAnd(B.CreateICmpEQ(*A, ConstantInt::get(IT, APInt::getSignedMinValue(W))),
                                        B.CreateICmpEQ(*Bv, ConstantInt::getAllOnesValue(IT))));
    Value *SafeB = B.CreateSelect(Bad, ConstantInt::get(IT, 1), *Bv);
    Value *R;
    if (I.Op == Opcode::Div) {
      R = S ? B.CreateSDiv(*A, SafeB) : B.CreateUDiv(*A, SafeB);
      R = B.CreateSelect(IsZero, ConstantInt::getAllOnesValue(IT), R);
    } else {
      R = S ? B.CreateSRem(*A, SafeB) : B.CreateURem(*A, SafeB);
      R = B.CreateSelect(IsZero, ConstantInt::getAllOnesValue(IT), R);
    }
    return set(I.Ops[0], R, T);
  }
  case Opcode::Abs:
  case Opcode::Neg: {
    Expected<Value *> A = Src(1);
    if (!A) return A.takeError();
    Value *R = I.Op == Opcode::Neg ? B.CreateNeg(*A) : callLLVM(Intrinsic::abs, {IT}, {*A, B.getFalse()});
    return set(I.Ops[0], R, T);
  }
  case Opcode::Min:
  case Opcode::Max: {
    if (Error E = Need(3))
      return E;
    Expected<Value *> A = Src(1), Bv = Src(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    Intrinsic::ID Id = I.Op == Opcode::Min ? (S ? Intrinsic::smin : Intrinsic::umin)
                                           : (S ? Intrinsic::smax : Intrinsic::umax);
    Value *R = callLLVM(Id, {IT}, {*A, *Bv});
    if (I.Ops.size() > 3) { // three-input min/max (sm_100)
      Expected<Value *> Cv = Src(3);
      if (!Cv) return Cv.takeError();
      R = callLLVM(Id, {IT}, {R, *Cv});
    }
    if (I.has(Modifier::Relu))
      R = callLLVM(Intrinsic::smax, {IT}, {R, ConstantInt::get(IT, 0)});
    return set(I.Ops[0], R, T);
  }
  case Opcode::Popc:
  case Opcode::Clz: {
    Expected<Value *> A = Src(1);
    if (!A) return A.takeError();
    Value *R = I.Op == Opcode::Popc ? callLLVM(Intrinsic::ctpop, {IT}, {*A})
                                    : callLLVM(Intrinsic::ctlz, {IT}, {*A, B.getFalse()});
    return set(I.Ops[0], B.CreateZExtOrTrunc(R, B.getInt32Ty()), ScalarType::U32);
  }
  case Opcode::Bfind: {
    Expected<Value *> A = Src(1);
    if (!A) return A.takeError();
    Value *X = *A;
    if (S) // For negative inputs the highest non-sign bit is the highest 0.
      X = B.CreateSelect(B.CreateICmpSLT(X, ConstantInt::get(IT, 0)), B.CreateNot(X), X);
    Value *Lz = B.CreateZExtOrTrunc(callLLVM(Intrinsic::ctlz, {IT}, {X, B.getFalse()}), B.getInt32Ty());
    Value *Pos = I.has(Modifier::ShiftAmt) ? Lz : B.CreateSub(B.getInt32(W - 1), Lz);
    Value *R = B.CreateSelect(B.CreateICmpEQ(X, ConstantInt::get(IT, 0)), B.getInt32(~0u), Pos);
    return set(I.Ops[0], R, ScalarType::U32);
  }
  case Opcode::Brev: {
    Expected<Value *> A = Src(1);
    if (!A) return A.takeError();
    return set(I.Ops[0], callLLVM(Intrinsic::bitreverse, {IT}, {*A}), T);
  }
  case Opcode::Bfe: {
    if (Error E = Need(4))
      return E;
    Expected<Value *> A = Src(1), PosV = get(I.Ops[2], ScalarType::U32), LenV = get(I.Ops[3], ScalarType::U32);
    if (!A) return A.takeError();
    if (!PosV) return PosV.takeError();
    if (!LenV) return LenV.takeError();
    // pos and len are the low bytes of b and c (PTX pseudocode); bits past
    // the msb take the sign bit of the field (signed) or zero.
    Value *Pos = B.CreateZExtOrTrunc(W == 64 ? *PosV : B.CreateAnd(*PosV, 0xFF), IT);
    Value *Len = B.CreateZExtOrTrunc(W == 64 ? *LenV : B.CreateAnd(*LenV, 0xFF), IT);
    Value *WV = ConstantInt::get(IT, W);
    Value *PosOut = B.CreateICmpUGE(Pos, WV);
    Value *SafePos = B.CreateSelect(PosOut, ConstantInt::get(IT, 0), Pos);
    Value *N = callLLVM(Intrinsic::umin, {IT}, {Len, B.CreateSub(WV, SafePos)}); // 0..W
    Value *R;
    if (!S) {
      Value *Shifted = B.CreateLShr(*A, SafePos);
      Value *Mask = B.CreateSelect(B.CreateICmpUGE(N, WV), ConstantInt::getAllOnesValue(IT),
                                   B.CreateSub(B.CreateShl(ConstantInt::get(IT, 1), B.CreateSelect(B.CreateICmpUGE(N, WV), ConstantInt::get(IT, 0), N)), ConstantInt::get(IT, 1)));
      R = B.CreateAnd(Shifted, Mask);
      R = B.CreateSelect(PosOut, ConstantInt::get(IT, 0), R);
    } else {
      Value *SafeN = B.CreateSelect(B.CreateICmpEQ(N, ConstantInt::get(IT, 0)), ConstantInt::get(IT, 1), N);
      Value *Up = B.CreateShl(*A, B.CreateSub(B.CreateSub(WV, SafePos), SafeN));
      R = B.CreateAShr(Up, B.CreateSub(WV, SafeN));
      R = B.CreateSelect(PosOut, B.CreateAShr(*A, W - 1), R);
    }
    R = B.CreateSelect(B.CreateICmpEQ(Len, ConstantInt::get(IT, 0)), ConstantInt::get(IT, 0), R);
    return set(I.Ops[0], R, T);
  }
  case Opcode::Bfi: {
    if (Error E = Need(5))
      return E;
    Expected<Value *> Fv = Src(1), Bv = Src(2), PosV = get(I.Ops[3], ScalarType::U32),
                      LenV = get(I.Ops[4], ScalarType::U32);
    if (!Fv) return Fv.takeError();
    if (!Bv) return Bv.takeError();
    if (!PosV) return PosV.takeError();
    if (!LenV) return LenV.takeError();
    Value *Pos = B.CreateZExtOrTrunc(W == 64 ? *PosV : B.CreateAnd(*PosV, 0xFF), IT);
    Value *Len = B.CreateZExtOrTrunc(W == 64 ? *LenV : B.CreateAnd(*LenV, 0xFF), IT);
    Value *WV = ConstantInt::get(IT, W);
    Value *Skip = B.CreateOr(B.CreateICmpUGE(Pos, WV), B.CreateICmpEQ(Len, ConstantInt::get(IT, 0)));
    Value *SafePos = B.CreateSelect(Skip, ConstantInt::get(IT, 0), Pos);
    Value *N = callLLVM(Intrinsic::umin, {IT}, {Len, B.CreateSub(WV, SafePos)});
    Value *Full = B.CreateICmpUGE(N, WV);
    Value *Mask = B.CreateSelect(Full, ConstantInt::getAllOnesValue(IT),
                                 B.CreateSub(B.CreateShl(ConstantInt::get(IT, 1), B.CreateSelect(Full, ConstantInt::get(IT, 0), N)), ConstantInt::get(IT, 1)));
    Mask = B.CreateShl(Mask, SafePos);
    Value *R = B.CreateOr(B.CreateAnd(*Bv, B.CreateNot(Mask)), B.CreateAnd(B.CreateShl(*Fv, SafePos), Mask));
    return set(I.Ops[0], B.CreateSelect(Skip, *Bv, R), T);
  }
  case Opcode::Szext: {
    if (Error E = Need(3))
      return E;
    Expected<Value *> A = Src(1), NV = get(I.Ops[2], ScalarType::U32);
    if (!A) return A.takeError();
    if (!NV) return NV.takeError();
    Value *N = I.has(Modifier::Wrap) ? B.CreateAnd(*NV, 31) : callLLVM(Intrinsic::umin, {B.getInt32Ty()}, {*NV, B.getInt32(32)});
    Value *Zero = B.CreateICmpEQ(N, B.getInt32(0));
    Value *Sh = B.CreateSelect(Zero, B.getInt32(0), B.CreateSub(B.getInt32(32), N));
    Value *Up = B.CreateShl(*A, Sh);
    Value *R = S ? B.CreateAShr(Up, Sh) : B.CreateLShr(Up, Sh);
    return set(I.Ops[0], B.CreateSelect(Zero, B.getInt32(0), R), T);
  }
  case Opcode::Bmsk: {
    if (Error E = Need(3))
      return E;
    Expected<Value *> PV = get(I.Ops[1], ScalarType::U32), LV = get(I.Ops[2], ScalarType::U32);
    if (!PV) return PV.takeError();
    if (!LV) return LV.takeError();
    Value *Pos, *Len;
    if (I.has(Modifier::Wrap)) {
      Pos = B.CreateAnd(*PV, 31);
      Len = B.CreateAnd(*LV, 31);
    } else {
      Pos = callLLVM(Intrinsic::umin, {B.getInt32Ty()}, {*PV, B.getInt32(32)});
      Len = callLLVM(Intrinsic::umin, {B.getInt32Ty()}, {*LV, B.getInt32(32)});
    }
    Value *M = B.CreateSub(B.CreateShl(B.getInt64(1), B.CreateZExt(Len, B.getInt64Ty())), B.getInt64(1));
    M = B.CreateShl(M, B.CreateZExt(Pos, B.getInt64Ty()));
    return set(I.Ops[0], B.CreateTrunc(M, B.getInt32Ty()), ScalarType::B32);
  }
  case Opcode::Dp4a:
  case Opcode::Dp2a: {
    if (Error E = Need(4))
      return E;
    ScalarType TA = *I.firstType(), TB = *I.lastType();
    bool SA = isSigned(TA), SB = isSigned(TB);
    ScalarType RT = SA || SB ? ScalarType::S32 : ScalarType::U32;
    Expected<Value *> A = get(I.Ops[1], ScalarType::B32), Bv = get(I.Ops[2], ScalarType::B32),
                      Cv = get(I.Ops[3], RT);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!Cv) return Cv.takeError();
    auto Part = [&](Value *V, unsigned Bit, unsigned Width, bool Sg) {
      Value *X = B.CreateTrunc(B.CreateLShr(V, Bit), B.getIntNTy(Width));
      return Sg ? B.CreateSExt(X, B.getInt32Ty()) : B.CreateZExt(X, B.getInt32Ty());
    };
    Value *R = *Cv;
    if (I.Op == Opcode::Dp4a) {
      for (unsigned K = 0; K < 4; ++K)
        R = B.CreateAdd(R, B.CreateMul(Part(*A, 8 * K, 8, SA), Part(*Bv, 8 * K, 8, SB)));
    } else {
      unsigned Base = I.has(Modifier::Hi) ? 16 : 0;
      for (unsigned K = 0; K < 2; ++K)
        R = B.CreateAdd(R, B.CreateMul(Part(*A, 16 * K, 16, SA), Part(*Bv, Base + 8 * K, 8, SB)));
    }
    return set(I.Ops[0], R, RT);
  }
  default:
    return notLowered(I);
  }
}

} // namespace ferry::ptx::lower
