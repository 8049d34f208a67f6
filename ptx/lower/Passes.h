//===- Passes.h - the named passes of the lowering pipeline -----*- C++ -*-===//
/// \file
/// One function per named pass (STYLE.md item 5), each in its own file:
///   parse, check          ptx/parser (Pipeline.cpp calls them)
///   lower-decls           LowerDecls.cpp: globals, signatures, metadata
///   lower-functions       LowerFunctions.cpp: bodies, per-function errors
///   nan-results           NanResults.cpp: NVIDIA's canonical NaN where seen
///   cleanup               Cleanup.cpp: SROA/instcombine/simplifycfg
///   verify                Verify.cpp: the LLVM verifier
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx/lower/Context.h"

namespace ferry::ptx::lower {

llvm::Error runLowerDecls(ModuleLowering &ML);
/// Never fails as a whole: a function that cannot be lowered is recorded in
/// ML.Errors and turned into a declaration.
void runLowerFunctions(ModuleLowering &ML);
/// !ferry.resources (SimtIR.md): each entry's .local and .const bytes; run
/// after runLowerFunctions, so the metadata made before keep their numbers.
void emitResourceMetadata(ModuleLowering &ML);
/// Resolves the lowering's canonical-NaN markers (NanMarkerPrefix); must run
/// before anything else sees the module.
void runNanResults(llvm::Module &M);
void runCleanup(llvm::Module &M);
llvm::Error runVerify(llvm::Module &M);

} // namespace ferry::ptx::lower
