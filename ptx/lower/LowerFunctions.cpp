//===- LowerFunctions.cpp - pass "lower-functions" -------------------------===//
/// \file
/// Lowers every function body: sets up parameters and returns as SimtIR.md
/// describes, walks the body (Lowering.cpp), and isolates failures. A
/// function that cannot be lowered becomes a declaration and is reported;
/// every function that calls it is reported too (it could not run), and the
/// remaining entries are listed in !ferry.kernels.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Passes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace ferry::ptx::lower {

Error FunctionLowering::emitReturn() {
  if (PF.IsEntry || !Sig.ScalarReturn) {
    B.CreateRetVoid();
    return Error::success();
  }
  const VarDecl *R = PF.Returns[0];
  Value *V;
  if (R->Space == StateSpace::Reg) {
    V = fitBits(readReg({R, 0}), F.getReturnType(), false);
  } else {
    V = B.CreateLoad(F.getReturnType(), VarSlots[R]);
  }
  B.CreateRet(V);
  return Error::success();
}

Error FunctionLowering::run() {
  EntryBB = BasicBlock::Create(C, "entry", &F);
  B.SetInsertPoint(EntryBB);
  Regs.emplace(EntryBB);
  CarryReg = Regs->add(B.getInt1Ty());
  Scopes.emplace_back();
  Ranges.emplace_back();
  IRBuilder<> EB(EntryBB);
  if (PF.IsEntry) {
    Params = F.getArg(0);
    const auto &Slots = ML.ParamLayouts[&PF];
    for (size_t K = 0; K < PF.Params.size(); ++K) {
      const VarDecl *P = PF.Params[K];
      Scopes.back()[P->Name] = P;
      VarSlots[P] = EB.CreateGEP(EB.getInt8Ty(), Params, EB.getInt64(Slots[K].Offset), P->Name);
    }
  } else {
    for (size_t K = 0; K < PF.Params.size(); ++K) {
      const VarDecl *P = PF.Params[K];
      Value *Arg = F.getArg(Sig.NumRetPtrs + K);
      Scopes.back()[P->Name] = P;
      if (Sig.ByPointer[K]) {
        VarSlots[P] = Arg;
      } else if (P->Space == StateSpace::Reg) {
        writeReg({P, 0}, fitBits(Arg, Regs->type(regNumber({P, 0})), false));
      } else {
        // A by-value .param: its own slot, so ld.param [p+off] and taking
        // its address work as in PTX; SROA removes it.
        AllocaInst *A = EB.CreateAlloca(Arg->getType(), nullptr, P->Name);
        A->setAlignment(Align(std::max<uint64_t>(ModuleLowering::declAlign(*P), 1)));
        EB.CreateStore(Arg, A);
        VarSlots[P] = A;
      }
    }
    for (size_t K = 0; K < PF.Returns.size(); ++K) {
      const VarDecl *R = PF.Returns[K];
      Scopes.back()[R->Name] = R;
      if (!Sig.ScalarReturn) {
        if (R->Space == StateSpace::Reg)
          return fail("a .reg return among several returns is not supported");
        VarSlots[R] = F.getArg(K);
      } else if (R->Space != StateSpace::Reg) {
        AllocaInst *A = EB.CreateAlloca(F.getReturnType(), nullptr, R->Name);
        EB.CreateStore(Constant::getNullValue(F.getReturnType()), A);
        VarSlots[R] = A;
      }
    }
  }
  // Body code goes in its own block so entry-block allocas always come first.
  BasicBlock *Body = BasicBlock::Create(C, "body", &F);
  EB.CreateBr(Body);
  Regs->forward(Body, EntryBB);
  B.SetInsertPoint(Body);
  if (Error E = collectLabels(PF.Body->Body))
    return E;
  for (auto [List, At] : Switches)
    if (auto T = TargetLists.find(List); T != TargetLists.end())
      for (StringRef L : T->second->Targets)
        LastBranchTo[L] = std::max(LastBranchTo.lookup(L), At);
  NumInstrs = 0; // lowerBody counts again.
  if (Error E = lowerBody(PF.Body->Body))
    return E;
  Cur = nullptr;
  if (!B.GetInsertBlock()->getTerminator())
    if (Error E = emitReturn())
      return E;
  Regs->finish();
  return Error::success();
}

void runLowerFunctions(ModuleLowering &ML) {
  DenseMap<llvm::Function *, size_t> Failed; // → index into ML.Errors
  for (const Node *N : ML.P.items()) {
    auto *PF = dyn_cast<Function>(N);
    if (!PF || !PF->Body)
      continue;
    auto It = ML.Funcs.find(PF->Name);
    if (It == ML.Funcs.end() || !It->second.F->isDeclaration())
      continue; // A runtime extern defined in PTX, or a duplicate definition.
    FunctionLowering FL(ML, *PF, It->second);
    if (Error E = FL.run()) {
      SourceLoc L = FL.Cur ? FL.Cur->Loc : PF->Loc;
      Failed[It->second.F] = ML.Errors.size();
      ML.Errors.push_back({PF->Name.str(), L, toString(std::move(E))});
      It->second.F->deleteBody();
      It->second.F->setLinkage(GlobalValue::ExternalLinkage);
    }
  }
  // A caller of an unlowered function cannot run either.
  SmallVector<llvm::Function *, 8> Work;
  for (auto &KV : Failed)
    Work.push_back(KV.first);
  while (!Work.empty()) {
    llvm::Function *G = Work.pop_back_val();
    SetVector<llvm::Function *> Callers;
    for (User *U : G->users())
      if (auto *I = dyn_cast<llvm::Instruction>(U))
        Callers.insert(I->getFunction());
    for (llvm::Function *Caller : Callers) {
      if (Failed.count(Caller) || Caller->isDeclaration())
        continue;
      Failed[Caller] = ML.Errors.size();
      ML.Errors.push_back({Caller->getName().str(), ML.Errors[Failed[G]].Loc,
                           "calls '" + G->getName().str() + "', which was not lowered (" +
                               ML.Errors[Failed[G]].Message + ")"});
      Caller->deleteBody();
      Caller->setLinkage(GlobalValue::ExternalLinkage);
      Work.push_back(Caller);
    }
  }
  LLVMContext &C = ML.C;
  NamedMDNode *Kernels = ML.M.getOrInsertNamedMetadata("ferry.kernels");
  for (const Node *N : ML.P.items())
    if (auto *PF = dyn_cast<Function>(N); PF && PF->IsEntry && PF->Body) {
      llvm::Function *F = ML.Funcs[PF->Name].F;
      if (!F->isDeclaration())
        Kernels->addOperand(MDNode::get(C, {ValueAsMetadata::get(F)}));
    }
  if (!ML.Errors.empty()) {
    NamedMDNode *Un = ML.M.getOrInsertNamedMetadata("ferry.unlowered");
    for (const KernelError &E : ML.Errors)
      Un->addOperand(MDNode::get(C, {MDString::get(C, E.Function),
                                     MDString::get(C, E.format(ML.P.FileName))}));
  }
}

} // namespace ferry::ptx::lower
