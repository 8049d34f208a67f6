//===- LowerMma.cpp - warp-level matrix instructions (PTX ISA 9.7.14) ------===//
/// \file
/// wmma.load/store/mma, mma.sync, ldmatrix, stmatrix and movmatrix. These
/// are warp-collective: a lane's results depend on the registers of other
/// lanes. SIMT IR is the view of one thread, so every lowering here gathers
/// what the lane needs with ferry.shfl.sync (mode idx, full mask, one
/// register index uniform across the warp per call, the source lane varying)
/// and then computes its own elements with scalar arithmetic. The backend's
/// shuffles are exact, so the results are too.
///
/// Arithmetic: products and sums in f32 (f16/bf16/tf32 inputs; tf32 inputs
/// have their low 13 mantissa bits ignored, as on the tensor cores), f64, or
/// 64-bit integers (s8/u8/s4/u4; b1 products are popcounts of the and/xor
/// of whole 32-bit words of k), accumulated with fma in k order starting from C;
/// an f16 accumulator is rounded once at the end. NVIDIA's tensor cores round
/// the intermediate sums differently, so results may differ from a GPU in the
/// last bits (exact whenever every partial sum is representable).
///
/// Fragment layouts:
///  - wmma: PTX leaves the distribution of elements across lanes
///    unspecified (only the register count per fragment is fixed), so ferry
///    picks one that makes the gathers cheap and keeps element-wise user code
///    (fill, scaling) correct. A (MxK): lane L holds row L%M, the E
///    consecutive k values of chunk (L/M)%(K/E) (E = elements per lane; f16
///    fragments hold a whole row, replicated over 32/M lanes). B (KxN) is the
///    same with columns: column L%N, chunk (L/N)%(K/E). C/D (MxN, C = M*N/32
///    elements per lane): row L%M, columns (L/M)*C .. +C-1. The memory layout (.row /
///    .col) only changes the addresses a load or store uses, never the
///    fragment, so wmma.mma ignores its layout qualifiers. Sub-byte shapes
///    (m8n8k32 s4/u4, m8n8k128 b1; A row-major and B column-major only) hold
///    one register: the 32/bits consecutive k of chunk L/8, one aligned word
///    of memory.
///  - mma.sync, ldmatrix, stmatrix, movmatrix: exactly the per-lane layouts
///    of the PTX ISA ("Matrix Fragments for mma.m16n8k16" etc.), which real
///    code (CUTLASS, hand-written kernels) depends on. With groupID g =
///    lane>>2 and t = lane&3, for every supported m16n8kK shape: A register r
///    holds row g + 8*(r&1), k = t*P + e + (K/2)*(r>>1) (P elements per
///    register, e the element within it); B register r holds column g,
///    k = t*P + e + (K/2)*r; C/D element i holds row g + 8*(i>>1), column
///    2t + (i&1). The m8n8kK shapes (f64 k4, s8/u8 k16, s4/u4 k32, b1
///    k128) are the same with one row group. Sub-byte shapes count k in
///    P = 8 (s4/u4) or 32 (b1) elements per register.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {

struct Shape {
  unsigned M = 0, N = 0, K = 0;
};

std::optional<Shape> shapeOf(const Instruction &I) {
  std::optional<Modifier> S = I.firstOfClass(MC_Shape);
  if (!S)
    return std::nullopt;
  switch (*S) {
  case Modifier::M16n16k16: return Shape{16, 16, 16};
  case Modifier::M32n8k16: return Shape{32, 8, 16};
  case Modifier::M8n32k16: return Shape{8, 32, 16};
  case Modifier::M16n16k8: return Shape{16, 16, 8};
  case Modifier::M16n8k4: return Shape{16, 8, 4};
  case Modifier::M16n8k8: return Shape{16, 8, 8};
  case Modifier::M16n8k16: return Shape{16, 8, 16};
  case Modifier::M16n8k32: return Shape{16, 8, 32};
  case Modifier::M8n8k4: return Shape{8, 8, 4};
  case Modifier::M8n8k16: return Shape{8, 8, 16};
  case Modifier::M8n8k32: return Shape{8, 8, 32};
  case Modifier::M8n8k128: return Shape{8, 8, 128};
  case Modifier::M16n8k64: return Shape{16, 8, 64};
  case Modifier::M16n8k128: return Shape{16, 8, 128};
  case Modifier::M16n8k256: return Shape{16, 8, 256};
  case Modifier::M8n8: return Shape{8, 8, 0};
  default: return std::nullopt;
  }
}

/// The type modifiers of an instruction, in written order.
SmallVector<ScalarType, 4> typesOf(const Instruction &I) {
  SmallVector<ScalarType, 4> Out;
  for (Modifier M : I.Mods)
    if (std::optional<ScalarType> T = modifierType(M))
      Out.push_back(*T);
  return Out;
}

bool isHalfLike(ScalarType T) { return T == ScalarType::F16 || T == ScalarType::BF16; }
bool isByte(ScalarType T) { return T == ScalarType::S8 || T == ScalarType::U8; }
bool isNibble(ScalarType T) { return T == ScalarType::S4 || T == ScalarType::U4; }
/// Integer inputs (s32 accumulators): 8-, 4- and 1-bit elements.
bool isIntInput(ScalarType T) { return isByte(T) || isNibble(T) || T == ScalarType::B1; }

/// Elements of type T packed in one fragment register (the first in the
/// low bits). b1 registers are handled as whole 32-bit words: a "element"
/// of a b1 fragment is 32 consecutive k, and products are popcounts.
unsigned perReg(ScalarType T) { return isHalfLike(T) ? 2 : isByte(T) ? 4 : isNibble(T) ? 8 : 1; }
/// Bits of one fragment register.
unsigned regBits(ScalarType T) { return T == ScalarType::F64 ? 64 : 32; }
/// Bits of one element as the fragments split it (a b1 word is 32).
unsigned elemBits(ScalarType T) {
  return T == ScalarType::TF32 || T == ScalarType::B1 ? 32 : typeBits(T);
}
/// K in elements as the fragments count them (b1: 32-bit words).
unsigned kElems(Shape S, ScalarType T) { return T == ScalarType::B1 ? S.K / 32 : S.K; }

/// A lowering of one matrix instruction; holds the instruction and the
/// function being built.
class MmaLowering {
public:
  MmaLowering(FunctionLowering &FL, const Instruction &I) : FL(FL), B(FL.B), I(I) {
    // b1 products: .and.popc / .xor.popc (the only forms of b1 mma).
    if (I.has(Modifier::Popc))
      BitOp = I.has(Modifier::Xor) ? Modifier::Xor : I.has(Modifier::And) ? Modifier::And : Modifier::Popc;
  }

  Error run() {
    switch (I.Op) {
    case Opcode::WmmaLoad: return wmmaLoadStore(/*Store=*/false);
    case Opcode::WmmaStore: return wmmaLoadStore(/*Store=*/true);
    case Opcode::WmmaMma: return wmmaMma();
    case Opcode::Mma: return mmaSync();
    case Opcode::Ldmatrix: return ldstMatrix(/*Store=*/false);
    case Opcode::Stmatrix: return ldstMatrix(/*Store=*/true);
    case Opcode::Movmatrix: return movMatrix();
    default: return FL.notLowered(I);
    }
  }

private:
  FunctionLowering &FL;
  IRBuilder<> &B;
  const Instruction &I;
  Value *LaneV = nullptr;
  /// And or Xor for b1 inputs (Popc alone: malformed), nullopt otherwise.
  std::optional<Modifier> BitOp;

  /// The b1 operation is present and well-formed exactly when the inputs
  /// are b1.
  bool bitOpOk(ScalarType TA) const {
    return TA == ScalarType::B1 ? BitOp && *BitOp != Modifier::Popc : !BitOp;
  }

  Error notLowered(StringRef Why) { return FL.notLowered(I, Why); }

  Value *lane() {
    if (!LaneV)
      LaneV = FL.call(Intr::LaneId);
    return LaneV;
  }
  Value *lanePlus(Value *Base, unsigned K) { return K ? B.CreateAdd(Base, B.getInt32(K)) : Base; }

  /// The value V (i32 or i64) of lane Src, which may differ per lane; every
  /// lane of the warp takes part.
  Value *shfl(Value *V, Value *Src) {
    if (V->getType()->isIntegerTy(64)) {
      Value *Lo = shfl(B.CreateTrunc(V, B.getInt32Ty()), Src);
      Value *Hi = shfl(B.CreateTrunc(B.CreateLShr(V, 32), B.getInt32Ty()), Src);
      return B.CreateOr(B.CreateZExt(Lo, B.getInt64Ty()),
                        B.CreateShl(B.CreateZExt(Hi, B.getInt64Ty()), 32));
    }
    Value *R = FL.call(Intr::ShflSync, {B.getInt32(3), B.getInt32(~0u), V, Src, B.getInt32(31)});
    return B.CreateExtractValue(R, 0);
  }

  /// The registers of a fragment operand ({r0, r1, ...} or one register),
  /// each as an integer of Bits bits; exactly N of them.
  Expected<SmallVector<Value *, 8>> readRegs(const Operand &Op, unsigned N, unsigned Bits,
                                             StringRef What) {
    ArrayRef<Operand> Elems = Op.K == Operand::Kind::Vector ? Op.Elems : ArrayRef<Operand>(Op);
    if (Elems.size() != N)
      return FL.fail(FL.spell(I) + ": " + What + " needs " + Twine(N) + " registers, got " +
                     Twine(Elems.size()));
    SmallVector<Value *, 8> Out;
    for (const Operand &E : Elems) {
      Expected<Value *> V = FL.get(E, Bits == 64 ? ScalarType::B64 : ScalarType::B32);
      if (!V)
        return V.takeError();
      Out.push_back(*V);
    }
    return Out;
  }

  Error writeRegs(const Operand &Op, ArrayRef<Value *> Regs, StringRef What) {
    ArrayRef<Operand> Elems = Op.K == Operand::Kind::Vector ? Op.Elems : ArrayRef<Operand>(Op);
    if (Elems.size() != Regs.size())
      return FL.fail(FL.spell(I) + ": " + What + " needs " + Twine(Regs.size()) +
                     " registers, got " + Twine(Elems.size()));
    for (size_t K = 0; K < Regs.size(); ++K) {
      bool Wide = Regs[K]->getType()->isIntegerTy(64);
      if (Error E = FL.set(Elems[K], Regs[K], Wide ? ScalarType::B64 : ScalarType::B32))
        return E;
    }
    return Error::success();
  }

  /// The elements of one register as raw integers of elemBits(T) bits.
  void splitRaw(Value *Reg, ScalarType T, SmallVectorImpl<Value *> &Out) {
    unsigned N = perReg(T), W = elemBits(T);
    if (N == 1) {
      Out.push_back(Reg);
      return;
    }
    for (unsigned E = 0; E < N; ++E)
      Out.push_back(B.CreateTrunc(E ? B.CreateLShr(Reg, E * W) : Reg, B.getIntNTy(W)));
  }

  /// Packs raw elements (integers of elemBits(T) bits) into registers.
  SmallVector<Value *, 8> joinRaw(ArrayRef<Value *> Elems, ScalarType T) {
    unsigned N = perReg(T), W = elemBits(T);
    SmallVector<Value *, 8> Out;
    for (size_t R = 0; R * N < Elems.size(); ++R) {
      if (N == 1) {
        Out.push_back(Elems[R]);
        continue;
      }
      Value *Acc = nullptr;
      for (unsigned E = 0; E < N; ++E) {
        Value *V = B.CreateZExt(Elems[R * N + E], B.getInt32Ty());
        if (E)
          V = B.CreateShl(V, E * W);
        Acc = Acc ? B.CreateOr(Acc, V) : V;
      }
      Out.push_back(Acc);
    }
    return Out;
  }

  /// A raw element as the value the arithmetic uses: float for f16/bf16/
  /// tf32/f32, double for f64, i64 for integers.
  Value *toCompute(Value *Raw, ScalarType T) {
    switch (T) {
    case ScalarType::F16:
      return B.CreateFPExt(B.CreateBitCast(Raw, B.getHalfTy()), B.getFloatTy());
    case ScalarType::BF16: // bf16 is the high half of an f32: exact.
      return B.CreateBitCast(B.CreateShl(B.CreateZExt(Raw, B.getInt32Ty()), 16), B.getFloatTy());
    case ScalarType::TF32: // The tensor cores read 19 bits: sign, 8 exponent, 10 mantissa.
      return B.CreateBitCast(B.CreateAnd(Raw, B.getInt32(0xFFFFE000u)), B.getFloatTy());
    case ScalarType::F32:
      return B.CreateBitCast(Raw, B.getFloatTy());
    case ScalarType::F64:
      return B.CreateBitCast(Raw, B.getDoubleTy());
    case ScalarType::S8:
    case ScalarType::S4:
    case ScalarType::S32:
      return B.CreateSExt(Raw, B.getInt64Ty());
    case ScalarType::B1: // A word of 32 k; dot() takes popcounts.
      return Raw;
    default: // u8, u4
      return B.CreateZExt(Raw, B.getInt64Ty());
    }
  }

  /// A computed accumulator value back to a raw element of type T.
  Value *fromCompute(Value *V, ScalarType T, bool SatFinite) {
    switch (T) {
    case ScalarType::F16: {
      Value *H = B.CreateFPTrunc(V, B.getHalfTy());
      if (SatFinite) {
        // .satfinite: ±inf become ±max finite; NaN stays NaN.
        Value *Max = ConstantFP::get(B.getHalfTy(), APFloat::getLargest(APFloat::IEEEhalf()));
        Value *Min = ConstantFP::get(B.getHalfTy(), APFloat::getLargest(APFloat::IEEEhalf(), true));
        H = FL.callLLVM(Intrinsic::minnum, {B.getHalfTy()}, {H, Max});
        H = FL.callLLVM(Intrinsic::maxnum, {B.getHalfTy()}, {H, Min});
      }
      return B.CreateBitCast(H, B.getInt16Ty());
    }
    case ScalarType::F32: {
      if (SatFinite) {
        Value *Max = ConstantFP::get(B.getFloatTy(), APFloat::getLargest(APFloat::IEEEsingle()));
        Value *Min = ConstantFP::get(B.getFloatTy(), APFloat::getLargest(APFloat::IEEEsingle(), true));
        V = FL.callLLVM(Intrinsic::minnum, {B.getFloatTy()}, {V, Max});
        V = FL.callLLVM(Intrinsic::maxnum, {B.getFloatTy()}, {V, Min});
      }
      return B.CreateBitCast(V, B.getInt32Ty());
    }
    case ScalarType::F64:
      return B.CreateBitCast(V, B.getInt64Ty());
    default: { // s32 from the exact 64-bit sum
      if (SatFinite) {
        V = FL.callLLVM(Intrinsic::smin, {B.getInt64Ty()}, {V, B.getInt64(INT32_MAX)});
        V = FL.callLLVM(Intrinsic::smax, {B.getInt64Ty()}, {V, B.getInt64(uint64_t(int64_t(INT32_MIN)))});
      }
      return B.CreateTrunc(V, B.getInt32Ty());
    }
    }
  }

  /// Acc + sum over k of A[k]*B[k], in k order (fma for floats); for b1
  /// words, the popcounts of A[k] and/xor B[k].
  Value *dot(Value *Acc, ArrayRef<Value *> As, ArrayRef<Value *> Bs) {
    for (size_t K = 0; K < As.size(); ++K) {
      if (BitOp) {
        Value *W = *BitOp == Modifier::Xor ? B.CreateXor(As[K], Bs[K]) : B.CreateAnd(As[K], Bs[K]);
        Value *N = FL.callLLVM(Intrinsic::ctpop, {B.getInt32Ty()}, {W});
        Acc = B.CreateAdd(Acc, B.CreateZExt(N, Acc->getType()));
      } else if (Acc->getType()->isIntegerTy())
        Acc = B.CreateAdd(Acc, B.CreateMul(As[K], Bs[K]));
      else
        Acc = FL.callLLVM(Intrinsic::fma, {Acc->getType()}, {As[K], Bs[K], Acc});
    }
    return Acc;
  }

  //===--------------------------------------------------------------------===//
  // wmma
  //===--------------------------------------------------------------------===//

  /// Elements per lane of a wmma fragment ('a', 'b', 'c'): 8 for C/D except
  /// m8n8k4 (2).
  static unsigned wmmaElems(char Kind, Shape S, ScalarType T) {
    if (Kind == 'c')
      return S.M * S.N / 32;
    if (T == ScalarType::F16)
      return 16; // Replicated when the matrix has fewer than 512 elements.
    return (Kind == 'a' ? S.M * kElems(S, T) : kElems(S, T) * S.N) / 32;
  }

  /// Is T a valid element type of a wmma fragment of this kind and shape?
  static bool wmmaTypeOk(char Kind, Shape S, ScalarType T) {
    if (S.M == 8 && S.N == 8) {
      if (S.K == 4)
        return T == ScalarType::F64; // m8n8k4, double precision
      // Sub-byte: m8n8k32 s4/u4 and m8n8k128 b1, s32 accumulators.
      if (Kind == 'c')
        return T == ScalarType::S32;
      return S.K == 32 ? isNibble(T) : T == ScalarType::B1;
    }
    bool K8 = S.K == 8;
    if (Kind == 'c')
      return T == ScalarType::F32 || (!K8 && (T == ScalarType::F16 || T == ScalarType::S32));
    if (K8)
      return T == ScalarType::TF32;
    return isHalfLike(T) || isByte(T);
  }

  Expected<Shape> wmmaShape() {
    std::optional<Shape> S = shapeOf(I);
    // wmma shapes are m16n16k16, m32n8k16, m8n32k16, (tf32) m16n16k8,
    // (f64) m8n8k4 and the sub-byte m8n8k32 (s4/u4) and m8n8k128 (b1).
    bool M8n8 = S && S->M == 8 && S->N == 8 && (S->K == 4 || S->K == 32 || S->K == 128);
    if (!S || (S->M * S->N != 256 && !M8n8) || (S->M * S->N == 256 && S->K > 16))
      return notLowered("shape");
    // Directed rounding of the f64 sums is not implemented; .rn is the default.
    if (I.has(Modifier::Rz) || I.has(Modifier::Rm) || I.has(Modifier::Rp))
      return notLowered("rounding mode");
    return *S;
  }

  Error wmmaLoadStore(bool Store) {
    Expected<Shape> SOr = wmmaShape();
    if (!SOr)
      return SOr.takeError();
    Shape S = *SOr;
    char Kind = Store ? 'c' : I.has(Modifier::A) ? 'a' : I.has(Modifier::B) ? 'b' : 'c';
    std::optional<ScalarType> TOr = I.lastType();
    if (!TOr || !wmmaTypeOk(Kind, S, *TOr))
      return notLowered("fragment type");
    ScalarType T = *TOr;
    bool ColMajor = I.has(Modifier::Col);
    unsigned Rows = Kind == 'b' ? S.K : S.M, Cols = Kind == 'a' ? S.K : S.N;
    unsigned E = wmmaElems(Kind, S, T);
    unsigned NRegs = E / perReg(T);

    const Operand &FragOp = Store ? I.Ops[1] : I.Ops[0];
    const Operand &AddrOp = Store ? I.Ops[0] : I.Ops[1];
    Expected<Value *> Base = FL.address(AddrOp, I.space());
    if (!Base)
      return Base.takeError();
    // The stride is in elements; when absent, the matrix is dense.
    Value *Stride = B.getInt64(ColMajor ? Rows : Cols);
    if (I.Ops.size() > 2) {
      Expected<Value *> St = FL.get(I.Ops[2], ScalarType::U32);
      if (!St)
        return St.takeError();
      Stride = B.CreateZExt(*St, B.getInt64Ty());
    }

    // This lane's position in the fragment layout (see the file comment).
    Value *L = lane();
    unsigned Outer = Kind == 'b' ? S.N : S.M; // Rows (a, c) or columns (b) held.
    if (Kind != 'c' && (isNibble(T) || T == ScalarType::B1)) {
      // Sub-byte A (row-major only) and B (column-major only): one 32-bit
      // register per lane, a run of 32/bits consecutive k of line L%8,
      // chunk L/8 (K = 4 such runs); elements packed low bits first in
      // memory too, so the run is one aligned word.
      if (ColMajor != (Kind == 'b'))
        return notLowered("sub-byte layout");
      unsigned Bits = typeBits(T), Run = 32 / Bits;
      Value *Line = B.CreateZExt(B.CreateURem(L, B.getInt32(Outer)), B.getInt64Ty());
      Value *Start = B.CreateZExt(B.CreateMul(B.CreateUDiv(L, B.getInt32(Outer)), B.getInt32(Run)),
                                  B.getInt64Ty());
      Value *Elem = B.CreateAdd(B.CreateMul(Line, Stride), Start);
      Value *P = B.CreateGEP(B.getInt8Ty(), *Base, B.CreateUDiv(B.CreateMul(Elem, B.getInt64(Bits)), B.getInt64(8)));
      if (Store)
        return notLowered("sub-byte store");
      return writeRegs(FragOp, {B.CreateAlignedLoad(B.getInt32Ty(), P, Align(4))}, "fragment");
    }
    Value *Line = B.CreateURem(L, B.getInt32(Outer));
    Value *Group = B.CreateUDiv(L, B.getInt32(Outer));
    Value *First; // First k (a, b) or column (c) of the lane's run.
    if (Kind == 'c')
      First = B.CreateMul(Group, B.getInt32(E));
    else
      First = B.CreateMul(B.CreateURem(Group, B.getInt32(S.K / E)), B.getInt32(E));
    Line = B.CreateZExt(Line, B.getInt64Ty());
    First = B.CreateZExt(First, B.getInt64Ty());

    unsigned W = elemBits(T), Bytes = W / 8;
    Type *ET = B.getIntNTy(W);
    SmallVector<Value *, 16> Raw;
    if (Store) {
      Expected<SmallVector<Value *, 8>> Regs = readRegs(FragOp, NRegs, regBits(T), "fragment");
      if (!Regs)
        return Regs.takeError();
      for (Value *R : *Regs)
        splitRaw(R, T, Raw);
    }
    for (unsigned Slot = 0; Slot < E; ++Slot) {
      // Kind a/c: the lane's line is a row; kind b: a column.
      Value *Run = B.CreateAdd(First, B.getInt64(Slot));
      Value *Row = Kind == 'b' ? Run : Line, *Col = Kind == 'b' ? Line : Run;
      Value *Index = ColMajor ? B.CreateAdd(B.CreateMul(Col, Stride), Row)
                              : B.CreateAdd(B.CreateMul(Row, Stride), Col);
      Value *P = B.CreateGEP(B.getInt8Ty(), *Base, B.CreateMul(Index, B.getInt64(Bytes)));
      if (Store)
        B.CreateAlignedStore(Raw[Slot], P, Align(Bytes));
      else
        Raw.push_back(B.CreateAlignedLoad(ET, P, Align(Bytes)));
    }
    if (Store)
      return Error::success();
    return writeRegs(FragOp, joinRaw(Raw, T), "fragment");
  }

  Error wmmaMma() {
    Expected<Shape> SOr = wmmaShape();
    if (!SOr)
      return SOr.takeError();
    Shape S = *SOr;
    SmallVector<ScalarType, 4> Ts = typesOf(I);
    ScalarType TD, TA, TB, TC;
    if (Ts.size() == 2) { // .dtype.ctype, f16 inputs
      TD = Ts[0], TC = Ts[1], TA = TB = ScalarType::F16;
    } else if (Ts.size() == 4) {
      TD = Ts[0], TA = Ts[1], TB = Ts[2], TC = Ts[3];
    } else {
      return notLowered("types");
    }
    bool Int = isIntInput(TA);
    bool SameInputs = isByte(TA) ? isByte(TB) : TA == TB;
    bool IntAcc = TC == ScalarType::S32 && TD == ScalarType::S32;
    bool FloatAcc = TC != ScalarType::S32 && TD != ScalarType::S32;
    if (!wmmaTypeOk('a', S, TA) || !wmmaTypeOk('b', S, TB) || !wmmaTypeOk('c', S, TC) ||
        !wmmaTypeOk('c', S, TD) || !SameInputs || (Int ? !IntAcc : !FloatAcc) || !bitOpOk(TA))
      return notLowered("type combination");
    if (I.Ops.size() != 4)
      return FL.fail(FL.spell(I) + ": expected d, a, b, c");
    bool Sat = I.has(Modifier::SatFinite);

    unsigned EA = wmmaElems('a', S, TA), EB = wmmaElems('b', S, TB), EC = wmmaElems('c', S, TC);
    Expected<SmallVector<Value *, 8>> ARegs = readRegs(I.Ops[1], EA / perReg(TA), regBits(TA), "a");
    if (!ARegs)
      return ARegs.takeError();
    Expected<SmallVector<Value *, 8>> BRegs = readRegs(I.Ops[2], EB / perReg(TB), regBits(TB), "b");
    if (!BRegs)
      return BRegs.takeError();
    Expected<SmallVector<Value *, 8>> CRegs = readRegs(I.Ops[3], EC / perReg(TC), regBits(TC), "c");
    if (!CRegs)
      return CRegs.takeError();

    auto Compute = [&](ArrayRef<Value *> Regs, ScalarType T) {
      SmallVector<Value *, 16> Raw, Out;
      for (Value *R : Regs)
        splitRaw(R, T, Raw);
      for (Value *V : Raw)
        Out.push_back(toCompute(V, T));
      return Out;
    };

    Value *L = lane();
    // Row L%M of A: chunk c lives in lane L%M + M*c.
    Value *Row = B.CreateURem(L, B.getInt32(S.M));
    SmallVector<Value *, 32> ARow;
    unsigned ChunksA = kElems(S, TA) / EA;
    if (ChunksA == 1) {
      ARow = Compute(*ARegs, TA);
    } else {
      for (unsigned C = 0; C < ChunksA; ++C) {
        SmallVector<Value *, 8> Got;
        for (Value *R : *ARegs)
          Got.push_back(shfl(R, lanePlus(Row, S.M * C)));
        ARow.append(Compute(Got, TA));
      }
    }
    // Columns (L/M)*8 + s of B: column j, chunk c lives in lane j + N*c.
    Value *ColBase = B.CreateMul(B.CreateUDiv(L, B.getInt32(S.M)), B.getInt32(EC));
    unsigned ChunksB = kElems(S, TB) / EB;
    SmallVector<Value *, 8> Acc = Compute(*CRegs, TC);
    SmallVector<Value *, 8> DRaw;
    for (unsigned Slot = 0; Slot < EC; ++Slot) {
      Value *J = lanePlus(ColBase, Slot);
      SmallVector<Value *, 32> BCol;
      for (unsigned C = 0; C < ChunksB; ++C) {
        SmallVector<Value *, 8> Got;
        for (Value *R : *BRegs)
          Got.push_back(shfl(R, lanePlus(J, S.N * C)));
        BCol.append(Compute(Got, TB));
      }
      DRaw.push_back(fromCompute(dot(Acc[Slot], ARow, BCol), TD, Sat));
    }
    return writeRegs(I.Ops[0], joinRaw(DRaw, TD), "d");
  }

  //===--------------------------------------------------------------------===//
  // mma.sync (PTX-specified fragment layouts)
  //===--------------------------------------------------------------------===//

  Error mmaSync() {
    if ((I.has(Modifier::Sp) || I.has(Modifier::SpOrderedMetadata)) && !I.has(Modifier::BlockScale))
      return mmaSparse();
    if (I.has(Modifier::BlockScale) || I.firstOfClass(MC_Mma))
      return notLowered("scaled or kind:: forms");
    std::optional<Shape> SOr = shapeOf(I);
    SmallVector<ScalarType, 4> Ts = typesOf(I);
    if (!SOr || Ts.size() != 4)
      return notLowered("shape or types");
    Shape S = *SOr;
    ScalarType TD = Ts[0], TA = Ts[1], TB = Ts[2], TC = Ts[3];
    if (S.M == 8 && S.N == 8 && S.K == 4 && TA == ScalarType::F16)
      return mmaQuadPairs(TD, TB, TC);
    // The layouts are only .row.col for every shape lowered here.
    if (I.Mods.size() < 2 || !I.has(Modifier::Row) || !I.has(Modifier::Col) ||
        *I.firstOfClass(MC_Layout) != Modifier::Row)
      return notLowered("layout other than .row.col");
    bool Float = isHalfLike(TA) || TA == ScalarType::TF32;
    bool Ok;
    if (S.M == 16 && S.N == 8 && Float) {
      bool KOk = TA == ScalarType::TF32 ? (S.K == 4 || S.K == 8) : (S.K == 8 || S.K == 16);
      Ok = KOk && TA == TB && (TC == ScalarType::F32 || TC == ScalarType::F16) &&
           (TD == ScalarType::F32 || TD == ScalarType::F16) &&
           (TA == ScalarType::F16 || (TC == ScalarType::F32 && TD == ScalarType::F32));
    } else if ((S.M == 16 || S.M == 8) && S.N == 8 && isIntInput(TA)) {
      // m16n8k16/k32 and m8n8k16 s8/u8, m16n8k32/k64 and m8n8k32 s4/u4,
      // m16n8k128/k256 and m8n8k128 b1 (.and/.xor.popc); s32 accumulators,
      // the signedness of A and B independent.
      unsigned K0 = isByte(TA) ? 16 : isNibble(TA) ? 32 : 128;
      bool KOk = S.M == 16 ? (S.K == K0 || S.K == 2 * K0) : S.K == K0;
      bool BOk = isByte(TA) ? isByte(TB) : isNibble(TA) ? isNibble(TB) : TB == ScalarType::B1;
      Ok = KOk && BOk && TC == ScalarType::S32 && TD == ScalarType::S32 &&
           !(TA == ScalarType::B1 && I.has(Modifier::SatFinite));
    } else if (S.M == 8 && S.N == 8 && S.K == 4 && TA == ScalarType::F64) {
      Ok = TB == ScalarType::F64 && TC == ScalarType::F64 && TD == ScalarType::F64;
    } else {
      Ok = false;
    }
    if (!Ok || !bitOpOk(TA))
      return notLowered("shape and type combination");
    if (I.Ops.size() != 4)
      return FL.fail(FL.spell(I) + ": expected d, a, b, c");
    bool Sat = I.has(Modifier::SatFinite);

    unsigned P = perReg(TA), RB = regBits(TA), KE = kElems(S, TA);
    unsigned NA = S.M * KE / 32 / P, NB = KE * S.N / 32 / P;
    unsigned NCElems = S.M * S.N / 32; // 4 (rows g, g+8) or 2 (row g)
    Expected<SmallVector<Value *, 8>> ARegs = readRegs(I.Ops[1], NA, RB, "a");
    if (!ARegs)
      return ARegs.takeError();
    Expected<SmallVector<Value *, 8>> BRegs = readRegs(I.Ops[2], NB, RB, "b");
    if (!BRegs)
      return BRegs.takeError();
    Expected<SmallVector<Value *, 8>> CRegs =
        readRegs(I.Ops[3], NCElems / perReg(TC), regBits(TC), "c");
    if (!CRegs)
      return CRegs.takeError();

    Value *L = lane();
    Value *Quad = B.CreateAnd(L, B.getInt32(~3u));                    // 4 * groupID
    Value *T2 = B.CreateShl(B.CreateAnd(L, B.getInt32(3)), 3);       // 8 * t: lanes of column 2t
    unsigned Halves = S.M / 8;
    // A rows g (and g+8): the four lanes of this lane's quad hold them.
    SmallVector<SmallVector<Value *, 32>, 2> ARows(Halves, SmallVector<Value *, 32>(KE));
    for (unsigned TP = 0; TP < 4; ++TP)
      for (unsigned R = 0; R < NA; ++R) {
        SmallVector<Value *, 4> Raw;
        splitRaw(shfl((*ARegs)[R], lanePlus(Quad, TP)), TA, Raw);
        unsigned H = Halves == 2 ? R & 1 : 0;
        unsigned KOff = Halves == 2 ? (KE / 2) * (R >> 1) : (KE / 2) * R;
        for (unsigned E = 0; E < P; ++E)
          ARows[H][TP * P + E + KOff] = toCompute(Raw[E], TA);
      }
    // B columns 2t and 2t+1: column n lives in lanes 4n .. 4n+3.
    SmallVector<Value *, 32> BCols[2] = {SmallVector<Value *, 32>(KE), SmallVector<Value *, 32>(KE)};
    for (unsigned C = 0; C < 2; ++C)
      for (unsigned TP = 0; TP < 4; ++TP)
        for (unsigned R = 0; R < NB; ++R) {
          SmallVector<Value *, 4> Raw;
          splitRaw(shfl((*BRegs)[R], lanePlus(T2, 4 * C + TP)), TB, Raw);
          for (unsigned E = 0; E < P; ++E)
            BCols[C][TP * P + E + (KE / 2) * R] = toCompute(Raw[E], TB);
        }
    SmallVector<Value *, 4> CRaw, DRaw;
    for (Value *R : *CRegs)
      splitRaw(R, TC, CRaw);
    for (unsigned E = 0; E < NCElems; ++E) {
      Value *Acc = toCompute(CRaw[E], TC);
      DRaw.push_back(fromCompute(dot(Acc, ARows[E >> 1], BCols[E & 1]), TD, Sat));
    }
    return writeRegs(I.Ops[0], joinRaw(DRaw, TD), "d");
  }

  /// mma.sp / mma.sp::ordered_metadata with f16/bf16 inputs, m16n8k16 and
  /// m16n8k32 (2:4 sparsity). A holds the compressed M x K/2 matrix in the
  /// dense m16n8k(K/2) A layout; B is dense (register r: k = 2t + e + 8r).
  /// Row g + 8h keeps two elements of each group j of 4 consecutive k,
  /// compressed columns 2j and 2j+1, at k = 4j + i0 and 4j + i1 where
  /// (i0, i1) are bits 1:0 and 3:2 of nibble (j%4) + 4h of the metadata of
  /// lane 4g + f*(K/16) + j/4 (f the sparsity selector), as measured on an
  /// H100.
  Error mmaSparse() {
    std::optional<Shape> SOr = shapeOf(I);
    SmallVector<ScalarType, 4> Ts = typesOf(I);
    if (!SOr || Ts.size() != 4)
      return notLowered("shape or types");
    Shape S = *SOr;
    ScalarType TD = Ts[0], TA = Ts[1], TB = Ts[2], TC = Ts[3];
    bool Ok = S.M == 16 && S.N == 8 && (S.K == 16 || S.K == 32) && isHalfLike(TA) && TB == TA &&
              (TC == ScalarType::F32 || (TA == ScalarType::F16 && TC == ScalarType::F16)) &&
              (TD == ScalarType::F32 || (TA == ScalarType::F16 && TD == ScalarType::F16)) &&
              I.has(Modifier::Row) && I.has(Modifier::Col) && *I.firstOfClass(MC_Layout) == Modifier::Row;
    if (!Ok)
      return notLowered("sparse shape and type combination");
    if (I.Ops.size() != 6 || I.Ops[5].K != Operand::Kind::Int)
      return FL.fail(FL.spell(I) + ": expected d, a, b, c, metadata and an immediate sparsity selector");
    int64_t Sel = I.Ops[5].Int;
    if (Sel < 0 || Sel > 1)
      return FL.fail(FL.spell(I) + ": the sparsity selector must be 0 or 1");
    unsigned KC = S.K / 2, NA = KC / 4, NB = S.K / 8;
    Expected<SmallVector<Value *, 8>> ARegs = readRegs(I.Ops[1], NA, 32, "a");
    if (!ARegs)
      return ARegs.takeError();
    Expected<SmallVector<Value *, 8>> BRegs = readRegs(I.Ops[2], NB, 32, "b");
    if (!BRegs)
      return BRegs.takeError();
    Expected<SmallVector<Value *, 8>> CRegs = readRegs(I.Ops[3], 4 / perReg(TC), 32, "c");
    if (!CRegs)
      return CRegs.takeError();
    Expected<Value *> Meta = FL.get(I.Ops[4], ScalarType::B32);
    if (!Meta)
      return Meta.takeError();

    Value *L = lane();
    Value *Quad = B.CreateAnd(L, B.getInt32(~3u));
    Value *T2 = B.CreateShl(B.CreateAnd(L, B.getInt32(3)), 3);
    // Compressed A rows g and g+8 (the dense m16n8k(K/2) layout).
    SmallVector<Value *, 16> ARows[2] = {SmallVector<Value *, 16>(KC), SmallVector<Value *, 16>(KC)};
    for (unsigned TP = 0; TP < 4; ++TP)
      for (unsigned R = 0; R < NA; ++R) {
        SmallVector<Value *, 4> Raw;
        splitRaw(shfl((*ARegs)[R], lanePlus(Quad, TP)), TA, Raw);
        for (unsigned E = 0; E < 2; ++E)
          ARows[R & 1][TP * 2 + E + (KC / 2) * (R >> 1)] = toCompute(Raw[E], TA);
      }
    // B columns 2t and 2t+1, all K.
    SmallVector<Value *, 32> BCols[2] = {SmallVector<Value *, 32>(S.K), SmallVector<Value *, 32>(S.K)};
    for (unsigned C = 0; C < 2; ++C)
      for (unsigned TP = 0; TP < 4; ++TP)
        for (unsigned R = 0; R < NB; ++R) {
          SmallVector<Value *, 4> Raw;
          splitRaw(shfl((*BRegs)[R], lanePlus(T2, 4 * C + TP)), TB, Raw);
          for (unsigned E = 0; E < 2; ++E)
            BCols[C][TP * 2 + E + 8 * R] = toCompute(Raw[E], TB);
        }
    // Metadata words of this quad's lanes f*(K/16) + 0 and (K32) + 1.
    SmallVector<Value *, 2> MetaOf;
    for (unsigned X = 0; X < S.K / 16; ++X)
      MetaOf.push_back(shfl(*Meta, lanePlus(Quad, unsigned(Sel) * (S.K / 16) + X)));
    SmallVector<Value *, 4> CRaw, DRaw;
    for (Value *R : *CRegs)
      splitRaw(R, TC, CRaw);
    for (unsigned E = 0; E < 4; ++E) {
      unsigned H = E >> 1, C = E & 1;
      Value *Acc = toCompute(CRaw[E], TC);
      for (unsigned J = 0; J < S.K / 4; ++J) {
        Value *Nib = B.CreateLShr(MetaOf[J / 4], 4 * ((J % 4) + 4 * H));
        for (unsigned Slot = 0; Slot < 2; ++Slot) {
          Value *Idx = B.CreateAnd(B.CreateLShr(Nib, 2 * Slot), B.getInt32(3));
          Value *BV = BCols[C][4 * J];
          for (unsigned X = 1; X < 4; ++X)
            BV = B.CreateSelect(B.CreateICmpEQ(Idx, B.getInt32(X)), BCols[C][4 * J + X], BV);
          Acc = dot(Acc, {ARows[H][2 * J + Slot]}, {BV});
        }
      }
      DRaw.push_back(fromCompute(Acc, TD, false));
    }
    return writeRegs(I.Ops[0], joinRaw(DRaw, TD), "d");
  }

  /// mma.sync.m8n8k4 with f16 inputs (the Volta form): four independent
  /// 8x8x4 products, one per quad pair q (lanes 4q..4q+3 and 4q+16..4q+19).
  /// Number the pair's lanes j = 0..7 (j = lane%4, +4 from lane 16); each
  /// holds 4 halves (2 registers). PTX ISA fragments: A .row: lane j holds
  /// row j, k 0..3; A .col: column j%4, rows 4(j/4)..+3; B .row: row j%4,
  /// columns 4(j/4)..+3; B .col: column j, k 0..3. C/D .f16: lane j holds
  /// row j, columns 0..7; .f32: element i at row (lane&1) + (i&2) + 4(j/4),
  /// column (i&4) + (lane&2) + (i&1). Every lane gathers its pair's whole A
  /// and B (16 shuffles each), then computes its eight elements.
  Error mmaQuadPairs(ScalarType TD, ScalarType TB, ScalarType TC) {
    auto IsAcc = [](ScalarType T) { return T == ScalarType::F16 || T == ScalarType::F32; };
    // A's layout, then B's.
    SmallVector<Modifier, 2> Layouts;
    for (Modifier M : I.Mods)
      if (M == Modifier::Row || M == Modifier::Col)
        Layouts.push_back(M);
    // C and D share one layout, so their types must agree.
    if (Layouts.size() != 2 || TB != ScalarType::F16 || !IsAcc(TC) || TD != TC || I.has(Modifier::SatFinite))
      return notLowered("m8n8k4 form");
    bool ARow = Layouts[0] == Modifier::Row, BRow = Layouts[1] == Modifier::Row;
    if (I.Ops.size() != 4)
      return FL.fail(FL.spell(I) + ": expected d, a, b, c");
    Expected<SmallVector<Value *, 8>> ARegs = readRegs(I.Ops[1], 2, 32, "a");
    if (!ARegs)
      return ARegs.takeError();
    Expected<SmallVector<Value *, 8>> BRegs = readRegs(I.Ops[2], 2, 32, "b");
    if (!BRegs)
      return BRegs.takeError();
    Expected<SmallVector<Value *, 8>> CRegs = readRegs(I.Ops[3], 8 / perReg(TC), 32, "c");
    if (!CRegs)
      return CRegs.takeError();

    Value *L = lane();
    Value *Base = B.CreateAnd(L, B.getInt32(12)); // 4q
    // Val[j][e]: element e of pair lane j, for A and B.
    auto Gather = [&](ArrayRef<Value *> Regs) {
      SmallVector<SmallVector<Value *, 4>, 8> Val(8);
      for (unsigned J = 0; J < 8; ++J) {
        Value *Src = lanePlus(Base, (J & 3) + (J >= 4 ? 16 : 0));
        SmallVector<Value *, 4> Raw;
        for (Value *R : Regs)
          splitRaw(shfl(R, Src), ScalarType::F16, Raw);
        for (Value *V : Raw)
          Val[J].push_back(toCompute(V, ScalarType::F16));
      }
      return Val;
    };
    SmallVector<SmallVector<Value *, 4>, 8> AV = Gather(*ARegs), BV = Gather(*BRegs);
    auto AAt = [&](unsigned R, unsigned K) { return ARow ? AV[R][K] : AV[4 * (R / 4) + K][R % 4]; };
    auto BAt = [&](unsigned K, unsigned C) { return BRow ? BV[4 * (C / 4) + K][C % 4] : BV[C][K]; };
    // This lane's rows and columns depend on three lane bits (lane&1,
    // lane&2, lane>=16, together j): pick A's row and B's column values among
    // the eight candidates, then one dot product per element.
    SmallVector<Value *, 8> CRaw, DRaw;
    for (Value *R : *CRegs)
      splitRaw(R, TC, CRaw);
    Value *J = B.CreateOr(B.CreateAnd(L, B.getInt32(3)), B.CreateAnd(B.CreateLShr(L, 2), B.getInt32(4)));
    SmallVector<Value *, 8> IsJ;
    for (unsigned X = 0; X < 8; ++X)
      IsJ.push_back(B.CreateICmpEQ(J, B.getInt32(X)));
    auto Pick = [&](auto ValueFor) {
      Value *R = ValueFor(0u);
      for (unsigned X = 1; X < 8; ++X)
        R = B.CreateSelect(IsJ[X], ValueFor(X), R);
      return R;
    };
    bool F16Acc = TC == ScalarType::F16;
    for (unsigned E = 0; E < 8; ++E) {
      auto RowOf = [&](unsigned X) { return F16Acc ? X : (X & 1) + (E & 2) + 4 * (X >> 2); };
      auto ColOf = [&](unsigned X) { return F16Acc ? E : (E & 4) + (X & 2) + (E & 1); };
      SmallVector<Value *, 4> As, Bs;
      for (unsigned K = 0; K < 4; ++K) {
        As.push_back(Pick([&](unsigned X) { return AAt(RowOf(X), K); }));
        Bs.push_back(Pick([&](unsigned X) { return BAt(K, ColOf(X)); }));
      }
      DRaw.push_back(fromCompute(dot(toCompute(CRaw[E], TC), As, Bs), TD, false));
    }
    return writeRegs(I.Ops[0], joinRaw(DRaw, TD), "d");
  }

  //===--------------------------------------------------------------------===//
  // ldmatrix / stmatrix / movmatrix (8x8 matrices of b16)
  //===--------------------------------------------------------------------===//

  Error ldstMatrix(bool Store) {
    std::optional<Shape> SOr = shapeOf(I);
    std::optional<ScalarType> T = I.lastType();
    if (!SOr || SOr->M != 8 || SOr->N != 8 || SOr->K != 0 || T != ScalarType::B16)
      return notLowered("only .m8n8 .b16");
    unsigned NM = I.has(Modifier::X4) ? 4 : I.has(Modifier::X2) ? 2 : 1;
    bool Trans = I.has(Modifier::Trans);
    const Operand &AddrOp = Store ? I.Ops[0] : I.Ops[1];
    const Operand &FragOp = Store ? I.Ops[1] : I.Ops[0];
    StateSpace Space = I.space();
    Expected<Value *> Ptr = FL.address(AddrOp, Space);
    if (!Ptr)
      return Ptr.takeError();
    Type *PT = (*Ptr)->getType();
    // Lane 8m + r supplies the address of row r of matrix m. Shared-space
    // addresses are 32-bit in PTX: one shuffle each instead of two.
    bool Narrow = PT->getPointerAddressSpace() == 3;
    Value *Addr = B.CreatePtrToInt(*Ptr, Narrow ? B.getInt32Ty() : B.getInt64Ty());
    auto RowPtr = [&](Value *SrcLane) { return B.CreateIntToPtr(shfl(Addr, SrcLane), PT); };
    Value *L = lane();
    Value *G = B.CreateLShr(L, 2), *Tq = B.CreateAnd(L, B.getInt32(3));
    // Byte offset of this lane's pair in a row (4t) or element in a column (2g).
    Value *PairOff = B.CreateZExt(B.CreateShl(Tq, 2), B.getInt64Ty());
    Value *ColOff = B.CreateZExt(B.CreateShl(G, 1), B.getInt64Ty());
    SmallVector<Value *, 4> Regs;
    if (Store) {
      Expected<SmallVector<Value *, 8>> R = readRegs(FragOp, NM, 32, "fragment");
      if (!R)
        return R.takeError();
      Regs.assign(R->begin(), R->end());
    }
    for (unsigned M = 0; M < NM; ++M) {
      if (!Trans) {
        // Lane (g, t) holds row g, columns 2t and 2t+1.
        Value *P = B.CreateGEP(B.getInt8Ty(), RowPtr(lanePlus(G, 8 * M)), PairOff);
        if (Store)
          B.CreateAlignedStore(Regs[M], P, Align(4));
        else
          Regs.push_back(B.CreateAlignedLoad(B.getInt32Ty(), P, Align(4)));
        continue;
      }
      // .trans: lane (g, t) holds column g, rows 2t and 2t+1.
      Value *R0 = lanePlus(B.CreateShl(Tq, 1), 8 * M);
      Value *P0 = B.CreateGEP(B.getInt8Ty(), RowPtr(R0), ColOff);
      Value *P1 = B.CreateGEP(B.getInt8Ty(), RowPtr(lanePlus(R0, 1)), ColOff);
      if (Store) {
        B.CreateAlignedStore(B.CreateTrunc(Regs[M], B.getInt16Ty()), P0, Align(2));
        B.CreateAlignedStore(B.CreateTrunc(B.CreateLShr(Regs[M], 16), B.getInt16Ty()), P1, Align(2));
        continue;
      }
      Value *Lo = B.CreateAlignedLoad(B.getInt16Ty(), P0, Align(2));
      Value *Hi = B.CreateAlignedLoad(B.getInt16Ty(), P1, Align(2));
      Regs.push_back(joinRaw({Lo, Hi}, ScalarType::F16)[0]);
    }
    if (Store)
      return Error::success();
    return writeRegs(FragOp, Regs, "fragment");
  }

  Error movMatrix() {
    std::optional<Shape> SOr = shapeOf(I);
    if (!SOr || SOr->M != 8 || SOr->N != 8 || SOr->K != 0 || !I.has(Modifier::Trans) ||
        I.lastType() != ScalarType::B16)
      return notLowered("only .m8n8.trans.b16");
    if (I.Ops.size() != 2)
      return FL.fail(FL.spell(I) + ": expected d, a");
    Expected<Value *> A = FL.get(I.Ops[1], ScalarType::B32);
    if (!A)
      return A.takeError();
    // Lane (g, t) receives source elements (2t, g) and (2t+1, g); source
    // element (r, c) is half c&1 of lane 4r + c/2.
    Value *L = lane();
    Value *G = B.CreateLShr(L, 2), *Tq = B.CreateAnd(L, B.getInt32(3));
    Value *Src0 = B.CreateAdd(B.CreateShl(Tq, 3), B.CreateLShr(G, 1));
    Value *Shift = B.CreateShl(B.CreateAnd(G, B.getInt32(1)), 4);
    Value *V0 = B.CreateLShr(shfl(*A, Src0), Shift);
    Value *V1 = B.CreateLShr(shfl(*A, lanePlus(Src0, 4)), Shift);
    Value *D = B.CreateOr(B.CreateAnd(V0, B.getInt32(0xFFFF)), B.CreateShl(V1, 16));
    return FL.set(I.Ops[0], D, ScalarType::B32);
  }
};

} // namespace

Error FunctionLowering::lowerMma(const Instruction &I) { return MmaLowering(*this, I).run(); }

} // namespace ferry::ptx::lower
