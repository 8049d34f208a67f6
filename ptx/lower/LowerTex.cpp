//===- LowerTex.cpp - textures and surfaces (PTX ISA 9.7.10, 9.7.11) -------===//
/// \file
/// tex/tld4/txq/suld/sust/suq on texture and surface objects (unified
/// mode: the handle is a 64-bit register, or a .texref/.surfref variable
/// whose address is passed as the handle) → the ferry.tex.*/tld4.*/txq/
/// suld/sust/suq intrinsics; the `mode` word is described in
/// SimtIntrinsics.def. Array geometries take the layer first in PTX; the
/// intrinsics take it after the coordinates.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {
/// Geometry code and number of coordinates (array index included).
std::optional<std::pair<unsigned, unsigned>> geometry(const Instruction &I) {
  for (Modifier M : I.Mods)
    switch (M) {
    case Modifier::D1: return std::make_pair(0u, 1u);
    case Modifier::D2: return std::make_pair(1u, 2u);
    case Modifier::D3: return std::make_pair(2u, 3u);
    case Modifier::A1d: return std::make_pair(3u, 2u);
    case Modifier::A2d: return std::make_pair(4u, 3u);
    case Modifier::Cube: return std::make_pair(5u, 3u);
    case Modifier::ACube: return std::make_pair(6u, 4u);
    case Modifier::D2ms: return std::make_pair(7u, 3u);
    case Modifier::A2dms: return std::make_pair(8u, 4u);
    default: break;
    }
  return std::nullopt;
}

unsigned queryCode(const Instruction &I) {
  static const Modifier Q[] = {Modifier::Width, Modifier::Height, Modifier::Depth,
                               Modifier::ChannelDataType, Modifier::ChannelOrder,
                               Modifier::NormalizedCoords, Modifier::FilterMode,
                               Modifier::AddrMode0, Modifier::AddrMode1, Modifier::AddrMode2,
                               Modifier::ArraySize, Modifier::NumMipmapLevels, Modifier::NumSamples};
  for (unsigned K = 0; K < std::size(Q); ++K)
    if (I.has(Q[K]))
      return K;
  return ~0u;
}
} // namespace

Error FunctionLowering::lowerTex(const Instruction &I) {
  // The handle: a register holding an object, or a texref/surfref symbol.
  auto Handle = [&](const Operand &Op) -> Expected<Value *> {
    if (Op.K != Operand::Kind::Address)
      return get(Op, ScalarType::B64);
    Operand H = Op; // txq [h]: a lone handle in brackets
    H.K = Operand::Kind::Name;
    return get(H, ScalarType::B64);
  };
  if (I.Op == Opcode::Txq || I.Op == Opcode::Suq) {
    unsigned Q = queryCode(I);
    if (Q == ~0u)
      return notLowered(I, "query");
    const Operand &Br = I.Ops[1];
    const Operand &H = Br.K == Operand::Kind::Bracket ? Br.Elems[0] : Br;
    Expected<Value *> Hv = Handle(H);
    if (!Hv) return Hv.takeError();
    Value *R = call(I.Op == Opcode::Txq ? Intr::Txq : Intr::Suq, {*Hv, B.getInt32(Q)});
    return set(I.Ops[0], R, ScalarType::B32);
  }
  auto G = geometry(I);
  if (!G)
    return notLowered(I, "geometry");
  auto [Geom, NCoord] = *G;
  bool IsStore = I.Op == Opcode::Sust;
  const Operand &Br = IsStore ? I.Ops[0] : I.Ops[1];
  if (Br.K != Operand::Kind::Bracket || Br.Elems.size() < 2)
    return fail(spell(I) + ": expected [handle, ..., {coordinates}]");
  const Operand &Coords = Br.Elems.back();
  // [tex, sampler, {c}] (independent mode) is not supported: CUDA uses the
  // unified mode.
  if (Br.Elems.size() != 2)
    return notLowered(I, "separate sampler operand");
  Expected<Value *> Hv = Handle(Br.Elems[0]);
  if (!Hv) return Hv.takeError();
  std::optional<ScalarType> CT = I.lastType();
  if (!CT)
    return fail(spell(I) + ": missing coordinate type");
  bool IntCoords = !isFloat(*CT);
  // Coordinates as bit patterns; array index moved last.
  SmallVector<Value *, 4> Cs;
  ArrayRef<Operand> CE = Coords.K == Operand::Kind::Vector ? Coords.Elems : ArrayRef<Operand>(&Coords, 1);
  bool Arrayed = Geom == 3 || Geom == 4 || Geom == 6 || Geom == 8;
  for (size_t K = 0; K < CE.size() && K < 4; ++K) {
    // Array index is always .s32 (an integer), the rest follow the type.
    bool IsIndex = Arrayed && K == 0;
    Expected<Value *> V = get(CE[K], IsIndex || IntCoords ? ScalarType::B32 : ScalarType::F32);
    if (!V) return V.takeError();
    Cs.push_back(fitBits(*V, B.getInt32Ty(), false));
  }
  if (Cs.size() < NCoord)
    return fail(spell(I) + ": too few coordinates");
  Cs.resize(NCoord);
  if (Arrayed)
    std::rotate(Cs.begin(), Cs.begin() + 1, Cs.end());
  Value *CV = Constant::getNullValue(FixedVectorType::get(B.getInt32Ty(), 4));
  for (unsigned K = 0; K < Cs.size(); ++K)
    CV = B.CreateInsertElement(CV, Cs[K], K);
  unsigned Mode = Geom | (IntCoords ? 1u << 4 : 0);

  if (I.Op == Opcode::Suld || I.Op == Opcode::Sust) {
    ScalarType ET = *I.firstType();
    unsigned EB = bits(ET) / 8;
    unsigned N = I.has(Modifier::V4) ? 4 : I.has(Modifier::V2) ? 2 : 1;
    if (EB == 0 || EB > 4)
      return notLowered(I, "64-bit surface elements");
    Mode = Geom | (EB << 12) | (N << 16) | ((I.has(Modifier::Clamp) ? 1u : I.has(Modifier::Zero) ? 2u : 0u) << 20);
    if (I.Op == Opcode::Suld) {
      Value *R = call(Intr::Suld, {*Hv, B.getInt32(Mode), CV});
      const Operand &D = I.Ops[0];
      ArrayRef<Operand> DE = D.K == Operand::Kind::Vector ? D.Elems : ArrayRef<Operand>(&D, 1);
      for (unsigned K = 0; K < DE.size() && K < 4; ++K)
        if (Error E = set(DE[K], B.CreateTrunc(B.CreateExtractElement(R, K), B.getIntNTy(EB * 8)), ET))
          return E;
      return Error::success();
    }
    const Operand &S = I.Ops[1];
    ArrayRef<Operand> SE = S.K == Operand::Kind::Vector ? S.Elems : ArrayRef<Operand>(&S, 1);
    Value *Vals = Constant::getNullValue(FixedVectorType::get(B.getInt32Ty(), 4));
    for (unsigned K = 0; K < SE.size() && K < 4; ++K) {
      Expected<Value *> V = get(SE[K], EB == 4 ? ScalarType::B32 : EB == 2 ? ScalarType::B16 : ScalarType::B8);
      if (!V) return V.takeError();
      Vals = B.CreateInsertElement(Vals, B.CreateZExt(*V, B.getInt32Ty()), K);
    }
    call(Intr::Sust, {*Hv, B.getInt32(Mode), CV, Vals});
    return Error::success();
  }

  // Cubemap gathers have no sampler of their own on the host yet.
  if (I.Op == Opcode::Tld4 && (Geom == 5 || Geom == 6))
    return notLowered(I, "cubemap geometry");
  // tex / tld4: result element type is the first type.
  ScalarType DT = *I.firstType();
  bool FloatRes = isFloat(DT);
  if (FloatRes && DT != ScalarType::F32)
    return notLowered(I, "non-f32 float texture results");
  if (!FloatRes && isSigned(DT))
    Mode |= 1u << 10;
  Value *R;
  if (I.Op == Opcode::Tld4) {
    unsigned Comp = I.has(Modifier::G) ? 1 : I.has(Modifier::B) ? 2 : I.has(Modifier::A) ? 3 : 0;
    Mode |= Comp << 8;
    R = call(FloatRes ? Intr::Tld4F32 : Intr::Tld4I32, {*Hv, B.getInt32(Mode), CV});
  } else {
    Value *Lod = ConstantFP::get(B.getFloatTy(), 0.0);
    Value *Zero4 = Constant::getNullValue(FixedVectorType::get(B.getFloatTy(), 4));
    Value *DX = Zero4, *DY = Zero4;
    if (I.has(Modifier::Level)) {
      Mode |= 1u << 5;
      if (I.Ops.size() < 3) return fail("tex.level needs a level operand");
      Expected<Value *> L = get(I.Ops[2], ScalarType::F32);
      if (!L) return L.takeError();
      Lod = *L;
    } else if (I.has(Modifier::Grad)) {
      Mode |= 1u << 6;
      if (I.Ops.size() < 4) return fail("tex.grad needs two gradient vectors");
      for (unsigned G2 = 0; G2 < 2; ++G2) {
        const Operand &Gv = I.Ops[2 + G2];
        ArrayRef<Operand> GE = Gv.K == Operand::Kind::Vector ? Gv.Elems : ArrayRef<Operand>(&Gv, 1);
        Value *Acc = Zero4;
        for (unsigned K = 0; K < GE.size() && K < 4; ++K) {
          Expected<Value *> V = get(GE[K], ScalarType::F32);
          if (!V) return V.takeError();
          Acc = B.CreateInsertElement(Acc, *V, K);
        }
        (G2 ? DY : DX) = Acc;
      }
    } else if (I.Ops.size() > 2) {
      return notLowered(I, "depth compare or offset operands");
    }
    R = call(FloatRes ? Intr::TexF32 : Intr::TexI32, {*Hv, B.getInt32(Mode), CV, Lod, DX, DY});
  }
  const Operand &D = I.Ops[0];
  ArrayRef<Operand> DE = D.K == Operand::Kind::Vector ? D.Elems : ArrayRef<Operand>(&D, 1);
  for (unsigned K = 0; K < DE.size() && K < 4; ++K)
    if (Error E = set(DE[K], B.CreateExtractElement(R, K), FloatRes ? ScalarType::F32 : ScalarType::B32))
      return E;
  return Error::success();
}

} // namespace ferry::ptx::lower
