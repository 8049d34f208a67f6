//===- DiagnosticTest.cpp - malformed input ----------------------------------===//
/// \file
/// Bad PTX snippets, each with the diagnostic it must produce (message text
/// and line:column, worked out by hand from the snippet), plus robustness:
/// every prefix of a valid module and a set of mangled inputs must parse
/// without crashing.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <cstring>

using namespace ferry::ptx;
using namespace ferry::ptx::test;

namespace {

struct BadBody {
  const char *Body;     ///< Placed at line BodyFirstLine of wrapBody().
  unsigned LineOffset;  ///< Line of the diagnostic relative to the body start.
  unsigned Col;
  const char *Message;  ///< Expected substring of the first diagnostic.
};

const BadBody BadBodies[] = {
    {"foo.u32 %r1, %r2;", 0, 1, "unknown instruction 'foo'"},
    {"add.q32 %r1, %r2, %r3;", 0, 4, "unknown modifier '.q32' on 'add'"},
    {"ld.global.u32.L9::x %r1, [%rd1];", 0, 14, "unknown modifier '.L9::x' on 'ld'"},
    {"add.s32 %r1, %r2;", 0, 1, "'add' takes 3 operands, found 2"},
    {"ret %r1;", 0, 1, "'ret' takes 0 operands, found 1"},
    {"add.s32 %r1, %r2, %zz;", 0, 19, "use of undeclared identifier '%zz'"},
    {"bra L_nowhere;", 0, 5, "use of undeclared identifier 'L_nowhere'"},
    {"add.s32 %r1, %r2, %r3\nmov.u32 %r1, 0;", 1, 1, "expected ';' after the instruction"},
    {"add.s32 %rd1, %r2, %r3;", 0, 9, "register '%rd1' is 64 bits wide but 'add.s32' needs 32"},
    {"add.u32 %r1, %p1, %r3;", 0, 14, "register '%p1' of type .pred used with .u32"},
    {"ld.eq.u32 %r1, [%rd1];", 0, 1, "modifier '.eq' is not valid on 'ld'"},
    {"@%r1 bra L_end;", 0, 2, "guard '%r1' is not a .pred register"},
    {"@%nope bra L_end;", 0, 2, "use of undeclared identifier '%nope'"},
    {"setp.lt.s32 %r1, %r2, %r3;", 0, 13, "setp destination must be a .pred register"},
    {"ld.global.u32 %r1, %rd1;", 0, 20, "operand 2 of 'ld' must be an address"},
    {"st.global.u32 %rd1, %r1;", 0, 15, "operand 1 of 'st' must be an address"},
    {".reg .b32 %x;\n.reg .b32 %x;", 1, 11, "redeclaration of '%x'"},
    {"mov.u32 %r1, 1/0;", 0, 15, "division by zero in constant expression"},
    {"mov.u32 %r1, 99999999999999999999999;", 0, 14, "invalid integer literal"},
    {"mov.u32 %r1, ;", 0, 14, "expected an operand"},
    {"bra %r1x;", 0, 5, "use of undeclared identifier '%r1x'"},
    {"mov.u32 %r1, %tid.q;", 0, 18, "unknown register component"},
    {"L_end:\nret;", 2, 1, "duplicate label 'L_end'"}, // The wrapper's own L_end.
    {"bra p;", 0, 5, "branch target 'p' is not a label"},
    {".reg .b32 %q<0>;", 0, 11, "register range count out of bounds"},
    {"call nothere, (p);", 0, 6, "use of undeclared identifier 'nothere'"},
    {"call %rd1, (p);", 0, 1, "indirect call needs a .callprototype or .calltargets operand"},
    {"mov.u32 %r1, \"str\";", 0, 14, "expected an operand"},
    {".foo .b32 %y;", 0, 1, "unknown declaration attribute '.foo'"},
    {"ld.global.u32 %r1, [%p1];", 0, 20, "predicate register '%p1' used as an address"},
    {"selp.b32 %r1, %r2, %r3, %r4;", 0, 25, "selp selector must be a .pred register"},
    {"ld.global.v4.f32 {%f1, %f2}, [%rd1];", 0, 18, "vector operand has 2 elements but '.v4' needs 4"},
    {"ld.global.f32 {%f1, %f2}, [%rd1];", 0, 15, "vector operand needs a .v2/.v4/.v8 modifier"},
    {"st.global.v2.f32 [%rd1], %f1;", 0, 26, "'.v2' needs a {vector} operand"},
    {"ld.global.u64 %r1, [%rd1];", 0, 15, "register '%r1' is 32 bits wide, narrower than .u64"},
    {"st.global.v2.f32 [%rd1], {%f1, %rs1};", 0, 32, "register '%rs1' is 16 bits wide, narrower than .f32"},
    {"mov.b32 %p1, %r1;", 0, 9, "register '%p1' of type .pred used with .b32"},
    {"setp.s32 %p1, %r1, %r2;", 0, 1, "'setp' needs a comparison operator"},
    {"atom.global.u32 %r1, [%rd1], 1;", 0, 1, "'atom' needs an operation"},
    {"add.s32 %r1, -%r2, %r3;", 0, 15, "a negated register is valid only on vmad sources"},
    {"vadd.s32.s32.s32 %r1, %r2.b7654, %r3;", 0, 23, "lane selector '.b7654' is valid only on SIMD video"},
    {"vadd4.s32.s32.s32 %r1, %r2.b8765, %r3, %r4;", 0, 27, "unknown register component"},
    {"t: .branchtargets L_end, nowhere;\nbrx.idx %r1, t;", 0, 1, "'nowhere' in a target list is not a label"},
};

TEST(PtxDiagnostics, BadBodies) {
  for (const BadBody &B : BadBodies) {
    auto Diags = diagnose(wrapBody(B.Body));
    ASSERT_FALSE(Diags.empty()) << B.Body;
    const Diagnostic &D = Diags[0];
    EXPECT_NE(D.Message.find(B.Message), std::string::npos) << B.Body << "\n got: " << D.Message;
    EXPECT_EQ(D.Loc.Line, BodyFirstLine + B.LineOffset) << B.Body << "\n got: " << D.Message;
    EXPECT_EQ(D.Loc.Col, B.Col) << B.Body << "\n got: " << D.Message;
  }
}

struct BadModule {
  const char *Text;
  unsigned Line, Col;
  const char *Message;
};

const BadModule BadModules[] = {
    {".target sm_80\n", 1, 1, "missing .version directive"},
    {".version 9.0\n.target sm_9x\n", 2, 9, "invalid target 'sm_9x'"},
    {".version 9.0\n.target gfx90a\n", 2, 9, "unknown target 'gfx90a'"},
    {".version 9.0\n.address_size 48\n", 2, 1, "address size must be 32 or 64"},
    {".version 9.0\n.global .b32 x\n.global .b32 y;\n", 3, 1, "expected ';' after the declaration"},
    {".version 9.0\n.foo 3;\n", 2, 1, "unknown declaration attribute '.foo'"},
    {".version 9.0\nadd.s32 %r1, %r2, %r3;\n", 2, 1, "expected a directive at module scope"},
    {".version 9.0\n.entry k(\n{\n}\n", 3, 1, "expected a type in the declaration"},
    {".version 9.0\n.entry k()\n{\n\tret;\n", 5, 1, "expected '}' closing the block"},
    {".version 9.0\n.global .align 3 .b32 x;\n", 2, 9, "alignment must be a power of two"},
    {".version 9.0\n.global .u32 .f32 x;\n", 2, 14, "more than one type in a declaration"},
    {".version 9.0\n.global .u32 x[0];\n", 2, 16, "array dimension must be positive"},
    {".version 9.0\n.section .debug_info {\n.b8 1\n", 2, 1, "unterminated .section"},
    {".version 9.0\n.global .u32 x = {1, 2;\n", 2, 23, "expected '}' closing the initializer"},
    {".version 9.0\n.entry k() .maxntid x\n{\n}\n", 2, 21, "expected a number"},
    {".version 9.0\n.entry k() .bogus 1\n{\n}\n", 2, 12, "unknown function directive"},
    {".version 9.0\n.alias a, nothere;\n.func a()\n{\nret;\n}\n", 2, 1, "alias target 'nothere' is not a function"},
    {".version 9.0\n/* unterminated comment\n", 2, 1, "expected a directive at module scope"},
    {".version 9.0\n.file 1 \"unterminated\n", 2, 9, "expected a file name string"},
    {".version 9.0\n.global .u8 m = 0xF0(m);\n", 2, 17, "mask must be 0xFF shifted by whole bytes"},
};

TEST(PtxDiagnostics, BadModules) {
  for (const BadModule &B : BadModules) {
    auto Diags = diagnose(B.Text);
    ASSERT_FALSE(Diags.empty()) << B.Text;
    const Diagnostic &D = Diags[0];
    EXPECT_NE(D.Message.find(B.Message), std::string::npos) << B.Text << "\n got: " << D.Message;
    EXPECT_EQ(D.Loc.Line, B.Line) << B.Text << "\n got: " << D.Message;
    EXPECT_EQ(D.Loc.Col, B.Col) << B.Text << "\n got: " << D.Message;
  }
}

TEST(PtxDiagnostics, FormatAndRecovery) {
  // Two independent errors are both reported: the parser resumes after ';'.
  auto Diags = diagnose(wrapBody("foo %r1;\nbaz %r2;\nmov.u32 %r1, 1;"));
  ASSERT_EQ(Diags.size(), 2u);
  EXPECT_EQ(Diags[0].format("x.ptx"), "x.ptx:17:1: unknown instruction 'foo'");
  EXPECT_EQ(Diags[1].Loc.Line, 18u);
  // parseAndCheck folds diagnostics into an llvm::Error.
  auto E = parseAndCheck(wrapBody("foo %r1;"), "y.ptx");
  ASSERT_FALSE(bool(E));
  std::string Msg = llvm::toString(E.takeError());
  EXPECT_EQ(Msg, "y.ptx:17:1: unknown instruction 'foo'");
  auto Ok = parseAndCheck(wrapBody("mov.u32 %r1, 1;"), "z.ptx");
  ASSERT_TRUE(bool(Ok)) << llvm::toString(Ok.takeError());
  // The diagnostic cap holds.
  std::string Many;
  for (int I = 0; I < 100; ++I)
    Many += "foo;\n";
  ParseResult R = parse(wrapBody(Many), "m.ptx", 10);
  EXPECT_EQ(R.Diags.size(), 10u);
}

TEST(PtxDiagnostics, EveryPrefixParsesWithoutCrashing) {
  std::string Text = wrapBody("@%p1 ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];\n"
                              "setp.lt.and.s32 %p1|%p2, %r1, (1 << 3), !%p3;\n"
                              "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n"
                              "{\n.param .b32 a;\ncall.uni fn, (a);\n}\n"
                              "mov.f32 %f1, 0f3F800000;\n") +
                     ".global .u64 g[2] = {generic(sm)+4, 0xff(sm)};\n"
                     ".section .debug_info { .b8 1 }\n";
  unsigned Clean = 0;
  for (size_t N = 0; N <= Text.size(); ++N) {
    // Copy the prefix into its own allocation so ASan sees any over-read.
    std::unique_ptr<char[]> Buf(new char[N ? N : 1]);
    std::memcpy(Buf.get(), Text.data(), N);
    ParseResult R = parse(llvm::StringRef(Buf.get(), N), "prefix");
    if (R.ok()) {
      ++Clean;
      (void)checkModule(*R.M);
      (void)printModule(*R.M);
    }
  }
  EXPECT_GT(Clean, 0u); // The whole text is one of the prefixes.
}

TEST(PtxDiagnostics, MangledInputsDoNotCrash) {
  const char *Inputs[] = {
      "",       "\0\0\0", "{",         "}",          ".version",      ".version 9.0\n.entry",
      ".entry k(", "@",   "@!",        ".version 9.0\n.entry k(){@%p bra",
      ".version 9.0\n.entry k(){ld.global.f32 %f1, [", ".version 9.0\n.entry k(){mov.u32 %r, ((((((1",
      ".version 9.0\n.global .u8 x[] = {{{{{{", "\"\\", "0f", "0f3F8", "%", "%%%%", ".version 9.0\n.entry k(){ .reg .b32 %r<",
      ".version 9.0\n.entry k(){ a: .callprototype (", ".version 9.0\n.entry k(){ t: .branchtargets",
      ".version 9.0\n.entry k(){ call (", ".version 9.0\n.entry k(){ tex.2d [a, {", "\xff\xfe\x01.version",
  };
  for (const char *In : Inputs) {
    ParseResult R = parse(In, "mangled");
    if (R.ok())
      (void)checkModule(*R.M);
  }
  // Deep nesting of braces must not blow the stack at modest depth.
  std::string Deep = ".version 9.0\n.entry k()\n";
  for (int I = 0; I < 2000; ++I)
    Deep += "{";
  ParseResult R = parse(Deep, "deep");
  EXPECT_FALSE(R.ok());
  SUCCEED();
}

} // namespace
