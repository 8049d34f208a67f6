//===- LowerWgmma.cpp - warpgroup matrix instructions (PTX ISA 9.7.15) -----===//
/// \file
/// wgmma.mma_async and its fence/commit_group/wait_group. A warpgroup (four
/// consecutive warps, warp w = %warpid % 4) computes D (64 x N) = A (64 x K)
/// * B (K x N) + D; warp w owns rows 16w..16w+15, in the accumulator layout
/// of mma.sync's m16n8 tiles repeated over N: element i of a thread (g =
/// lane>>2, t = lane&3) is row 16w + g + 8*((i>>1)&1), column 8*(i>>2) +
/// 2t + (i&1). Every element a thread computes needs only A rows of its own
/// warp and B columns, so no warpgroup-wide exchange is needed:
///  - an A or B operand given by a matrix descriptor is read straight from
///    shared memory, each thread loading the elements it uses;
///  - A given in registers has mma.sync's m16n8kK A layout within each
///    warp, gathered with ferry.shfl.sync like LowerMma.cpp does.
/// The product is computed when wgmma.mma_async executes, so the
/// asynchronous protocol (wgmma.fence, commit_group, wait_group) has nothing
/// left to order: those are no-ops.
///
/// Matrix descriptors (64 bits): start address (bits 0-13, bytes >> 4),
/// leading-dimension byte offset LBO (16-29, >> 4), stride-dimension byte
/// offset SBO (32-45, >> 4), swizzle mode (62-63: 0 none, 1 128B, 2 64B,
/// 3 32B). The shared-memory layouts are the canonical ones of the ISA,
/// built from core matrices of 8 rows of 16 bytes; with W the swizzle width
/// (16 without swizzle) and E the element size, element (mn, k) is at
///   K-major (no transpose):  (mn/8)*SBO + (kE/W)*LBO + (mn%8)*W + kE%W
///   MN-major, no swizzle:    (mn/8)*SBO + (k/8)*LBO + (k%8)*16 + (mnE)%16
///   MN-major, swizzled:      (mnE/W)*LBO + (k/8)*SBO + (k%8)*W + (mnE)%W
/// from the start address, then swizzled: address bits 4.. XOR bits 7..
/// (3 bits for 128B, 2 for 64B, 1 for 32B). The descriptor's base-offset
/// field is ignored (tiles are assumed aligned to their swizzle pattern).
///
/// Arithmetic as in LowerMma.cpp: fma chains in k order from D (or from 0
/// when scale-d is false) in f32 for f16/bf16/tf32/e4m3/e5m2 inputs (an f16
/// D is rounded once at the end), exact 64-bit sums for s8/u8 (.satfinite
/// clamps to s32). imm-scale-a/b of -1 negate the inputs.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {

class WgmmaLowering {
public:
  WgmmaLowering(FunctionLowering &FL, const Instruction &I) : FL(FL), B(FL.B), I(I) {}

  Error run() {
    switch (I.Op) {
    case Opcode::WgmmaFence:
    case Opcode::WgmmaCommitGroup:
    case Opcode::WgmmaWaitGroup:
      return Error::success(); // The products are complete when issued.
    case Opcode::WgmmaMmaAsync:
      return mmaAsync();
    default:
      return FL.notLowered(I);
    }
  }

private:
  FunctionLowering &FL;
  IRBuilder<> &B;
  const Instruction &I;

  Error notLowered(StringRef Why) { return FL.notLowered(I, Why); }

  /// A decoded matrix descriptor: byte address, offsets, swizzle width W
  /// (16 without swizzle) and the XOR mask of address bits 7.. into 4..
  struct Desc {
    Value *Start, *LBO, *SBO, *W, *SwizzleMask, *Swizzled;
  };

  Desc decode(Value *D) {
    auto Field = [&](unsigned Lo, unsigned Bits) {
      Value *F = B.CreateAnd(B.CreateLShr(D, Lo), B.getInt64((uint64_t(1) << Bits) - 1));
      return B.CreateShl(B.CreateTrunc(F, B.getInt32Ty()), 4);
    };
    Value *Mode = B.CreateTrunc(B.CreateLShr(D, 62), B.getInt32Ty());
    auto ByMode = [&](unsigned None, unsigned B128, unsigned B64, unsigned B32) {
      Value *V = B.CreateSelect(B.CreateICmpEQ(Mode, B.getInt32(3)), B.getInt32(B32), B.getInt32(None));
      V = B.CreateSelect(B.CreateICmpEQ(Mode, B.getInt32(2)), B.getInt32(B64), V);
      return B.CreateSelect(B.CreateICmpEQ(Mode, B.getInt32(1)), B.getInt32(B128), V);
    };
    return {Field(0, 14), Field(16, 14), Field(32, 14), ByMode(16, 128, 64, 32), ByMode(0, 7, 3, 1),
            B.CreateICmpNE(Mode, B.getInt32(0))};
  }

  /// The shared-memory address of element (MN, k) of a descriptor operand.
  Value *elementAddr(const Desc &D, Value *MN, unsigned K, bool MNMajor, unsigned ES) {
    Value *Addr;
    if (!MNMajor) {
      Value *KB = B.getInt32(K * ES);
      Addr = B.CreateAdd(B.CreateMul(B.CreateLShr(MN, 3), D.SBO), B.CreateMul(B.CreateUDiv(KB, D.W), D.LBO));
      Addr = B.CreateAdd(Addr, B.CreateMul(B.CreateAnd(MN, B.getInt32(7)), D.W));
      Addr = B.CreateAdd(Addr, B.CreateURem(KB, D.W));
    } else {
      Value *MB = B.CreateMul(MN, B.getInt32(ES));
      // Without swizzle SBO steps along MN and LBO along K; swizzled, the
      // other way round.
      Value *MNStride = B.CreateSelect(D.Swizzled, D.LBO, D.SBO);
      Value *KStride = B.CreateSelect(D.Swizzled, D.SBO, D.LBO);
      Addr = B.CreateAdd(B.CreateMul(B.CreateUDiv(MB, D.W), MNStride), B.CreateMul(B.getInt32(K / 8), KStride));
      Addr = B.CreateAdd(Addr, B.CreateMul(B.getInt32(K % 8), D.W));
      Addr = B.CreateAdd(Addr, B.CreateURem(MB, D.W));
    }
    Addr = B.CreateAdd(D.Start, Addr);
    Value *Xor = B.CreateShl(B.CreateAnd(B.CreateLShr(Addr, 7), D.SwizzleMask), 4);
    return B.CreateIntToPtr(B.CreateXor(Addr, Xor), ptrTy(FL.C, 3));
  }

  static unsigned elemBytes(ScalarType T) {
    switch (T) {
    case ScalarType::F16: case ScalarType::BF16: return 2;
    case ScalarType::TF32: return 4;
    default: return 1; // e4m3, e5m2, s8, u8
    }
  }

  static bool isInt(ScalarType T) { return T == ScalarType::S8 || T == ScalarType::U8; }

  /// A raw input element (an integer of elemBytes(T) bytes) as float, or as
  /// i64 for s8/u8.
  Value *toCompute(Value *Raw, ScalarType T) {
    Type *F32 = B.getFloatTy();
    switch (T) {
    case ScalarType::F16:
      return B.CreateFPExt(B.CreateBitCast(Raw, B.getHalfTy()), F32);
    case ScalarType::BF16:
      return B.CreateBitCast(B.CreateShl(B.CreateZExt(Raw, B.getInt32Ty()), 16), F32);
    case ScalarType::TF32:
      return B.CreateBitCast(B.CreateAnd(Raw, B.getInt32(0xFFFFE000u)), F32);
    case ScalarType::E5M2: // The high byte of an f16.
      return B.CreateFPExt(B.CreateBitCast(B.CreateShl(B.CreateZExt(Raw, B.getInt16Ty()), 8), B.getHalfTy()), F32);
    case ScalarType::E4M3: {
      // Sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities,
      // S.1111.111 is NaN.
      Value *X = B.CreateZExt(Raw, B.getInt32Ty());
      Value *Sign = B.CreateShl(B.CreateAnd(X, B.getInt32(0x80)), 24);
      Value *Exp = B.CreateAnd(B.CreateLShr(X, 3), B.getInt32(15));
      Value *Man = B.CreateAnd(X, B.getInt32(7));
      Value *Normal = B.CreateOr(B.CreateShl(B.CreateAdd(Exp, B.getInt32(120)), 23), B.CreateShl(Man, 20));
      Value *Sub = B.CreateBitCast(B.CreateFMul(B.CreateUIToFP(Man, F32), ConstantFP::get(F32, 1.0 / 512)),
                                   B.getInt32Ty());
      Value *Mag = B.CreateSelect(B.CreateICmpEQ(Exp, B.getInt32(0)), Sub, Normal);
      Value *IsNan = B.CreateICmpEQ(B.CreateAnd(X, B.getInt32(0x7F)), B.getInt32(0x7F));
      Mag = B.CreateSelect(IsNan, B.getInt32(0x7FC00000), Mag);
      return B.CreateBitCast(B.CreateOr(Sign, Mag), F32);
    }
    case ScalarType::S8:
      return B.CreateSExt(Raw, B.getInt64Ty());
    default: // u8
      return B.CreateZExt(Raw, B.getInt64Ty());
    }
  }

  /// Lane Src's value of V (i32), every lane of the warp taking part.
  Value *shfl(Value *V, Value *Src) {
    Value *R = FL.call(Intr::ShflSync, {B.getInt32(3), B.getInt32(~0u), V, Src, B.getInt32(31)});
    return B.CreateExtractValue(R, 0);
  }

  Error mmaAsync() {
    std::optional<Modifier> ShapeMod = I.firstOfClass(MC_Shape);
    unsigned M = 0, N = 0, K = 0;
    if (!ShapeMod || std::sscanf(modifierName(*ShapeMod).str().c_str(), "m%un%uk%u", &M, &N, &K) != 3 || M != 64 ||
        N % 8 || N > 256)
      return notLowered("shape");
    SmallVector<ScalarType, 3> Ts;
    for (Modifier Mod : I.Mods)
      if (std::optional<ScalarType> T = modifierType(Mod))
        Ts.push_back(*T);
    if (Ts.size() != 3)
      return notLowered("types");
    ScalarType TD = Ts[0], TA = Ts[1], TB = Ts[2];
    bool Int = isInt(TA);
    bool HalfIn = TA == ScalarType::F16 || TA == ScalarType::BF16;
    bool Fp8 = TA == ScalarType::E4M3 || TA == ScalarType::E5M2;
    bool Ok;
    if (HalfIn)
      Ok = K == 16 && TB == TA && (TD == ScalarType::F32 || (TA == ScalarType::F16 && TD == ScalarType::F16));
    else if (TA == ScalarType::TF32)
      Ok = K == 8 && TB == TA && TD == ScalarType::F32;
    else if (Fp8)
      Ok = K == 32 && (TB == ScalarType::E4M3 || TB == ScalarType::E5M2) &&
           (TD == ScalarType::F32 || TD == ScalarType::F16);
    else if (Int)
      Ok = K == 32 && isInt(TB) && TD == ScalarType::S32;
    else
      Ok = false;
    if (!Ok)
      return notLowered("shape and type combination");
    // Operands: d, a, b-desc, scale-d, then imm-scale-a, imm-scale-b (not
    // for integers) and imm-trans-a (A from a descriptor), imm-trans-b
    // (f16/bf16 only).
    bool ARegs = I.Ops.size() > 1 && I.Ops[1].K == Operand::Kind::Vector;
    unsigned Want = 4 + (Int ? 0 : 2) + (HalfIn ? (ARegs ? 1 : 2) : 0);
    if (I.Ops.size() != Want)
      return FL.fail(FL.spell(I) + ": expected " + Twine(Want) + " operands");
    auto Imm = [&](unsigned K) -> Expected<int64_t> {
      if (I.Ops[K].K != Operand::Kind::Int)
        return FL.fail(FL.spell(I) + ": operand " + Twine(K + 1) + " must be an immediate");
      return I.Ops[K].Int;
    };
    int64_t ScaleA = 1, ScaleB = 1, TransA = 0, TransB = 0;
    if (!Int) {
      Expected<int64_t> SA = Imm(4), SB = Imm(5);
      if (!SA) return SA.takeError();
      if (!SB) return SB.takeError();
      ScaleA = *SA, ScaleB = *SB;
      if (HalfIn) {
        Expected<int64_t> TrB = Imm(ARegs ? 6 : 7);
        if (!TrB) return TrB.takeError();
        TransB = *TrB;
        if (!ARegs) {
          Expected<int64_t> TrA = Imm(6);
          if (!TrA) return TrA.takeError();
          TransA = *TrA;
        }
      }
    }
    if ((ScaleA != 1 && ScaleA != -1) || (ScaleB != 1 && ScaleB != -1) || TransA > 1 || TransA < 0 || TransB > 1 ||
        TransB < 0)
      return FL.fail(FL.spell(I) + ": scale must be 1 or -1 and transpose 0 or 1");

    // scale-d: a predicate (or an immediate): false starts from zero.
    Value *ScaleD;
    if (I.Ops[3].K == Operand::Kind::Int) {
      ScaleD = B.getInt1(I.Ops[3].Int != 0);
    } else {
      Expected<Value *> P = FL.getPred(I.Ops[3]);
      if (!P)
        return P.takeError();
      ScaleD = *P;
    }

    // D: N/2 elements per thread (f32/s32: one register each; f16: two).
    unsigned NE = N / 2;
    ArrayRef<Operand> DOps = I.Ops[0].K == Operand::Kind::Vector ? I.Ops[0].Elems : ArrayRef<Operand>(I.Ops[0]);
    unsigned NDRegs = TD == ScalarType::F16 ? NE / 2 : NE;
    if (DOps.size() != NDRegs)
      return FL.fail(FL.spell(I) + ": d needs " + Twine(NDRegs) + " registers, got " + Twine(DOps.size()));
    SmallVector<Value *, 128> DIn;
    for (const Operand &Op : DOps) {
      Expected<Value *> V = FL.get(Op, ScalarType::B32);
      if (!V)
        return V.takeError();
      if (TD == ScalarType::F16) {
        for (unsigned H = 0; H < 2; ++H) {
          Value *Half = B.CreateTrunc(H ? B.CreateLShr(*V, 16) : *V, B.getInt16Ty());
          DIn.push_back(B.CreateFPExt(B.CreateBitCast(Half, B.getHalfTy()), B.getFloatTy()));
        }
      } else {
        DIn.push_back(Int ? B.CreateSExt(*V, B.getInt64Ty()) : B.CreateBitCast(*V, B.getFloatTy()));
      }
    }
    Type *AccTy = Int ? B.getInt64Ty() : B.getFloatTy();

    Value *Lane = FL.call(Intr::LaneId);
    Value *G = B.CreateLShr(Lane, 2), *T = B.CreateAnd(Lane, B.getInt32(3));
    Value *Warp = B.CreateAnd(FL.call(Intr::WarpId), B.getInt32(3));
    Value *Row0 = B.CreateAdd(B.CreateShl(Warp, 4), G);
    unsigned ESA = elemBytes(TA), ESB = elemBytes(TB);

    // This thread's two rows of A (16w + g and +8), K values each.
    SmallVector<Value *, 32> ARow[2];
    if (ARegs) {
      // mma.sync's m16n8kK A fragment within the warp: register r holds
      // row g + 8*(r&1), k = t*P + e + (K/2)*(r>>1), P elements per register.
      ArrayRef<Operand> AOps = I.Ops[1].Elems;
      if (AOps.size() != 4)
        return FL.fail(FL.spell(I) + ": a needs 4 registers, got " + Twine(AOps.size()));
      unsigned P = 4 / ESA;
      for (unsigned H = 0; H < 2; ++H)
        ARow[H].assign(K, nullptr);
      Value *Quad = B.CreateAnd(Lane, B.getInt32(~3u));
      for (unsigned R = 0; R < 4; ++R) {
        Expected<Value *> Reg = FL.get(AOps[R], ScalarType::B32);
        if (!Reg)
          return Reg.takeError();
        for (unsigned TP = 0; TP < 4; ++TP) {
          Value *V = shfl(*Reg, B.CreateAdd(Quad, B.getInt32(TP)));
          for (unsigned E = 0; E < P; ++E) {
            Value *Raw = B.CreateTrunc(B.CreateLShr(V, E * 8 * ESA), B.getIntNTy(8 * ESA));
            ARow[R & 1][TP * P + E + (K / 2) * (R >> 1)] = toCompute(Raw, TA);
          }
        }
      }
    } else {
      Expected<Value *> AD = FL.get(I.Ops[1], ScalarType::B64);
      if (!AD)
        return AD.takeError();
      Desc DA = decode(*AD);
      for (unsigned H = 0; H < 2; ++H) {
        Value *Row = B.CreateAdd(Row0, B.getInt32(8 * H));
        for (unsigned KK = 0; KK < K; ++KK) {
          Value *P = elementAddr(DA, Row, KK, TransA, ESA);
          ARow[H].push_back(toCompute(B.CreateAlignedLoad(B.getIntNTy(8 * ESA), P, Align(ESA)), TA));
        }
      }
    }
    if (ScaleA < 0)
      for (auto &Row : ARow)
        for (Value *&V : Row)
          V = B.CreateFNeg(V);
    Expected<Value *> BDV = FL.get(I.Ops[2], ScalarType::B64);
    if (!BDV)
      return BDV.takeError();
    Desc DB = decode(*BDV);

    // D lives in an array during a loop over the N/8 column blocks, so the
    // IR stays the size of one block whatever N is.
    AllocaInst *Acc;
    {
      IRBuilder<>::InsertPointGuard Guard(B);
      B.SetInsertPoint(FL.EntryBB, FL.EntryBB->getFirstInsertionPt());
      Acc = B.CreateAlloca(ArrayType::get(AccTy, NE), nullptr, "wgmma.d");
    }
    Type *ArrTy = Acc->getAllocatedType();
    Value *Zero = Constant::getNullValue(AccTy);
    for (unsigned E = 0; E < NE; ++E)
      B.CreateStore(B.CreateSelect(ScaleD, DIn[E], Zero), B.CreateConstInBoundsGEP2_32(ArrTy, Acc, 0, E));

    BasicBlock *Pre = B.GetInsertBlock();
    BasicBlock *Loop = BasicBlock::Create(FL.C, "wgmma.cols", &FL.F);
    BasicBlock *Done = BasicBlock::Create(FL.C, "wgmma.done", &FL.F);
    B.CreateBr(Loop);
    B.SetInsertPoint(Loop);
    PHINode *JB = B.CreatePHI(B.getInt32Ty(), 2, "jb");
    JB->addIncoming(B.getInt32(0), Pre);
    for (unsigned C = 0; C < 2; ++C) {
      // Column 8jb + 2t + c of B.
      Value *Col = B.CreateAdd(B.CreateAdd(B.CreateShl(JB, 3), B.CreateShl(T, 1)), B.getInt32(C));
      SmallVector<Value *, 32> BCol;
      for (unsigned KK = 0; KK < K; ++KK) {
        Value *P = elementAddr(DB, Col, KK, TransB, ESB);
        Value *V = toCompute(B.CreateAlignedLoad(B.getIntNTy(8 * ESB), P, Align(ESB)), TB);
        BCol.push_back(ScaleB < 0 ? B.CreateFNeg(V) : V);
      }
      for (unsigned H = 0; H < 2; ++H) {
        // Element 4jb + 2h + c.
        Value *Idx = B.CreateAdd(B.CreateShl(JB, 2), B.getInt32(2 * H + C));
        Value *Slot = B.CreateInBoundsGEP(ArrTy, Acc, {B.getInt32(0), Idx});
        Value *Sum = B.CreateLoad(AccTy, Slot);
        for (unsigned KK = 0; KK < K; ++KK)
          Sum = Int ? B.CreateAdd(Sum, B.CreateMul(ARow[H][KK], BCol[KK]))
                    : FL.callLLVM(Intrinsic::fma, {AccTy}, {ARow[H][KK], BCol[KK], Sum});
        B.CreateStore(Sum, Slot);
      }
    }
    Value *Next = B.CreateAdd(JB, B.getInt32(1));
    JB->addIncoming(Next, B.GetInsertBlock());
    B.CreateCondBr(B.CreateICmpULT(Next, B.getInt32(N / 8)), Loop, Done);
    B.SetInsertPoint(Done);

    // Back to registers in D's type.
    bool Sat = I.has(Modifier::SatFinite);
    SmallVector<Value *, 128> Out;
    for (unsigned E = 0; E < NE; ++E) {
      Value *V = B.CreateLoad(AccTy, B.CreateConstInBoundsGEP2_32(ArrTy, Acc, 0, E));
      if (Int) {
        if (Sat) {
          V = FL.callLLVM(Intrinsic::smin, {AccTy}, {V, B.getInt64(INT32_MAX)});
          V = FL.callLLVM(Intrinsic::smax, {AccTy}, {V, B.getInt64(uint64_t(int64_t(INT32_MIN)))});
        }
        Out.push_back(B.CreateTrunc(V, B.getInt32Ty()));
      } else if (TD == ScalarType::F16) {
        Out.push_back(B.CreateBitCast(B.CreateFPTrunc(V, B.getHalfTy()), B.getInt16Ty()));
      } else {
        Out.push_back(B.CreateBitCast(V, B.getInt32Ty()));
      }
    }
    for (unsigned R = 0; R < NDRegs; ++R) {
      Value *V = Out[R];
      if (TD == ScalarType::F16)
        V = B.CreateOr(B.CreateZExt(Out[2 * R], B.getInt32Ty()),
                       B.CreateShl(B.CreateZExt(Out[2 * R + 1], B.getInt32Ty()), 16));
      if (Error E = FL.set(DOps[R], V, ScalarType::B32))
        return E;
    }
    return Error::success();
  }
};

} // namespace

Error FunctionLowering::lowerWgmma(const Instruction &I) { return WgmmaLowering(*this, I).run(); }

} // namespace ferry::ptx::lower
