//===- FerryPtx.cpp - the ferry-ptx tool -----------------------------------===//
/// \file
/// `ferry-ptx [options] input.ptx`: parses, checks and lowers a PTX file and
/// prints the SIMT IR. Options:
///   --print-after=PASS  print the module after PASS (parse and check print
///                       PTX, the later passes LLVM IR); may be repeated;
///                       the final IR is then not printed unless -o is given
///   --no-cleanup        skip the cleanup pass (raw lowering)
///   --no-verify         skip the LLVM verifier ( --verify is the default )
///   -o FILE             write the final IR to FILE
/// Functions that could not be lowered are reported on stderr as
/// "file:line:col: in 'fn': message"; the rest of the module still prints.
/// Exit status: 0 all lowered, 2 some functions not lowered, 1 a
/// module-level error (unreadable file, parse/check diagnostics, verifier).
//===----------------------------------------------------------------------===//
#include "ptx/lower/Lower.h"
#include "ptx/parser/Parser.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>

using namespace llvm;

static int usage() {
  errs() << "usage: ferry-ptx [--print-after=PASS]... [--no-cleanup] [--verify|--no-verify] "
            "[-o FILE] input.ptx\npasses:";
  for (StringRef P : ferry::ptx::passNames())
    errs() << ' ' << P;
  errs() << '\n';
  return 1;
}

int main(int Argc, char **Argv) {
  std::set<std::string> PrintAfter;
  std::string Input, Output;
  ferry::ptx::LowerOptions Opts;
  for (int K = 1; K < Argc; ++K) {
    StringRef A = Argv[K];
    if (A.consume_front("--print-after=")) {
      if (!is_contained(ferry::ptx::passNames(), A)) {
        errs() << "ferry-ptx: unknown pass '" << A << "'\n";
        return usage();
      }
      PrintAfter.insert(A.str());
    } else if (A == "--no-cleanup") {
      Opts.Cleanup = false;
    } else if (A == "--verify") {
      Opts.Verify = true;
    } else if (A == "--no-verify") {
      Opts.Verify = false;
    } else if (A == "-o" && K + 1 < Argc) {
      Output = Argv[++K];
    } else if (A == "-h" || A == "--help") {
      usage();
      return 0;
    } else if (A.starts_with("-") && A != "-") {
      errs() << "ferry-ptx: unknown option '" << A << "'\n";
      return usage();
    } else if (Input.empty()) {
      Input = A.str();
    } else {
      return usage();
    }
  }
  if (Input.empty())
    return usage();
  auto Buf = MemoryBuffer::getFileOrSTDIN(Input);
  if (!Buf) {
    errs() << "ferry-ptx: " << Input << ": " << Buf.getError().message() << '\n';
    return 1;
  }
  ferry::ptx::ParseResult P = ferry::ptx::parse((*Buf)->getBuffer(), Input);
  bool Failed = !P.ok();
  if (!Failed) {
    if (PrintAfter.count("parse"))
      ferry::ptx::printModule(*P.M, outs());
    P.Diags = ferry::ptx::checkModule(*P.M);
    Failed = !P.ok();
  }
  if (Failed) {
    for (const auto &D : P.Diags)
      errs() << D.format(Input) << '\n';
    return 1;
  }
  if (PrintAfter.count("check"))
    ferry::ptx::printModule(*P.M, outs());
  Opts.AfterPass = [&](StringRef Pass, const Module &M) {
    if (PrintAfter.count(Pass.str())) {
      outs() << "; *** IR after " << Pass << " ***\n";
      M.print(outs(), nullptr);
    }
  };
  LLVMContext Ctx;
  auto R = ferry::ptx::lowerModule(*P.M, Ctx, Opts);
  if (!R) {
    errs() << "ferry-ptx: " << toString(R.takeError()) << '\n';
    return 1;
  }
  for (const ferry::ptx::KernelError &E : R->Errors)
    errs() << E.format(Input) << '\n';
  if (!Output.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(Output, EC, sys::fs::OF_Text);
    if (EC) {
      errs() << "ferry-ptx: " << Output << ": " << EC.message() << '\n';
      return 1;
    }
    R->M->print(OS, nullptr);
  } else if (PrintAfter.empty()) {
    R->M->print(outs(), nullptr);
  }
  return R->Errors.empty() ? 0 : 2;
}
