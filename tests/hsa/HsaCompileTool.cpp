/// \file
/// hsa-compile: a test driver for the AMD compiler (not the user-facing
/// `ferry compile`). Reads SIMT IR and prints a stage for FileCheck:
///   hsa-compile <gfxNNN> <lowered|opt|asm|info|disasm> input.ll [out.hsaco]
/// `info` prints each kernel's metadata facts one per line; with an output
/// path the linked code object is written there too.
#include "hsa/HsaCompiler.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <fstream>
#include <string>

using namespace ferry::hsa;

int main(int Argc, char **Argv) {
  if (Argc < 4) {
    std::fprintf(stderr, "usage: hsa-compile <gfx> <lowered|opt|asm|info|disasm> in.ll [out]\n");
    return 2;
  }
  std::string Target = Argv[1], What = Argv[2];
  auto Buf = llvm::MemoryBuffer::getFile(Argv[3]);
  if (!Buf) {
    std::fprintf(stderr, "cannot read %s\n", Argv[3]);
    return 2;
  }
  llvm::StringRef In = (*Buf)->getBuffer();
  if (What == "lowered" || What == "opt" || What == "asm") {
    Stage S = What == "lowered" ? Stage::Lowered : What == "opt" ? Stage::Optimized : Stage::Assembly;
    auto Text = compileToText(In, Target, S);
    if (!Text) {
      llvm::errs() << "error: " << llvm::toString(Text.takeError()) << "\n";
      return 1;
    }
    llvm::outs() << *Text;
    return 0;
  }
  auto CO = compileToCodeObject(In, Target);
  if (!CO) {
    llvm::errs() << "error: " << llvm::toString(CO.takeError()) << "\n";
    return 1;
  }
  if (Argc > 4) {
    std::ofstream Out(Argv[4], std::ios::binary);
    Out.write(reinterpret_cast<const char *>(CO->Bytes.data()), CO->Bytes.size());
  }
  if (What == "disasm") {
    auto Text = disassemble(CO->Bytes);
    if (!Text) {
      llvm::errs() << "error: " << llvm::toString(Text.takeError()) << "\n";
      return 1;
    }
    llvm::outs() << *Text;
    return 0;
  }
  for (const KernelInfo &K : CO->Kernels) {
    llvm::outs() << "kernel " << K.Name << " symbol " << K.Symbol << " kernarg " << K.KernargSize
                 << " explicit " << K.ExplicitArgSize << " align " << K.KernargAlign << " group "
                 << K.GroupSegmentSize << " private " << K.PrivateSegmentSize << " wave "
                 << K.WavefrontSize << " sgpr " << K.SgprCount << " vgpr " << K.VgprCount
                 << " dynstack " << K.UsesDynamicStack << "\n";
    for (const KernelArgInfo &A : K.Args)
      llvm::outs() << "  arg " << A.ValueKind << " @" << A.Offset << " size " << A.Size << "\n";
  }
  return 0;
}
