//===- Lowering.cpp - operands, registers and the body walk ----------------===//
/// \file
/// The core of function lowering: how PTX registers, immediates, vectors,
/// symbols and addresses become LLVM values (get/set/address), how a body's
/// statements become basic blocks (labels, guards, nested scopes), and the
/// dispatch of each instruction to its family file. Registers are SSA values
/// kept by RegisterSSA (a register read before any write is a defined zero
/// rather than poison); a guarded instruction's block joins its writes.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"
#include "ptx/parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ferry::ptx::lower {

Type *ptrTy(LLVMContext &C, unsigned AS) { return PointerType::get(C, AS); }

unsigned addrSpaceOf(StateSpace S) {
  switch (S) {
  case StateSpace::Global: return 1;
  case StateSpace::Shared: return 3;
  case StateSpace::Const: return 4;
  case StateSpace::Local: return 5;
  default: return 0;
  }
}

//===----------------------------------------------------------------------===//
// ModuleLowering
//===----------------------------------------------------------------------===//

namespace {
struct IntrRow {
  const char *Name;
  const char *Sig; ///< "RetTy, (Params), \"doc\"" as the .def spells it.
};
const IntrRow IntrRows[] = {
#define FERRY_INTRINSIC(Id, Name, ...) {Name, #__VA_ARGS__},
#include "ptx/lower/SimtIntrinsics.def"
#undef FERRY_INTRINSIC
};
} // namespace

llvm::Function *ModuleLowering::intrinsic(Intr I) {
  unsigned Idx = unsigned(I);
  if (llvm::Function *F = IntrCache.lookup(Idx))
    return F;
  // The row's types are LLVM IR syntax: split "Ret, (Params), doc" at the
  // first top-level comma and parse "Ret (Params)" as a function type, so
  // the .def stays the only place the signatures are written.
  StringRef Sig = IntrRows[Idx].Sig;
  int Depth = 0;
  size_t Comma = StringRef::npos, ParamsEnd = StringRef::npos;
  for (size_t K = 0; K < Sig.size(); ++K) {
    char Ch = Sig[K];
    if (Ch == '(' || Ch == '{' || Ch == '<')
      ++Depth;
    else if (Ch == ')' || Ch == '}' || Ch == '>') {
      if (--Depth == 0 && Comma != StringRef::npos && Ch == ')') {
        ParamsEnd = K + 1;
        break;
      }
    } else if (Ch == ',' && Depth == 0 && Comma == StringRef::npos)
      Comma = K;
  }
  std::string Text = (Sig.take_front(Comma) + " " +
                      Sig.slice(Comma + 1, ParamsEnd).trim()).str();
  SMDiagnostic Diag;
  Type *T = parseType(Text, Diag, M);
  auto *FT = dyn_cast_or_null<FunctionType>(T);
  if (!FT) // A malformed row is a build-time bug of the .def: fail loudly.
    report_fatal_error(Twine("SimtIntrinsics.def: bad signature for ") + IntrRows[Idx].Name +
                       ": " + Text);
  FunctionCallee FC = M.getOrInsertFunction(IntrRows[Idx].Name, FT);
  auto *F = cast<llvm::Function>(FC.getCallee());
  F->addFnAttr(Attribute::NoUnwind);
  if (I == Intr::Exit || I == Intr::Trap || I == Intr::AssertFail)
    F->addFnAttr(Attribute::NoReturn);
  // Barriers and warp collectives must not be duplicated or moved across
  // control flow: convergent (the host and AMD backends rely on it).
  switch (I) {
  case Intr::BarSync: case Intr::BarArrive: case Intr::BarRedPopc: case Intr::BarRedAnd:
  case Intr::BarRedOr: case Intr::GridSync: case Intr::BarWarpSync: case Intr::ShflSync:
  case Intr::VoteAll: case Intr::VoteAny: case Intr::VoteUni: case Intr::VoteBallot:
  case Intr::MatchAny32: case Intr::MatchAny64: case Intr::MatchAll32: case Intr::MatchAll64:
  case Intr::ReduxAdd: case Intr::ReduxMinU: case Intr::ReduxMaxU: case Intr::ReduxMinS:
  case Intr::ReduxMaxS: case Intr::ReduxAnd: case Intr::ReduxOr: case Intr::ReduxXor:
  case Intr::ActiveMask: case Intr::ElectSync:
    F->addFnAttr(Attribute::Convergent);
    break;
  default:
    break;
  }
  // Thread geometry and launch constants never change during a thread's
  // life: let CSE merge repeated reads.
  if (unsigned(I) <= unsigned(Intr::DynSmemBase)) {
    F->setDoesNotAccessMemory();
    F->setWillReturn();
  }
  IntrCache[Idx] = F;
  return F;
}

bool ModuleLowering::isRuntimeExtern(StringRef Name) {
  return Name == "vprintf" || Name == "malloc" || Name == "free" || Name == "__assertfail" ||
         Name == "cudaGraphSetConditional" || Name.starts_with("__cudaCDP2");
}

GlobalVariable *ModuleLowering::entryHandle(StringRef Name) {
  std::string Sym = (EntryHandlePrefix + Name).str();
  if (GlobalVariable *G = M.getNamedGlobal(Sym))
    return G;
  // The kernel's name, so a backend or a reader of the IR can tell which
  // kernel a handle stands for without a side table.
  Constant *Init = ConstantDataArray::getString(C, Name, true);
  // linkonce_odr: every -rdc translation unit that launches the kernel makes
  // the same handle, and linking them must leave one.
  auto *G = new GlobalVariable(M, Init->getType(), true, GlobalValue::LinkOnceODRLinkage, Init, Sym,
                               nullptr, GlobalValue::NotThreadLocal, addrSpaceOf(StateSpace::Global));
  G->setAlignment(Align(1));
  return G;
}

uint64_t ModuleLowering::declSize(const VarDecl &D) {
  uint64_t Elem = std::max<uint64_t>(1, (typeBits(D.Type) + 7) / 8);
  if (D.VecWidth)
    Elem *= D.VecWidth;
  return Elem * D.elementCount();
}

uint64_t ModuleLowering::declAlign(const VarDecl &D) {
  if (D.Align)
    return D.Align;
  uint64_t Elem = std::max<uint64_t>(1, (typeBits(D.Type) + 7) / 8);
  if (D.VecWidth)
    Elem *= D.VecWidth;
  return Elem;
}

Type *ModuleLowering::paramValueType(const VarDecl &D) {
  if (D.Type == ScalarType::Pred)
    return Type::getInt1Ty(C);
  if (D.Type == ScalarType::F32 && !D.VecWidth)
    return Type::getFloatTy(C);
  if (D.Type == ScalarType::F64 && !D.VecWidth)
    return Type::getDoubleTy(C);
  return Type::getIntNTy(C, unsigned(declSize(D) * 8));
}

//===----------------------------------------------------------------------===//
// FunctionLowering: helpers
//===----------------------------------------------------------------------===//

FunctionLowering::FunctionLowering(ModuleLowering &ML, const Function &PF, FuncSig &Sig)
    : ML(ML), PF(PF), Sig(Sig), F(*Sig.F), C(ML.C), B(ML.C) {}

Error FunctionLowering::fail(const Twine &Msg) {
  // The location is taken from Cur by the caller (runLowerFunctions).
  return make_error<StringError>(Msg.str(), inconvertibleErrorCode());
}

std::string FunctionLowering::spell(const Instruction &I) const {
  std::string S;
  raw_string_ostream OS(S);
  OS << I.info().Name;
  for (Modifier M : I.Mods)
    OS << '.' << modifierName(M);
  return S;
}

Error FunctionLowering::notLowered(const Instruction &I, StringRef Why) {
  return fail("not yet lowered: " + spell(I) + (Why.empty() ? "" : " (" + Why.str() + ")"));
}

Type *FunctionLowering::regType(ScalarType T) {
  switch (T) {
  case ScalarType::Pred: return B.getInt1Ty();
  case ScalarType::F32: return B.getFloatTy();
  case ScalarType::F64: return B.getDoubleTy();
  default: return B.getIntNTy(std::max(1u, bits(T)));
  }
}

Type *FunctionLowering::valType(ScalarType T) {
  switch (T) {
  case ScalarType::F16: return B.getHalfTy();
  case ScalarType::BF16: return B.getBFloatTy();
  case ScalarType::F16x2: return FixedVectorType::get(B.getHalfTy(), 2);
  case ScalarType::BF16x2: return FixedVectorType::get(B.getBFloatTy(), 2);
  default: return regType(T);
  }
}

Value *FunctionLowering::fitBits(Value *V, Type *To, bool SignExtend) {
  Type *From = V->getType();
  if (From == To)
    return V;
  unsigned FB = From->getPrimitiveSizeInBits(), TB = To->getPrimitiveSizeInBits();
  if (FB == TB)
    return B.CreateBitCast(V, To);
  // Different widths: go through integers (PTX: a wider register's upper
  // bits are ignored on read; a narrower value is sign- or zero-extended on
  // write according to the instruction type).
  Value *I = From->isIntegerTy() ? V : B.CreateBitCast(V, B.getIntNTy(FB));
  Type *ToI = To->isIntegerTy() ? To : B.getIntNTy(TB);
  I = FB > TB ? B.CreateTrunc(I, ToI) : SignExtend ? B.CreateSExt(I, ToI) : B.CreateZExt(I, ToI);
  return To->isIntegerTy() ? I : B.CreateBitCast(I, To);
}

FunctionLowering::RegRef FunctionLowering::lookupReg(StringRef Name) const {
  for (size_t I = Scopes.size(); I-- > 0;) {
    auto It = Scopes[I].find(Name);
    if (It != Scopes[I].end())
      return It->second->Space == StateSpace::Reg ? RegRef{It->second, 0} : RegRef{};
    if (!Ranges[I].empty()) {
      size_t Digits = Name.size();
      while (Digits > 0 && llvm::isDigit(Name[Digits - 1]))
        --Digits;
      if (Digits < Name.size()) {
        auto R = Ranges[I].find(Name.take_front(Digits));
        uint32_t Index;
        if (R != Ranges[I].end() && R->second->Space == StateSpace::Reg &&
            !Name.drop_front(Digits).getAsInteger(10, Index) && Index < R->second->RangeCount)
          return {R->second, Index};
      }
    }
  }
  return {};
}

const VarDecl *FunctionLowering::lookupVar(StringRef Name) const {
  for (size_t I = Scopes.size(); I-- > 0;) {
    auto It = Scopes[I].find(Name);
    if (It != Scopes[I].end())
      return It->second;
  }
  return nullptr;
}

FunctionLowering::RegRef FunctionLowering::regOf(const Operand &Op) const {
  const VarDecl *D = Op.Decl;
  if (!D)
    return lookupReg(Op.Name);
  if (D->Space != StateSpace::Reg)
    return {};
  if (!D->RangeCount)
    return {D, 0};
  // %r57 of %r<N>: the checker matched the decimal suffix against N.
  uint32_t Index = 0, Scale = 1;
  for (size_t K = Op.Name.size(); K > 0 && llvm::isDigit(Op.Name[K - 1]); --K, Scale *= 10)
    Index += uint32_t(Op.Name[K - 1] - '0') * Scale;
  return {D, Index};
}

unsigned FunctionLowering::regNumber(RegRef R) {
  auto [It, New] = RegBase.try_emplace(R.D, 0);
  if (New) {
    Type *T = regType(R.D->Type);
    if (R.D->VecWidth)
      T = FixedVectorType::get(T, R.D->VecWidth);
    It->second = Regs->add(T, std::max<uint32_t>(1, R.D->RangeCount));
  }
  return It->second + R.Index;
}

Value *FunctionLowering::readReg(RegRef R) {
  return Regs->read(regNumber(R), B.GetInsertBlock());
}

void FunctionLowering::writeReg(RegRef R, Value *V) {
  Regs->write(regNumber(R), B.GetInsertBlock(), V);
}

Value *FunctionLowering::readCarry() { return Regs->read(CarryReg, B.GetInsertBlock()); }

void FunctionLowering::writeCarry(Value *V) { Regs->write(CarryReg, B.GetInsertBlock(), V); }

CallInst *FunctionLowering::call(Intr I, ArrayRef<Value *> Args) {
  llvm::Function *Fn = ML.intrinsic(I);
  return B.CreateCall(Fn, Args);
}

Value *FunctionLowering::callLLVM(Intrinsic::ID Id, ArrayRef<Type *> Tys, ArrayRef<Value *> Args) {
  return B.CreateIntrinsic(Id, Tys, Args);
}

Value *FunctionLowering::flush(Value *V) {
  Type *T = V->getType();
  Type *ST = T->getScalarType();
  if (!ST->isFloatingPointTy() || ST->isDoubleTy())
    return V;
  Value *Min = ConstantFP::get(T, APFloat::getSmallestNormalized(ST->getFltSemantics()));
  Value *Abs = callLLVM(Intrinsic::fabs, {T}, {V});
  Value *Tiny = B.CreateFCmpOLT(Abs, Min);
  Value *Zero = callLLVM(Intrinsic::copysign, {T}, {ConstantFP::get(T, 0.0), V});
  return B.CreateSelect(Tiny, Zero, V);
}

Value *FunctionLowering::saturate(Value *V) {
  Type *T = V->getType();
  // maxnum(NaN, 0) = 0, so NaN saturates to +0 as PTX specifies; the
  // explicit compare keeps -0 → +0.
  Value *Lo = callLLVM(Intrinsic::maxnum, {T}, {V, ConstantFP::get(T, 0.0)});
  Value *Hi = callLLVM(Intrinsic::minnum, {T}, {Lo, ConstantFP::get(T, 1.0)});
  Value *IsZero = B.CreateFCmpOEQ(Hi, ConstantFP::get(T, 0.0));
  return B.CreateSelect(IsZero, ConstantFP::get(T, 0.0), Hi);
}

Value *FunctionLowering::canonicalNaN(Value *V) {
  // An H100 returns this one NaN whatever the operands' NaNs were (and from
  // abs and neg too). A marker call, which the pass nan-results turns into a
  // select where the NaN's bits can be seen, and into nothing elsewhere.
  Type *T = V->getType();
  Type *ST = T->getScalarType();
  if (!ST->isFloatTy() && !ST->isHalfTy() && !ST->isBFloatTy())
    return V;
  if (auto *C = dyn_cast<Constant>(V)) {
    unsigned W = ST->getPrimitiveSizeInBits();
    Constant *NaN = ConstantFP::get(T, APFloat(ST->getFltSemantics(), APInt::getSignedMaxValue(W)));
    return B.CreateSelect(B.CreateFCmpUNO(C, C), NaN, C); // folds
  }
  std::string Name = (NanMarkerPrefix + Twine(T->isVectorTy() ? "v" : "") +
                      (T->isVectorTy() ? Twine(cast<FixedVectorType>(T)->getNumElements()) : Twine("")) +
                      (ST->isFloatTy() ? "f32" : ST->isHalfTy() ? "f16" : "bf16")).str();
  FunctionCallee F = B.GetInsertBlock()->getModule()->getOrInsertFunction(Name, FunctionType::get(T, {T}, false));
  return B.CreateCall(F, {V});
}

Value *FunctionLowering::pickNaN(Value *R, ArrayRef<Value *> Order) {
  // Two NaN operands: an H100 returns the second's (a NaN c before a NaN a
  // in fma), quieted; x86 and AMD the first's (tests/ptx-conformance,
  // goldens/f64nan.txt). A marker call ferry.nan.pick.f64.N(r, order...),
  // which the pass nan-results turns into selects where the result's bits
  // can be seen, and into r elsewhere.
  if (!R->getType()->isDoubleTy() || isa<Constant>(R))
    return R;
  SmallVector<Type *, 4> Params(Order.size() + 1, R->getType());
  SmallVector<Value *, 4> Args{R};
  Args.append(Order.begin(), Order.end());
  std::string Name = (NanPickPrefix + "f64." + Twine(Order.size())).str();
  FunctionCallee F = B.GetInsertBlock()->getModule()->getOrInsertFunction(
      Name, FunctionType::get(R->getType(), Params, false));
  return B.CreateCall(F, Args);
}

Value *FunctionLowering::quietNaN(Value *V) {
  Type *T = V->getType();
  Type *ST = T->getScalarType();
  unsigned W = ST->getPrimitiveSizeInBits();
  Type *WT = B.getIntNTy(W);
  if (auto *VecT = dyn_cast<VectorType>(T))
    WT = VectorType::get(WT, VecT->getElementCount());
  APInt Quiet = APInt::getOneBitSet(W, APFloat::semanticsPrecision(ST->getFltSemantics()) - 2);
  return B.CreateBitCast(B.CreateOr(B.CreateBitCast(V, WT), ConstantInt::get(WT, Quiet)), T);
}

Value *FunctionLowering::castPtr(Value *P, unsigned AS) {
  if (P->getType()->getPointerAddressSpace() == AS)
    return P;
  return B.CreateAddrSpaceCast(P, ptrTy(C, AS));
}

void FunctionLowering::startBlock(const Twine &Name) {
  BasicBlock *BB = BasicBlock::Create(C, Name, &F);
  B.SetInsertPoint(BB);
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

Expected<Value *> FunctionLowering::symbolPointer(StringRef Name, StateSpace *Space) {
  if (const VarDecl *D = lookupVar(Name)) {
    if (D->Space == StateSpace::Reg)
      return fail("register '" + Name + "' used as an address symbol");
    auto It = VarSlots.find(D);
    if (It == VarSlots.end())
      return fail("no storage for '" + Name + "'");
    *Space = D->Space;
    return It->second;
  }
  if (const VarDecl *GD = ML.GlobalDecls.lookup(Name);
      GD && GD->Space == StateSpace::Shared && GD->elementCount() == 0) {
    // extern .shared x[]: the dynamic shared memory base, read once per
    // function at entry.
    Value *&Slot = VarSlots[GD];
    if (!Slot) {
      IRBuilder<> EB(EntryBB, EntryBB->getFirstInsertionPt());
      Slot = EB.CreateCall(ML.intrinsic(Intr::DynSmemBase));
    }
    *Space = StateSpace::Shared;
    return Slot;
  }
  if (GlobalVariable *G = ML.Globals.lookup(Name)) {
    *Space = ML.GlobalDecls.lookup(Name)->Space;
    return G;
  }
  auto FI = ML.Funcs.find(Name);
  if (FI != ML.Funcs.end()) {
    // A kernel's address is only ever a launch handle (device-side
    // launches, cudaFuncGetAttributes): its handle global stands for it.
    if (FI->second.Ptx && FI->second.Ptx->IsEntry) {
      *Space = StateSpace::Global;
      return ML.entryHandle(Name);
    }
    *Space = StateSpace::None;
    return FI->second.F;
  }
  return fail("unknown symbol '" + Name + "'");
}

Expected<Value *> FunctionLowering::get(const Operand &Op, ScalarType T) {
  Type *VT = valType(T);
  switch (Op.K) {
  case Operand::Kind::Reg:
  case Operand::Kind::Name: {
    if (RegRef R = regOf(Op); R.D) {
      Value *V = readReg(R);
      if (R.D->VecWidth) {
        if (Op.Comp < Component::X || Op.Comp > Component::W)
          return fail("vector register '" + Op.Name + "' needs a component");
        V = B.CreateExtractElement(V, unsigned(Op.Comp) - unsigned(Component::X));
      }
      if (Op.Negated) {
        if (!V->getType()->isIntegerTy(1))
          return fail("'!' on a non-predicate");
        V = B.CreateNot(V);
      }
      if (Op.Comp >= Component::B0 && Op.Comp <= Component::H1)
        return fail("register byte/half selectors (video instructions) are not lowered");
      return fitBits(V, VT, false);
    }
    // A symbol: its address, as an integer (PTX `mov.u64 %rd, sym`).
    StateSpace S;
    Expected<Value *> P = symbolPointer(Op.Name, &S);
    if (!P)
      return P.takeError();
    Value *Ptr = *P;
    if (Op.Int)
      Ptr = B.CreateGEP(B.getInt8Ty(), Ptr, B.getInt64(Op.Int));
    if (!VT->isIntegerTy())
      return fail("symbol '" + Op.Name + "' used as a non-integer value");
    // .address_size 32: the address of a variable outside shared memory
    // (shared addresses are offsets into the block's arena) does not fit 32
    // bits on a 64-bit host, so this function cannot run faithfully.
    if (ML.P.AddressSize == 32 && VT->getIntegerBitWidth() < 64 && S != StateSpace::Shared)
      return fail("not lowered: the 32-bit address of ." + stateSpaceName(S).str() + " variable '" +
                  Op.Name + "' (.address_size 32): ferry keeps module variables and the stack above "
                  "4 GiB on this 64-bit host, out of a 32-bit address's reach");
    return B.CreatePtrToInt(Ptr, VT);
  }
  case Operand::Kind::SReg: {
    Expected<Value *> V = readSpecial(Op);
    if (!V)
      return V.takeError();
    return fitBits(*V, VT, false);
  }
  case Operand::Kind::Int: {
    if (VT->isIntegerTy())
      return ConstantInt::get(VT, uint64_t(Op.Int), true);
    if (VT->isFPOrFPVectorTy()) {
      // An integer literal where a float is expected: PTX takes its bits
      // when it is a hex bit pattern of the right width; the value otherwise
      // (PTX ISA 4.5.1 allows integer constants only as bit patterns for
      // float operands; nvcc never emits the numeric form).
      unsigned W = VT->getPrimitiveSizeInBits();
      return B.CreateBitCast(ConstantInt::get(B.getIntNTy(W), uint64_t(Op.Int)), VT);
    }
    return fail("integer immediate where a predicate is expected");
  }
  case Operand::Kind::Float: {
    if (VT->isIntegerTy()) {
      // Bits of the literal (mov.b32 %r, 0f3F800000).
      uint64_t Bits = Op.FloatBits;
      if (Op.FForm == Operand::FloatForm::Decimal && bits(T) == 32)
        Bits = APFloat(float(Op.asDouble())).bitcastToAPInt().getZExtValue();
      return ConstantInt::get(VT, Bits);
    }
    Type *ST = VT->getScalarType();
    Constant *K;
    if (Op.FForm == Operand::FloatForm::Hex32 && ST->isFloatTy())
      K = ConstantFP::get(C, APFloat(APFloat::IEEEsingle(), APInt(32, Op.FloatBits)));
    else if (Op.FForm != Operand::FloatForm::Hex32 && ST->isDoubleTy())
      K = ConstantFP::get(C, APFloat(APFloat::IEEEdouble(), APInt(64, Op.FloatBits)));
    else {
      APFloat V = Op.FForm == Operand::FloatForm::Hex32
                      ? APFloat(APFloat::IEEEsingle(), APInt(32, Op.FloatBits))
                      : APFloat(APFloat::IEEEdouble(), APInt(64, Op.FloatBits));
      bool Lost;
      V.convert(ST->getFltSemantics(), APFloat::rmNearestTiesToEven, &Lost);
      K = ConstantFP::get(C, V);
    }
    if (auto *VecT = dyn_cast<FixedVectorType>(VT))
      return ConstantVector::getSplat(VecT->getElementCount(), K);
    return K;
  }
  case Operand::Kind::Vector: {
    // {a, b, ...}: packs elements, the first in the low bits.
    unsigned N = Op.Elems.size();
    unsigned W = VT->getPrimitiveSizeInBits();
    if (N == 0 || W % N)
      return fail("vector operand does not divide the type's width");
    unsigned EW = W / N;
    ScalarType ET = EW == 8 ? ScalarType::B8 : EW == 16 ? ScalarType::B16 : EW == 32 ? ScalarType::B32
                  : EW == 64 ? ScalarType::B64 : ScalarType::B128;
    Value *Acc = ConstantInt::get(B.getIntNTy(W), 0);
    for (unsigned K = 0; K < N; ++K) {
      if (Op.Elems[K].K == Operand::Kind::Sink)
        continue;
      Expected<Value *> E = get(Op.Elems[K], ET);
      if (!E)
        return E.takeError();
      Value *Wide = B.CreateZExt(*E, B.getIntNTy(W));
      Acc = B.CreateOr(Acc, B.CreateShl(Wide, K * EW));
    }
    return fitBits(Acc, VT, false);
  }
  case Operand::Kind::Address:
    return fail("address operand used as a value");
  default:
    return fail("unsupported operand kind");
  }
}

Expected<Value *> FunctionLowering::getPred(const Operand &Op) {
  if (Op.K == Operand::Kind::Int)
    return B.getInt1(Op.Int != 0);
  return get(Op, ScalarType::Pred);
}

Error FunctionLowering::set(const Operand &Op, Value *V, ScalarType T) {
  switch (Op.K) {
  case Operand::Kind::Sink:
    return Error::success();
  case Operand::Kind::Reg:
  case Operand::Kind::Name: {
    RegRef R = regOf(Op);
    if (!R.D)
      return fail("'" + Op.Name + "' is not a register");
    if (R.D->VecWidth) {
      if (Op.Comp < Component::X || Op.Comp > Component::W)
        return fail("vector register '" + Op.Name + "' needs a component");
      Value *Old = readReg(R);
      auto *VT = cast<FixedVectorType>(Old->getType());
      writeReg(R, B.CreateInsertElement(Old, fitBits(V, VT->getElementType(), isSigned(T)),
                                        unsigned(Op.Comp) - unsigned(Component::X)));
      return Error::success();
    }
    unsigned N = regNumber(R);
    Regs->write(N, B.GetInsertBlock(), fitBits(V, Regs->type(N), isSigned(T)));
    return Error::success();
  }
  case Operand::Kind::Vector: {
    unsigned N = Op.Elems.size();
    unsigned W = V->getType()->getPrimitiveSizeInBits();
    if (N == 0 || W % N)
      return fail("vector destination does not divide the type's width");
    unsigned EW = W / N;
    Value *I = fitBits(V, B.getIntNTy(W), false);
    for (unsigned K = 0; K < N; ++K) {
      Value *E = B.CreateTrunc(B.CreateLShr(I, K * EW), B.getIntNTy(EW));
      ScalarType ET = EW == 8 ? ScalarType::B8 : EW == 16 ? ScalarType::B16 : EW == 32 ? ScalarType::B32
                    : EW == 64 ? ScalarType::B64 : ScalarType::B128;
      if (Error Err = set(Op.Elems[K], E, ET))
        return Err;
    }
    return Error::success();
  }
  default:
    return fail("unsupported destination operand");
  }
}

Error FunctionLowering::setPred(const Operand &Op, Value *V) { return set(Op, V, ScalarType::Pred); }

Expected<Value *> FunctionLowering::address(const Operand &Op, StateSpace S) {
  unsigned AS = addrSpaceOf(S);
  if (Op.K != Operand::Kind::Address && Op.K != Operand::Kind::Name && Op.K != Operand::Kind::Reg)
    return fail("expected an address");
  if (Op.Name.empty()) // [imm]
    return B.CreateIntToPtr(B.getInt64(Op.Int), ptrTy(C, AS));
  Value *P;
  if (RegRef R = regOf(Op); R.D) {
    Value *V = readReg(R);
    V = fitBits(V, B.getIntNTy(V->getType()->getPrimitiveSizeInBits()), false);
    if (!V->getType()->isIntegerTy(64)) {
      // A 32-bit address (shared space) wraps at 32 bits: nvcc emits
      // [%r+512] with %r = base - 512.
      if (Op.Int)
        V = B.CreateAdd(V, ConstantInt::get(V->getType(), Op.Int, /*IsSigned=*/true));
      return B.CreateIntToPtr(B.CreateZExtOrTrunc(V, B.getInt64Ty()), ptrTy(C, AS));
    }
    P = B.CreateIntToPtr(V, ptrTy(C, AS));
  } else {
    StateSpace SymSpace;
    Expected<Value *> SP = symbolPointer(Op.Name, &SymSpace);
    if (!SP)
      return SP.takeError();
    P = *SP;
    // A symbol's address is in its own space; a generic access to it (or a
    // param-space access to a parameter copy) converts.
    if (P->getType()->getPointerAddressSpace() != AS) {
      if (S != StateSpace::None && S != StateSpace::Param && SymSpace != S && SymSpace != StateSpace::Param)
        return fail("'" + Op.Name + "' is not in the ." + stateSpaceName(S) + " space");
      P = castPtr(P, AS);
    }
  }
  if (Op.Int)
    P = B.CreateGEP(B.getInt8Ty(), P, B.getInt64(Op.Int));
  return P;
}

//===----------------------------------------------------------------------===//
// Body walk
//===----------------------------------------------------------------------===//

Error FunctionLowering::collectLabels(ArrayRef<Node *> Body) {
  for (const Node *N : Body) {
    if (auto *I = dyn_cast<Instruction>(N)) {
      // The last instruction that branches to each label (lowerBody
      // numbers instructions in the same order): past it, the label's
      // block has all its predecessors.
      ++NumInstrs;
      if (I->Op == Opcode::Bra && !I->Ops.empty()) {
        unsigned &Last = LastBranchTo[I->Ops[0].Name];
        Last = std::max(Last, NumInstrs);
      } else if (I->Op == Opcode::BrxIdx && I->Ops.size() > 1)
        Switches.push_back({I->Ops[1].Name, NumInstrs});
    } else if (auto *L = dyn_cast<Label>(N)) {
      if (!Labels.count(L->Name))
        Labels[L->Name] = BasicBlock::Create(C, L->Name, &F);
      else // Defined twice (inlined PTX): one block, never sealed.
        LastBranchTo[L->Name] = ~0u;
    } else if (auto *Bl = dyn_cast<Block>(N)) {
      if (Error E = collectLabels(Bl->Body))
        return E;
    } else if (auto *T = dyn_cast<BranchTargets>(N)) {
      TargetLists[T->Name] = T;
    } else if (auto *P = dyn_cast<CallPrototype>(N)) {
      Prototypes[P->Name] = P;
    }
  }
  return Error::success();
}

Error FunctionLowering::declareLocal(const VarDecl &D) {
  if (D.RangeCount)
    Ranges.back()[D.Name] = &D;
  else
    Scopes.back()[D.Name] = &D;
  switch (D.Space) {
  case StateSpace::Reg:
    return Error::success(); // RegisterSSA numbers registers on first use.
  case StateSpace::Local:
  case StateSpace::Param: {
    // .local arrays (the stack frame nvcc calls __local_depot) and the
    // .param buffers of call sites: byte arrays in the frame. Their
    // addresses are generic pointers (SimtIR.md: allocas stay in
    // addrspace 0); ld.local converts to addrspace 5 and back.
    IRBuilder<> EB(EntryBB, EntryBB->begin());
    uint64_t Size = std::max<uint64_t>(1, ModuleLowering::declSize(D));
    AllocaInst *A = EB.CreateAlloca(ArrayType::get(EB.getInt8Ty(), Size), nullptr, D.Name);
    A->setAlignment(Align(std::max<uint64_t>(1, ModuleLowering::declAlign(D))));
    VarSlots[&D] = D.Space == StateSpace::Local ? castPtr(A, 5) : static_cast<Value *>(A);
    if (D.Space == StateSpace::Local) {
      // The cast must dominate every use: put it right after the alloca.
      auto *Cast = cast<llvm::Instruction>(VarSlots[&D]);
      Cast->removeFromParent();
      Cast->insertAfter(A);
    }
    return Error::success();
  }
  case StateSpace::Shared:
  case StateSpace::Global:
  case StateSpace::Const: {
    // Function-scope variables with static storage: hoisted to module scope
    // under a unique name (SimtIR.md).
    GlobalVariable *&G = ML.Hoisted[&D];
    if (!G) {
      uint64_t Size = ModuleLowering::declSize(D);
      unsigned AS = addrSpaceOf(D.Space);
      Type *T = ArrayType::get(Type::getInt8Ty(C), Size);
      bool Extern = Size == 0;
      std::string Name = (PF.Name + "." + D.Name).str();
      G = new GlobalVariable(ML.M, Extern ? ArrayType::get(Type::getInt8Ty(C), 0) : T, false,
                             Extern ? GlobalValue::ExternalLinkage : GlobalValue::InternalLinkage,
                             Extern ? nullptr : (D.Space == StateSpace::Shared ? UndefValue::get(T) : Constant::getNullValue(T)),
                             Name, nullptr, GlobalValue::NotThreadLocal, AS);
      G->setAlignment(Align(std::max<uint64_t>(1, ModuleLowering::declAlign(D))));
    }
    if (D.Space == StateSpace::Shared && ModuleLowering::declSize(D) == 0) {
      IRBuilder<> EB(EntryBB, EntryBB->getFirstInsertionPt());
      VarSlots[&D] = EB.CreateCall(ML.intrinsic(Intr::DynSmemBase));
    } else {
      VarSlots[&D] = G;
    }
    return Error::success();
  }
  default:
    return fail("unsupported declaration of '" + D.Name + "' in a function body");
  }
}

Error FunctionLowering::lowerBody(ArrayRef<Node *> Body) {
  for (const Node *N : Body) {
    if (auto *L = dyn_cast<Label>(N)) {
      BasicBlock *BB = Labels[L->Name];
      if (!B.GetInsertBlock()->getTerminator())
        B.CreateBr(BB);
      B.SetInsertPoint(BB);
      if (LastBranchTo.lookup(L->Name) <= NumInstrs)
        Regs->seal(BB);
      continue;
    }
    if (auto *D = dyn_cast<VarDecl>(N)) {
      if (Error E = declareLocal(*D))
        return E;
      continue;
    }
    if (auto *Bl = dyn_cast<Block>(N)) {
      Scopes.emplace_back();
      Ranges.emplace_back();
      if (Error E = lowerBody(Bl->Body))
        return E;
      Scopes.pop_back();
      Ranges.pop_back();
      continue;
    }
    auto *I = dyn_cast<Instruction>(N);
    if (!I)
      continue; // .pragma, .loc, .branchtargets, .callprototype
    Cur = I;
    ++NumInstrs;
    if (B.GetInsertBlock()->getTerminator()) {
      startBlock("dead"); // Code after an unconditional branch; cleanup drops it.
      Regs->seal(B.GetInsertBlock());
    }
    if (I->Guard.empty()) {
      if (Error E = lowerInstruction(*I))
        return E;
      continue;
    }
    // @p / @!p: the instruction runs in its own block. A guarded branch
    // becomes a conditional branch directly.
    Operand G;
    G.K = Operand::Kind::Reg;
    G.Name = I->Guard;
    G.Negated = I->GuardNegated;
    G.Decl = I->GuardDecl;
    Expected<Value *> P = getPred(G);
    if (!P)
      return P.takeError();
    BasicBlock *Before = B.GetInsertBlock();
    BasicBlock *Cont = BasicBlock::Create(C, "", &F);
    if (I->Op == Opcode::Bra && I->Ops.size() == 1) {
      auto L = Labels.find(I->Ops[0].Name);
      if (L != Labels.end()) {
        B.CreateCondBr(*P, L->second, Cont);
        Regs->forward(Cont, Before);
        B.SetInsertPoint(Cont);
        continue;
      }
    }
    BasicBlock *Then = BasicBlock::Create(C, "", &F);
    B.CreateCondBr(*P, Then, Cont);
    Regs->forward(Then, Before);
    B.SetInsertPoint(Then);
    Regs->startGuard();
    if (Error E = lowerInstruction(*I))
      return E;
    BasicBlock *After = nullptr;
    if (!B.GetInsertBlock()->getTerminator()) {
      After = B.GetInsertBlock();
      B.CreateBr(Cont);
    }
    Regs->join(Cont, Before, After);
    B.SetInsertPoint(Cont);
  }
  return Error::success();
}

Error FunctionLowering::lowerInstruction(const Instruction &I) {
  switch (I.Op) {
  case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Mad: case Opcode::Div:
  case Opcode::Abs: case Opcode::Neg: case Opcode::Min: case Opcode::Max: case Opcode::Fma:
    if (auto T = I.lastType(); T && isFloat(*T))
      return lowerFloatArith(I);
    return lowerIntArith(I);
  case Opcode::Mul24: case Opcode::Mad24: case Opcode::Sad: case Opcode::Rem:
  case Opcode::Popc: case Opcode::Clz: case Opcode::Bfind: case Opcode::Brev: case Opcode::Bfe:
  case Opcode::Bfi: case Opcode::Szext: case Opcode::Bmsk: case Opcode::Dp4a: case Opcode::Dp2a:
  case Opcode::Addc: case Opcode::Subc: case Opcode::Madc:
    return lowerIntArith(I);
  case Opcode::Testp: case Opcode::Copysign: case Opcode::Rcp: case Opcode::Sqrt:
  case Opcode::Rsqrt: case Opcode::Sin: case Opcode::Cos: case Opcode::Lg2: case Opcode::Ex2:
  case Opcode::Tanh:
    return lowerFloatArith(I);
  case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Not: case Opcode::Cnot:
  case Opcode::Lop3: case Opcode::Shf: case Opcode::Shl: case Opcode::Shr: case Opcode::Prmt:
    return lowerLogic(I);
  case Opcode::Set: case Opcode::Setp: case Opcode::Selp: case Opcode::Slct:
    return lowerCompare(I);
  case Opcode::Mov:
    return lowerMov(I);
  case Opcode::Cvt: case Opcode::CvtPack:
    return lowerCvt(I);
  case Opcode::Ld: case Opcode::Ldu: case Opcode::St: case Opcode::Prefetch: case Opcode::Prefetchu:
  case Opcode::Applypriority: case Opcode::Discard: case Opcode::Createpolicy:
  case Opcode::Isspacep: case Opcode::Cvta: case Opcode::CpAsync: case Opcode::CpAsyncCommitGroup:
  case Opcode::CpAsyncWaitGroup: case Opcode::CpAsyncWaitAll: case Opcode::Mapa: case Opcode::Getctarank:
    return lowerMem(I);
  case Opcode::Atom: case Opcode::Red:
    return lowerAtom(I);
  case Opcode::Bra: case Opcode::BrxIdx: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap:
  case Opcode::Brkpt: case Opcode::Nanosleep: case Opcode::Pmevent: case Opcode::Setmaxnreg:
  case Opcode::Griddepcontrol:
    return lowerControl(I);
  case Opcode::Call:
    return lowerCall(I);
  case Opcode::Bar: case Opcode::Barrier: case Opcode::BarWarpSync: case Opcode::Membar:
  case Opcode::BarrierCluster:
  case Opcode::Fence: case Opcode::Vote: case Opcode::Match: case Opcode::Activemask:
  case Opcode::Redux: case Opcode::Elect: case Opcode::Shfl:
    return lowerWarp(I);
  case Opcode::Tex: case Opcode::Tld4: case Opcode::Txq: case Opcode::Suld: case Opcode::Sust:
  case Opcode::Suq:
    return lowerTex(I);
  case Opcode::WmmaLoad: case Opcode::WmmaStore: case Opcode::WmmaMma: case Opcode::Mma:
  case Opcode::Ldmatrix: case Opcode::Stmatrix: case Opcode::Movmatrix:
    return lowerMma(I);
  case Opcode::WgmmaMmaAsync: case Opcode::WgmmaFence: case Opcode::WgmmaCommitGroup:
  case Opcode::WgmmaWaitGroup:
    return lowerWgmma(I);
  case Opcode::MbarrierInit: case Opcode::MbarrierInval: case Opcode::MbarrierExpectTx:
  case Opcode::MbarrierCompleteTx: case Opcode::MbarrierArrive: case Opcode::MbarrierArriveDrop:
  case Opcode::MbarrierTestWait: case Opcode::MbarrierTryWait: case Opcode::MbarrierPendingCount:
  case Opcode::CpAsyncMbarrierArrive: case Opcode::CpAsyncBulk: case Opcode::CpAsyncBulkPrefetch:
  case Opcode::CpAsyncBulkCommitGroup: case Opcode::CpAsyncBulkWaitGroup: case Opcode::Fns:
  case Opcode::CpReduceAsyncBulk: case Opcode::CpAsyncBulkTensor:
  case Opcode::Vadd: case Opcode::Vsub: case Opcode::Vabsdiff: case Opcode::Vmin: case Opcode::Vmax:
  case Opcode::Vshl: case Opcode::Vshr: case Opcode::Vmad: case Opcode::Vset: case Opcode::Vadd2:
  case Opcode::Vsub2: case Opcode::Vavrg2: case Opcode::Vabsdiff2: case Opcode::Vmin2:
  case Opcode::Vmax2: case Opcode::Vset2: case Opcode::Vadd4: case Opcode::Vsub4: case Opcode::Vavrg4:
  case Opcode::Vabsdiff4: case Opcode::Vmin4: case Opcode::Vmax4: case Opcode::Vset4:
    return lowerMisc(I);
  default:
    return notLowered(I);
  }
}

} // namespace ferry::ptx::lower
