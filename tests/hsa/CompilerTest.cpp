/// \file
/// The AMD compiler on hand-written SIMT IR kernels, for all five checked
/// targets: the code object is an ELF64 shared object for EM_AMDGPU with the
/// code object v5 ABI version, has no undefined symbols, and its metadata
/// says what the kernels' source says (explicit parameter bytes, hidden
/// arguments when the kernel reads the grid geometry, static shared memory,
/// the target's wavefront size). Also: bad input gives clear errors.
#include "hsa/HsaCompiler.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <string>

using namespace ferry::hsa;
using namespace llvm;

namespace {

std::string readIR(const char *Name) {
  auto Buf = MemoryBuffer::getFile(std::string(HSA_TEST_IR_DIR) + "/" + Name);
  EXPECT_TRUE(bool(Buf)) << Name;
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

/// What each test kernel's source says, worked out by hand.
struct Expect {
  const char *File;
  const char *Kernel;
  uint32_t ExplicitBytes;  ///< The CUDA parameter buffer.
  bool ReadsGeometry;      ///< Reads ntid/nctaid: the 256 hidden bytes stay.
  uint32_t StaticShared;   ///< group_segment_fixed_size.
};

const Expect Kernels[] = {
    {"vecadd.ll", "vecadd", 28, true, 0},
    {"reduce.ll", "reduce", 16, true, 1024},
    // 100 static bytes, padded to the dynamic array's 16-byte alignment.
    {"dynsmem.ll", "dynsmem", 8, false, 112},
    {"warp.ll", "warp", 8, false, 0},
    {"atomics.ll", "atomics", 8, false, 0},
};

uint32_t alignTo8(uint32_t N) { return (N + 7) & ~7u; }

class AllTargets : public ::testing::TestWithParam<const char *> {};

TEST_P(AllTargets, CodeObjectsMatchTheSource) {
  Expected<TargetInfo> T = resolveTarget(GetParam());
  ASSERT_TRUE(bool(T)) << toString(T.takeError());
  for (const Expect &E : Kernels) {
    SCOPED_TRACE(E.File);
    Expected<CodeObject> CO = compileToCodeObject(readIR(E.File), GetParam());
    ASSERT_TRUE(bool(CO)) << toString(CO.takeError());
    const std::vector<uint8_t> &B = CO->Bytes;
    ASSERT_GT(B.size(), 64u);

    // The ELF header, read with the LLVM object API.
    MemoryBufferRef Ref(StringRef(reinterpret_cast<const char *>(B.data()), B.size()), "co");
    auto Obj = object::ELF64LEObjectFile::create(Ref);
    ASSERT_TRUE(bool(Obj)) << toString(Obj.takeError());
    const auto &H = Obj->getELFFile().getHeader();
    EXPECT_EQ(H.e_type, ELF::ET_DYN);
    EXPECT_EQ(H.e_machine, ELF::EM_AMDGPU);
    EXPECT_EQ(H.e_ident[ELF::EI_OSABI], ELF::ELFOSABI_AMDGPU_HSA);
    EXPECT_EQ(H.e_ident[ELF::EI_ABIVERSION], ELF::ELFABIVERSION_AMDGPU_HSA_V5);
    EXPECT_EQ(H.e_ident[ELF::EI_ABIVERSION], 3);
    Expected<std::string> Cpu = codeObjectTarget(B);
    ASSERT_TRUE(bool(Cpu));
    EXPECT_EQ(*Cpu, T->Name);

    // Every symbol is defined; the kernel and its descriptor are exported.
    bool SawKernel = false, SawDescriptor = false;
    for (const object::ELFSymbolRef &S : Obj->getDynamicSymbolIterators()) {
      Expected<StringRef> Name = S.getName();
      ASSERT_TRUE(bool(Name));
      auto Sec = S.getSection();
      ASSERT_TRUE(bool(Sec));
      EXPECT_NE(*Sec, Obj->section_end()) << "undefined symbol " << Name->str();
      SawKernel |= *Name == E.Kernel;
      SawDescriptor |= *Name == std::string(E.Kernel) + ".kd";
    }
    EXPECT_TRUE(SawKernel);
    EXPECT_TRUE(SawDescriptor);

    ASSERT_EQ(CO->Kernels.size(), 1u);
    const KernelInfo &K = CO->Kernels[0];
    EXPECT_EQ(K.Name, E.Kernel);
    EXPECT_EQ(K.Symbol, std::string(E.Kernel) + ".kd");
    EXPECT_EQ(K.WavefrontSize, T->WavefrontSize);
    EXPECT_EQ(K.WavefrontSize, std::string(GetParam()).starts_with("gfx9") ? 64u : 32u);
    EXPECT_EQ(K.ExplicitArgSize, E.ExplicitBytes);
    uint32_t Kernarg = E.ReadsGeometry ? alignTo8(E.ExplicitBytes) + 256 : E.ExplicitBytes;
    EXPECT_EQ(K.KernargSize, Kernarg);
    EXPECT_EQ(K.GroupSegmentSize, E.StaticShared);
    EXPECT_EQ(K.PrivateSegmentSize, 0u);
    EXPECT_FALSE(K.UsesDynamicStack);
    EXPECT_GT(K.VgprCount, 0u);
    EXPECT_GT(K.SgprCount, 0u);
    EXPECT_EQ(K.MaxFlatWorkgroupSize, 1024u);
    // The explicit argument is the parameter buffer at offset 0; hidden
    // arguments, when present, start at the next 8-byte boundary with the
    // block counts (code object v5 layout).
    ASSERT_FALSE(K.Args.empty());
    EXPECT_EQ(K.Args[0].ValueKind, "by_value");
    EXPECT_EQ(K.Args[0].Offset, 0u);
    EXPECT_EQ(K.Args[0].Size, E.ExplicitBytes);
    if (E.ReadsGeometry) {
      ASSERT_GT(K.Args.size(), 4u);
      EXPECT_EQ(K.Args[1].ValueKind, "hidden_block_count_x");
      EXPECT_EQ(K.Args[1].Offset, alignTo8(E.ExplicitBytes));
      EXPECT_EQ(K.Args[4].ValueKind, "hidden_group_size_x");
      EXPECT_EQ(K.Args[4].Offset, alignTo8(E.ExplicitBytes) + 12);
    } else {
      EXPECT_EQ(K.Args.size(), 1u);
    }

    if (std::string(E.File) == "vecadd.ll") {
      Expected<std::string> Dis = disassemble(B);
      ASSERT_TRUE(bool(Dis)) << toString(Dis.takeError());
      EXPECT_NE(Dis->find("vecadd:"), std::string::npos);
      EXPECT_NE(Dis->find("s_endpgm"), std::string::npos);
      EXPECT_EQ(Dis->find(".byte"), std::string::npos) << "undecodable bytes in .text";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Hsa, AllTargets,
                         ::testing::Values("gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"));

TEST(HsaCompiler, ResolvesRocrIsaNames) {
  auto T = resolveTarget("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
  ASSERT_TRUE(bool(T));
  EXPECT_EQ(T->Name, "gfx90a");
  EXPECT_EQ(T->WavefrontSize, 64u);
  auto U = resolveTarget("gfx1031");
  ASSERT_TRUE(bool(U));
  EXPECT_EQ(U->IsaVersion, 10301u);
  EXPECT_EQ(U->WavefrontSize, 32u);
  auto Bad = resolveTarget("sm_80");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(toString(Bad.takeError()).find("unknown AMD GPU target"), std::string::npos);
}

std::string errorOf(StringRef IR, const char *Target = "gfx1100") {
  auto CO = compileToCodeObject(IR, Target);
  if (CO)
    return "";
  return toString(CO.takeError());
}

TEST(HsaCompiler, BadInputGivesClearErrors) {
  EXPECT_NE(errorOf("this is not IR").find("cannot parse SIMT IR"), std::string::npos);
  EXPECT_NE(errorOf("define void @k(ptr %p) { ret void }").find("!ferry.kernels"),
            std::string::npos);
  std::string Unknown = "declare void @ferry.tex.fetch()\n"
                        "define void @k(ptr %p) { call void @ferry.tex.fetch() ret void }\n"
                        "!ferry.kernels = !{!0}\n!0 = !{ptr @k}\n";
  EXPECT_NE(errorOf(Unknown).find("NOT_SUPPORTED by the AMD backend: ferry.tex.fetch"),
            std::string::npos);
  std::string Escape = "declare void @use(ptr)\n"
                       "define void @k(ptr %p) { call void @use(ptr %p) ret void }\n"
                       "!ferry.kernels = !{!0}\n!0 = !{ptr @k}\n";
  EXPECT_NE(errorOf(Escape).find("dereferenceable"), std::string::npos);
  EXPECT_NE(errorOf(Unknown, "gfx9999").find("unknown AMD GPU target"), std::string::npos);
}

TEST(HsaCompiler, DevicePrintfAndMallocAreRefusedNotFaked) {
  // printf printed nothing and returned -1, malloc returned NULL: the kernel
  // is now left out with NOT_SUPPORTED (its launch fails with a CUDA error)
  // and the module's other kernels still compile.
  std::string Ir = "declare i32 @ferry.printf(ptr, ptr)\n"
                   "declare ptr @ferry.malloc(i64)\n"
                   "define void @p(ptr %q) { %r = call i32 @ferry.printf(ptr null, ptr null) ret void }\n"
                   "define void @m(ptr %q) { %r = call ptr @ferry.malloc(i64 8) store i8 0, ptr %r ret void }\n"
                   "define void @ok(ptr %q) { ret void }\n"
                   "!ferry.kernels = !{!0, !1, !2}\n!0 = !{ptr @p}\n!1 = !{ptr @m}\n!2 = !{ptr @ok}\n";
  std::vector<KernelCompileError> Failed;
  auto CO = compileEachKernel(Ir, "gfx1100", {}, Failed);
  ASSERT_TRUE(bool(CO)) << toString(CO.takeError());
  ASSERT_EQ(CO->Kernels.size(), 1u);
  EXPECT_EQ(CO->Kernels[0].Name, "ok");
  ASSERT_EQ(Failed.size(), 2u);
  for (const KernelCompileError &F : Failed) {
    const char *Want = F.Kernel == "p" ? "NOT_SUPPORTED by the AMD backend: device-side printf"
                                       : "NOT_SUPPORTED by the AMD backend: device-side malloc";
    EXPECT_NE(F.Message.find(Want), std::string::npos) << F.Kernel << ": " << F.Message;
  }
}

TEST(HsaCompiler, MetadataReaderRejectsGarbage) {
  std::vector<uint8_t> Junk(200, 0x41);
  EXPECT_FALSE(bool(readKernelInfo(Junk)));
  consumeError(readKernelInfo(Junk).takeError());
  std::vector<uint8_t> Tiny = {0x7f, 'E', 'L', 'F'};
  auto R = readKernelInfo(Tiny);
  ASSERT_FALSE(bool(R));
  consumeError(R.takeError());
  auto D = disassemble(Tiny);
  ASSERT_FALSE(bool(D));
  consumeError(D.takeError());
  // A valid code object with its metadata note's bytes damaged.
  auto CO = compileToCodeObject(readIR("atomics.ll"), "gfx1030");
  ASSERT_TRUE(bool(CO));
  std::vector<uint8_t> Cut(CO->Bytes.begin(), CO->Bytes.begin() + CO->Bytes.size() / 3);
  auto C = readKernelInfo(Cut);
  if (!C)
    consumeError(C.takeError()); // Either way: no crash, no over-read (ASan).
}

TEST(HsaCompiler, CompilesFromAnInMemoryModule) {
  LLVMContext Ctx;
  SMDiagnostic Err;
  auto Buf = MemoryBuffer::getMemBufferCopy(readIR("vecadd.ll"));
  std::unique_ptr<Module> M = parseIR(Buf->getMemBufferRef(), Err, Ctx);
  ASSERT_TRUE(M);
  std::string Before;
  raw_string_ostream(Before) << *M;
  auto CO = compileToCodeObject(*M, "gfx942");
  ASSERT_TRUE(bool(CO)) << toString(CO.takeError());
  EXPECT_EQ(CO->Kernels.at(0).KernargSize, 288u);
  std::string After;
  raw_string_ostream(After) << *M;
  EXPECT_EQ(Before, After) << "the caller's module must not change";
}

} // namespace
