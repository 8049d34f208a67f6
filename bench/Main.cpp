//===- Main.cpp - ferry-bench: every benchmark, one table --------------------===//
/// \file
/// ferry-bench runs each side of each comparison as its own child process
/// (ferry-bench-ref: the C loops; ferry-bench-cuda: ferry's libcuda.so.1;
/// ferry-bench-ocl: PoCL; ferry-bench-ptx: the PTX front end and ptxas),
/// one after the other on the same cores, collects their "FERRY-BENCH key
/// value" lines and prints one line per goal: the figure, the reference
/// measured in this run, the ratio, the goal, PASS or SHORT. A side that is
/// not built (no nvcc, no OpenCL) is reported as skipped, never as a pass.
///
/// Options: --no-ptx, --no-ocl (leave a slow side out), --raw (also print
/// every key collected).
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include <unistd.h>

using namespace ferry::bench;
namespace fs = std::filesystem;

namespace {

std::map<std::string, double> Figures;

fs::path binDir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

/// Whether a newly read V for Key is better than the one kept: times (keys
/// ending in _us or _ms) lower, everything else higher.
bool better(const std::string &Key, double V, double Kept) {
  bool Time = Key.ends_with("_us") || Key.ends_with("_ms");
  return Time ? V < Kept : V > Kept;
}

/// Runs a child with a shell-quoted command line, echoing nothing but its
/// stderr, and records its FERRY-BENCH lines; with Best, a figure already
/// recorded is kept unless the new one is better. Returns false when the
/// child failed.
bool collect(const std::string &What, const std::string &Cmd, bool Best = false) {
  std::fprintf(stderr, "ferry-bench: %s...\n", What.c_str());
  FILE *P = popen(Cmd.c_str(), "r");
  if (!P)
    return false;
  char Line[512];
  while (std::fgets(Line, sizeof(Line), P)) {
    char Key[256];
    double V;
    if (std::sscanf(Line, "FERRY-BENCH %255s %lf", Key, &V) == 2) {
      auto It = Figures.find(Key);
      if (!Best || It == Figures.end() || better(Key, V, It->second))
        Figures[Key] = V;
    }
  }
  int Status = pclose(P);
  if (Status != 0)
    std::fprintf(stderr, "ferry-bench: %s exited with status %d\n", What.c_str(), Status);
  return Status == 0;
}

std::string quote(const std::string &S) {
  std::string Q = "'";
  for (char C : S)
    Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Q + "'";
}

std::optional<double> get(const std::string &K) {
  auto It = Figures.find(K);
  if (It == Figures.end())
    return std::nullopt;
  return It->second;
}

std::string cpuModel() {
  std::ifstream In("/proc/cpuinfo");
  for (std::string Line; std::getline(In, Line);)
    if (Line.rfind("model name", 0) == 0)
      return Line.substr(Line.find(':') + 2);
  return "unknown CPU";
}

std::string loadAvg() {
  std::ifstream In("/proc/loadavg");
  std::string A, B, C;
  In >> A >> B >> C;
  return A + " " + B + " " + C;
}

std::string fmt(std::optional<double> V, const char *Unit) {
  if (!V)
    return "n/a";
  char Buf[64] = "";
  std::snprintf(Buf, sizeof(Buf), *V >= 100 ? "%.0f %s" : *V >= 10 ? "%.1f %s" : "%.2f %s", *V,
                Unit);
  return Buf;
}

/// Info rows carry no goal: they explain another row's figure.
enum class Goal { RatioAtLeast, ValueAtMost, ValueAtLeast, Info };

struct Row {
  std::string Name;
  std::string Key;
  const char *Unit;
  std::string RefName;
  std::string RefKey;
  const char *RefUnit;
  Goal Kind;
  double Limit;
};

void printRow(const Row &R) {
  auto V = get(R.Key);
  auto Ref = get(R.RefKey);
  std::string Ratio = "n/a", GoalText, Verdict;
  char Buf[64] = "";
  if (V && Ref && *Ref > 0) {
    double Q = *V / *Ref;
    bool Percent = (R.Kind == Goal::RatioAtLeast && R.Limit < 1) || R.Kind == Goal::Info;
    std::snprintf(Buf, sizeof(Buf), Percent ? (Q < 0.1 ? "%.2f%%" : "%.0f%%") : "%.2fx",
                  Percent ? Q * 100 : Q);
    Ratio = Buf;
  }
  switch (R.Kind) {
  case Goal::RatioAtLeast:
    std::snprintf(Buf, sizeof(Buf), R.Limit < 1 ? ">= %.0f%%" : ">= %.1fx",
                  R.Limit < 1 ? R.Limit * 100 : R.Limit);
    Verdict = !V || !Ref ? "SKIP" : *V / *Ref >= R.Limit ? "PASS" : "SHORT";
    break;
  case Goal::ValueAtMost:
    std::snprintf(Buf, sizeof(Buf), "<= %g %s", R.Limit, R.Unit);
    Verdict = !V ? "SKIP" : *V <= R.Limit ? "PASS" : "SHORT";
    break;
  case Goal::ValueAtLeast:
    std::snprintf(Buf, sizeof(Buf), ">= %g %s", R.Limit, R.Unit);
    Verdict = !V ? "SKIP" : *V >= R.Limit ? "PASS" : "SHORT";
    break;
  case Goal::Info:
    std::snprintf(Buf, sizeof(Buf), "-");
    Verdict = "(info)";
    break;
  }
  GoalText = Buf;
  std::string RefText = fmt(Ref, R.RefUnit) + " (" + R.RefName + ")";
  std::printf("%-30s %-13s %-34s %-8s %-12s %s\n", R.Name.c_str(), fmt(V, R.Unit).c_str(),
              RefText.c_str(), Ratio.c_str(), GoalText.c_str(), Verdict.c_str());
}

} // namespace

int main(int Argc, char **Argv) {
  bool Ptx = true, Ocl = true, Raw = false;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--no-ptx"))
      Ptx = false;
    else if (!std::strcmp(Argv[I], "--no-ocl"))
      Ocl = false;
    else if (!std::strcmp(Argv[I], "--raw"))
      Raw = true;
    else {
      std::fprintf(stderr, "usage: ferry-bench [--no-ptx] [--no-ocl] [--raw]\n");
      return 2;
    }
  }
  fs::path Bin = binDir();
  std::string LoadBefore = loadAvg();

  fs::path PtxDir = FERRY_BENCH_PTX_DIR;
  bool HaveCuda = fs::exists(Bin / "ferry-bench-cuda") && fs::exists(PtxDir / "sgemm.ptx");
  // The memory bandwidth of a shared machine drifts over seconds (a VM's
  // host, a neighbour's job), so the C references and ferry's kernels take
  // turns, kRounds times each, and each keeps its best figure: a ratio then
  // compares both sides at the machine's best, not one side's good moment
  // with the other's bad one.
  for (int Round = 0; Round < kRounds; ++Round) {
    std::string Of = " (round " + std::to_string(Round + 1) + " of " + std::to_string(kRounds) + ")";
    collect("C references (STREAM triad/read, FMA peak)" + Of, quote(Bin / "ferry-bench-ref"), true);
    if (HaveCuda)
      collect("ferry: bandwidth, reduction, SGEMM, launch" + Of,
              quote(Bin / "ferry-bench-cuda") + " run " + quote(PtxDir), true);
  }
  if (HaveCuda) {
    // Cold and cached module load, each both as a process's first module
    // and in a process that has already loaded and run another one. Fresh
    // processes over fresh, empty code caches: a run with an empty cache
    // compiles, the next one over the same cache reads.
    auto Load = [&](const std::string &Cache, bool Warm, const char *Key) {
      std::string Cmd = "CUDA_CACHE_DISABLE=0 CUDA_CACHE_PATH=" + quote(Cache) + " " +
                        quote(Bin / "ferry-bench-cuda") + " load " + quote(PtxDir / "sgemm.ptx") +
                        " sgemm_tiled" + (Warm ? " " + quote(PtxDir / "empty.ptx") : "");
      Figures.erase("ferry.load_ms");
      if (collect(std::string("ferry: module load, ") + Key, Cmd) && get("ferry.load_ms"))
        Figures[Key] = Figures["ferry.load_ms"];
    };
    char First[] = "/tmp/ferry-bench-cache-XXXXXX", Second[] = "/tmp/ferry-bench-cache-XXXXXX";
    if (mkdtemp(First) && mkdtemp(Second)) {
      Load(First, true, "ferry.cold_warm_ms");
      Load(First, false, "ferry.cached_first_ms");
      Load(First, true, "ferry.cached_warm_ms");
      Load(Second, false, "ferry.cold_first_ms");
      fs::remove_all(First);
      fs::remove_all(Second);
    }
    std::string Ptxas = FERRY_BENCH_PTXAS;
    if (!Ptxas.empty()) {
      double Best = 1e30;
      for (int I = 0; I < kReps; ++I)
        if (double S = runTimed({Ptxas, "-arch=sm_80", PtxDir / "sgemm.ptx", "-o", "/dev/null"});
            S >= 0)
          Best = std::min(Best, S);
      if (Best < 1e30)
        Figures["ptxas.sgemm_ms"] = Best * 1e3;
    }
  } else {
    std::fprintf(stderr, "ferry-bench: ferry side not built (needs nvcc and libcuda)\n");
  }

  if (Ocl && fs::exists(Bin / "ferry-bench-ocl"))
    collect("PoCL: the same kernels in OpenCL C",
            quote(Bin / "ferry-bench-ocl") + " " + quote(FERRY_BENCH_CL_FILE));
  else if (Ocl)
    std::fprintf(stderr, "ferry-bench: PoCL side not built (needs OpenCL headers/loader)\n");

  fs::path Corpus = FERRY_BENCH_CORPUS_LIST;
  if (Ptx && fs::exists(Bin / "ferry-bench-ptx") && fs::exists(Corpus))
    collect("PTX parse+lower and ptxas",
            quote(Bin / "ferry-bench-ptx") + " " +
                quote(std::string(FERRY_BENCH_PTXAS).empty() ? "-" : FERRY_BENCH_PTXAS) + " " +
                quote(Corpus));
  else if (Ptx)
    std::fprintf(stderr, "ferry-bench: PTX corpus not built (cmake --build build --target "
                         "bench_ptx_corpus)\n");

  std::printf("\nferry-bench on %s, %u cores; load average %s before, %s after\n",
              cpuModel().c_str(), std::thread::hardware_concurrency(), LoadBefore.c_str(),
              loadAvg().c_str());
  std::printf("%-30s %-13s %-34s %-8s %-12s %s\n", "benchmark", "ferry", "reference", "ratio",
              "goal", "result");
  const Row Rows[] = {
      {"vector add", "ferry.vecadd_gbs", "GB/s", "C STREAM triad", "ref.triad_gbs", "GB/s",
       Goal::RatioAtLeast, 0.85},
      {"triad", "ferry.triad_gbs", "GB/s", "C STREAM triad", "ref.triad_gbs", "GB/s",
       Goal::RatioAtLeast, 0.85},
      {"shuffle reduction", "ferry.reduce_gbs", "GB/s", "C STREAM read", "ref.read_gbs", "GB/s",
       Goal::RatioAtLeast, 0.60},
      {"  same read order in C", "ferry.reduce_gbs", "GB/s", "C, kernel's order", "ref.grid_read_gbs",
       "GB/s", Goal::Info, 0},
      {"tiled SGEMM 512", "ferry.sgemm_gflops", "GF/s", "FMA-loop peak", "ref.peak_gflops",
       "GF/s", Goal::RatioAtLeast, 0.40},
      {"vector add vs PoCL", "ferry.vecadd_gbs", "GB/s", "PoCL", "pocl.vecadd_gbs", "GB/s",
       Goal::RatioAtLeast, 1.5},
      {"triad vs PoCL", "ferry.triad_gbs", "GB/s", "PoCL", "pocl.triad_gbs", "GB/s",
       Goal::RatioAtLeast, 1.5},
      {"reduction vs PoCL", "ferry.reduce_gbs", "GB/s", "PoCL", "pocl.reduce_gbs", "GB/s",
       Goal::RatioAtLeast, 1.5},
      {"tiled SGEMM vs PoCL", "ferry.sgemm_gflops", "GF/s", "PoCL", "pocl.sgemm_gflops", "GF/s",
       Goal::RatioAtLeast, 1.5},
      {"empty launch + sync", "ferry.launch_us", "us", "PoCL enqueue+finish", "pocl.launch_us",
       "us", Goal::ValueAtMost, 10},
      {"cold compile, first module", "ferry.cold_first_ms", "ms", "ptxas, same PTX",
       "ptxas.sgemm_ms", "ms", Goal::ValueAtMost, 100},
      {"cold compile, warm process", "ferry.cold_warm_ms", "ms", "ptxas, same PTX",
       "ptxas.sgemm_ms", "ms", Goal::ValueAtMost, 100},
      {"cached load, first module", "ferry.cached_first_ms", "ms", "ferry cold",
       "ferry.cold_first_ms", "ms", Goal::ValueAtMost, 1},
      {"cached load, warm process", "ferry.cached_warm_ms", "ms", "ferry cold",
       "ferry.cold_warm_ms", "ms", Goal::ValueAtMost, 1},
      {"PTX parse+lower, 1 core", "ptx.lower_mbs", "MB/s", "ptxas, same files", "ptx.ptxas_mbs",
       "MB/s", Goal::ValueAtLeast, 50},
      {"  + cleanup + verify", "ptx.pipeline_mbs", "MB/s", "ptxas, same files", "ptx.ptxas_mbs",
       "MB/s", Goal::ValueAtLeast, 50},
      {"  parse+check only", "ptx.parse_mbs", "MB/s", "ptxas, same files", "ptx.ptxas_mbs",
       "MB/s", Goal::ValueAtLeast, 50},
  };
  for (const Row &R : Rows)
    printRow(R);
  if (auto F = get("ptx.files"))
    std::printf("(PTX corpus: %.0f files, %.1f MB; %.0f did not lower and are left out)\n", *F,
                get("ptx.mbytes").value_or(0), get("ptx.failed").value_or(0));
  if (Raw)
    for (const auto &[K, V] : Figures)
      std::printf("  %s = %g\n", K.c_str(), V);
  return 0;
}
