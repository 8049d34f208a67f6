//===- Parser.h - PTX front end entry points --------------------*- C++ -*-===//
/// \file
/// The PTX front end's public entry points: parse text into a Module (with
/// diagnostics rather than exceptions), check it, print it back, and compare
/// two modules structurally (used by the round-trip tests).
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx/parser/Ast.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace ferry::ptx {

/// A problem found in the input, at a source position.
struct Diagnostic {
  SourceLoc Loc;
  std::string Message;
  /// "file:line:col: message".
  std::string format(llvm::StringRef FileName) const;
};

/// What parse() returns: the module (always present, possibly partial when
/// there are diagnostics) and every problem found.
struct ParseResult {
  std::unique_ptr<Module> M;
  std::vector<Diagnostic> Diags;
  bool ok() const { return Diags.empty(); }
};

/// Parse PTX text. The text is copied into the module, so the caller's buffer
/// may go away afterwards. Never crashes on bad input: syntax errors become
/// diagnostics and parsing resumes at the next ';' or '}'. Stops collecting
/// after MaxDiags diagnostics.
ParseResult parse(llvm::StringRef Text, llvm::StringRef FileName = "<ptx>",
                  unsigned MaxDiags = 50);

/// Semantic checks on a parsed module: operand count and kinds against the
/// opcode's row in Instructions.def, modifier classes, declared registers
/// and symbols, predicate/non-predicate use, label targets. Also resolves
/// names: Operand::Ref is set and register Name operands become Reg.
std::vector<Diagnostic> checkModule(Module &M);

/// parse() then checkModule(); any diagnostic makes an llvm::Error whose
/// message lists them all ("file:line:col: message" lines).
llvm::Expected<std::unique_ptr<Module>> parseAndCheck(llvm::StringRef Text,
                                                      llvm::StringRef FileName = "<ptx>");

/// Print a module back as PTX text that parses to an equal module.
void printModule(const Module &M, llvm::raw_ostream &OS);
std::string printModule(const Module &M);
void printInstruction(const Instruction &I, llvm::raw_ostream &OS);

/// Structural equality (ignores source locations and resolution results).
/// On a difference, *Why (when given) says where.
bool equalModules(const Module &A, const Module &B, std::string *Why = nullptr);

} // namespace ferry::ptx
