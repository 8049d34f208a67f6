//===- Common.h - What every benchmark program shares ------------*- C++ -*-===//
/// \file
/// The benchmark programs (one per side: ferry, the C references, PoCL, the
/// PTX front end) run as child processes of ferry-bench, so that ferry's
/// LLVM 19, PoCL's LLVM and the reference loops never share a process. Each
/// child prints its figures as "FERRY-BENCH <key> <value>" lines; the driver
/// collects them into the table. The problem sizes live here so that every
/// side measures the same work.
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

namespace ferry::bench {

/// Elements of each STREAM array: 3 x 128 MiB of floats, well past the L3.
inline constexpr int kStreamN = 1 << 25;
/// Reduction launch shape (grid-stride loop): 1024 blocks of 256 threads.
inline constexpr int kReduceBlocks = 1024;
inline constexpr int kReduceThreads = 256;
/// SGEMM size (n x n, a multiple of the 16x16 tile) and tile edge. 512 keeps
/// a slow run within seconds; the matrices (3 MiB) fit in the L3, as the
/// tiles of a larger blocked SGEMM would.
inline constexpr int kSgemmN = 512;
inline constexpr int kTile = 16;
/// Timed repetitions of each bandwidth or compute measurement; the best one
/// is reported, as STREAM does. A slow measurement stops repeating once it
/// has used kRepBudget seconds, so one slow figure cannot stretch the run.
inline constexpr int kReps = 20;

/// How many times ferry-bench runs the C references and ferry's kernels,
/// alternately, keeping each figure's best.
inline constexpr int kRounds = 6;
inline constexpr double kRepBudget = 3.0;

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point T0) {
  return std::chrono::duration<double>(Clock::now() - T0).count();
}

/// The best (smallest) time of up to Reps runs of F, in seconds (at least
/// one run; no new run starts after kRepBudget seconds).
template <class F> double bestOf(int Reps, F &&Fn) {
  double Best = std::numeric_limits<double>::infinity();
  auto Start = Clock::now();
  for (int I = 0; I < Reps && (I == 0 || secondsSince(Start) < kRepBudget); ++I) {
    auto T0 = Clock::now();
    Fn();
    Best = std::min(Best, secondsSince(T0));
  }
  return Best;
}

/// One figure for the driver.
inline void report(const char *Key, double Value) {
  std::printf("FERRY-BENCH %s %.6g\n", Key, Value);
  std::fflush(stdout);
}

/// Bytes moved by a STREAM kernel over N floats touching Arrays arrays
/// (STREAM's convention: write-allocate traffic is not counted).
inline double streamBytes(int Arrays, long N) { return double(Arrays) * N * sizeof(float); }

/// Runs Argv (Argv[0] a path) with stdout and stderr sent to /dev/null and
/// returns its wall time in seconds, or a negative value when it could not
/// start or failed. Used to time ptxas, whose figure includes its start-up.
inline double runTimed(const std::vector<std::string> &Argv) {
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  posix_spawn_file_actions_t Fa;
  posix_spawn_file_actions_init(&Fa);
  posix_spawn_file_actions_addopen(&Fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&Fa, 2, "/dev/null", O_WRONLY, 0);
  auto T0 = Clock::now();
  pid_t Pid;
  int Err = posix_spawn(&Pid, Args[0], &Fa, nullptr, Args.data(), environ);
  posix_spawn_file_actions_destroy(&Fa);
  if (Err != 0)
    return -1;
  int Status = 0;
  waitpid(Pid, &Status, 0);
  double T = secondsSince(T0);
  return WIFEXITED(Status) && WEXITSTATUS(Status) == 0 ? T : -1;
}

} // namespace ferry::bench
