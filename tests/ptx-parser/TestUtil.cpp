//===- TestUtil.cpp - helpers for the PTX parser tests ----------------------===//
/// \file
/// See TestUtil.h.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace llvm;

namespace ferry::ptx::test {

std::string wrapBody(const std::string &Body) {
  return ".version 9.0\n"                                       // 1
         ".target sm_90\n"                                      // 2
         ".address_size 64\n"                                   // 3
         ".func (.param .b32 fr) fn(.param .b32 fa)\n"          // 4
         "{\n\tret;\n}\n"                                       // 5-7
         ".visible .entry k(.param .u64 p, .param .u32 n)\n"    // 8
         "{\n"                                                  // 9
         "\t.reg .pred %p<8>;\n"                                // 10
         "\t.reg .b16 %rs<8>;\n"                                // 11
         "\t.reg .b32 %r<32>;\n"                                // 12
         "\t.reg .b64 %rd<16>;\n"                               // 13
         "\t.reg .f32 %f<16>;\n"                                // 14
         "\t.reg .f64 %fd<8>;\n"                                // 15
         "\t.shared .align 8 .b8 sm[256];\n"                    // 16
         + Body +                                               // 17...
         "\nL_end:\n\tret;\n}\n";
}

std::string roundTrip(const Module &M) {
  std::string Printed = printModule(M);
  ParseResult Again = parse(Printed, "printed");
  if (!Again.ok())
    return "reparse failed: " + Again.Diags[0].format("printed") + "\n" + Printed;
  std::string Why;
  if (!equalModules(M, *Again.M, &Why))
    return "round trip differs: " + Why + "\n" + Printed;
  return "";
}

std::unique_ptr<Module> parseClean(const std::string &Text) {
  ParseResult R = parse(Text, "test.ptx");
  for (const Diagnostic &D : R.Diags)
    ADD_FAILURE() << D.format("test.ptx");
  if (R.ok())
    for (const Diagnostic &D : checkModule(*R.M))
      ADD_FAILURE() << D.format("test.ptx") << " [check]";
  std::string RT = roundTrip(*R.M);
  if (!RT.empty())
    ADD_FAILURE() << RT;
  return std::move(R.M);
}

std::unique_ptr<Module> parseBody(const std::string &Body) { return parseClean(wrapBody(Body)); }

static void collect(ArrayRef<Node *> Body, std::vector<const Instruction *> &Out) {
  for (const Node *N : Body) {
    if (auto *I = dyn_cast<Instruction>(N))
      Out.push_back(I);
    else if (auto *B = dyn_cast<Block>(N))
      collect(B->Body, Out);
  }
}

std::vector<const Instruction *> instructions(const Module &M, StringRef Func) {
  std::vector<const Instruction *> Out;
  const Function *F = M.findFunction(Func);
  if (F && F->Body)
    collect(F->Body->Body, Out);
  if (!Out.empty() && Out.back()->Op == Opcode::Ret)
    Out.pop_back(); // The wrapper's ret.
  return Out;
}

std::vector<Diagnostic> diagnose(const std::string &Text) {
  ParseResult R = parse(Text, "bad.ptx");
  if (!R.ok())
    return R.Diags;
  return checkModule(*R.M);
}

} // namespace ferry::ptx::test
