//===- LowerBulkTensor.cpp - cp.async.bulk.tensor (PTX ISA 9.7.9.25.5) -----===//
/// \file
/// Tensor bulk copies in tile mode between global memory and shared memory,
/// described by a tensor map (ferry's encoding: TensorMap.h). Like the
/// other bulk copies the copy happens when the instruction executes (one
/// thread issues it), then the load form completes the box's bytes of
/// transactions on its mbarrier; bulk commit/wait are no-ops.
///
/// The box: along dimension d, n_d = ceil(box_d / elementStride_d) elements
/// at global coordinates c_d + i*elementStride_d; in shared memory the box
/// is dense with dimension 0 innermost, each element's byte offset then
/// swizzled as the hardware does (address bits 4.. XOR bits 7..: 1, 2 or 3
/// bits for the 32B, 64B and 128B modes). A load fills elements outside the
/// tensor with zeros (or an all-ones NaN pattern with the NaN fill); a
/// store skips them. The map's rank must be the instruction's; interleaved
/// layouts and the 128B-atom swizzles are treated as their plain forms.
/// Not lowered: im2col modes, multicast, .cta_group, cp.reduce.async.bulk.tensor.
//===----------------------------------------------------------------------===//
#include "ptx/lower/BulkCopy.h"
#include "ptx/lower/TensorMap.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace tm = ferry::ptx::tensormap;

Error lowerBulkTensor(FunctionLowering &FL, const Instruction &I) {
  IRBuilder<> &B = FL.B;
  std::optional<Modifier> Geom = I.firstOfClass(MC_Geom);
  unsigned Rank = 0;
  switch (Geom.value_or(Modifier::Tile)) {
  case Modifier::D1: Rank = 1; break;
  case Modifier::D2: Rank = 2; break;
  case Modifier::D3: Rank = 3; break;
  case Modifier::D4: Rank = 4; break;
  case Modifier::D5: Rank = 5; break;
  default: break;
  }
  if (!Rank)
    return FL.notLowered(I, "dimension");
  if (I.has(Modifier::Im2col) || I.has(Modifier::Im2colNoOffs))
    return FL.notLowered(I, "im2col mode");
  for (Modifier M : I.Mods)
    if (modifierName(M).starts_with("multicast") || modifierName(M).starts_with("cta_group"))
      return FL.notLowered(I, "multicast");
  // The destination space is written first.
  std::optional<Modifier> First;
  for (Modifier M : I.Mods)
    if (!First && (M == Modifier::Global || M == Modifier::Shared || M == Modifier::SharedCta ||
                   M == Modifier::SharedCluster))
      First = M;
  bool Load = I.has(Modifier::MbarrierCompleteTxBytes) && First && *First != Modifier::Global;
  bool Store = I.has(Modifier::BulkGroup) && First == Modifier::Global;
  if (Load == Store)
    return FL.notLowered(I, "direction or completion");
  const Operand &MapOp = Load ? I.Ops[1] : I.Ops[0];
  const Operand &SmemOp = Load ? I.Ops[0] : I.Ops[1];
  size_t Want = 2 + Load + I.has(Modifier::L2CacheHint);
  if (I.Ops.size() != Want || MapOp.K != Operand::Kind::Bracket || MapOp.Elems.size() != 2 ||
      MapOp.Elems[1].K != Operand::Kind::Vector || MapOp.Elems[1].Elems.size() != Rank)
    return FL.fail(FL.spell(I) + ": expected [tensorMap, {" + Twine(Rank) + " coordinates}] and the shared address");

  // The map and its fields.
  Operand MapAddr = MapOp.Elems[0];
  Expected<Value *> MapV = FL.get(MapAddr, ScalarType::B64);
  if (!MapV)
    return MapV.takeError();
  Value *Map = B.CreateIntToPtr(*MapV, ptrTy(FL.C));
  Type *I64 = B.getInt64Ty(), *I32 = B.getInt32Ty();
  auto Word = [&](unsigned W) {
    return B.CreateAlignedLoad(I64, B.CreateConstGEP1_64(I64, Map, W), Align(8));
  };
  Value *Header = Word(tm::Header);
  Value *ElemBytes = B.CreateAnd(B.CreateLShr(Header, 36), B.getInt64(31));
  Value *Swizzle = B.CreateTrunc(B.CreateAnd(B.CreateLShr(Header, 41), B.getInt64(7)), I32);
  Value *NanFill = B.CreateICmpNE(B.CreateAnd(B.CreateLShr(Header, 46), B.getInt64(1)), B.getInt64(0));
  Value *Global = Word(tm::Address);
  Value *BoxWord = Word(tm::Box);
  SmallVector<Value *, 5> Dim, Stride, N, ES, Coord;
  Value *Total = B.getInt64(1);
  for (unsigned D = 0; D < Rank; ++D) {
    Dim.push_back(Word(tm::Dims + D));
    Stride.push_back(D ? Word(tm::Strides + D - 1) : ElemBytes);
    Value *Box = B.CreateAdd(B.CreateAnd(B.CreateLShr(BoxWord, 8 * D), B.getInt64(255)), B.getInt64(1));
    ES.push_back(B.CreateAdd(B.CreateAnd(B.CreateLShr(BoxWord, 40 + 3 * D), B.getInt64(7)), B.getInt64(1)));
    N.push_back(B.CreateUDiv(B.CreateAdd(Box, B.CreateSub(ES.back(), B.getInt64(1))), ES.back()));
    Total = B.CreateMul(Total, N.back());
    Expected<Value *> C = FL.get(MapOp.Elems[1].Elems[D], ScalarType::S32);
    if (!C)
      return C.takeError();
    Coord.push_back(B.CreateSExt(*C, I64));
  }
  Expected<Value *> SmemP = FL.address(SmemOp, StateSpace::Shared);
  if (!SmemP)
    return SmemP.takeError();
  Value *SmemBase = B.CreatePtrToInt(*SmemP, I32);
  // XOR mask of the swizzle mode: 32B → 1, 64B → 3, 128B (and its atom
  // variants) → 7.
  Value *Mask = B.CreateSelect(B.CreateICmpEQ(Swizzle, B.getInt32(0)), B.getInt32(0),
                               B.CreateSelect(B.CreateICmpEQ(Swizzle, B.getInt32(1)), B.getInt32(1),
                                              B.CreateSelect(B.CreateICmpEQ(Swizzle, B.getInt32(2)),
                                                             B.getInt32(3), B.getInt32(7))));

  // One loop over the box's elements, dimension 0 fastest.
  BasicBlock *Pre = B.GetInsertBlock();
  BasicBlock *Loop = BasicBlock::Create(FL.C, "tensor.copy", &FL.F);
  BasicBlock *Done = BasicBlock::Create(FL.C, "tensor.copy.done", &FL.F);
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  PHINode *L = B.CreatePHI(I64, 2, "elem");
  L->addIncoming(B.getInt64(0), Pre);
  Value *Rest = L, *InBounds = B.getTrue(), *GOff = B.getInt64(0);
  for (unsigned D = 0; D < Rank; ++D) {
    Value *Idx = B.CreateURem(Rest, N[D]);
    Rest = B.CreateUDiv(Rest, N[D]);
    Value *X = B.CreateAdd(Coord[D], B.CreateMul(Idx, ES[D]));
    InBounds = B.CreateAnd(InBounds, B.CreateAnd(B.CreateICmpSGE(X, B.getInt64(0)), B.CreateICmpSLT(X, Dim[D])));
    GOff = B.CreateAdd(GOff, B.CreateMul(X, Stride[D]));
  }
  Value *SAddr = B.CreateAdd(SmemBase, B.CreateTrunc(B.CreateMul(L, ElemBytes), I32));
  SAddr = B.CreateXor(SAddr, B.CreateShl(B.CreateAnd(B.CreateLShr(SAddr, 7), Mask), 4));
  Value *SPtr = B.CreateIntToPtr(SAddr, ptrTy(FL.C, 3));
  Value *GPtr = B.CreateIntToPtr(B.CreateAdd(Global, GOff), ptrTy(FL.C, 1));
  BasicBlock *In = BasicBlock::Create(FL.C, "tensor.in", &FL.F);
  BasicBlock *Next = BasicBlock::Create(FL.C, "tensor.next", &FL.F);
  if (Load) {
    BasicBlock *Out = BasicBlock::Create(FL.C, "tensor.oob", &FL.F);
    B.CreateCondBr(InBounds, In, Out);
    B.SetInsertPoint(In);
    B.CreateMemCpy(SPtr, Align(1), GPtr, Align(1), ElemBytes);
    B.CreateBr(Next);
    B.SetInsertPoint(Out);
    // Zeros, or the NaN pattern (all ones but the sign bit) when asked.
    B.CreateMemSet(SPtr, B.CreateSelect(NanFill, B.getInt8(0xFF), B.getInt8(0)), ElemBytes, Align(1));
    Value *Top = B.CreateGEP(B.getInt8Ty(), SPtr, B.CreateSub(ElemBytes, B.getInt64(1)));
    B.CreateStore(B.CreateSelect(NanFill, B.getInt8(0x7F), B.getInt8(0)), Top);
    B.CreateBr(Next);
  } else {
    B.CreateCondBr(InBounds, In, Next);
    B.SetInsertPoint(In);
    B.CreateMemCpy(GPtr, Align(1), SPtr, Align(1), ElemBytes);
    B.CreateBr(Next);
  }
  B.SetInsertPoint(Next);
  Value *L1 = B.CreateAdd(L, B.getInt64(1));
  L->addIncoming(L1, Next);
  B.CreateCondBr(B.CreateICmpULT(L1, Total), Loop, Done);
  B.SetInsertPoint(Done);
  if (!Load)
    return Error::success();
  Expected<Value *> Bar = FL.address(I.Ops[2], StateSpace::Shared);
  if (!Bar)
    return Bar.takeError();
  mbarrierCompleteTx(B, *Bar, B.CreateMul(Total, ElemBytes));
  return Error::success();
}

} // namespace ferry::ptx::lower
