//===- LowerFloat.cpp - floating point (PTX ISA 9.7.3, 9.7.4) --------------===//
/// \file
/// f32/f64 and half/bf16 (scalar and x2 SIMD) arithmetic.
///
/// Rounding modes: .rn is LLVM's default. .rz/.rm/.rp are computed exactly
/// without strict-FP intrinsics: the round-to-nearest result R is corrected
/// by one ulp when the exact error of the operation (recovered with an
/// error-free transformation: TwoSum for add/sub, fma(a,b,-R) for mul,
/// fma(-R,b,a) for div, fma(-R,R,a) for sqrt) points the other way
/// (directedRound). f32 mul/div/rcp/sqrt and fma with a directed mode are
/// evaluated in double (exact, or never on an f32 rounding boundary unless
/// exact) and the conversion to f32 is corrected the same way, which also
/// covers subnormal results, where the error-free transformations are not
/// exact. f64 fma takes the sign of its exact error from ErrFma
/// (fmaErrorF64), with the products near underflow rescaled. f64 mul, div,
/// rcp and sqrt residuals are exact only while they do not underflow: near
/// the subnormal range (an operand or the result below 2^-960) the
/// operation is redone on operands scaled by a power of two, where they are
/// exact, and the error of R is D = R' - R*2^k (exact: both round the same
/// value, on grids one of which refines the other) or, when D is 0, the
/// scaled residual (|residual| < ulp(R')/2 <= |D| otherwise). An exact zero
/// sum is -0 in .rm (IEEE 754 6.3).
/// .ftz flushes subnormal inputs and results to zero of the same sign; .sat
/// clamps to [0, 1] with NaN → +0. Approximate instructions use LLVM's
/// intrinsics (at least as accurate as the ISA's stated error); tanh.approx
/// is evaluated from exp2 (relative error below 2^-11 over the range).
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace ferry::ptx::lower {

Value *FunctionLowering::directedRound(Value *R, Value *Err, Modifier Mode, Value *Finite) {
  if (Mode != Modifier::Rz && Mode != Modifier::Rm && Mode != Modifier::Rp)
    return R;
  Type *T = R->getType();
  unsigned W = T->getPrimitiveSizeInBits();
  IntegerType *IT = B.getIntNTy(W);
  Value *Bits = B.CreateBitCast(R, IT);
  Value *IsZero = B.CreateFCmpOEQ(R, ConstantFP::get(T, 0.0));
  Value *Neg = B.CreateICmpSLT(Bits, ConstantInt::get(IT, 0));
  Value *Inc = B.CreateAdd(Bits, ConstantInt::get(IT, 1));
  Value *Dec = B.CreateSub(Bits, ConstantInt::get(IT, 1));
  Value *Up = B.CreateBitCast(B.CreateSelect(IsZero, ConstantInt::get(IT, 1), B.CreateSelect(Neg, Dec, Inc)), T);
  Value *Down = B.CreateBitCast(
      B.CreateSelect(IsZero, ConstantInt::get(IT, APInt::getSignMask(W) | APInt(W, 1)), B.CreateSelect(Neg, Inc, Dec)), T);
  Value *ErrPos = B.CreateFCmpOGT(Err, ConstantFP::get(Err->getType(), 0.0));
  Value *ErrNeg = B.CreateFCmpOLT(Err, ConstantFP::get(Err->getType(), 0.0));
  Value *Out;
  const fltSemantics &Sem = T->getFltSemantics();
  Value *Max = ConstantFP::get(C, APFloat::getLargest(Sem));
  Value *NMax = ConstantFP::get(C, APFloat::getLargest(Sem, true));
  Value *Inf = B.CreateFCmpOEQ(callLLVM(Intrinsic::fabs, {T}, {R}), ConstantFP::getInfinity(T));
  Value *Overflow = Finite ? B.CreateAnd(Inf, Finite) : B.getFalse();
  Value *RPos = B.CreateFCmpOGT(R, ConstantFP::get(T, 0.0));
  switch (Mode) {
  case Modifier::Rz:
    // A zero R stays: the exact value is closer to zero than any nonzero.
    Out = B.CreateSelect(B.CreateAnd(RPos, ErrNeg), Down,
                         B.CreateSelect(B.CreateAnd(B.CreateFCmpOLT(R, ConstantFP::get(T, 0.0)), ErrPos), Up, R));
    Out = B.CreateSelect(Overflow, B.CreateSelect(RPos, Max, NMax), Out);
    break;
  case Modifier::Rm:
    Out = B.CreateSelect(ErrNeg, Down, R);
    Out = B.CreateSelect(B.CreateAnd(Overflow, RPos), Max, Out);
    break;
  default:
    Out = B.CreateSelect(ErrPos, Up, R);
    Out = B.CreateSelect(B.CreateAnd(Overflow, B.CreateNot(RPos)), NMax, Out);
    break;
  }
  // An infinite result from an infinite operand is exact; its error term
  // (inf - inf arithmetic) means nothing.
  if (Finite)
    Out = B.CreateSelect(B.CreateAnd(Inf, B.CreateNot(Finite)), R, Out);
  return Out;
}

Value *FunctionLowering::viaDouble(Value *D, Modifier Mode) {
  Value *R = B.CreateFPTrunc(D, B.getFloatTy());
  Value *Err = B.CreateFSub(D, B.CreateFPExt(R, D->getType())); // exact
  Value *Fin = B.CreateFCmpONE(callLLVM(Intrinsic::fabs, {D->getType()}, {D}),
                               ConstantFP::getInfinity(D->getType()));
  return directedRound(R, Err, Mode, Fin);
}

Value *FunctionLowering::exactZeroSign(Value *R, Value *IsExactZero, Value *X, Value *Y, Modifier Mode) {
  if (Mode != Modifier::Rm)
    return R; // round-to-nearest already gives +0 unless both terms are -0
  IntegerType *IT = B.getIntNTy(X->getType()->getPrimitiveSizeInBits());
  Value *AnyNeg = B.CreateICmpSLT(B.CreateOr(B.CreateBitCast(X, IT), B.CreateBitCast(Y, IT)),
                                  ConstantInt::get(IT, 0));
  Type *T = R->getType();
  return B.CreateSelect(IsExactZero, B.CreateSelect(AnyNeg, ConstantFP::get(T, -0.0), ConstantFP::get(T, 0.0)), R);
}

Value *FunctionLowering::fmaErrorF64(Value *A, Value *Bv, Value *Cv, Value *R) {
  Type *D = B.getDoubleTy();
  auto K = [&](double V) { return ConstantFP::get(D, V); };
  auto Abs = [&](Value *V) { return callLLVM(Intrinsic::fabs, {D}, {V}); };
  auto TwoSum = [&](Value *X, Value *Y) -> std::pair<Value *, Value *> {
    Value *S = B.CreateFAdd(X, Y);
    Value *Bb = B.CreateFSub(S, X);
    return {S, B.CreateFAdd(B.CreateFSub(X, B.CreateFSub(S, Bb)), B.CreateFSub(Y, Bb))};
  };
  // ErrFma (Boldo & Muller 2011): a*b + c - r = r2 + r3 exactly, with
  // r2 = RN(gamma + alpha2) carrying the sign of the whole error; exact
  // when the product's error is representable, i.e. |a*b| >= 2^-969.
  auto ErrFma = [&](Value *X, Value *Y, Value *Z, Value *Rn) {
    Value *U1 = B.CreateFMul(X, Y);
    Value *U2 = callLLVM(Intrinsic::fma, {D}, {X, Y, B.CreateFNeg(U1)});
    auto [Al1, Al2] = TwoSum(Z, U2);
    auto [Be1, Be2] = TwoSum(U1, Al1);
    Value *Gamma = B.CreateFAdd(B.CreateFSub(Be1, Rn), Be2);
    return B.CreateFAdd(Gamma, Al2);
  };
  Value *Main = ErrFma(A, Bv, Cv, R);
  // A product below 2^-968: when it is far below c (or below half the
  // smallest subnormal), r is c (or 0) and the error is the product itself,
  // whose sign is sign(a)*sign(b).
  Value *NonZero = B.CreateAnd(B.CreateFCmpONE(A, K(0.0)), B.CreateFCmpONE(Bv, K(0.0)));
  Value *SignProd = B.CreateSelect(
      NonZero, B.CreateFMul(callLLVM(Intrinsic::copysign, {D}, {K(1.0), A}),
                            callLLVM(Intrinsic::copysign, {D}, {K(1.0), Bv})), K(0.0));
  // Otherwise everything is small: scale the smaller factor and c by 2^1000
  // (exact) and take ErrFma there. Results in the subnormal range were
  // rounded more coarsely than the scaled r2 = RN(a'b + c'), so the error
  // is (r2 - r') + err2, where r2 - r' is exact and, when not zero, larger
  // than err2.
  Value *Smaller = B.CreateFCmpOLE(Abs(A), Abs(Bv));
  Value *Small = B.CreateSelect(Smaller, A, Bv), *Big = B.CreateSelect(Smaller, Bv, A);
  Value *Small2 = B.CreateFMul(B.CreateFMul(Small, K(0x1p500)), K(0x1p500));
  Value *C2 = B.CreateFMul(B.CreateFMul(Cv, K(0x1p500)), K(0x1p500));
  Value *R2s = B.CreateFMul(B.CreateFMul(R, K(0x1p500)), K(0x1p500));
  Value *R2 = callLLVM(Intrinsic::fma, {D}, {Small2, Big, C2});
  Value *Scaled = B.CreateFAdd(B.CreateFSub(R2, R2s), ErrFma(Small2, Big, C2, R2));
  Value *ScaledTiny = B.CreateFCmpOLT(Abs(B.CreateFMul(Small2, Big)), K(0x1p-968));
  Value *Tiny = B.CreateFCmpOLT(Abs(B.CreateFMul(A, Bv)), K(0x1p-968));
  Value *CLarge = B.CreateFCmpOGE(Abs(Cv), K(0x1p-900));
  Value *TinyErr = B.CreateSelect(B.CreateOr(CLarge, ScaledTiny), SignProd, Scaled);
  return B.CreateSelect(Tiny, TinyErr, Main);
}

namespace {
/// is.fpclass masks for testp.
unsigned testpMask(const Instruction &I) {
  if (I.has(Modifier::Finite)) return 0x1F8;
  if (I.has(Modifier::Infinite)) return 0x204;
  if (I.has(Modifier::Number)) return 0x3FC;
  if (I.has(Modifier::NotANumber)) return 0x3;
  // Zero counts as normal: what an H100 answers (tests/ptx-conformance).
  if (I.has(Modifier::Normal)) return 0x168;
  if (I.has(Modifier::Subnormal)) return 0x90;
  return 0;
}
} // namespace

Error FunctionLowering::lowerFloatArith(const Instruction &I) {
  std::optional<ScalarType> TO = I.lastType();
  if (!TO)
    return fail("missing type on " + spell(I));
  ScalarType T = *TO;
  if (!isFloat(T) || T == ScalarType::TF32 || bits(T) < 16)
    return notLowered(I, "type ." + typeName(T).str());
  Type *VT = valType(T);
  Type *ST = VT->getScalarType();
  bool Ftz = I.has(Modifier::Ftz);
  std::optional<Modifier> Rnd = I.firstOfClass(MC_Round);
  Modifier Mode = Rnd ? *Rnd : Modifier::Rn;
  bool Directed = Mode == Modifier::Rz || Mode == Modifier::Rm || Mode == Modifier::Rp;
  if (Directed && !ST->isFloatTy() && !ST->isDoubleTy())
    return notLowered(I, "directed rounding on half types");
  auto In = [&](unsigned K) -> Expected<Value *> {
    if (K >= I.Ops.size())
      return fail(spell(I) + ": missing operand");
    Expected<Value *> V = get(I.Ops[K], T);
    if (V && Ftz)
      return flush(*V);
    return V;
  };
  auto Out = [&](Value *V) -> Error {
    if (Ftz)
      V = flush(V);
    if (I.has(Modifier::Sat))
      V = saturate(V);
    if (I.has(Modifier::Relu)) {
      // max(0, x), NaN stays NaN (PTX: canonical NaN).
      Value *IsNaN = B.CreateFCmpUNO(V, V);
      V = B.CreateSelect(IsNaN, V, callLLVM(Intrinsic::maxnum, {VT}, {V, ConstantFP::get(VT, 0.0)}));
    }
    return set(I.Ops[0], canonicalNaN(V), T);
  };
  auto Finite2 = [&](Value *A, Value *Bv) {
    Value *FA = B.CreateFCmpONE(callLLVM(Intrinsic::fabs, {VT}, {A}), ConstantFP::getInfinity(VT));
    Value *FB = B.CreateFCmpONE(callLLVM(Intrinsic::fabs, {VT}, {Bv}), ConstantFP::getInfinity(VT));
    return B.CreateAnd(FA, FB);
  };
  // rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 flush a subnormal input
  // and result (flush() leaves f64 alone: no other f64 form has .ftz).
  auto Flush64 = [&](Value *V) {
    Value *Tiny = B.CreateFCmpOLT(callLLVM(Intrinsic::fabs, {VT}, {V}),
                                  ConstantFP::get(VT, APFloat::getSmallestNormalized(ST->getFltSemantics())));
    return B.CreateSelect(Tiny, callLLVM(Intrinsic::copysign, {VT}, {ConstantFP::get(VT, 0.0), V}), V);
  };
  auto Fma = [&](Value *A, Value *Bv, Value *Cv) { return callLLVM(Intrinsic::fma, {VT}, {A, Bv, Cv}); };
  // .ftz on f16 mul and fma: an H100 flushes a result whose exact value is
  // below the smallest normal, also one that rounds up to it. Exact is the
  // result in double: exact below 2^-14 (a multiple of 2^-48 there), and
  // rounded monotonically above, which is all the compare needs.
  auto FlushTinyF16 = [&](Value *R, Value *Exact) -> Value * {
    if (!Ftz || !ST->isHalfTy())
      return R;
    Type *DT = Exact->getType();
    Value *Tiny = B.CreateFCmpOLT(callLLVM(Intrinsic::fabs, {DT}, {Exact}), ConstantFP::get(DT, 0x1p-14));
    Value *Zero = B.CreateFPTrunc(callLLVM(Intrinsic::copysign, {DT}, {ConstantFP::get(DT, 0.0), Exact}), VT);
    return B.CreateSelect(Tiny, Zero, R);
  };
  auto Wide = [&](Value *V) { return B.CreateFPExt(V, VT->getWithNewType(B.getDoubleTy())); };
  auto toDouble = [&](Value *V) { return B.CreateFPExt(V, B.getDoubleTy()); };
  // f64 near underflow (see the file comment): the scale factors and the
  // threshold below which residuals are not trusted.
  auto K = [&](double V) { return ConstantFP::get(VT, V); };
  auto Tiny = [&](Value *V) { return B.CreateFCmpOLT(callLLVM(Intrinsic::fabs, {VT}, {V}), K(0x1p-960)); };
  auto Sign = [&](Value *V) { return callLLVM(Intrinsic::copysign, {VT}, {K(1.0), V}); };
  // The error sign of R = RN(a/b), with the rescaled quotient where a or
  // the quotient is tiny (a*2^900; b*2^900 too unless the quotient is tiny,
  // whose exact tail, below 2^-960 even scaled, only has a sign).
  auto DivErrorF64 = [&](Value *A, Value *Bv, Value *R) {
    Value *QTiny = Tiny(R), *ATiny = Tiny(A);
    Value *Hard = B.CreateOr(QTiny, ATiny);
    Value *A2 = B.CreateSelect(Hard, B.CreateFMul(A, K(0x1p900)), A);
    Value *B2 = B.CreateSelect(B.CreateAnd(ATiny, B.CreateNot(QTiny)), B.CreateFMul(Bv, K(0x1p900)), Bv);
    Value *R2 = B.CreateSelect(Hard, B.CreateFDiv(A2, B2), R);
    Value *Rem = Fma(B.CreateFNeg(R2), B2, A2);
    Value *E2 = B.CreateSelect(B.CreateFCmpOLT(B2, K(0.0)), B.CreateFNeg(Rem), Rem);
    Value *D = B.CreateFSub(R2, B.CreateFMul(R, B.CreateSelect(QTiny, K(0x1p900), K(1.0))));
    Value *Err = B.CreateSelect(B.CreateFCmpONE(D, K(0.0)), D, E2);
    Value *Quot = B.CreateAnd(B.CreateFCmpONE(A, K(0.0)),
                              B.CreateFCmpONE(callLLVM(Intrinsic::fabs, {VT}, {Bv}), ConstantFP::getInfinity(VT)));
    Value *SignQuot = B.CreateSelect(Quot, B.CreateFMul(Sign(A), Sign(Bv)), K(0.0));
    return B.CreateSelect(B.CreateAnd(QTiny, Tiny(R2)), SignQuot, Err);
  };

  switch (I.Op) {
  case Opcode::Add:
  case Opcode::Sub: {
    Expected<Value *> A = In(1), Bv = In(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    Value *Y = I.Op == Opcode::Sub ? B.CreateFNeg(*Bv) : *Bv;
    Value *R = B.CreateFAdd(*A, Y);
    if (Directed && ST->isFloatTy()) {
      // TwoSum in double (its intermediates can overflow in f32): the sum
      // is S + E exactly; S == 0 means an exact zero.
      Value *X = toDouble(*A), *Yd = toDouble(Y);
      Value *S = B.CreateFAdd(X, Yd);
      Value *Bb = B.CreateFSub(S, X);
      Value *E = B.CreateFAdd(B.CreateFSub(X, B.CreateFSub(S, Bb)), B.CreateFSub(Yd, Bb));
      Value *Zero = B.CreateFCmpOEQ(S, ConstantFP::get(B.getDoubleTy(), 0.0));
      R = B.CreateFPTrunc(S, VT);
      Value *Err = B.CreateFAdd(B.CreateFSub(S, toDouble(R)), E);
      return Out(exactZeroSign(directedRound(R, Err, Mode, Finite2(*A, Y)), Zero, *A, Y, Mode));
    }
    if (Directed) { // TwoSum: the exact error of the rounded sum.
      Value *Bb = B.CreateFSub(R, *A);
      Value *Err = B.CreateFAdd(B.CreateFSub(*A, B.CreateFSub(R, Bb)), B.CreateFSub(Y, Bb));
      // A zero sum is exact (addition cannot underflow to zero).
      Value *Zero = B.CreateFCmpOEQ(R, ConstantFP::get(VT, 0.0));
      R = exactZeroSign(directedRound(R, Err, Mode, Finite2(*A, Y)), Zero, *A, Y, Mode);
    }
    return Out(pickNaN(R, {*Bv, *A}));
  }
  case Opcode::Mul: {
    Expected<Value *> A = In(1), Bv = In(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (Directed && ST->isFloatTy()) // exact in double
      return Out(viaDouble(B.CreateFMul(toDouble(*A), toDouble(*Bv)), Mode));
    Value *R = FlushTinyF16(B.CreateFMul(*A, *Bv), B.CreateFMul(Wide(*A), Wide(*Bv)));
    if (Directed) {
      // f64 (f32 went via double). A tiny product: the smaller factor
      // times 2^1000 (it is below 2^-479, so this cannot overflow); below
      // 2^-960 even then, R is 0 and the error has the product's sign.
      Value *Smaller = B.CreateFCmpOLE(callLLVM(Intrinsic::fabs, {VT}, {*A}),
                                       callLLVM(Intrinsic::fabs, {VT}, {*Bv}));
      Value *S2 = B.CreateFMul(B.CreateSelect(Smaller, *A, *Bv), K(0x1p1000));
      Value *L = B.CreateSelect(Smaller, *Bv, *A);
      Value *P2 = B.CreateFMul(S2, L);
      Value *D = B.CreateFSub(P2, B.CreateFMul(R, K(0x1p1000)));
      Value *Scaled = B.CreateSelect(B.CreateFCmpONE(D, K(0.0)), D, Fma(S2, L, B.CreateFNeg(P2)));
      Value *Prod = B.CreateAnd(B.CreateFCmpONE(*A, K(0.0)), B.CreateFCmpONE(*Bv, K(0.0)));
      Value *SignProd = B.CreateSelect(Prod, B.CreateFMul(Sign(*A), Sign(*Bv)), K(0.0));
      Value *Err = B.CreateSelect(Tiny(R), B.CreateSelect(Tiny(P2), SignProd, Scaled),
                                  Fma(*A, *Bv, B.CreateFNeg(R)));
      R = directedRound(R, Err, Mode, Finite2(*A, *Bv));
    }
    return Out(pickNaN(R, {*Bv, *A}));
  }
  case Opcode::Fma:
  case Opcode::Mad: {
    Expected<Value *> A = In(1), Bv = In(2), Cv = In(3);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (!Cv) return Cv.takeError();
    if (!Directed)
      return Out(pickNaN(FlushTinyF16(Fma(*A, *Bv, *Cv),
                                      B.CreateFAdd(B.CreateFMul(Wide(*A), Wide(*Bv)), Wide(*Cv))),
                         {*Bv, *Cv, *A}));
    if (ST->isDoubleTy() && VT->isVectorTy())
      return notLowered(I, "vector f64 fma");
    Value *R, *Err;
    if (ST->isFloatTy()) {
      // f32: the product is exact in double; TwoSum of product and addend
      // in double gives the exact result as S + E.
      Type *D = B.getDoubleTy();
      Value *P = B.CreateFMul(B.CreateFPExt(*A, D), B.CreateFPExt(*Bv, D));
      Value *Cd = B.CreateFPExt(*Cv, D);
      Value *S = B.CreateFAdd(P, Cd);
      Value *Bb = B.CreateFSub(S, P);
      Value *E = B.CreateFAdd(B.CreateFSub(P, B.CreateFSub(S, Bb)), B.CreateFSub(Cd, Bb));
      R = B.CreateFPTrunc(S, VT);
      Err = B.CreateFAdd(B.CreateFSub(S, B.CreateFPExt(R, D)), E);
    } else {
      R = Fma(*A, *Bv, *Cv);
      Err = fmaErrorF64(*A, *Bv, *Cv, R);
    }
    Value *Fin = B.CreateAnd(Finite2(*A, *Bv), B.CreateFCmpONE(callLLVM(Intrinsic::fabs, {VT}, {*Cv}), ConstantFP::getInfinity(VT)));
    Value *Res = directedRound(R, Err, Mode, Fin);
    if (Mode == Modifier::Rm) {
      // An exact zero sum is -0 when rounding down, unless both addends are
      // +0 (IEEE 754 6.3); round-to-nearest gave +0.
      Value *Zero = ConstantFP::get(VT, 0.0);
      IntegerType *IT = B.getIntNTy(ST->getPrimitiveSizeInBits());
      Value *SignA = B.CreateICmpSLT(B.CreateBitCast(*A, IT), ConstantInt::get(IT, 0));
      Value *SignB = B.CreateICmpSLT(B.CreateBitCast(*Bv, IT), ConstantInt::get(IT, 0));
      Value *ProdPosZero = B.CreateAnd(B.CreateOr(B.CreateFCmpOEQ(*A, Zero), B.CreateFCmpOEQ(*Bv, Zero)),
                                       B.CreateICmpEQ(SignA, SignB));
      Value *CPosZero = B.CreateICmpEQ(B.CreateBitCast(*Cv, IT), ConstantInt::get(IT, 0));
      Value *ExactZero = B.CreateAnd(B.CreateFCmpOEQ(R, Zero), B.CreateFCmpOEQ(Err, ConstantFP::get(Err->getType(), 0.0)));
      Res = B.CreateSelect(B.CreateAnd(ExactZero, B.CreateNot(B.CreateAnd(ProdPosZero, CPosZero))),
                           ConstantFP::get(VT, -0.0), Res);
    }
    return Out(pickNaN(Res, {*Bv, *Cv, *A}));
  }
  case Opcode::Div: {
    Expected<Value *> A = In(1), Bv = In(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    if (Directed && ST->isFloatTy())
      return Out(viaDouble(B.CreateFDiv(toDouble(*A), toDouble(*Bv)), Mode));
    Value *R = B.CreateFDiv(*A, *Bv);
    if (I.has(Modifier::Approx) && ST->isFloatTy()) {
      // PTX ISA 9.7.3.8: for 2^126 < |b| < 2^128, div.approx.f32 gives 0
      // (of the quotient's sign), or NaN where a is infinite.
      Value *Big = B.CreateAnd(B.CreateFCmpOGT(callLLVM(Intrinsic::fabs, {VT}, {*Bv}), K(0x1p126)),
                               B.CreateFCmpONE(callLLVM(Intrinsic::fabs, {VT}, {*Bv}), ConstantFP::getInfinity(VT)));
      Value *AInf = B.CreateFCmpOEQ(callLLVM(Intrinsic::fabs, {VT}, {*A}), ConstantFP::getInfinity(VT));
      Value *Zero = callLLVM(Intrinsic::copysign, {VT}, {K(0.0), B.CreateFMul(Sign(*A), Sign(*Bv))});
      R = B.CreateSelect(Big, B.CreateSelect(AInf, ConstantFP::getNaN(VT), Zero), R);
    }
    if (Directed) {
      Value *Err = DivErrorF64(*A, *Bv, R); // f64: f32 went via double
      // x / 0 is an exact infinity, not an overflow.
      Value *Fin = B.CreateAnd(Finite2(*A, *Bv), B.CreateFCmpONE(*Bv, ConstantFP::get(VT, 0.0)));
      R = directedRound(R, Err, Mode, Fin);
    }
    return Out(I.has(Modifier::Approx) ? R : pickNaN(R, {*A, *Bv}));
  }
  case Opcode::Rcp: {
    Expected<Value *> A = In(1);
    if (!A) return A.takeError();
    if (Ftz && ST->isDoubleTy())
      *A = Flush64(*A);
    Value *One = ConstantFP::get(VT, 1.0);
    if (Directed && ST->isFloatTy())
      return Out(viaDouble(B.CreateFDiv(ConstantFP::get(B.getDoubleTy(), 1.0), toDouble(*A)), Mode));
    Value *R = B.CreateFDiv(One, *A);
    if (Ftz && ST->isDoubleTy())
      R = Flush64(R);
    if (Directed) {
      Value *Err = DivErrorF64(One, *A, R); // f64: f32 went via double
      // 1 / 0 is an exact infinity; 1 / x overflows for finite nonzero x.
      R = directedRound(R, Err, Mode, B.CreateFCmpONE(*A, ConstantFP::get(VT, 0.0)));
    }
    return Out(I.has(Modifier::Approx) ? R : pickNaN(R, {*A}));
  }
  case Opcode::Sqrt: {
    Expected<Value *> A = In(1);
    if (!A) return A.takeError();
    if (Directed && ST->isFloatTy())
      return Out(viaDouble(callLLVM(Intrinsic::sqrt, {B.getDoubleTy()}, {toDouble(*A)}), Mode));
    Value *R = callLLVM(Intrinsic::sqrt, {VT}, {*A});
    if (Directed) { // sqrt never overflows: an infinite result is exact
      // f64 (f32 went via double). A tiny radicand: sqrt(a*2^1000) is
      // exactly R*2^500 (R is normal), and its residual is exact.
      Value *ATiny = Tiny(*A);
      Value *A2 = B.CreateSelect(ATiny, B.CreateFMul(*A, K(0x1p1000)), *A);
      Value *R2 = B.CreateSelect(ATiny, B.CreateFMul(R, K(0x1p500)), R);
      R = directedRound(R, Fma(B.CreateFNeg(R2), R2, A2), Mode, B.getFalse());
    }
    return Out(I.has(Modifier::Approx) ? R : pickNaN(R, {*A}));
  }
  case Opcode::Rsqrt: {
    Expected<Value *> A = In(1);
    if (!A) return A.takeError();
    if (Ftz && ST->isDoubleTy())
      *A = Flush64(*A);
    Value *R = B.CreateFDiv(ConstantFP::get(VT, 1.0), callLLVM(Intrinsic::sqrt, {VT}, {*A}));
    return Out(Ftz && ST->isDoubleTy() ? Flush64(R) : R);
  }
  case Opcode::Sin:
  case Opcode::Cos:
  case Opcode::Lg2:
  case Opcode::Ex2: {
    Expected<Value *> A = In(1);
    if (!A) return A.takeError();
    Intrinsic::ID Id = I.Op == Opcode::Sin ? Intrinsic::sin : I.Op == Opcode::Cos ? Intrinsic::cos
                     : I.Op == Opcode::Lg2 ? Intrinsic::log2 : Intrinsic::exp2;
    return Out(callLLVM(Id, {VT}, {*A}));
  }
  case Opcode::Tanh: {
    Expected<Value *> A = In(1);
    if (!A) return A.takeError();
    // In f32 (or <2 x float>): tanh|x| = 1 - 2/(2^(2|x|·log2 e) + 1), with
    // the odd Taylor polynomial below |x| < 2^-4 where that cancels.
    Type *FT = VT->isVectorTy() ? FixedVectorType::get(B.getFloatTy(), 2) : B.getFloatTy();
    Value *X = ST->isFloatTy() ? *A : B.CreateFPExt(*A, FT);
    Value *Ax = callLLVM(Intrinsic::fabs, {FT}, {X});
    Value *E = callLLVM(Intrinsic::exp2, {FT}, {B.CreateFMul(Ax, ConstantFP::get(FT, 2.0 * 1.4426950408889634))});
    Value *Big = B.CreateFSub(ConstantFP::get(FT, 1.0),
                              B.CreateFDiv(ConstantFP::get(FT, 2.0), B.CreateFAdd(E, ConstantFP::get(FT, 1.0))));
    Value *X2 = B.CreateFMul(Ax, Ax);
    Value *Small = B.CreateFMul(Ax, B.CreateFAdd(ConstantFP::get(FT, 1.0),
                                                 B.CreateFMul(X2, B.CreateFAdd(ConstantFP::get(FT, -1.0 / 3),
                                                                               B.CreateFMul(X2, ConstantFP::get(FT, 2.0 / 15))))));
    Value *R = B.CreateSelect(B.CreateFCmpOLT(Ax, ConstantFP::get(FT, 0.0625)), Small, Big);
    R = callLLVM(Intrinsic::copysign, {FT}, {R, X});
    if (!ST->isFloatTy())
      R = B.CreateFPTrunc(R, VT);
    return Out(R);
  }
  case Opcode::Abs:
  case Opcode::Neg: {
    Expected<Value *> A = In(1);
    if (!A) return A.takeError();
    Value *R = I.Op == Opcode::Abs ? callLLVM(Intrinsic::fabs, {VT}, {*A}) : B.CreateFNeg(*A);
    // An H100's abs/neg.f64 return a NaN operand quieted, sign unchanged
    // (tests/ptx-conformance); f32 and narrower give the canonical NaN (Out).
    if (ST->isDoubleTy())
      R = B.CreateSelect(B.CreateFCmpUNO(*A, *A), quietNaN(*A), R);
    return Out(R);
  }
  case Opcode::Min:
  case Opcode::Max: {
    Expected<Value *> A = In(1), Bv = In(2);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    bool Min = I.Op == Opcode::Min;
    Intrinsic::ID Id = Min ? Intrinsic::minnum : Intrinsic::maxnum;
    Value *X = *A, *Y = *Bv;
    if (I.has(Modifier::XorSign)) {
      X = callLLVM(Intrinsic::fabs, {VT}, {X});
      Y = callLLVM(Intrinsic::fabs, {VT}, {Y});
    }
    // minnum/maxnum may return either zero for (+0, -0); PTX orders -0 < +0:
    // equal operands combine their sign bits. .NaN makes a NaN operand win,
    // by a select rather than llvm.minimum/maximum, whose x86 expansion for
    // <2 x half> loses a NaN in one lane (LLVM 19).
    IntegerType *WT = B.getIntNTy(VT->getPrimitiveSizeInBits());
    auto MinMax = [&](Value *P, Value *Q) {
      Value *R = callLLVM(Id, {VT}, {P, Q});
      Value *PB = B.CreateBitCast(P, WT), *QB = B.CreateBitCast(Q, WT);
      Value *Same = B.CreateBitCast(Min ? B.CreateOr(PB, QB) : B.CreateAnd(PB, QB), VT);
      R = B.CreateSelect(B.CreateFCmpOEQ(P, Q), Same, R);
      if (I.has(Modifier::NaN))
        R = B.CreateSelect(B.CreateFCmpUNO(P, Q), ConstantFP::getNaN(VT), R);
      return R;
    };
    Value *R = MinMax(X, Y);
    if (I.Ops.size() > 3) {
      Expected<Value *> Cv = In(3);
      if (!Cv) return Cv.takeError();
      R = MinMax(R, I.has(Modifier::XorSign) ? callLLVM(Intrinsic::fabs, {VT}, {*Cv}) : *Cv);
    }
    // Two NaN operands give a NaN; f64's is quieted (an H100), f32 and
    // narrower give the canonical NaN (Out).
    if (ST->isDoubleTy())
      R = pickNaN(B.CreateSelect(B.CreateFCmpUNO(R, R), quietNaN(R), R), {*Bv, *A});
    if (I.has(Modifier::XorSign)) {
      // The sign is sign(a) xor sign(b): built from the integer sign bits.
      unsigned W = VT->getPrimitiveSizeInBits();
      Value *SA = B.CreateBitCast(*A, B.getIntNTy(W)), *SB = B.CreateBitCast(*Bv, B.getIntNTy(W));
      APInt Mask(W, 0);
      unsigned EW = ST->getPrimitiveSizeInBits();
      for (unsigned K = 0; K < W / EW; ++K)
        Mask.setBit(K * EW + EW - 1);
      Value *Sign = B.CreateAnd(B.CreateXor(SA, SB), ConstantInt::get(B.getIntNTy(W), Mask));
      R = B.CreateBitCast(B.CreateOr(B.CreateBitCast(R, B.getIntNTy(W)), Sign), VT);
    }
    return Out(R);
  }
  case Opcode::Testp: {
    Expected<Value *> A = get(I.Ops[1], T);
    if (!A) return A.takeError();
    unsigned Mask = testpMask(I);
    if (!Mask)
      return notLowered(I, "testp class");
    Value *R = callLLVM(Intrinsic::is_fpclass, {VT}, {*A, B.getInt32(Mask)});
    return setPred(I.Ops[0], R);
  }
  case Opcode::Copysign: {
    // copysign d, a, b: b's magnitude with a's sign.
    Expected<Value *> A = get(I.Ops[1], T), Bv = get(I.Ops[2], T);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    return set(I.Ops[0], callLLVM(Intrinsic::copysign, {VT}, {*Bv, *A}), T);
  }
  default:
    return notLowered(I);
  }
}

} // namespace ferry::ptx::lower
