//===- LowerTest.cpp - tests of the PTX → SIMT IR lowering ------------------===//
/// \file
/// API-level tests of ptx/lower: the intrinsic table, the parameter layout
/// metadata, per-function error isolation, bad input, and a sweep that
/// lowers every PTX file of the parser's corpus (built into the build tree
/// under tests/ptx-corpus, or named by FERRY_PTX_CORPUS) plus this
/// directory's FileCheck inputs, verifies the IR, and reports how many
/// kernels lowered and which instructions are not lowered yet.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"
#include "ptx/lower/Lower.h"
#include "ptx/parser/Parser.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

using namespace llvm;
using namespace ferry::ptx;

namespace {

const char *Header = ".version 8.5\n.target sm_90\n.address_size 64\n";

Expected<LowerResult> lower(LLVMContext &Ctx, StringRef Body) {
  return lowerText((Twine(Header) + Body).str(), "test.ptx", Ctx);
}

std::vector<std::string> kernelNames(const llvm::Module &M) {
  std::vector<std::string> Out;
  if (NamedMDNode *K = M.getNamedMetadata("ferry.kernels"))
    for (MDNode *N : K->operands())
      Out.push_back(cast<ValueAsMetadata>(N->getOperand(0))->getValue()->getName().str());
  return Out;
}

TEST(PtxLower, EveryIntrinsicRowHasAValidSignature) {
  LLVMContext Ctx;
  llvm::Module M("m", Ctx);
  ferry::ptx::Module P;
  lower::ModuleLowering ML(P, M);
  unsigned N = 0;
#define FERRY_INTRINSIC(Id, Name, ...)                                                          \
  {                                                                                             \
    llvm::Function *F = ML.intrinsic(lower::Intr::Id);                                          \
    ASSERT_NE(F, nullptr);                                                                      \
    EXPECT_EQ(F->getName(), Name);                                                              \
    ++N;                                                                                        \
  }
#include "ptx/lower/SimtIntrinsics.def"
#undef FERRY_INTRINSIC
  EXPECT_GT(N, 60u);
  // Spot checks against the contract's text.
  EXPECT_EQ(M.getFunction("ferry.shfl.sync")->getFunctionType()->getNumParams(), 5u);
  EXPECT_TRUE(M.getFunction("ferry.dynamic_smem")->getReturnType()->isPointerTy());
  EXPECT_EQ(M.getFunction("ferry.dynamic_smem")->getReturnType()->getPointerAddressSpace(), 3u);
  EXPECT_TRUE(M.getFunction("ferry.exit")->doesNotReturn());
  EXPECT_FALSE(verifyModule(M, &errs()));
}

TEST(PtxLower, ParamLayoutFollowsAlignmentRules) {
  LLVMContext Ctx;
  // u8 at 0; u64 aligned to 8; a 16-aligned 32-byte aggregate at 16; u32 at
  // 48: total 52 (CUDA packs kernelParams exactly like this).
  auto R = lower(Ctx, ".visible .entry k(.param .u8 a, .param .u64 b, .param .align 16 .b8 c[32], "
                      ".param .u32 d)\n{\n ret;\n}\n");
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  NamedMDNode *P = R->M->getNamedMetadata("ferry.params");
  ASSERT_NE(P, nullptr);
  ASSERT_EQ(P->getNumOperands(), 1u);
  MDNode *N = P->getOperand(0);
  auto Int = [&](unsigned K) {
    return mdconst::extract<ConstantInt>(N->getOperand(K))->getZExtValue();
  };
  ASSERT_EQ(N->getNumOperands(), 2u + 3 * 4);
  EXPECT_EQ(Int(1), 52u);
  const uint64_t Expect[4][3] = {{0, 1, 1}, {8, 8, 8}, {16, 32, 16}, {48, 4, 4}};
  for (unsigned K = 0; K < 4; ++K)
    for (unsigned J = 0; J < 3; ++J)
      EXPECT_EQ(Int(2 + 3 * K + J), Expect[K][J]) << "param " << K << " field " << J;
  llvm::Function *F = R->M->getFunction("k");
  ASSERT_NE(F, nullptr);
  EXPECT_EQ(F->getParamDereferenceableBytes(0), 52u);
  EXPECT_TRUE(F->hasParamAttribute(0, Attribute::NoAlias));
  EXPECT_EQ(kernelNames(*R->M), std::vector<std::string>{"k"});
}

TEST(PtxLower, UnloweredInstructionFailsOnlyItsFunctionAndCallers) {
  LLVMContext Ctx;
  auto R = lower(Ctx, R"(
.func helper()
{
  .reg .b64 %rd<4>;
  stacksave.u64 %rd1;
  ret;
}
.visible .entry bad()
{
  call.uni helper, ();
  ret;
}
.visible .entry good(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  st.global.u32 [%rd1], 7;
  ret;
}
)");
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(kernelNames(*R->M), std::vector<std::string>{"good"});
  ASSERT_EQ(R->Errors.size(), 2u);
  EXPECT_EQ(R->Errors[0].Function, "helper");
  EXPECT_NE(R->Errors[0].Message.find("not yet lowered: stacksave"), std::string::npos) << R->Errors[0].Message;
  EXPECT_EQ(R->Errors[0].Loc.Line, 8u); // 3 header lines, a blank, .func, {, .reg, stacksave
  EXPECT_EQ(R->Errors[1].Function, "bad");
  EXPECT_TRUE(R->M->getFunction("bad")->isDeclaration());
  EXPECT_FALSE(R->M->getFunction("good")->isDeclaration());
  EXPECT_NE(R->M->getNamedMetadata("ferry.unlowered"), nullptr);
}

TEST(PtxLower, BadInputIsAnErrorNotACrash) {
  LLVMContext Ctx;
  const char *Inputs[] = {
      "", "garbage", ".version 8.5\n.target sm_90\n.address_size 64\n.entry k( {",
      ".version 8.5\n.target sm_90\n.address_size 64\n.entry k() { add.s32 %r1, %r2, 1; }",
  };
  for (const char *In : Inputs) {
    auto R = lowerText(In, "bad.ptx", Ctx);
    EXPECT_FALSE(bool(R)) << In;
    if (!R)
      consumeError(R.takeError());
  }
}

TEST(PtxLower, ModuleScopeVariablesKeepNamesSpacesAndInitialisers) {
  LLVMContext Ctx;
  auto R = lower(Ctx, R"(
.global .align 4 .u32 counter = 5;
.const .align 4 .f32 table[3] = {0f3F800000, 0f40000000};
.global .align 8 .u64 ptr = generic(counter);
.shared .align 4 .b8 tile[64];
.extern .shared .align 16 .b8 dyn[];
.visible .entry k()
{
  .reg .b64 %rd<3>;
  mov.u64 %rd1, dyn;
  st.shared.u32 [%rd1], 1;
  ret;
}
)");
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  GlobalVariable *C = R->M->getGlobalVariable("counter");
  ASSERT_NE(C, nullptr);
  EXPECT_EQ(C->getAddressSpace(), 1u);
  EXPECT_EQ(cast<ConstantInt>(C->getInitializer())->getZExtValue(), 5u);
  GlobalVariable *T = R->M->getGlobalVariable("table");
  ASSERT_NE(T, nullptr);
  EXPECT_EQ(T->getAddressSpace(), 4u);
  auto *Arr = cast<ConstantDataArray>(T->getInitializer());
  EXPECT_EQ(Arr->getNumElements(), 3u);
  EXPECT_EQ(Arr->getElementAsFloat(1), 2.0f);
  EXPECT_EQ(Arr->getElementAsFloat(2), 0.0f);
  GlobalVariable *S = R->M->getGlobalVariable("tile");
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(S->getAddressSpace(), 3u);
  EXPECT_NE(R->M->getGlobalVariable("ptr"), nullptr);
  EXPECT_NE(R->M->getFunction("ferry.dynamic_smem"), nullptr);
}

/// Every .ptx under Dir (recursively).
void collect(const std::string &Dir, std::vector<std::string> &Out) {
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (sys::path::extension(It->path()) == ".ptx")
      Out.push_back(It->path());
}

TEST(PtxLower, CorpusLowersAndVerifies) {
  std::vector<std::string> Files;
  if (const char *Env = std::getenv("FERRY_PTX_CORPUS"))
    collect(Env, Files);
  collect(std::string(FERRY_BINARY_DIR) + "/tests/ptx-corpus", Files);
  size_t OwnTests = Files.size();
  collect(std::string(FERRY_SOURCE_DIR) + "/tests/ptx-lower", Files);
  unsigned Kernels = 0, KernelsLowered = 0, Funcs = 0, FuncsFailed = 0;
  std::map<std::string, unsigned> Missing;
  for (const std::string &F : Files) {
    auto Buf = MemoryBuffer::getFile(F);
    ASSERT_TRUE(bool(Buf)) << F;
    LLVMContext Ctx;
    auto R = lowerText((*Buf)->getBuffer(), F, Ctx);
    ASSERT_TRUE(bool(R)) << F << ": " << toString(R.takeError());
    EXPECT_FALSE(verifyModule(*R->M, &errs())) << F;
    for (const llvm::Function &Fn : *R->M)
      if (!Fn.getName().starts_with("ferry.") && !Fn.isIntrinsic())
        ++Funcs;
    FuncsFailed += R->Errors.size();
    NamedMDNode *P = R->M->getNamedMetadata("ferry.params");
    Kernels += P ? P->getNumOperands() : 0;
    KernelsLowered += kernelNames(*R->M).size();
    for (const KernelError &E : R->Errors) {
      StringRef Msg = E.Message;
      if (Msg.consume_front("not yet lowered: "))
        ++Missing[Msg.split(' ').first.str()];
    }
  }
  std::printf("[corpus] %zu files (%zu corpus, %zu FileCheck inputs): %u/%u kernels lowered, "
              "%u of %u functions not lowered\n",
              Files.size(), OwnTests, Files.size() - OwnTests, KernelsLowered, Kernels, FuncsFailed, Funcs);
  for (auto &[Insn, N] : Missing)
    std::printf("[corpus] not lowered: %s (%u)\n", Insn.c_str(), N);
  EXPECT_GT(Files.size(), 0u);
}

} // namespace
