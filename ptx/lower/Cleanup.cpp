//===- Cleanup.cpp - pass "cleanup" ----------------------------------------===//
/// \file
/// Turns the lowering's straightforward IR (registers already SSA values,
/// but every guard a branch, dead blocks after unconditional branches, each
/// PTX conversion spelled out) into the IR a backend wants to start from:
/// early CSE, instcombine and simplifycfg (which also folds small guarded
/// blocks into selects). SROA runs only on functions that still have
/// allocas (.local arrays, by-value .param copies, call-site .param
/// buffers); without one it would only cost a dominator tree. No inlining
/// and no interprocedural passes: kernels and device functions stay as PTX
/// wrote them, and the backends choose.
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

namespace {
/// SROA where there is something for it to do: allocas sit in the entry
/// block (the lowering puts them there).
struct SROAWhereAllocas : PassInfoMixin<SROAWhereAllocas> {
  PreservedAnalyses run(llvm::Function &F, FunctionAnalysisManager &AM) {
    for (const llvm::Instruction &I : F.getEntryBlock())
      if (isa<AllocaInst>(I))
        return SROAPass(SROAOptions::ModifyCFG).run(F, AM);
    return PreservedAnalyses::all();
  }
};
} // namespace

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
  FPM.addPass(SROAWhereAllocas());
  FPM.addPass(EarlyCSEPass());
  FPM.addPass(InstCombinePass());
  FPM.addPass(SimplifyCFGPass());
  FPM.addPass(ADCEPass());
  ModulePassManager MPM;
  MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
  MPM.run(M, MAM);
}

} // namespace ferry::ptx::lower
