//===- LowerCvt.cpp - mov and cvt (PTX ISA 9.7.9.4, 9.7.9.21/22) -----------===//
/// \file
/// mov (registers, immediates, symbol addresses, {a,b} packing/unpacking)
/// and cvt between every pair of integer and float types:
///  - float → integer rounds with .rni/.rzi/.rmi/.rpi (.rzi when a float
///    source has none, as nvcc never omits it), then saturates to the
///    destination range with NaN → 0, exactly PTX's rule (llvm.fpto*i.sat);
///  - integer → float and float → narrower float honour .rn/.rz/.rm/.rp
///    (directedRound with the exact conversion error);
///  - integer → integer truncates or extends by the source signedness;
///    .sat clamps to the destination range;
///  - .ftz/.sat/.relu/.satfinite on float results; f16x2/bf16x2 pack forms
///    (d.hi = cvt(a), d.lo = cvt(b)); tf32 with .rna/.rn/.rz;
///  - cvt.pack: saturating narrowing of two s32 into one b32 (u16/s16,
///    u8/s8 and u4/s4 lanes, the rest of d from c);
///  - fp8 pairs: f32 or f16x2 → e4m3x2/e5m2x2 (.rn.satfinite, .relu) and
///    back to f16x2 (exact).
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"
#include "support/Settings.h"

#include "llvm/IR/Intrinsics.h"

#include <cmath>

using namespace llvm;

namespace ferry::ptx::lower {

Error FunctionLowering::lowerMov(const Instruction &I) {
  std::optional<ScalarType> TO = I.lastType();
  if (!TO || I.Ops.size() != 2)
    return fail("malformed " + spell(I));
  ScalarType T = *TO;
  if (I.has(Modifier::V2) || I.has(Modifier::V4))
    return notLowered(I, "vector mov");
  Expected<Value *> V = get(I.Ops[1], T);
  if (!V)
    return V.takeError();
  return set(I.Ops[0], *V, T);
}

namespace {
bool isIntType(ScalarType T) {
  TypeKind K = typeKind(T);
  return K == TypeKind::Unsigned || K == TypeKind::Signed || K == TypeKind::Bits;
}
} // namespace

/// cvt.pack.sat.{u16,s16}.s32 d, a, b and cvt.pack.sat.{u8,s8,u4,s4}.s32.b32
/// d, a, b, c (9.7.9.22): a and b saturated to the destination type, b in
/// the low lane and a above it; the 8- and 4-bit forms fill the remaining
/// high bits of d from the low bits of c.
static Error lowerCvtPack(FunctionLowering &FL, const Instruction &I) {
  SmallVector<ScalarType, 3> Types;
  for (Modifier M : I.Mods)
    if (auto T = modifierType(M))
      Types.push_back(*T);
  if (Types.size() < 2 || Types[1] != ScalarType::S32 || !I.has(Modifier::Sat))
    return FL.notLowered(I, "form");
  ScalarType DT = Types[0];
  unsigned W = typeBits(DT);
  bool Wide = W == 16;
  if ((DT != ScalarType::U16 && DT != ScalarType::S16 && DT != ScalarType::U8 &&
       DT != ScalarType::S8 && DT != ScalarType::U4 && DT != ScalarType::S4) ||
      Types.size() != (Wide ? 2u : 3u) || I.Ops.size() != (Wide ? 3u : 4u))
    return FL.notLowered(I, "form");
  IRBuilder<> &B = FL.B;
  bool Signed = typeKind(DT) == TypeKind::Signed;
  int32_t Lo = Signed ? -(1 << (W - 1)) : 0, Hi = Signed ? (1 << (W - 1)) - 1 : (1 << W) - 1;
  auto Sat = [&](Value *X) {
    X = FL.callLLVM(Intrinsic::smax, {B.getInt32Ty()}, {X, B.getInt32(uint32_t(Lo))});
    X = FL.callLLVM(Intrinsic::smin, {B.getInt32Ty()}, {X, B.getInt32(uint32_t(Hi))});
    return B.CreateAnd(X, B.getInt32((1u << W) - 1));
  };
  Expected<Value *> A = FL.get(I.Ops[1], ScalarType::S32), Bv = FL.get(I.Ops[2], ScalarType::S32);
  if (!A) return A.takeError();
  if (!Bv) return Bv.takeError();
  Value *D = B.CreateOr(B.CreateShl(Sat(*A), W), Sat(*Bv));
  if (!Wide) {
    Expected<Value *> Cv = FL.get(I.Ops[3], ScalarType::B32);
    if (!Cv) return Cv.takeError();
    D = B.CreateOr(D, B.CreateShl(*Cv, 2 * W));
  }
  return FL.set(I.Ops[0], D, ScalarType::B32);
}

/// An f32 as an fp8 byte (9.7.9.21, .rn.satfinite): rounded to nearest even
/// at the format's precision (3 mantissa bits for e4m3, 2 for e5m2, with
/// subnormals), clamped to the largest finite value (448, 57344), NaN as
/// 0x7F; .relu makes negatives and -0 +0.
static Value *toFp8(FunctionLowering &FL, Value *X, bool E4M3, bool Relu) {
  IRBuilder<> &B = FL.B;
  Type *F32 = B.getFloatTy(), *I32 = B.getInt32Ty();
  int P = E4M3 ? 3 : 2, Emin = E4M3 ? -6 : -14, Bias = E4M3 ? 7 : 15;
  double Max = E4M3 ? 448.0 : 57344.0;
  Value *Bits = B.CreateBitCast(X, I32);
  Value *A = FL.callLLVM(Intrinsic::fabs, {F32}, {X});
  // The quantum at |x|: 2^(max(e, emin) - p).
  Value *E = B.CreateSub(B.CreateAnd(B.CreateLShr(Bits, 23), B.getInt32(0xFF)), B.getInt32(127));
  Value *Eq = B.CreateSub(FL.callLLVM(Intrinsic::smax, {I32}, {E, B.getInt32(uint32_t(Emin))}), B.getInt32(P));
  Value *Q = B.CreateBitCast(B.CreateShl(B.CreateAdd(Eq, B.getInt32(127)), 23), F32);
  Value *R = B.CreateFMul(FL.callLLVM(Intrinsic::roundeven, {F32}, {B.CreateFDiv(A, Q)}), Q);
  R = FL.callLLVM(Intrinsic::minnum, {F32}, {R, ConstantFP::get(F32, Max)});
  Value *RB = B.CreateBitCast(R, I32);
  Value *Normal = B.CreateOr(
      B.CreateShl(B.CreateAdd(B.CreateAnd(B.CreateLShr(RB, 23), B.getInt32(0xFF)), B.getInt32(uint32_t(Bias - 127))), P),
      B.CreateAnd(B.CreateLShr(RB, 23 - P), B.getInt32((1u << P) - 1)));
  Value *Sub = B.CreateFPToUI(B.CreateFMul(R, ConstantFP::get(F32, std::ldexp(1.0, P - Emin))), I32);
  Value *Code = B.CreateSelect(B.CreateFCmpOLT(R, ConstantFP::get(F32, std::ldexp(1.0, Emin))), Sub, Normal);
  Code = B.CreateOr(Code, B.CreateShl(B.CreateLShr(Bits, 31), 7));
  if (Relu) // Negatives and -0 become +0 (as on an H100).
    Code = B.CreateSelect(B.CreateICmpSLT(Bits, B.getInt32(0)), B.getInt32(0), Code);
  Code = B.CreateSelect(B.CreateFCmpUNO(X, X), B.getInt32(0x7F), Code);
  return B.CreateTrunc(Code, B.getInt8Ty());
}

/// An fp8 byte as f32 (exact).
static Value *fromFp8(FunctionLowering &FL, Value *Byte, bool E4M3) {
  IRBuilder<> &B = FL.B;
  Type *F32 = B.getFloatTy(), *I32 = B.getInt32Ty();
  if (!E4M3) // e5m2 is the high byte of an f16.
    return B.CreateFPExt(B.CreateBitCast(B.CreateShl(B.CreateZExt(Byte, B.getInt16Ty()), 8), B.getHalfTy()), F32);
  Value *X = B.CreateZExt(Byte, I32);
  Value *Exp = B.CreateAnd(B.CreateLShr(X, 3), B.getInt32(15)), *Man = B.CreateAnd(X, B.getInt32(7));
  Value *Normal = B.CreateOr(B.CreateShl(B.CreateAdd(Exp, B.getInt32(120)), 23), B.CreateShl(Man, 20));
  Value *Sub = B.CreateBitCast(B.CreateFMul(B.CreateUIToFP(Man, F32), ConstantFP::get(F32, 1.0 / 512)), I32);
  Value *Mag = B.CreateSelect(B.CreateICmpEQ(Exp, B.getInt32(0)), Sub, Normal);
  Mag = B.CreateSelect(B.CreateICmpEQ(B.CreateAnd(X, B.getInt32(0x7F)), B.getInt32(0x7F)), B.getInt32(0x7FC00000), Mag);
  return B.CreateBitCast(B.CreateOr(B.CreateShl(B.CreateAnd(X, B.getInt32(0x80)), 24), Mag), F32);
}

/// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b (d.hi from a, d.lo
/// from b), the same from .f16x2 a, and cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}
/// d, a (exact; .relu makes negatives and -0 +0).
static Error lowerCvtFp8(FunctionLowering &FL, const Instruction &I, ScalarType DT, ScalarType ST) {
  IRBuilder<> &B = FL.B;
  bool Relu = I.has(Modifier::Relu);
  std::optional<Modifier> Rnd = I.firstOfClass(MC_Round);
  if (!Rnd || *Rnd != Modifier::Rn)
    return FL.notLowered(I, "rounding");
  if (DT == ScalarType::E4M3x2 || DT == ScalarType::E5M2x2) {
    bool E4 = DT == ScalarType::E4M3x2;
    if (!I.has(Modifier::SatFinite))
      return FL.notLowered(I, "fp8 without .satfinite");
    Value *Hi, *Lo;
    if (ST == ScalarType::F32 && I.Ops.size() == 3) {
      Expected<Value *> A = FL.get(I.Ops[1], ScalarType::F32), Bv = FL.get(I.Ops[2], ScalarType::F32);
      if (!A) return A.takeError();
      if (!Bv) return Bv.takeError();
      Hi = *A, Lo = *Bv;
    } else if (ST == ScalarType::F16x2 && I.Ops.size() == 2) {
      Expected<Value *> A = FL.get(I.Ops[1], ScalarType::B32);
      if (!A) return A.takeError();
      auto Half = [&](unsigned Sh) {
        return B.CreateFPExt(B.CreateBitCast(B.CreateTrunc(B.CreateLShr(*A, Sh), B.getInt16Ty()), B.getHalfTy()),
                             B.getFloatTy());
      };
      Hi = Half(16), Lo = Half(0);
    } else {
      return FL.notLowered(I, "fp8 source");
    }
    Value *D = B.CreateOr(B.CreateShl(B.CreateZExt(toFp8(FL, Hi, E4, Relu), B.getInt16Ty()), 8),
                          B.CreateZExt(toFp8(FL, Lo, E4, Relu), B.getInt16Ty()));
    return FL.set(I.Ops[0], D, ScalarType::B16);
  }
  if (DT == ScalarType::F16x2 && (ST == ScalarType::E4M3x2 || ST == ScalarType::E5M2x2) && I.Ops.size() == 2) {
    Expected<Value *> A = FL.get(I.Ops[1], ScalarType::B16);
    if (!A) return A.takeError();
    auto Half = [&](unsigned Sh) {
      Value *F = fromFp8(FL, B.CreateTrunc(B.CreateLShr(*A, Sh), B.getInt8Ty()), ST == ScalarType::E4M3x2);
      if (Relu) // Negatives and -0 become +0; NaN stays.
        F = B.CreateSelect(B.CreateAnd(B.CreateICmpSLT(B.CreateBitCast(F, B.getInt32Ty()), B.getInt32(0)),
                                       B.CreateFCmpORD(F, F)),
                           ConstantFP::get(B.getFloatTy(), 0.0), F);
      Value *H = FL.canonicalNaN(B.CreateFPTrunc(F, B.getHalfTy()));
      return B.CreateZExt(B.CreateBitCast(H, B.getInt16Ty()), B.getInt32Ty());
    };
    return FL.set(I.Ops[0], B.CreateOr(B.CreateShl(Half(8), 16), Half(0)), ScalarType::B32);
  }
  return FL.notLowered(I, "fp8 conversion");
}

Error FunctionLowering::lowerCvt(const Instruction &I) {
  if (I.Op == Opcode::CvtPack)
    return lowerCvtPack(*this, I);
  SmallVector<ScalarType, 2> Types;
  for (Modifier M : I.Mods)
    if (auto T = modifierType(M))
      Types.push_back(*T);
  if (Types.size() != 2)
    return fail(spell(I) + " needs a destination and a source type");
  ScalarType DT = Types[0], ST = Types[1];
  std::optional<Modifier> Rnd = I.firstOfClass(MC_Round);
  bool Ftz = I.has(Modifier::Ftz);
  bool Sat = I.has(Modifier::Sat);

  if (DT == ScalarType::E4M3x2 || DT == ScalarType::E5M2x2 || ST == ScalarType::E4M3x2 ||
      ST == ScalarType::E5M2x2)
    return lowerCvtFp8(*this, I, DT, ST);

  // Packed destinations: cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b.
  if (DT == ScalarType::F16x2 || DT == ScalarType::BF16x2) {
    if (ST != ScalarType::F32 || I.Ops.size() < 3)
      return notLowered(I);
    Expected<Value *> A = get(I.Ops[1], ScalarType::F32), Bv = get(I.Ops[2], ScalarType::F32);
    if (!A) return A.takeError();
    if (!Bv) return Bv.takeError();
    Type *HT = DT == ScalarType::F16x2 ? B.getHalfTy() : B.getBFloatTy();
    auto One = [&](Value *X) -> Value * {
      Value *R = B.CreateFPTrunc(X, HT);
      if (Rnd && *Rnd != Modifier::Rn)
        R = directedRound(R, B.CreateFSub(X, B.CreateFPExt(R, X->getType())), *Rnd,
                          B.CreateFCmpONE(callLLVM(Intrinsic::fabs, {X->getType()}, {X}), ConstantFP::getInfinity(X->getType())));
      if (I.has(Modifier::Relu))
        R = B.CreateSelect(B.CreateFCmpUNO(R, R), R, callLLVM(Intrinsic::maxnum, {HT}, {R, ConstantFP::get(HT, 0.0)}));
      if (I.has(Modifier::SatFinite)) {
        // Infinities clamp to the largest finite value; NaN stays NaN (as
        // on an H100), where minnum/maxnum would pick the bound.
        Value *Max = ConstantFP::get(C, APFloat::getLargest(HT->getFltSemantics()));
        Value *NMax = ConstantFP::get(C, APFloat::getLargest(HT->getFltSemantics(), true));
        R = B.CreateSelect(B.CreateFCmpUNO(R, R), R,
                           callLLVM(Intrinsic::minnum, {HT}, {callLLVM(Intrinsic::maxnum, {HT}, {R, NMax}), Max}));
      }
      return canonicalNaN(R);
    };
    Value *Lo = One(*Bv), *Hi = One(*A);
    Value *Vec = B.CreateInsertElement(B.CreateInsertElement(PoisonValue::get(FixedVectorType::get(HT, 2)), Lo, uint64_t(0)), Hi, uint64_t(1));
    return set(I.Ops[0], Vec, DT);
  }
  if (DT == ScalarType::TF32) {
    if (ST != ScalarType::F32)
      return notLowered(I);
    Expected<Value *> A = get(I.Ops[1], ScalarType::F32);
    if (!A) return A.takeError();
    Value *Bits = B.CreateBitCast(*A, B.getInt32Ty());
    Value *Mask = B.getInt32(0xFFFFE000);
    bool Rna = !Rnd || *Rnd == Modifier::Rna;
    Value *Rounded;
    if (Rnd && *Rnd == Modifier::Rz)
      Rounded = Bits;
    else if (Rnd && *Rnd == Modifier::Rn) // ties to even on bit 13
      Rounded = B.CreateAdd(Bits, B.CreateAdd(B.getInt32(0xFFF), B.CreateAnd(B.CreateLShr(Bits, 13), 1)));
    else // .rna: ties away from zero
      Rounded = B.CreateAdd(Bits, B.getInt32(0x1000));
    Rounded = B.CreateAnd(Rounded, Mask);
    Value *IsNaN = B.CreateFCmpUNO(*A, *A);
    Value *R;
    if (Rna && I.has(Modifier::SatFinite)) {
      // What an H100 does: the rounded bits, one tf32 ulp lower wherever
      // they have the all-ones exponent. So FLT_MAX and infinity give the
      // largest tf32, and a NaN a NaN below its truncation.
      Value *Top = B.CreateICmpEQ(B.CreateAnd(Rounded, B.getInt32(0x7F800000)), B.getInt32(0x7F800000));
      Rounded = B.CreateSelect(IsNaN, B.CreateAnd(Bits, Mask), Rounded); // the rounding must not carry out
      R = B.CreateSelect(Top, B.CreateSub(Rounded, B.getInt32(0x2000)), Rounded);
    } else {
      // Infinities stay; a NaN is truncated by .rna (sign and payload kept)
      // and is the canonical NaN's tf32 (0x7fffe000) from .rn and .rz.
      Value *Inf = B.CreateFCmpOEQ(callLLVM(Intrinsic::fabs, {B.getFloatTy()}, {*A}), ConstantFP::getInfinity(B.getFloatTy()));
      R = B.CreateSelect(Inf, Bits, Rounded);
      R = B.CreateSelect(IsNaN, Rna ? B.CreateAnd(Bits, Mask) : B.getInt32(0x7FFFE000), R);
    }
    return set(I.Ops[0], R, ScalarType::B32);
  }
  if ((isFloat(DT) && bits(DT) < 16) || (isFloat(ST) && bits(ST) < 16) || DT == ScalarType::E4M3x2 ||
      DT == ScalarType::E5M2x2 || ST == ScalarType::E4M3x2 || ST == ScalarType::E5M2x2 ||
      DT == ScalarType::E2M1x2 || ST == ScalarType::E2M1x2 || ST == ScalarType::F16x2 || ST == ScalarType::BF16x2)
    return notLowered(I, "fp8/fp6/fp4 or packed-source conversion");

  Expected<Value *> AV = get(I.Ops[1], ST);
  if (!AV)
    return AV.takeError();
  Value *A = *AV;
  Value *R;
  if (isIntType(DT) && isIntType(ST)) {
    unsigned DW = bits(DT), SW = bits(ST);
    bool SS = isSigned(ST), DS = isSigned(DT);
    if (Sat) {
      // Clamp the source value to the destination range, comparing in a
      // width that holds both.
      unsigned WW = std::max(DW, SW) + 1;
      Value *X = SS ? B.CreateSExt(A, B.getIntNTy(WW)) : B.CreateZExt(A, B.getIntNTy(WW));
      APInt Lo = DS ? APInt::getSignedMinValue(DW).sext(WW) : APInt(WW, 0);
      APInt Hi = DS ? APInt::getSignedMaxValue(DW).sext(WW) : APInt::getMaxValue(DW).zext(WW);
      X = callLLVM(Intrinsic::smax, {X->getType()}, {X, ConstantInt::get(X->getType(), Lo)});
      X = callLLVM(Intrinsic::smin, {X->getType()}, {X, ConstantInt::get(X->getType(), Hi)});
      R = B.CreateTrunc(X, B.getIntNTy(DW));
    } else if (DW < SW) {
      R = B.CreateTrunc(A, B.getIntNTy(DW));
    } else {
      R = SS ? B.CreateSExt(A, B.getIntNTy(DW)) : B.CreateZExt(A, B.getIntNTy(DW));
    }
    return set(I.Ops[0], R, DT);
  }
  if (isIntType(DT) && isFloat(ST)) {
    if (Ftz)
      A = flush(A);
    Modifier M = Rnd ? *Rnd : Modifier::Rzi;
    Intrinsic::ID Id = M == Modifier::Rni ? Intrinsic::rint : M == Modifier::Rmi ? Intrinsic::floor
                     : M == Modifier::Rpi ? Intrinsic::ceil : Intrinsic::trunc;
    Value *X = A;
    if (X->getType()->isHalfTy() || X->getType()->isBFloatTy())
      X = B.CreateFPExt(X, B.getFloatTy());
    X = callLLVM(Id, {X->getType()}, {X});
    Type *IT = B.getIntNTy(bits(DT));
    R = callLLVM(isSigned(DT) ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat, {IT, X->getType()}, {X});
    // NaN: fptosi.sat gives 0, as an H100 does from f32/f16/bf16 to 8..32
    // bits; from f64, and to 64 bits from anything, it gives the pattern
    // with only the top bit set (tests/ptx-conformance).
    if (ST == ScalarType::F64 || bits(DT) == 64)
      R = B.CreateSelect(B.CreateFCmpUNO(A, A), ConstantInt::get(IT, APInt::getSignedMinValue(bits(DT))), R);
    return set(I.Ops[0], R, DT);
  }
  Type *DVT = valType(DT);
  if (isFloat(DT) && isIntType(ST)) {
    bool SS = isSigned(ST);
    R = SS ? B.CreateSIToFP(A, DVT) : B.CreateUIToFP(A, DVT);
    if (Rnd && *Rnd != Modifier::Rn) {
      // The exact error: source minus the result converted back, in i128.
      // An f16 result can be infinite (65520 and up), where fptosi is
      // poison (AMD's v_cvt_i32_f32 gives INT_MAX, and rounding "up" from
      // there made 0x7c01, a NaN): an infinity counts as exact, the
      // rounding already went the right way.
      Type *Wide = B.getInt128Ty();
      Value *X = SS ? B.CreateSExt(A, Wide) : B.CreateZExt(A, Wide);
      bool Narrow = DVT->isHalfTy() || DVT->isBFloatTy();
      Value *RF = Narrow ? B.CreateFPExt(R, B.getFloatTy()) : R;
      Value *Back = B.CreateFPToSI(RF, Wide);
      Value *Inf = B.CreateFCmpOEQ(callLLVM(Intrinsic::fabs, {RF->getType()}, {RF}),
                                   ConstantFP::getInfinity(RF->getType()));
      Value *Diff = B.CreateSelect(Inf, ConstantInt::get(Wide, 0), B.CreateSub(X, Back));
      Value *Err = B.CreateSelect(B.CreateICmpSGT(Diff, ConstantInt::get(Wide, 0)), ConstantFP::get(DVT, 1.0),
                                  B.CreateSelect(B.CreateICmpSLT(Diff, ConstantInt::get(Wide, 0)), ConstantFP::get(DVT, -1.0), ConstantFP::get(DVT, 0.0)));
      R = directedRound(R, Err, *Rnd, B.getTrue());
    }
  } else if (isFloat(DT) && isFloat(ST)) {
    // .ftz flushes an f32 source, but not into an f16 result, and never an
    // f16 source (what an H100 does: tests/ptx-conformance).
    if (Ftz && ST == ScalarType::F32 && DT != ScalarType::F16)
      A = flush(A);
    // cvt.ftz.f64.f32 gives the canonical f32 NaN widened (0x7fffffffe0000000);
    // without .ftz, the NaN keeps its payload.
    if (Ftz && ST == ScalarType::F32 && DT == ScalarType::F64)
      A = canonicalNaN(A);
    if (ST == ScalarType::BF16 && DT == ScalarType::F32) {
      // Exact, and a signalling NaN stays signalling (fpext would quiet
      // it): bf16 is the top half of an f32.
      Value *Bits = B.CreateShl(B.CreateZExt(B.CreateBitCast(A, B.getInt16Ty()), B.getInt32Ty()), 16);
      R = B.CreateBitCast(Bits, DVT);
      if (Ftz) // .ftz makes it an arithmetic conversion: NaNs canonical
        R = canonicalNaN(flush(R));
      return set(I.Ops[0], R, DT);
    }
    if ((ST == ScalarType::F16 && DT == ScalarType::BF16) || (ST == ScalarType::BF16 && DT == ScalarType::F16))
      A = B.CreateFPExt(A, B.getFloatTy()); // exact; then an ordinary narrowing below
    Type *SVT = A->getType();
    unsigned DB = DVT->getPrimitiveSizeInBits(), SB = SVT->getPrimitiveSizeInBits();
    if (DVT == SVT) {
      // Same type: .rni/.rzi/.rmi/.rpi round to an integral value.
      R = A;
      if (Rnd) {
        Intrinsic::ID Id = *Rnd == Modifier::Rni ? Intrinsic::rint : *Rnd == Modifier::Rmi ? Intrinsic::floor
                         : *Rnd == Modifier::Rpi ? Intrinsic::ceil : *Rnd == Modifier::Rzi ? Intrinsic::trunc
                         : Intrinsic::not_intrinsic;
        if (Id != Intrinsic::not_intrinsic)
          R = callLLVM(Id, {SVT}, {A});
      }
    } else if (DB > SB || (DB == SB && DT == ScalarType::F32)) {
      R = B.CreateFPExt(A, DVT);
      if (Rnd && (*Rnd == Modifier::Rni || *Rnd == Modifier::Rzi || *Rnd == Modifier::Rmi || *Rnd == Modifier::Rpi)) {
        Intrinsic::ID Id = *Rnd == Modifier::Rni ? Intrinsic::rint : *Rnd == Modifier::Rmi ? Intrinsic::floor
                         : *Rnd == Modifier::Rpi ? Intrinsic::ceil : Intrinsic::trunc;
        R = callLLVM(Id, {DVT}, {R});
      }
    } else {
      R = B.CreateFPTrunc(A, DVT);
      if (Rnd && *Rnd != Modifier::Rn && *Rnd != Modifier::Rna) {
        Value *Err = B.CreateFSub(A, B.CreateFPExt(R, SVT));
        Value *Fin = B.CreateFCmpONE(callLLVM(Intrinsic::fabs, {SVT}, {A}), ConstantFP::getInfinity(SVT));
        R = directedRound(R, Err, *Rnd, Fin);
      }
      if (I.has(Modifier::SatFinite)) {
        Value *Max = ConstantFP::get(C, APFloat::getLargest(DVT->getFltSemantics()));
        Value *NMax = ConstantFP::get(C, APFloat::getLargest(DVT->getFltSemantics(), true));
        R = callLLVM(Intrinsic::minnum, {DVT}, {callLLVM(Intrinsic::maxnum, {DVT}, {R, NMax}), Max});
      }
    }
    if (I.has(Modifier::Relu))
      R = B.CreateSelect(B.CreateFCmpUNO(R, R), R, callLLVM(Intrinsic::maxnum, {DVT}, {R, ConstantFP::get(DVT, 0.0)}));
    // To or from f64 an H100 keeps a NaN's sign and top payload bits and
    // sets the quiet bit, as x86 does; AMD's v_cvt makes the canonical
    // quiet NaN. Under FERRY_EXACT_F64_NAN the bits are built explicitly.
    static const bool Exact = Settings::get().getBool(SettingKey::ExactF64Nan);
    if (Exact && SVT != DVT && (SVT->isDoubleTy() || DVT->isDoubleTy())) {
      unsigned SM = APFloat::semanticsPrecision(SVT->getFltSemantics()) - 1;
      unsigned DM = APFloat::semanticsPrecision(DVT->getFltSemantics()) - 1;
      Type *SI = B.getIntNTy(SB), *DI = B.getIntNTy(DB);
      Value *Bits = B.CreateBitCast(A, SI);
      Value *Sign = B.CreateShl(B.CreateZExtOrTrunc(B.CreateLShr(Bits, SB - 1), DI), DB - 1);
      Value *Mant = B.CreateAnd(Bits, ConstantInt::get(SI, APInt::getLowBitsSet(SB, SM)));
      Mant = DM >= SM ? B.CreateShl(B.CreateZExtOrTrunc(Mant, DI), DM - SM)
                       : B.CreateZExtOrTrunc(B.CreateLShr(Mant, SM - DM), DI);
      APInt ExpQuiet = APInt::getBitsSet(DB, DM - 1, DB - 1); // exponent all ones, quiet bit
      Value *NaN = B.CreateBitCast(B.CreateOr(B.CreateOr(Sign, Mant), ConstantInt::get(DI, ExpQuiet)), DVT);
      R = B.CreateSelect(B.CreateFCmpUNO(A, A), NaN, R);
    }
  } else {
    return notLowered(I);
  }
  if (Ftz && DVT->isFloatTy())
    R = flush(R);
  if (Sat)
    R = saturate(R);
  // Between f16, bf16 and f32 a NaN comes out canonical, as from arithmetic
  // (an H100: tests/ptx-conformance), except from a plain cvt.f32.f32, a
  // move; conversions from and to f64 keep the payload, as x86's do.
  if (isFloat(DT) && isFloat(ST) && bits(ST) <= 32 && DT != ScalarType::F64 &&
      !(DT == ScalarType::F32 && ST == ScalarType::F32 && !Rnd && !Ftz))
    R = canonicalNaN(R);
  return set(I.Ops[0], R, DT);
}

} // namespace ferry::ptx::lower
