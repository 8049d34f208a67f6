//===- CorpusTest.cpp - the nvcc-generated PTX corpus ------------------------===//
/// \file
/// Every PTX file nvcc made from tests/ptx-corpus/*.cu (six architectures and
/// -G builds) must parse and check with zero diagnostics and round-trip to an
/// equal module. Also logs the parse throughput (not asserted: CI machines
/// vary), and checks a few facts every nvcc module has, so an empty or
/// truncated corpus cannot pass silently.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <set>

using namespace ferry::ptx;
using namespace ferry::ptx::test;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(FERRY_PTX_CORPUS_DIR, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".ptx")
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

TEST(PtxCorpus, ParsesChecksAndRoundTrips) {
  std::vector<std::string> Files = corpusFiles();
  if (Files.empty())
    GTEST_SKIP() << "no corpus in " << FERRY_PTX_CORPUS_DIR << " (nvcc not available at build time)";
  EXPECT_GE(Files.size(), 60u) << "corpus incomplete";
  size_t Bytes = 0, Instructions = 0;
  double Seconds = 0;
  std::set<unsigned> Archs;
  bool SawDebug = false, SawArchSpecific = false;
  for (const std::string &Path : Files) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buf)) << Path;
    llvm::StringRef Text = (*Buf)->getBuffer();
    auto T0 = std::chrono::steady_clock::now();
    ParseResult R = parse(Text, Path);
    Seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
    Bytes += Text.size();
    for (const Diagnostic &D : R.Diags)
      ADD_FAILURE() << D.format(Path);
    if (!R.ok())
      continue;
    for (const Diagnostic &D : checkModule(*R.M))
      ADD_FAILURE() << D.format(Path) << " [check]";
    std::string RT = roundTrip(*R.M);
    EXPECT_TRUE(RT.empty()) << Path << ": " << RT.substr(0, 2000);
    // Facts true of every nvcc module.
    EXPECT_GE(R.M->VersionMajor, 8u) << Path;
    EXPECT_EQ(R.M->AddressSize, 64u) << Path;
    Archs.insert(R.M->Target.SmVersion);
    SawDebug |= R.M->Target.Debug;
    SawArchSpecific |= R.M->Target.ArchSuffix == 'a';
    unsigned Kernels = 0;
    for (const Node *N : R.M->Items)
      if (auto *F = llvm::dyn_cast<Function>(N); F && F->IsEntry && F->Body) {
        ++Kernels;
        for (const Node *S : F->Body->Body)
          Instructions += llvm::isa<Instruction>(S);
      }
    EXPECT_GT(Kernels, 0u) << Path;
  }
  EXPECT_EQ(Archs, (std::set<unsigned>{75, 80, 86, 89, 90, 120}));
  EXPECT_TRUE(SawDebug) << "no -G module in the corpus";
  EXPECT_TRUE(SawArchSpecific) << "no sm_90a module in the corpus";
  // Throughput: best of three parse-only passes over the corpus (the first
  // pass above also paid for cold caches).
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Bufs;
  for (const std::string &Path : Files)
    Bufs.push_back(std::move(*llvm::MemoryBuffer::getFile(Path)));
  for (int Pass = 0; Pass < 3; ++Pass) {
    auto T0 = std::chrono::steady_clock::now();
    for (const auto &B : Bufs)
      (void)parse(B->getBuffer(), "bench");
    Seconds = std::min(Seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count());
  }
  std::printf("[ptx-corpus] %zu files, %.1f MB, %zu kernel-level instructions, parse %.1f MB/s\n", Files.size(),
              Bytes / 1e6, Instructions, Bytes / Seconds / 1e6);
}

} // namespace
