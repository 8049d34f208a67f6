//===- DirectiveTest.cpp - module and function directives --------------------===//
/// \file
/// Module header (.version/.target/.address_size), variable declarations
/// with every attribute and initializer form, function headers with
/// parameters and performance directives, body declarations, debug
/// directives (.file/.loc/.section) and .alias; each checked field by field
/// against what the PTX text says, and round-tripped.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <cstring>

using namespace ferry::ptx;
using namespace ferry::ptx::test;

namespace {

const VarDecl &global(const Module &M, llvm::StringRef Name) {
  const VarDecl *V = M.findGlobal(Name);
  if (!V) {
    ADD_FAILURE() << "no global " << Name.str();
    static VarDecl Empty;
    return Empty;
  }
  return *V;
}

TEST(PtxDirectives, ModuleHeader) {
  auto M = parseClean(".version 8.7\n.target sm_90a, texmode_independent, debug\n.address_size 32\n");
  EXPECT_EQ(M->VersionMajor, 8u);
  EXPECT_EQ(M->VersionMinor, 7u);
  EXPECT_EQ(M->Target.SmVersion, 90u);
  EXPECT_EQ(M->Target.ArchSuffix, 'a');
  EXPECT_TRUE(M->Target.TexmodeIndependent);
  EXPECT_TRUE(M->Target.Debug);
  EXPECT_EQ(M->AddressSize, 32u);
  ASSERT_EQ(M->Target.Raw.size(), 3u);
  auto F = parseClean(".version 9.0\n.target sm_120f\n");
  EXPECT_EQ(F->Target.SmVersion, 120u);
  EXPECT_EQ(F->Target.ArchSuffix, 'f');
  EXPECT_EQ(F->AddressSize, 32u); // The ISA's default without .address_size.
  EXPECT_FALSE(F->HasAddressSize);
}

TEST(PtxDirectives, GlobalsAndInitializers) {
  auto M = parseClean(".version 9.0\n.target sm_80\n.address_size 64\n"
                      ".global .align 4 .u32 a[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
                      ".global .u64 p = generic(a)+8;\n"
                      ".global .u64 q = a;\n"
                      ".global .u8 m[2] = {0xff(a), 0xff00(a+4)};\n"
                      ".extern .shared .align 16 .b8 dyn[];\n"
                      ".const .f32 c = 0f3F800000;\n"
                      ".const .f64 d[2] = {1.5, -2.0};\n"
                      ".global .texref t;\n"
                      ".global .surfref s;\n"
                      ".visible .global .attribute(.managed) .u32 mg;\n"
                      ".weak .global .align 8 .v2 .f32 vv = {0f00000000, 0f3F800000};\n"
                      ".common .global .u32 cm;\n"
                      ".global .b8 str[4] = {104, 105, 0};\n"
                      ".global .u8 m5[3] = {0xFF(1000 + 546), 0xFF00(131187), 0xff(generic(a)+4)};\n");
  const VarDecl &A = global(*M, "a");
  EXPECT_EQ(A.Space, StateSpace::Global);
  EXPECT_EQ(A.Align, 4u);
  EXPECT_EQ(A.Type, ScalarType::U32);
  ASSERT_EQ(A.Dims.size(), 2u);
  EXPECT_EQ(A.Dims[0], 2u);
  EXPECT_EQ(A.Dims[1], 3u);
  EXPECT_EQ(A.elementCount(), 6u);
  ASSERT_NE(A.Init, nullptr);
  ASSERT_EQ(A.Init->K, Initializer::Kind::List);
  ASSERT_EQ(A.Init->Elems.size(), 2u);
  EXPECT_EQ(A.Init->Elems[1]->Elems[2]->Int, 6);
  const VarDecl &P = global(*M, "p");
  ASSERT_EQ(P.Init->K, Initializer::Kind::Symbol);
  EXPECT_TRUE(P.Init->Generic);
  EXPECT_EQ(P.Init->Name, "a");
  EXPECT_EQ(P.Init->Offset, 8);
  EXPECT_FALSE(global(*M, "q").Init->Generic);
  const VarDecl &Mask = global(*M, "m");
  EXPECT_EQ(Mask.Init->Elems[0]->Mask, 0xffu);
  EXPECT_EQ(Mask.Init->Elems[1]->Mask, 0xff00u);
  EXPECT_EQ(Mask.Init->Elems[1]->Offset, 4);
  const VarDecl &Dyn = global(*M, "dyn");
  EXPECT_EQ(Dyn.Link, Linkage::Extern);
  EXPECT_EQ(Dyn.Space, StateSpace::Shared);
  ASSERT_EQ(Dyn.Dims.size(), 1u);
  EXPECT_EQ(Dyn.Dims[0], 0u);
  EXPECT_EQ(Dyn.elementCount(), 0u);
  EXPECT_EQ(global(*M, "c").Init->FloatBits, 0x3F800000u);
  const VarDecl &D = global(*M, "d");
  ASSERT_EQ(D.Init->Elems.size(), 2u);
  double V;
  uint64_t Bits = D.Init->Elems[1]->FloatBits;
  std::memcpy(&V, &Bits, 8);
  EXPECT_EQ(V, -2.0);
  EXPECT_EQ(global(*M, "t").Type, ScalarType::TexRef);
  EXPECT_EQ(global(*M, "s").Type, ScalarType::SurfRef);
  EXPECT_TRUE(global(*M, "mg").Managed);
  EXPECT_EQ(global(*M, "mg").Link, Linkage::Visible);
  EXPECT_EQ(global(*M, "vv").VecWidth, 2u);
  EXPECT_EQ(global(*M, "vv").Link, Linkage::Weak);
  EXPECT_EQ(global(*M, "cm").Link, Linkage::Common);
  // Masks over constants fold to the selected byte (0x60A -> 0x0A,
  // 0x20073 -> byte 1 = 0x00); over a symbol they stay symbolic.
  const VarDecl &M5 = global(*M, "m5");
  ASSERT_NE(M5.Init, nullptr);
  ASSERT_EQ(M5.Init->Elems.size(), 3u);
  EXPECT_EQ(M5.Init->Elems[0]->K, Initializer::Kind::Int);
  EXPECT_EQ(M5.Init->Elems[0]->Int, 0x0A);
  EXPECT_EQ(M5.Init->Elems[1]->Int, 0);
  EXPECT_EQ(M5.Init->Elems[2]->K, Initializer::Kind::Symbol);
  EXPECT_TRUE(M5.Init->Elems[2]->Generic);
  EXPECT_EQ(M5.Init->Elems[2]->Offset, 4);
  EXPECT_EQ(M5.Init->Elems[2]->Mask, 0xffu);
}

TEST(PtxDirectives, PredefinedWarpSize) {
  auto M = parseBody("mov.u32 %r1, WARP_SZ;\n");
  auto Is = instructions(*M);
  ASSERT_EQ(Is.size(), 1u);
  EXPECT_EQ(Is[0]->Ops[1].K, Operand::Kind::Int);
  EXPECT_EQ(Is[0]->Ops[1].Int, 32);
}

TEST(PtxDirectives, FunctionsParamsAndPerformanceDirectives) {
  auto M = parseClean(".version 9.0\n.target sm_90\n.address_size 64\n"
                      ".extern .func (.param .b32 r) ext(.param .b64 a, .param .b64 b);\n"
                      ".weak .func (.reg .b32 rr) regf(.reg .b32 x) .noreturn\n{\n\tret;\n}\n"
                      ".visible .entry kern(.param .u64 .ptr.global.align 16 p, .param .align 8 .b8 s[16], .param .u32 n)\n"
                      ".maxntid 128, 1, 1\n.minnctapersm 2\n.maxnreg 64\n.pragma \"nounroll\";\n{\n"
                      "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd1, %rd2;\n\t.local .align 4 .b8 depot[32];\n"
                      "\t.pragma \"nounroll\";\n\tld.param.u32 %r1, [n];\n\tret;\n}\n"
                      ".entry clus() .reqntid 32 .reqnctapercluster 2, 1, 1 .explicitcluster .maxclusterrank 4\n{\n\tret;\n}\n"
                      ".entry empty\n{\n\tret;\n}\n"
                      ".alias ext2, regf;\n");
  const Function *Ext = M->findFunction("ext");
  ASSERT_NE(Ext, nullptr);
  EXPECT_FALSE(Ext->IsEntry);
  EXPECT_EQ(Ext->Link, Linkage::Extern);
  EXPECT_EQ(Ext->Body, nullptr);
  ASSERT_EQ(Ext->Returns.size(), 1u);
  EXPECT_EQ(Ext->Returns[0]->Name, "r");
  EXPECT_EQ(Ext->Params.size(), 2u);
  const Function *RegF = M->findFunction("regf");
  ASSERT_NE(RegF, nullptr);
  EXPECT_EQ(RegF->Params[0]->Space, StateSpace::Reg);
  EXPECT_NE(RegF->directive(FuncDirective::Kind::NoReturn), nullptr);
  const Function *K = M->findFunction("kern");
  ASSERT_NE(K, nullptr);
  EXPECT_TRUE(K->IsEntry);
  ASSERT_EQ(K->Params.size(), 3u);
  EXPECT_TRUE(K->Params[0]->IsPtr);
  EXPECT_EQ(K->Params[0]->PtrSpace, StateSpace::Global);
  EXPECT_EQ(K->Params[0]->PtrAlign, 16u);
  EXPECT_EQ(K->Params[1]->Align, 8u);
  EXPECT_EQ(K->Params[1]->Dims[0], 16u);
  const FuncDirective *MaxNTid = K->directive(FuncDirective::Kind::MaxNTid);
  ASSERT_NE(MaxNTid, nullptr);
  ASSERT_EQ(MaxNTid->Values.size(), 3u);
  EXPECT_EQ(MaxNTid->Values[0], 128u);
  EXPECT_EQ(K->directive(FuncDirective::Kind::MinNCtaPerSm)->Values[0], 2u);
  EXPECT_EQ(K->directive(FuncDirective::Kind::MaxNReg)->Values[0], 64u);
  EXPECT_EQ(K->directive(FuncDirective::Kind::Pragma)->Strings[0], "nounroll");
  // Body declarations: a range, two plain registers, a local array, pragma.
  llvm::ArrayRef<Node *> Body = K->Body->Body;
  ASSERT_GE(Body.size(), 5u);
  auto *Range = llvm::dyn_cast<VarDecl>(Body[0]);
  ASSERT_NE(Range, nullptr);
  EXPECT_EQ(Range->RangeCount, 3u);
  EXPECT_EQ(llvm::cast<VarDecl>(Body[1])->Name, "%rd1");
  EXPECT_EQ(llvm::cast<VarDecl>(Body[2])->Name, "%rd2");
  EXPECT_EQ(llvm::cast<VarDecl>(Body[3])->Space, StateSpace::Local);
  EXPECT_TRUE(llvm::isa<Pragma>(Body[4]));
  const Function *C = M->findFunction("clus");
  ASSERT_NE(C, nullptr);
  EXPECT_TRUE(C->Params.empty());
  EXPECT_EQ(C->directive(FuncDirective::Kind::ReqNCtaPerCluster)->Values.size(), 3u);
  EXPECT_NE(C->directive(FuncDirective::Kind::ExplicitCluster), nullptr);
  EXPECT_EQ(C->directive(FuncDirective::Kind::MaxClusterRank)->Values[0], 4u);
  EXPECT_NE(M->findFunction("empty"), nullptr);
  auto *Al = llvm::dyn_cast<Alias>(M->Items.back());
  ASSERT_NE(Al, nullptr);
  EXPECT_EQ(Al->Name, "ext2");
  EXPECT_EQ(Al->Aliasee, "regf");
}

TEST(PtxDirectives, DebugDirectives) {
  auto M = parseClean(".version 9.0\n.target sm_80, debug\n.address_size 64\n"
                      ".entry k()\n{\n"
                      "\t.loc 1 5 3\n"
                      "\t.loc 2 10 0, function_name $L__info_string0, inlined_at 1 5 3\n"
                      "$L__tmp0:\n\tret;\n}\n"
                      "\t.file 1 \"/src/a.cu\"\n"
                      "\t.file 2 \"/usr/include/b.h\", 1700000000, 1234\n"
                      "\t.section .debug_info\n\t{\n.b32 12\n.b8 1, 2\n.b64 $L__tmp0\n\t}\n"
                      "\t.section .debug_macinfo { }\n");
  const Function *K = M->findFunction("k");
  ASSERT_NE(K, nullptr);
  auto *L1 = llvm::dyn_cast<LocDirective>(K->Body->Body[0]);
  ASSERT_NE(L1, nullptr);
  EXPECT_EQ(L1->File, 1u);
  EXPECT_EQ(L1->Line, 5u);
  EXPECT_EQ(L1->Col, 3u);
  auto *L2 = llvm::cast<LocDirective>(K->Body->Body[1]);
  EXPECT_EQ(L2->Extra, "function_name $L__info_string0, inlined_at 1 5 3");
  std::vector<const FileDirective *> Files;
  std::vector<const Section *> Sections;
  for (const Node *N : M->Items) {
    if (auto *F = llvm::dyn_cast<FileDirective>(N))
      Files.push_back(F);
    if (auto *S = llvm::dyn_cast<Section>(N))
      Sections.push_back(S);
  }
  ASSERT_EQ(Files.size(), 2u);
  EXPECT_EQ(Files[0]->Path, "/src/a.cu");
  EXPECT_EQ(Files[1]->Extra, "1700000000, 1234");
  ASSERT_EQ(Sections.size(), 2u);
  EXPECT_EQ(Sections[0]->Name, ".debug_info");
  EXPECT_NE(Sections[0]->Raw.find(".b64 $L__tmp0"), llvm::StringRef::npos);
}

TEST(PtxDirectives, NestedScopesShadowAndRangesResolve) {
  // A register declared in an inner block is visible there only; ranges
  // declare name0..name(N-1).
  auto M = parseClean(".version 9.0\n.target sm_80\n.entry k()\n{\n"
                      "\t.reg .b32 %r<2>;\n"
                      "\tmov.u32 %r1, 1;\n"
                      "\t{\n\t\t.reg .b64 %r1;\n\t\tmov.u64 %r1, 2;\n\t}\n"
                      "\tret;\n}\n");
  auto Is = instructions(*M);
  ASSERT_EQ(Is.size(), 2u);
  auto Diags = diagnose(".version 9.0\n.target sm_80\n.entry k()\n{\n"
                        "\t{\n\t\t.reg .b32 %in;\n\t}\n\tmov.u32 %in, 1;\n\tret;\n}\n");
  ASSERT_EQ(Diags.size(), 1u);
  EXPECT_EQ(Diags[0].Loc.Line, 8u);
  // Labels are block-scoped: the same inline-asm block may appear twice,
  // branches may leave a block but not enter one.
  auto Twice = parseBody("{\n.reg .pred %q;\nL1:\nsetp.eq.s32 %q, %r1, 0;\n@%q bra L1;\nbra L_end;\n}\n"
                         "{\nL1:\nbra L1;\n}\n");
  EXPECT_EQ(instructions(*Twice).size(), 4u);
  EXPECT_EQ(instructions(*Twice)[1]->GuardDecl->Type, ScalarType::Pred);
  auto Into = diagnose(wrapBody("bra L_in;\n{\nL_in:\nret;\n}\n"));
  ASSERT_EQ(Into.size(), 1u);
  EXPECT_EQ(Into[0].Message, "use of undeclared identifier 'L_in'");
  EXPECT_EQ(Into[0].Loc.Line, BodyFirstLine);
  auto Range = diagnose(".version 9.0\n.target sm_80\n.entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r2, 1;\n\tret;\n}\n");
  ASSERT_EQ(Range.size(), 1u);
  EXPECT_NE(Range[0].Message.find("%r2"), std::string::npos);
}

} // namespace
