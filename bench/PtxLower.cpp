//===- PtxLower.cpp - PTX front-end throughput against ptxas -----------------===//
/// \file
/// ferry-bench-ptx: how fast ferry turns PTX into SIMT IR on one core, in MB
/// of PTX text per second, next to the time NVIDIA's ptxas takes on the same
/// files in the same run. Three figures, so a shortfall can be placed:
///   ptx.parse_mbs      parse + check (ferry::ptx::parseAndCheck)
///   ptx.lower_mbs      parse + check + lower to SIMT IR (lowerText with
///                      the cleanup and verify passes off)
///   ptx.pipeline_mbs   the whole lowerText pipeline as a module load runs
///                      it: + cleanup (SROA, instcombine, simplifycfg) + verify
/// Usage: ferry-bench-ptx PTXAS|- LIST   (LIST: one PTX path a line; files
/// whose name contains ".rdc." are relocatable and get ptxas -c)
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "ptx/lower/Lower.h"
#include "ptx/parser/Parser.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <fstream>
#include <sstream>

using namespace ferry::bench;

namespace {

struct PtxFile {
  std::string Path;
  std::string Text;
  bool Ok = true;
};

enum class Stage { Parse, Lower, Pipeline };

/// One pass over every file; returns seconds and marks files that fail at
/// module level (they are left out of the figures and counted).
double runAll(std::vector<PtxFile> &Files, Stage S) {
  ferry::ptx::LowerOptions Opts;
  Opts.Cleanup = Opts.Verify = S == Stage::Pipeline;
  auto T0 = Clock::now();
  for (PtxFile &F : Files) {
    if (!F.Ok)
      continue;
    std::string Err;
    if (S == Stage::Parse) {
      if (auto M = ferry::ptx::parseAndCheck(F.Text, F.Path); !M)
        Err = llvm::toString(M.takeError());
    } else {
      llvm::LLVMContext Ctx;
      if (auto R = ferry::ptx::lowerText(F.Text, F.Path, Ctx, Opts); !R)
        Err = llvm::toString(R.takeError());
    }
    if (!Err.empty()) {
      std::fprintf(stderr, "ferry-bench-ptx: %s: %.200s\n", F.Path.c_str(), Err.c_str());
      F.Ok = false;
    }
  }
  return secondsSince(T0);
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 3) {
    std::fprintf(stderr, "usage: ferry-bench-ptx PTXAS|- LIST\n");
    return 2;
  }
  std::string Ptxas = Argv[1];
  std::vector<PtxFile> Files;
  std::ifstream List(Argv[2]);
  for (std::string Line; std::getline(List, Line);) {
    if (Line.empty())
      continue;
    std::ifstream In(Line, std::ios::binary);
    if (!In)
      continue;
    std::ostringstream S;
    S << In.rdbuf();
    Files.push_back({Line, S.str()});
  }
  if (Files.empty()) {
    std::fprintf(stderr, "ferry-bench-ptx: no PTX files listed in %s\n", Argv[2]);
    return 3;
  }
  // The first pass finds the files that do not lower and warms the caches;
  // then the best of kReps passes over the rest, for each stage.
  runAll(Files, Stage::Pipeline);
  double Bytes = 0;
  int Failed = 0;
  for (const PtxFile &F : Files) {
    if (F.Ok)
      Bytes += F.Text.size();
    Failed += !F.Ok;
  }
  report("ptx.files", double(Files.size() - Failed));
  report("ptx.failed", Failed);
  report("ptx.mbytes", Bytes / 1e6);
  report("ptx.parse_mbs", Bytes / 1e6 / bestOf(kReps, [&] { runAll(Files, Stage::Parse); }));
  report("ptx.lower_mbs", Bytes / 1e6 / bestOf(kReps, [&] { runAll(Files, Stage::Lower); }));
  report("ptx.pipeline_mbs",
         Bytes / 1e6 / bestOf(kReps, [&] { runAll(Files, Stage::Pipeline); }));
  if (Ptxas == "-")
    return 0;
  // ptxas, one process per file as a build runs it, on the same files.
  double PtxasT = 0;
  for (const PtxFile &F : Files) {
    if (!F.Ok)
      continue;
    std::string Arch = "sm_80";
    if (auto P = F.Text.find(".target sm_"); P != std::string::npos)
      Arch = F.Text.substr(P + 8, F.Text.find_first_of(" ,\n\r", P + 8) - (P + 8));
    std::vector<std::string> Cmd = {Ptxas, "-arch=" + Arch, F.Path, "-o", "/dev/null"};
    if (F.Path.find(".rdc.") != std::string::npos)
      Cmd.insert(Cmd.begin() + 1, "-c");
    double S = runTimed(Cmd);
    if (S < 0) {
      std::fprintf(stderr, "ferry-bench-ptx: ptxas failed on %s\n", F.Path.c_str());
      return 0;
    }
    PtxasT += S;
  }
  report("ptx.ptxas_s", PtxasT);
  report("ptx.ptxas_mbs", Bytes / 1e6 / PtxasT);
  return 0;
}
