//===- Lower.h - PTX AST to SIMT IR: public entry points --------*- C++ -*-===//
/// \file
/// The lowering of a checked PTX module (ptx/parser/Ast.h) to SIMT IR: one
/// LLVM module per PTX module, one LLVM function per .entry/.func, each the
/// view of one CUDA thread, using only the ferry intrinsics of
/// SimtIntrinsics.def for target notions. SimtIR.md documents the result.
///
/// The work is a pipeline of named passes (Passes.h lists them); a caller may
/// watch the module after each one (ferry-ptx --print-after=NAME).
///
/// Errors come at two levels: a module-level failure (the text does not
/// parse, or a module-scope declaration cannot be lowered) is an llvm::Error;
/// a function that contains something the lowering cannot express yet is a
/// KernelError: that function becomes a declaration (and is left out of
/// !ferry.kernels), every function calling it fails too, and the rest of the
/// module lowers normally.
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx/parser/Ast.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace ferry::ptx {

/// Why one function (kernel or device function) was not lowered.
struct KernelError {
  std::string Function; ///< PTX name of the function.
  SourceLoc Loc;        ///< Where the offending instruction is.
  std::string Message;  ///< "not yet lowered: mma.sync..." and the like.
  /// "file:line:col: in 'fn': message".
  std::string format(llvm::StringRef FileName) const;
};

struct LowerOptions {
  /// Run the cleanup pass (SROA, instcombine, simplifycfg). Off only to look
  /// at the raw lowering.
  bool Cleanup = true;
  /// Run the LLVM verifier at the end (a failure is a module-level error:
  /// it means a lowering bug, never bad input).
  bool Verify = true;
  /// Called after each named pass that produces IR, with the pass name.
  std::function<void(llvm::StringRef Pass, const llvm::Module &M)> AfterPass;
};

/// The lowered module and the functions that could not be lowered.
struct LowerResult {
  std::unique_ptr<llvm::Module> M;
  std::vector<KernelError> Errors;
};

/// Lowers a parsed and checked module (parseAndCheck()).
llvm::Expected<LowerResult> lowerModule(const Module &Ptx, llvm::LLVMContext &Ctx,
                                        const LowerOptions &Opts = {});

/// Parses, checks and lowers PTX text: the whole pipeline. A parse or check
/// diagnostic is a module-level error listing every diagnostic.
llvm::Expected<LowerResult> lowerText(llvm::StringRef Text, llvm::StringRef FileName,
                                      llvm::LLVMContext &Ctx, const LowerOptions &Opts = {});

/// The pass names in pipeline order: parse, check, lower-decls,
/// lower-functions, cleanup, verify.
llvm::ArrayRef<llvm::StringRef> passNames();

} // namespace ferry::ptx
