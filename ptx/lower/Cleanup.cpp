//===- Cleanup.cpp - pass "cleanup" ----------------------------------------===//
/// \file
/// Turns the lowering's straightforward IR (every register an alloca, every
/// guard a branch, dead blocks after unconditional branches) into the IR a
/// backend wants to start from: SROA/mem2reg, early CSE, instcombine and
/// simplifycfg (which also folds small guarded blocks into selects). No
/// inlining and no interprocedural passes: kernels and device functions
/// stay as PTX wrote them, and the backends choose.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Passes.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/ADCE.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"

using namespace llvm;

namespace ferry::ptx::lower {

void runCleanup(llvm::Module &M) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  FunctionPassManager FPM;
  FPM.addPass(SimplifyCFGPass()); // Drops unreachable blocks first.
  FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  FPM.addPass(EarlyCSEPass());
  FPM.addPass(InstCombinePass());
  FPM.addPass(SimplifyCFGPass());
  FPM.addPass(ADCEPass());
  ModulePassManager MPM;
  MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
  MPM.run(M, MAM);
}

} // namespace ferry::ptx::lower
