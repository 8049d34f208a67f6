/// \file
/// `ferry inspect` as a user runs it: --dump-ptx writes exactly nvcc's PTX
/// (after the embedding transform, see NvccSamples.h) under predictable
/// names, --json is valid JSON with the facts, --sm marks the choice, and
/// bad input exits 1 with a message naming an offset.
#include "NvccSamples.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace ferry::fatbin::test;
namespace fs = std::filesystem;

namespace {

struct ToolRun {
  int Code;
  std::string Out, Err;
};

ToolRun inspect(const std::string &Args, const fs::path &Dir) {
  fs::path Out = Dir / "stdout.txt", Err = Dir / "stderr.txt";
  std::string Cmd = std::string(FERRY_TOOL) + " inspect " + Args + " >" + Out.string() + " 2>" +
                    Err.string();
  int Status = std::system(Cmd.c_str());
  int Code = WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  return {Code, readText(Out.string()), readText(Err.string())};
}

fs::path freshDir(const char *Name) {
  fs::path D = fs::path(::testing::TempDir()) / ("ferry-inspect-" + std::string(Name));
  fs::remove_all(D);
  fs::create_directories(D);
  return D;
}

#define REQUIRE_SAMPLES()                                                                          \
  if (!haveSamples())                                                                              \
  GTEST_SKIP() << "nvcc was not found at configure time; no samples"

} // namespace

TEST(FerryInspect, DumpPtxWritesNvccPtx) {
  REQUIRE_SAMPLES();
  fs::path D = freshDir("dump");
  ToolRun R = inspect(samplePath("multi.o") + " --dump-ptx " + (D / "ptx").string(), D);
  ASSERT_EQ(R.Code, 0) << R.Err;
  // multi.o has one container; its PTX entries are named by arch.
  struct {
    const char *Arch, *Ref;
  } Want[] = {{"sm_90a", "ref.sm90a.ptx"}, {"sm_86", "ref.sm86.ptx"}, {"sm_100f", "ref.sm100f.ptx"}};
  int Files = 0;
  for (const auto &E : fs::directory_iterator(D / "ptx")) {
    ++Files;
    std::string Name = E.path().filename().string();
    ASSERT_EQ(Name.rfind("multi.o.0.", 0), 0u) << Name;
    bool Matched = false;
    for (const auto &W : Want)
      if (Name.size() > std::strlen(W.Arch) + 4 &&
          Name.substr(Name.size() - std::strlen(W.Arch) - 4) == std::string(W.Arch) + ".ptx") {
        EXPECT_EQ(readText(E.path().string()), embedNormalize(readText(samplePath(W.Ref))))
            << Name;
        Matched = true;
      }
    EXPECT_TRUE(Matched) << Name;
  }
  EXPECT_EQ(Files, 3);
  EXPECT_NE(R.Out.find("kernels: _Z6addOnePii _Z5scaleIfEvPT_S0_i _Z5scaleIdEvPT_S0_i"),
            std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find("arch-specific"), std::string::npos);
}

TEST(FerryInspect, JsonIsValidAndComplete) {
  REQUIRE_SAMPLES();
  fs::path D = freshDir("json");
  ToolRun R = inspect(samplePath("debug.o") + " --json --sm 75", D);
  ASSERT_EQ(R.Code, 0) << R.Err;
  if (std::system("python3 -c 'pass' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3 not available to validate JSON";
  // Parse with an independent JSON reader and check the facts.
  std::string Check =
      "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
      "e=[x for c in d[\"containers\"] for x in c[\"entries\"]]; "
      "p=[x for x in e if x[\"kind\"]==\"ptx\"]; "
      "assert d[\"ok\"] and len(p)==1 and p[0][\"chosen\"]; "
      "assert p[0][\"compression\"]==\"zstd\" and \"debug\" in p[0][\"flag_names\"]; "
      "assert p[0][\"filename\"].endswith(\"kernels.cu\"), p[0][\"filename\"]; "
      "assert \"_Z6addOnePii\" in p[0][\"kernels\"]' " +
      (D / "stdout.txt").string();
  EXPECT_EQ(std::system(Check.c_str()), 0) << R.Out;
}

TEST(FerryInspect, BadInputExitsOneWithOffset) {
  REQUIRE_SAMPLES();
  fs::path D = freshDir("bad");
  // A bare fatbin cut in the middle of its second entry.
  std::string Full = readText(samplePath("kernels.fatbin"));
  ASSERT_GT(Full.size(), 200u);
  {
    std::ofstream(D / "cut.fatbin", std::ios::binary) << Full.substr(0, Full.size() - 100);
  }
  ToolRun R = inspect((D / "cut.fatbin").string(), D);
  EXPECT_EQ(R.Code, 1);
  EXPECT_NE(R.Err.find("offset 0x"), std::string::npos) << R.Err;
  R = inspect((D / "missing").string(), D);
  EXPECT_EQ(R.Code, 1);
  EXPECT_FALSE(R.Err.empty());
  { std::ofstream(D / "junk.bin", std::ios::binary) << std::string("\x01\x02\x03\x04", 4); }
  R = inspect((D / "junk.bin").string(), D);
  EXPECT_EQ(R.Code, 1);
  EXPECT_NE(R.Err.find("not an ELF file, a fatbin or PTX"), std::string::npos) << R.Err;
}

TEST(FerryInspect, ChoiceAndCubin) {
  REQUIRE_SAMPLES();
  fs::path D = freshDir("choice");
  ToolRun R = inspect(samplePath("multi.o") + " --sm 90", D);
  ASSERT_EQ(R.Code, 0) << R.Err;
  size_t Chosen = R.Out.find("<- chosen");
  ASSERT_NE(Chosen, std::string::npos) << R.Out;
  size_t LineStart = R.Out.rfind('\n', Chosen);
  EXPECT_NE(R.Out.substr(LineStart, Chosen - LineStart).find("PTX sm_90a"), std::string::npos)
      << R.Out;
  R = inspect(samplePath("kernels.cubin"), D);
  ASSERT_EQ(R.Code, 0) << R.Err;
  EXPECT_NE(R.Out.find("sm_80 SASS only"), std::string::npos) << R.Out;
}
