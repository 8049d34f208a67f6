//===- InstructionTest.cpp - instruction families ---------------------------===//
/// \file
/// One test per instruction family of the PTX ISA chapter 9.7: each parses
/// representative forms, checks the opcode, the modifier list in written
/// order, and the operands' kinds and values against what the PTX ISA says
/// the text means, and (through parseBody) that the module checks cleanly
/// and round-trips.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <cstring>
#include <set>

using namespace ferry::ptx;
using namespace ferry::ptx::test;
using K = Operand::Kind;
using llvm::ArrayRef;

namespace {

/// ".global.nc.v4.f32" for an instruction's modifiers.
std::string mods(const Instruction &I) {
  std::string S;
  for (Modifier M : I.Mods)
    S += "." + modifierName(M).str();
  return S;
}

std::vector<const Instruction *> one(const std::string &Body, std::unique_ptr<Module> &Keep) {
  Keep = parseBody(Body);
  return instructions(*Keep);
}

TEST(PtxInstructions, IntegerArithmetic) {
  std::unique_ptr<Module> M;
  auto Is = one("add.s32 %r1, %r2, -5;\n"
                "mad.wide.u32 %rd1, %r1, %r2, %rd2;\n"
                "mul.hi.u64 %rd3, %rd1, 0x10;\n"
                "add.cc.u32 %r3, %r1, %r2;\n"
                "addc.u32 %r4, %r1, 0;\n"
                "sub.sat.s32 %r5, %r1, 017;\n"
                "bfe.u32 %r6, %r1, 4, 8;\n"
                "bfi.b32 %r7, %r1, %r2, 8, 4;\n"
                "prmt.b32.f4e %r8, %r1, %r2, %r3;\n"
                "lop3.b32 %r9, %r1, %r2, %r3, 0x96;\n"
                "dp4a.u32.s32 %r10, %r1, %r2, %r3;\n"
                "shf.l.wrap.b32 %r11, %r1, %r2, %r3;\n"
                "bmsk.clamp.b32 %r12, %r1, %r2;\n"
                "szext.wrap.s32 %r13, %r1, 0b101;\n"
                "mul24.hi.s32 %r14, %r1, %r2;\n"
                "sad.u32 %r15, %r1, %r2, %r3;\n"
                "min.relu.s32 %r16, %r1, (1 << 4) + 3 * 2;\n",
                M);
  ASSERT_EQ(Is.size(), 17u);
  EXPECT_EQ(Is[0]->Op, Opcode::Add);
  EXPECT_EQ(mods(*Is[0]), ".s32");
  ASSERT_EQ(Is[0]->Ops.size(), 3u);
  EXPECT_EQ(Is[0]->Ops[0].K, K::Reg);
  EXPECT_EQ(Is[0]->Ops[0].Name, "%r1");
  EXPECT_EQ(Is[0]->Ops[2].K, K::Int);
  EXPECT_EQ(Is[0]->Ops[2].Int, -5);
  EXPECT_EQ(Is[1]->Op, Opcode::Mad);
  EXPECT_EQ(mods(*Is[1]), ".wide.u32");
  EXPECT_EQ(Is[2]->Ops[2].Int, 16);
  EXPECT_EQ(mods(*Is[3]), ".cc.u32");
  EXPECT_EQ(Is[4]->Op, Opcode::Addc);
  EXPECT_EQ(Is[5]->Ops[2].Int, 15); // Octal 017.
  EXPECT_EQ(Is[6]->Op, Opcode::Bfe);
  EXPECT_EQ(Is[7]->Ops.size(), 5u);
  EXPECT_EQ(mods(*Is[8]), ".b32.f4e");
  EXPECT_EQ(Is[9]->Ops[4].Int, 0x96);
  EXPECT_EQ(Is[10]->Op, Opcode::Dp4a);
  EXPECT_EQ(mods(*Is[11]), ".l.wrap.b32");
  EXPECT_EQ(Is[12]->Op, Opcode::Bmsk);
  EXPECT_EQ(Is[13]->Ops[2].Int, 5); // Binary 0b101.
  EXPECT_EQ(Is[14]->Op, Opcode::Mul24);
  EXPECT_EQ(Is[15]->Op, Opcode::Sad);
  EXPECT_EQ(Is[16]->Ops[2].Int, 22); // Constant expression folded.
  EXPECT_EQ(Is[1]->firstType(), ScalarType::U32);
}

TEST(PtxInstructions, FloatAndHalf) {
  std::unique_ptr<Module> M;
  auto Is = one("fma.rn.ftz.sat.f32 %f1, %f2, 0f3F800000, %f3;\n"
                "add.rn.f64 %fd1, %fd2, 0d3FF8000000000000;\n"
                "div.rn.f64 %fd3, %fd1, %fd2;\n"
                "div.approx.ftz.f32 %f4, %f1, %f2;\n"
                "rcp.approx.ftz.f64 %fd4, %fd1;\n"
                "sqrt.rn.f32 %f5, %f1;\n"
                "rsqrt.approx.f32 %f6, %f1;\n"
                "sin.approx.ftz.f32 %f7, %f1;\n"
                "ex2.approx.ftz.bf16x2 %r1, %r2;\n"
                "tanh.approx.f16 %rs1, %rs2;\n"
                "min.NaN.f16x2 %r3, %r4, %r5;\n"
                "max.xorsign.abs.f32 %f8, %f1, %f2;\n"
                "fma.rn.relu.bf16x2 %r6, %r7, %r8, %r9;\n"
                "add.rn.sat.f16 %rs3, %rs4, %rs5;\n"
                "mul.f32 %f9, %f1, 1.5;\n"
                "neg.f32 %f10, -0f3F800000;\n"
                "testp.notanumber.f32 %p1, %f1;\n"
                "copysign.f64 %fd5, %fd1, %fd2;\n"
                "abs.ftz.f32 %f11, %f1;\n"
                "add.rn.f32.f16 %f12, %rs1, %f2;\n",
                M);
  ASSERT_EQ(Is.size(), 20u);
  EXPECT_EQ(Is[19]->firstType(), ScalarType::F32); // Mixed precision (9.7.5).
  EXPECT_EQ(Is[19]->lastType(), ScalarType::F16);
  EXPECT_EQ(mods(*Is[0]), ".rn.ftz.sat.f32");
  ASSERT_EQ(Is[0]->Ops[2].K, K::Float);
  EXPECT_EQ(Is[0]->Ops[2].FForm, Operand::FloatForm::Hex32);
  EXPECT_EQ(Is[0]->Ops[2].FloatBits, 0x3F800000u);
  EXPECT_EQ(Is[0]->Ops[2].asDouble(), 1.0);
  EXPECT_EQ(Is[1]->Ops[2].asDouble(), 1.5);
  EXPECT_EQ(Is[3]->Op, Opcode::Div);
  EXPECT_EQ(mods(*Is[3]), ".approx.ftz.f32");
  EXPECT_EQ(Is[4]->Op, Opcode::Rcp);
  EXPECT_EQ(mods(*Is[8]), ".approx.ftz.bf16x2");
  EXPECT_EQ(Is[9]->Op, Opcode::Tanh);
  EXPECT_EQ(mods(*Is[10]), ".NaN.f16x2");
  EXPECT_EQ(mods(*Is[11]), ".xorsign.abs.f32");
  EXPECT_EQ(mods(*Is[12]), ".rn.relu.bf16x2");
  EXPECT_EQ(Is[14]->Ops[2].K, K::Float);
  EXPECT_EQ(Is[14]->Ops[2].asDouble(), 1.5);
  EXPECT_EQ(Is[15]->Ops[1].asDouble(), -1.0);
  EXPECT_EQ(mods(*Is[16]), ".notanumber.f32");
  EXPECT_EQ(Is[18]->firstType(), ScalarType::F32);
}

TEST(PtxInstructions, CompareSelectLogic) {
  std::unique_ptr<Module> M;
  auto Is = one("setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;\n"
                "setp.gtu.ftz.f32 %p4, %f1, %f2;\n"
                "set.eq.u32.f32 %r1, %f1, %f2;\n"
                "selp.b32 %r2, %r3, 7, %p1;\n"
                "slct.f32.s32 %f1, %f2, %f3, %r4;\n"
                "and.pred %p5, %p1, %p2;\n"
                "or.b32 %r5, %r6, 0xff;\n"
                "xor.b64 %rd1, %rd2, %rd3;\n"
                "not.pred %p6, %p5;\n"
                "cnot.b32 %r7, %r8;\n"
                "shl.b32 %r9, %r9, 3;\n"
                "shr.s32 %r10, %r10, %r11;\n"
                "setp.ne.f16x2 %p1|%p2, %r1, %r2;\n",
                M);
  ASSERT_EQ(Is.size(), 13u);
  EXPECT_EQ(mods(*Is[0]), ".lt.and.s32");
  ASSERT_EQ(Is[0]->Ops[0].K, K::Pair);
  EXPECT_EQ(Is[0]->Ops[0].Elems[0].Name, "%p1");
  EXPECT_EQ(Is[0]->Ops[0].Elems[1].Name, "%p2");
  EXPECT_TRUE(Is[0]->Ops[3].Negated);
  EXPECT_EQ(Is[0]->Ops[3].Name, "%p3");
  EXPECT_EQ(Is[1]->firstOfClass(MC_Cmp), Modifier::Gtu);
  EXPECT_EQ(Is[2]->Op, Opcode::Set);
  EXPECT_EQ(Is[2]->firstType(), ScalarType::U32);
  EXPECT_EQ(Is[2]->lastType(), ScalarType::F32);
  EXPECT_EQ(Is[3]->Op, Opcode::Selp);
  EXPECT_EQ(Is[4]->Op, Opcode::Slct);
  EXPECT_EQ(Is[5]->firstType(), ScalarType::Pred);
}

TEST(PtxInstructions, SpecialRegisters) {
  std::unique_ptr<Module> M;
  auto Is = one("mov.u32 %r1, %tid.x;\n"
                "mov.u32 %r2, %ntid.y;\n"
                "mov.u32 %r3, %ctaid.z;\n"
                "mov.u32 %r4, %nctaid.x;\n"
                "mov.u32 %r5, %laneid;\n"
                "mov.u32 %r6, %warpid;\n"
                "mov.u32 %r7, %lanemask_lt;\n"
                "mov.u64 %rd1, %clock64;\n"
                "mov.u64 %rd2, %globaltimer;\n"
                "mov.u32 %r8, %envreg3;\n"
                "mov.u64 %rd3, %pm2_64;\n"
                "mov.u32 %r9, %pm7;\n"
                "mov.u32 %r10, %dynamic_smem_size;\n"
                "mov.u32 %r11, %clusterid.y;\n"
                "mov.u32 %r12, %smid;\n"
                "mov.u64 %rd4, %gridid;\n"
                "mov.u32 %r13, %total_smem_size;\n",
                M);
  ASSERT_EQ(Is.size(), 17u);
  struct Want {
    SpecialReg R;
    Component C;
    int64_t Index;
  } W[] = {{SpecialReg::Tid, Component::X, 0},        {SpecialReg::NTid, Component::Y, 0},
           {SpecialReg::CtaId, Component::Z, 0},      {SpecialReg::NCtaId, Component::X, 0},
           {SpecialReg::LaneId, Component::None, 0},  {SpecialReg::WarpId, Component::None, 0},
           {SpecialReg::LanemaskLt, Component::None, 0}, {SpecialReg::Clock64, Component::None, 0},
           {SpecialReg::GlobalTimer, Component::None, 0}, {SpecialReg::EnvReg, Component::None, 3},
           {SpecialReg::Pm64, Component::None, 2},    {SpecialReg::Pm, Component::None, 7},
           {SpecialReg::DynamicSmemSize, Component::None, 0}, {SpecialReg::ClusterId, Component::Y, 0},
           {SpecialReg::SmId, Component::None, 0},    {SpecialReg::GridId, Component::None, 0},
           {SpecialReg::TotalSmemSize, Component::None, 0}};
  for (size_t I = 0; I < Is.size(); ++I) {
    const Operand &S = Is[I]->Ops[1];
    ASSERT_EQ(S.K, K::SReg) << I;
    EXPECT_EQ(S.SReg, W[I].R) << I;
    EXPECT_EQ(S.Comp, W[I].C) << I;
    EXPECT_EQ(S.Int, W[I].Index) << I;
  }
}

TEST(PtxInstructions, LoadsStoresAndCacheHints) {
  std::unique_ptr<Module> M;
  auto Is = one("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];\n"
                "st.shared.v2.b32 [sm+8], {%r1, %r2};\n"
                "ld.global.L2::cache_hint.u32 %r3, [%rd2], %rd3;\n"
                "ld.param.u64 %rd4, [p];\n"
                "ld.global.u32 %r4, [256];\n"
                "ld.volatile.shared.u16 %rs1, [%r5+-4];\n"
                "ld.acquire.gpu.global.u32 %r6, [%rd5];\n"
                "st.release.sys.global.b64 [%rd5], %rd6;\n"
                "ld.local.v2.u64 {%rd7, _}, [%rd8];\n"
                "ld.global.L1::evict_last.f32 %f5, [%rd1];\n"
                "ldu.global.f32 %f6, [%rd1];\n"
                "prefetch.global.L2::evict_last [%rd1];\n"
                "prefetchu.L1 [%rd1];\n"
                "isspacep.shared %p1, %rd1;\n"
                "cvta.to.global.u64 %rd9, %rd1;\n"
                "cvta.shared.u64 %rd10, sm;\n"
                "mov.u64 %rd11, sm;\n"
                "mov.b64 %rd12, {%r1, %r2};\n"
                "mov.b64 {%r3, %r4}, %rd12;\n"
                "st.global.cs.v4.s32 [%rd1], {%r1, %r2, %r3, 0};\n"
                "ld.shared::cta.u32 %r7, [sm];\n"
                "createpolicy.fractional.L2::evict_first.b64 %rd13, 0f3F000000;\n",
                M);
  ASSERT_EQ(Is.size(), 22u);
  EXPECT_EQ(Is[0]->Op, Opcode::Ld);
  EXPECT_EQ(mods(*Is[0]), ".global.nc.L1::no_allocate.L2::256B.v4.f32");
  EXPECT_EQ(Is[0]->space(), StateSpace::Global);
  ASSERT_EQ(Is[0]->Ops[0].K, K::Vector);
  EXPECT_EQ(Is[0]->Ops[0].Elems.size(), 4u);
  EXPECT_EQ(Is[0]->Ops[1].K, K::Address);
  EXPECT_EQ(Is[0]->Ops[1].Name, "%rd1");
  EXPECT_EQ(Is[0]->Ops[1].Int, 16);
  EXPECT_EQ(Is[0]->Ops[1].Ref, RefKind::Register);
  ASSERT_NE(Is[0]->Ops[1].Decl, nullptr);
  EXPECT_EQ(Is[0]->Ops[1].Decl->Name, "%rd"); // The %rd<16> range.
  EXPECT_EQ(Is[0]->Ops[1].Decl->Type, ScalarType::B64);
  EXPECT_EQ(Is[0]->Ops[0].Elems[2].Decl->Type, ScalarType::F32);
  EXPECT_EQ(Is[1]->Ops[0].Name, "sm");
  ASSERT_NE(Is[1]->Ops[0].Decl, nullptr);
  EXPECT_EQ(Is[1]->Ops[0].Decl->Space, StateSpace::Shared);
  EXPECT_EQ(Is[1]->Ops[0].Int, 8);
  EXPECT_EQ(Is[1]->Ops[0].Ref, RefKind::Variable);
  EXPECT_EQ(Is[2]->Ops.size(), 3u);
  EXPECT_EQ(Is[3]->Ops[1].Ref, RefKind::Variable); // A kernel parameter.
  EXPECT_EQ(Is[4]->Ops[1].Name, "");
  EXPECT_EQ(Is[4]->Ops[1].Int, 256);
  EXPECT_EQ(Is[5]->Ops[1].Int, -4);
  EXPECT_EQ(mods(*Is[6]), ".acquire.gpu.global.u32");
  EXPECT_EQ(Is[8]->Ops[0].Elems[1].K, K::Sink);
  EXPECT_EQ(Is[10]->Op, Opcode::Ldu);
  EXPECT_EQ(Is[11]->Op, Opcode::Prefetch);
  EXPECT_EQ(Is[12]->Op, Opcode::Prefetchu);
  EXPECT_EQ(Is[14]->Op, Opcode::Cvta);
  EXPECT_EQ(mods(*Is[14]), ".to.global.u64");
  EXPECT_EQ(Is[15]->Ops[1].K, K::Name); // Address of a variable stays a Name.
  EXPECT_EQ(Is[15]->Ops[1].Ref, RefKind::Variable);
  EXPECT_EQ(Is[20]->space(), StateSpace::Shared);
  EXPECT_EQ(Is[21]->Op, Opcode::Createpolicy);
}

// Triton's inline assembly (in XLA's fused kernels too) writes scalar loads
// and stores with a one-element brace list and no .vN, which ptxas reads as
// the element itself.
TEST(PtxInstructions, OneElementBracesAreTheScalar) {
  std::unique_ptr<Module> M;
  auto Is = one("ld.global.b32 { %r1 }, [ %rd1 + 0 ];\n"
                "st.global.b32 [ %rd1 + 4 ], { %r1 };\n"
                "ld.global.v2.b32 { %r2, %r3 }, [ %rd1 + 0 ];\n",
                M);
  ASSERT_EQ(Is.size(), 3u);
  ASSERT_EQ(Is[0]->Ops[0].K, K::Reg);
  EXPECT_EQ(Is[0]->Ops[0].Name, "%r1");
  ASSERT_EQ(Is[1]->Ops[1].K, K::Reg);
  EXPECT_EQ(Is[1]->Ops[1].Name, "%r1");
  EXPECT_EQ(Is[1]->Ops[0].Int, 4);
  EXPECT_EQ(Is[2]->Ops[0].K, K::Vector);
}

TEST(PtxInstructions, AtomicsAndReductions) {
  std::unique_ptr<Module> M;
  auto Is = one("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;\n"
                "atom.acq_rel.gpu.global.add.u32 %r4, [%rd1], 1;\n"
                "atom.shared.inc.u32 %r5, [sm], 100;\n"
                "atom.global.exch.b64 %rd2, [%rd1], %rd3;\n"
                "atom.global.add.noftz.f16x2 %r6, [%rd1], %r7;\n"
                "atom.relaxed.sys.global.max.s64 %rd4, [%rd1], %rd5;\n"
                "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};\n"
                "red.global.add.f32 [%rd1], %f5;\n"
                "red.release.cta.shared.min.u32 [sm+4], %r8;\n"
                "atom.global.add.bf16x2 %r9, [%rd1], %r10;\n"
                "atom.global.L2::cache_hint.add.u32 %r11, [%rd1], 1, %rd6;\n",
                M);
  ASSERT_EQ(Is.size(), 11u);
  EXPECT_EQ(Is[0]->Op, Opcode::Atom);
  EXPECT_EQ(Is[0]->Ops.size(), 4u);
  EXPECT_EQ(Is[0]->firstOfClass(MC_Op), Modifier::Cas);
  EXPECT_EQ(Is[1]->firstOfClass(MC_Sem), Modifier::AcqRel);
  EXPECT_EQ(Is[1]->firstOfClass(MC_Scope), Modifier::Gpu);
  EXPECT_EQ(Is[2]->firstOfClass(MC_Op), Modifier::Inc);
  EXPECT_EQ(mods(*Is[4]), ".global.add.noftz.f16x2");
  EXPECT_EQ(Is[6]->Ops[0].K, K::Vector);
  EXPECT_EQ(Is[7]->Op, Opcode::Red);
  EXPECT_EQ(Is[7]->Ops.size(), 2u);
  EXPECT_EQ(Is[10]->Ops.size(), 4u);
}

TEST(PtxInstructions, ConversionsAndMoves) {
  std::unique_ptr<Module> M;
  auto Is = one("cvt.rzi.s32.f64 %r1, %fd1;\n"
                "cvt.u64.u32 %rd1, %r1;\n"
                "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;\n"
                "cvt.pack.sat.s8.s32.b32 %r2, %r3, %r4, %r5;\n"
                "cvt.rn.relu.f16x2.f32 %r6, %f1, %f2;\n"
                "cvt.rna.tf32.f32 %r7, %f3;\n"
                "cvt.sat.u8.s32 %r8, %r9;\n"
                "cvt.f32.bf16 %f4, %rs2;\n"
                "cvt.rni.f64.f64 %fd2, %fd1;\n"
                "mov.f32 %f5, 0fBF800000;\n"
                "mov.pred %p1, 1;\n",
                M);
  ASSERT_EQ(Is.size(), 11u);
  EXPECT_EQ(Is[0]->firstType(), ScalarType::S32);
  EXPECT_EQ(Is[0]->lastType(), ScalarType::F64);
  EXPECT_EQ(Is[0]->firstOfClass(MC_Round), Modifier::Rzi);
  EXPECT_EQ(Is[2]->Ops.size(), 3u);
  EXPECT_EQ(Is[2]->firstType(), ScalarType::E4M3x2);
  EXPECT_EQ(Is[3]->Op, Opcode::CvtPack);
  EXPECT_EQ(mods(*Is[3]), ".sat.s8.s32.b32");
  EXPECT_EQ(Is[9]->Ops[1].asDouble(), -1.0);
}

TEST(PtxInstructions, ControlFlowAndCalls) {
  std::unique_ptr<Module> M;
  auto Is = one("@%p1 bra L_end;\n"
                "@!%p2 bra.uni L_a;\n"
                "L_a:\n"
                "{\n"
                "\t.param .b32 a0;\n"
                "\t.param .b32 r0;\n"
                "\tst.param.b32 [a0], %r1;\n"
                "\tcall.uni (r0), fn, (a0);\n"
                "\tcall fn, (a0);\n"
                "\tld.param.b32 %r2, [r0];\n"
                "}\n"
                "proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                "{\n"
                "\t.param .b32 a1;\n"
                "\t.param .b32 r1;\n"
                "\tcall (r1), %rd1, (a1), proto;\n"
                "}\n"
                "tbl: .branchtargets L_a, L_end;\n"
                "brx.idx %r3, tbl;\n"
                "exit;\n",
                M);
  ASSERT_EQ(Is.size(), 9u);
  EXPECT_EQ(Is[0]->Guard, "%p1");
  EXPECT_FALSE(Is[0]->GuardNegated);
  EXPECT_EQ(Is[0]->Ops[0].Ref, RefKind::Label);
  EXPECT_TRUE(Is[1]->GuardNegated);
  EXPECT_EQ(mods(*Is[1]), ".uni");
  const Instruction &Call = *Is[3];
  EXPECT_EQ(Call.Op, Opcode::Call);
  ASSERT_EQ(Call.Ops.size(), 3u);
  EXPECT_EQ(Call.Ops[0].K, K::ParenList);
  EXPECT_EQ(Call.Ops[1].Name, "fn");
  EXPECT_EQ(Call.Ops[1].Ref, RefKind::Function);
  EXPECT_EQ(Call.Ops[2].Elems[0].Name, "a0");
  EXPECT_EQ(Is[4]->Ops.size(), 2u);
  const Instruction &Indirect = *Is[6];
  ASSERT_EQ(Indirect.Ops.size(), 4u);
  EXPECT_EQ(Indirect.Ops[1].K, K::Reg);
  EXPECT_EQ(Indirect.Ops[3].Ref, RefKind::Prototype);
  EXPECT_EQ(Is[7]->Op, Opcode::BrxIdx);
  EXPECT_EQ(Is[8]->Op, Opcode::Exit);
  // The prototype node itself.
  const Function *F = M->findFunction("k");
  const CallPrototype *P = nullptr;
  for (const Node *N : F->Body->Body)
    if (auto *X = llvm::dyn_cast<CallPrototype>(N))
      P = X;
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Returns.size(), 1u);
  EXPECT_EQ(P->Params.size(), 1u);
  EXPECT_EQ(P->Params[0]->Type, ScalarType::B32);
}

TEST(PtxInstructions, BarriersWarpAndMisc) {
  std::unique_ptr<Module> M;
  auto Is = one("bar.sync 0;\n"
                "bar.sync 1, 64;\n"
                "bar.arrive 2, 64;\n"
                "bar.red.popc.u32 %r1, 0, %p1;\n"
                "bar.red.and.pred %p2, 0, 64, !%p1;\n"
                "barrier.sync.aligned 0;\n"
                "bar.warp.sync -1;\n"
                "barrier.cluster.arrive.release;\n"
                "membar.gl;\n"
                "fence.sc.gpu;\n"
                "fence.proxy.async.shared::cta;\n"
                "fence.mbarrier_init.release.cluster;\n"
                "shfl.sync.bfly.b32 %r2|%p3, %r3, 1, 31, -1;\n"
                "shfl.sync.idx.b32 %r4, %r3, 0, 0x1f, 0xffffffff;\n"
                "vote.sync.ballot.b32 %r5, %p1, -1;\n"
                "vote.sync.all.pred %p4, !%p1, -1;\n"
                "match.any.sync.b32 %r6, %r3, -1;\n"
                "redux.sync.add.u32 %r7, %r3, -1;\n"
                "activemask.b32 %r8;\n"
                "elect.sync %r9|%p5, -1;\n"
                "griddepcontrol.wait;\n"
                "griddepcontrol.launch_dependents;\n"
                "setmaxnreg.inc.sync.aligned.u32 240;\n"
                "nanosleep.u32 100;\n"
                "pmevent 1;\n"
                "mapa.shared::cluster.u32 %r10, %r11, 0;\n"
                "getctarank.shared::cluster.u32 %r12, %r11;\n"
                "@%p1 trap;\n"
                "brkpt;\n",
                M);
  ASSERT_EQ(Is.size(), 29u);
  EXPECT_EQ(Is[0]->Op, Opcode::Bar);
  EXPECT_EQ(mods(*Is[3]), ".red.popc.u32");
  EXPECT_EQ(Is[4]->Ops.size(), 4u);
  EXPECT_EQ(Is[5]->Op, Opcode::Barrier);
  EXPECT_EQ(Is[6]->Op, Opcode::BarWarpSync);
  EXPECT_EQ(Is[7]->Op, Opcode::BarrierCluster);
  EXPECT_EQ(Is[8]->Op, Opcode::Membar);
  EXPECT_EQ(mods(*Is[10]), ".proxy.async.shared::cta");
  EXPECT_EQ(Is[12]->Op, Opcode::Shfl);
  EXPECT_EQ(Is[12]->firstOfClass(MC_Shfl), Modifier::Bfly);
  EXPECT_EQ(Is[12]->Ops[0].K, K::Pair);
  EXPECT_EQ(Is[14]->Op, Opcode::Vote);
  EXPECT_EQ(Is[16]->Op, Opcode::Match);
  EXPECT_EQ(Is[17]->Op, Opcode::Redux);
  EXPECT_EQ(Is[18]->Op, Opcode::Activemask);
  EXPECT_EQ(Is[19]->Op, Opcode::Elect);
  EXPECT_EQ(Is[20]->Op, Opcode::Griddepcontrol);
  EXPECT_EQ(Is[22]->Op, Opcode::Setmaxnreg);
  EXPECT_EQ(Is[25]->Op, Opcode::Mapa);
  EXPECT_EQ(Is[27]->Op, Opcode::Trap);
  EXPECT_EQ(Is[28]->Op, Opcode::Brkpt);
}

TEST(PtxInstructions, TextureSurface) {
  std::unique_ptr<Module> M;
  auto Is = one("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n"
                "tex.level.2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f6}], %f7;\n"
                "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n"
                "txq.width.b32 %r5, [%rd1];\n"
                "suld.b.2d.v4.b32.trap {%r1, %r2, %r3, %r4}, [%rd2, {%r6, %r7}];\n"
                "sust.b.1d.b32.clamp [%rd2, {%r6}], {%r8};\n"
                "sured.b.add.2d.u32.zero [%rd2, {%r6, %r7}], %r9;\n"
                "suq.width.b32 %r10, [%rd2];\n"
                "tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}];\n",
                M);
  ASSERT_EQ(Is.size(), 9u);
  EXPECT_EQ(Is[0]->Op, Opcode::Tex);
  EXPECT_EQ(mods(*Is[0]), ".2d.v4.f32.f32");
  ASSERT_EQ(Is[0]->Ops[1].K, K::Bracket);
  EXPECT_EQ(Is[0]->Ops[1].Elems[0].K, K::Reg);
  EXPECT_EQ(Is[0]->Ops[1].Elems[1].K, K::Vector);
  EXPECT_EQ(Is[1]->Ops.size(), 3u);
  EXPECT_EQ(Is[2]->Op, Opcode::Tld4);
  EXPECT_EQ(Is[3]->Ops[1].K, K::Address);
  EXPECT_EQ(Is[4]->Op, Opcode::Suld);
  EXPECT_EQ(Is[5]->Op, Opcode::Sust);
  EXPECT_EQ(Is[6]->Op, Opcode::Sured);
  EXPECT_EQ(Is[7]->Op, Opcode::Suq);
}

TEST(PtxInstructions, MatrixAndAsync) {
  std::unique_ptr<Module> M;
  auto Is = one("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;\n"
                "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, "
                "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
                "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};\n"
                "wmma.store.d.sync.aligned.col.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r9;\n"
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
                "{%r5, %r6}, {%f5, %f6, %f7, %f8};\n"
                "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r10];\n"
                "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r10], {%r1, %r2};\n"
                "movmatrix.sync.aligned.m8n8.trans.b16 %r11, %r12;\n"
                "cp.async.ca.shared.global [%r10], [%rd1], 4;\n"
                "cp.async.cg.shared.global.L2::128B [%r10], [%rd1], 16, %r13;\n"
                "cp.async.commit_group;\n"
                "cp.async.wait_group 0;\n"
                "cp.async.wait_all;\n"
                "cp.async.mbarrier.arrive.noinc.shared.b64 [%r10];\n"
                "mbarrier.init.shared.b64 [%r10], 32;\n"
                "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%r10], 16;\n"
                "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r10], %r14;\n"
                "mbarrier.test_wait.shared.b64 %p2, [%r10], %rd2;\n"
                "mbarrier.inval.shared.b64 [%r10];\n"
                "wgmma.fence.sync.aligned;\n"
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 1;\n"
                "wgmma.commit_group.sync.aligned;\n"
                "wgmma.wait_group.sync.aligned 0;\n",
                M);
  ASSERT_EQ(Is.size(), 22u);
  EXPECT_EQ(Is[18]->Op, Opcode::WgmmaFence);
  EXPECT_EQ(Is[19]->Op, Opcode::WgmmaMmaAsync);
  EXPECT_EQ(Is[19]->firstOfClass(MC_Shape), Modifier::M64n8k16);
  EXPECT_EQ(Is[19]->Ops.size(), 8u);
  EXPECT_EQ(Is[20]->Op, Opcode::WgmmaCommitGroup);
  EXPECT_EQ(Is[21]->Op, Opcode::WgmmaWaitGroup);
  EXPECT_EQ(Is[0]->Op, Opcode::WmmaLoad);
  EXPECT_EQ(mods(*Is[0]), ".a.sync.aligned.row.m16n16k16.f16");
  EXPECT_EQ(Is[0]->Ops[0].Elems.size(), 8u);
  EXPECT_EQ(Is[1]->Op, Opcode::WmmaMma);
  EXPECT_EQ(Is[2]->Op, Opcode::WmmaStore);
  EXPECT_EQ(Is[3]->Op, Opcode::Mma);
  EXPECT_EQ(Is[3]->firstOfClass(MC_Shape), Modifier::M16n8k16);
  EXPECT_EQ(Is[4]->Op, Opcode::Ldmatrix);
  EXPECT_EQ(Is[5]->Op, Opcode::Stmatrix);
  EXPECT_EQ(Is[6]->Op, Opcode::Movmatrix);
  EXPECT_EQ(Is[7]->Op, Opcode::CpAsync);
  EXPECT_EQ(mods(*Is[8]), ".cg.shared.global.L2::128B");
  EXPECT_EQ(Is[9]->Op, Opcode::CpAsyncCommitGroup);
  EXPECT_EQ(Is[10]->Op, Opcode::CpAsyncWaitGroup);
  EXPECT_EQ(Is[11]->Op, Opcode::CpAsyncWaitAll);
  EXPECT_EQ(Is[12]->Op, Opcode::CpAsyncMbarrierArrive);
  EXPECT_EQ(Is[13]->Op, Opcode::MbarrierInit);
  EXPECT_EQ(Is[14]->Op, Opcode::MbarrierArrive);
  EXPECT_EQ(Is[14]->Ops[0].K, K::Sink);
  EXPECT_EQ(Is[15]->Op, Opcode::MbarrierTryWait);
  EXPECT_EQ(Is[16]->Op, Opcode::MbarrierTestWait);
  EXPECT_EQ(Is[17]->Op, Opcode::MbarrierInval);
}

TEST(PtxInstructions, VideoAndStack) {
  std::unique_ptr<Module> M;
  auto Is = one("vadd4.u32.u32.u32.sat %r1, %r2, %r3, %r4;\n"
                "vmax2.s32.s32.s32 %r5, %r2, %r3, %r5;\n"
                "vadd.s32.s32.s32.sat.add %r6, %r2.b0, %r3.h1, %r4;\n"
                "stacksave.u64 %rd1;\n"
                "alloca.u64 %rd2, 64;\n"
                "stackrestore.u64 %rd1;\n",
                M);
  ASSERT_EQ(Is.size(), 6u);
  EXPECT_EQ(Is[0]->Op, Opcode::Vadd4);
  EXPECT_EQ(Is[2]->Ops[1].Comp, Component::B0);
  EXPECT_EQ(Is[2]->Ops[2].Comp, Component::H1);
  EXPECT_EQ(Is[3]->Op, Opcode::Stacksave);
  EXPECT_EQ(Is[4]->Op, Opcode::Alloca);
  // SIMD lane selectors and masks (digits in Lanes), vmad's negated
  // sources, .po and the scaling modifiers.
  auto Vs = one("vadd4.s32.s32.s32 %r1.b210, %r2.b7654, %r3.b0123, %r4;\n"
                "vsub2.u32.u32.u32 %r5.h10, %r2.h32, %r3.h01, %r4;\n"
                "vmad.s32.u32.s32.sat.shr15 %r6, -%r2.b1, %r3.h0, -%r4;\n"
                "vmad.u32.u32.u32.po %r6, %r2, %r3, %r4;\n",
                M);
  ASSERT_EQ(Vs.size(), 4u);
  EXPECT_EQ(Vs[0]->Ops[0].Comp, Component::Bytes);
  EXPECT_EQ(Vs[0]->Ops[0].Lanes, "210");
  EXPECT_EQ(Vs[0]->Ops[1].Lanes, "7654");
  EXPECT_EQ(Vs[1]->Ops[1].Comp, Component::Halves);
  EXPECT_EQ(Vs[1]->Ops[2].Lanes, "01");
  EXPECT_TRUE(Vs[2]->Ops[1].Minus);
  EXPECT_EQ(Vs[2]->Ops[1].Comp, Component::B1);
  EXPECT_FALSE(Vs[2]->Ops[2].Minus);
  EXPECT_TRUE(Vs[2]->Ops[3].Minus);
  EXPECT_EQ(mods(*Vs[2]), ".s32.u32.s32.sat.shr15");
  EXPECT_EQ(mods(*Vs[3]), ".u32.u32.u32.po");
}

TEST(PtxTables, RowsAreConsistent) {
  // Opcode spellings are unique, every row cites a chapter 9.7 section, and
  // shapes use only the documented letters.
  std::set<std::string> Names;
  for (const OpcodeInfo &Row : allOpcodes()) {
    EXPECT_TRUE(Names.insert(Row.Name.str()).second) << Row.Name.str();
    EXPECT_TRUE(Row.Section.starts_with("9.7.")) << Row.Name.str();
    for (char C : Row.Shape)
      EXPECT_NE(std::strchr("dsatl?*", C), nullptr) << Row.Name.str() << " shape " << Row.Shape.str();
  }
  // Modifier spellings are unique and look themselves up.
  for (unsigned I = 0; I <= unsigned(Modifier::ScaleVec4X); ++I) { // ScaleVec4X is the last row.
    auto M = Modifier(I);
    EXPECT_EQ(lookupModifier(modifierName(M)), M) << modifierName(M).str();
    EXPECT_NE(modifierClasses(M), 0u) << modifierName(M).str();
  }
  EXPECT_EQ(typeBits(ScalarType::F16x2), 32u);
  EXPECT_EQ(typeBits(ScalarType::B128), 128u);
  EXPECT_EQ(typeKind(ScalarType::S8), TypeKind::Signed);
  EXPECT_EQ(modifierType(Modifier::U32), ScalarType::U32);
  EXPECT_FALSE(modifierType(Modifier::Rn).has_value());
}

TEST(PtxTables, EveryRowParsesFromItsShape) {
  // For each row, the bare opcode with operands built from its shape letters
  // must parse back to that very row (the longest-match of dotted opcode
  // words reaches every spelling), satisfy the operand-count check, and
  // round-trip.
  ArrayRef<OpcodeInfo> Rows = allOpcodes();
  for (unsigned R = 0; R < Rows.size(); ++R) {
    const OpcodeInfo &Row = Rows[R];
    std::string Text = Row.Name.str();
    bool First = true;
    if (Row.Flags & IF_Call) {
      Text += " fn, (%r1)";
      First = false;
    }
    for (size_t K = 0; K < Row.Shape.size(); ++K) {
      char L = Row.Shape[K];
      if (L == '*' || L == '?' || (K + 1 < Row.Shape.size() && Row.Shape[K + 1] == '?'))
        continue;
      Text += First ? " " : ", ";
      First = false;
      Text += L == 'd' ? "%r1" : L == 's' ? "%r2" : L == 'a' ? "[%rd1]" : L == 't' ? "[%rd1, {%r3}]" : "L_end";
    }
    Text += ";";
    ParseResult P = parse(wrapBody(Text), "row.ptx");
    ASSERT_TRUE(P.ok()) << Text << ": " << P.Diags[0].Message;
    auto Is = instructions(*P.M);
    ASSERT_EQ(Is.size(), 1u) << Text;
    EXPECT_EQ(unsigned(Is[0]->Op), R) << Text;
    for (const Diagnostic &D : checkModule(*P.M))
      EXPECT_EQ(D.Message.find("operands, found"), std::string::npos) << Text << ": " << D.Message;
    EXPECT_EQ(roundTrip(*P.M), "") << Text;
  }
}

TEST(PtxPrinter, CanonicalInstructionText) {
  auto M = parseBody("@!%p1 ld.global.v2.f32 {%f1, %f2}, [%rd1+-8];\n"
                     "setp.lt.and.s32 %p1|%p2, %r1, 3, !%p3;\n"
                     "mov.u32 %r1, %tid.x;\n");
  auto Is = instructions(*M);
  ASSERT_EQ(Is.size(), 3u);
  auto Text = [](const Instruction &I) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    printInstruction(I, OS);
    return S;
  };
  EXPECT_EQ(Text(*Is[0]), "@!%p1 ld.global.v2.f32 {%f1, %f2}, [%rd1-8];");
  EXPECT_EQ(Text(*Is[1]), "setp.lt.and.s32 %p1|%p2, %r1, 3, !%p3;");
  EXPECT_EQ(Text(*Is[2]), "mov.u32 %r1, %tid.x;");
}

} // namespace
