//===- Pipeline.cpp - the lowering pipeline and its entry points -----------===//
/// \file
/// Runs the named passes in order (parse → check → lower-decls →
/// lower-functions → cleanup → verify) and hands the module to the caller's
/// AfterPass hook after each, which is how ferry-ptx implements
/// --print-after. Module-level failures are llvm::Errors; per-function
/// failures travel in LowerResult::Errors.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Passes.h"
#include "ptx/parser/Parser.h"

#include "llvm/IR/LLVMContext.h"

using namespace llvm;

namespace ferry::ptx {

std::string KernelError::format(StringRef FileName) const {
  return (FileName + ":" + Twine(Loc.Line) + ":" + Twine(Loc.Col) + ": in '" + Function + "': " +
          Message)
      .str();
}

ArrayRef<StringRef> passNames() {
  static const StringRef Names[] = {"parse", "check", "lower-decls", "lower-functions", "cleanup",
                                    "verify"};
  return Names;
}

Expected<LowerResult> lowerModule(const Module &Ptx, LLVMContext &Ctx, const LowerOptions &Opts) {
  LowerResult R;
  R.M = std::make_unique<llvm::Module>(Ptx.FileName.empty() ? "ptx" : Ptx.FileName, Ctx);
  // SIMT IR is target-neutral; the data layout states only what the IR
  // relies on: 64-bit pointers in every address space (the host's; 32-bit
  // PTX addresses are widened where they are used).
  R.M->setDataLayout("e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
  lower::ModuleLowering ML(Ptx, *R.M);
  auto After = [&](StringRef Pass) {
    if (Opts.AfterPass)
      Opts.AfterPass(Pass, *R.M);
  };
  // .address_size 32: addresses are 32-bit integers that the lowering
  // zero-extends to the host's pointers (Lowering.cpp address()); they reach
  // memory placed below 4 GiB (the host device does so for device memory
  // once such a module is loaded). Taking the address of memory that lives
  // higher (module variables, the stack) fails the function that does it.
  if (Ptx.AddressSize != 64 && Ptx.AddressSize != 32)
    return createStringError(inconvertibleErrorCode(),
                             Ptx.FileName + ": .address_size " + Twine(Ptx.AddressSize) + " is not valid");
  if (Ptx.AddressSize == 32)
    R.M->addModuleFlag(llvm::Module::Warning, "ferry.address_size", 32);
  if (Error E = lower::runLowerDecls(ML))
    return std::move(E);
  After("lower-decls");
  lower::runLowerFunctions(ML);
  lower::emitResourceMetadata(ML);
  After("lower-functions");
  lower::runNanResults(*R.M);
  After("nan-results");
  R.Errors = std::move(ML.Errors);
  if (Opts.Cleanup) {
    lower::runCleanup(*R.M);
    After("cleanup");
  }
  if (Opts.Verify) {
    if (Error E = lower::runVerify(*R.M))
      return std::move(E);
    After("verify");
  }
  return std::move(R);
}

Expected<LowerResult> lowerText(StringRef Text, StringRef FileName, LLVMContext &Ctx,
                                const LowerOptions &Opts) {
  ParseResult P = parse(Text, FileName);
  auto Fail = [&](const std::vector<Diagnostic> &Diags) {
    std::string Msg;
    for (const Diagnostic &D : Diags)
      Msg += (Msg.empty() ? "" : "\n") + D.format(FileName);
    return createStringError(inconvertibleErrorCode(), Msg);
  };
  if (!P.ok())
    return Fail(P.Diags);
  std::vector<Diagnostic> Diags = checkModule(*P.M);
  if (!Diags.empty())
    return Fail(Diags);
  return lowerModule(*P.M, Ctx, Opts);
}

} // namespace ferry::ptx
