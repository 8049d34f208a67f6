//===- Verify.cpp - pass "verify" ------------------------------------------===//
/// \file
/// The LLVM verifier over the lowered module, plus the SIMT IR conventions
/// the backends assume (SimtIR.md): every !ferry.kernels entry is a defined
/// `void (ptr)` function. A failure here is a lowering bug, reported with
/// the verifier's text rather than a crash.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Passes.h"

#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ferry::ptx::lower {

Error runVerify(llvm::Module &M) {
  std::string Msg;
  raw_string_ostream OS(Msg);
  if (verifyModule(M, &OS))
    return createStringError(inconvertibleErrorCode(), "SIMT IR fails the LLVM verifier: " + Msg);
  if (NamedMDNode *K = M.getNamedMetadata("ferry.kernels"))
    for (MDNode *N : K->operands()) {
      auto *VM = N->getNumOperands() ? dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get()) : nullptr;
      auto *F = VM ? dyn_cast<llvm::Function>(VM->getValue()) : nullptr;
      if (!F || F->isDeclaration() || F->arg_size() != 1 || !F->getReturnType()->isVoidTy())
        return createStringError(inconvertibleErrorCode(),
                                 "!ferry.kernels lists something that is not a defined void(ptr) entry");
    }
  return Error::success();
}

} // namespace ferry::ptx::lower
