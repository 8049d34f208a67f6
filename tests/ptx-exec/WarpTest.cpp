/// \file
/// Execution tests of the warp-level instructions (PTX ISA 9.7.9.6-9,
/// 9.7.13): shfl.sync up/down/bfly/idx with per-lane lane operands and
/// clamp/segment-mask values (the ISA's pseudo-code as reference), shfl
/// with a partial member mask inside a divergent branch, vote.sync
/// ballot/all/any/uni on both sides of a divergent branch (masks from a
/// ballot, and from activemask: DISABLED, see below), activemask,
/// match.any/all (b32, b64, partial), redux.sync (every operator; full and
/// partial masks), and elect.sync. Blocks are single warps; many warps run
/// with different random inputs.
#include "Check.h"

#include <algorithm>
#include <climits>

using namespace ferry::ptxexec;

namespace {

const char *ShflModes[] = {"up", "down", "bfly", "idx"};
const char *ReduxOps[] = {"add.u32", "min.s32", "max.u32", "min.u32", "max.s32", "and.b32", "or.b32", "xor.b32"};

std::vector<KernelSpec> specs() {
  std::vector<KernelSpec> S;
  for (const char *M : ShflModes)
    S.push_back({std::string("shfl_") + M, {"b32", "u32", "u32"}, {"b32", "pred"},
                 std::string("shfl.sync.") + M + ".b32 %o0|%o1, %i0, %i1, %i2, 0xffffffff;"});
  S.push_back({"shfl_partial", {"b32", "u32", "pred"}, {"b32", "pred", "b32"},
               "@!%i2 bra $skip;\n activemask.b32 %r0;\n"
               " shfl.sync.idx.b32 %o0|%o1, %i0, %i1, 0x1f, %r0;\n mov.b32 %o2, %r0;\n$skip:"});
  // The same with the member masks computed before the branch (a ballot
  // of the branch condition), as CUDA code written for sm_70+ does.
  S.push_back({"vote_divergent_masks", {"pred", "pred"}, {"b32", "pred", "pred", "pred", "b32"},
               "vote.sync.ballot.b32 %r1, %i1, 0xffffffff;\n not.b32 %r2, %r1;\n @%i1 bra $then;\n"
               " mov.b32 %r0, %r2;\n vote.sync.ballot.b32 %o0, !%i0, %r0;\n"
               " vote.sync.any.pred %o2, !%i0, %r0;\n bra $join;\n"
               "$then:\n mov.b32 %r0, %r1;\n vote.sync.ballot.b32 %o0, %i0, %r0;\n"
               " vote.sync.all.pred %o1, %i0, %r0;\n vote.sync.any.pred %o2, %i0, %r0;\n"
               " vote.sync.uni.pred %o3, %i0, %r0;\n"
               "$join:\n mov.b32 %o4, %r0;"});
  S.push_back({"vote_divergent", {"pred", "pred"}, {"b32", "pred", "pred", "pred", "b32"},
               "@%i1 bra $then;\n"
               " activemask.b32 %r0;\n vote.sync.ballot.b32 %o0, !%i0, %r0;\n"
               " vote.sync.any.pred %o2, !%i0, %r0;\n bra $join;\n"
               "$then:\n activemask.b32 %r0;\n vote.sync.ballot.b32 %o0, %i0, %r0;\n"
               " vote.sync.all.pred %o1, %i0, %r0;\n vote.sync.any.pred %o2, %i0, %r0;\n"
               " vote.sync.uni.pred %o3, %i0, %r0;\n"
               "$join:\n mov.b32 %o4, %r0;"});
  S.push_back({"match_b32", {"b32"}, {"b32", "b32", "pred"},
               "match.any.sync.b32 %o0, %i0, 0xffffffff;\n match.all.sync.b32 %o1|%o2, %i0, 0xffffffff;"});
  S.push_back({"match_b64", {"b64"}, {"b32"}, "match.any.sync.b64 %o0, %i0, 0xffffffff;"});
  S.push_back({"match_partial", {"b32", "pred"}, {"b32", "b32", "pred"},
               "@!%i1 bra $skip;\n activemask.b32 %r0;\n match.any.sync.b32 %o0, %i0, %r0;\n"
               " match.all.sync.b32 %o1|%o2, %i0, %r0;\n$skip:"});
  for (const char *Op : ReduxOps) {
    std::string Name = std::string("redux_") + Op;
    Name[Name.find('.')] = '_';
    S.push_back({Name, {"b32"}, {"b32"}, std::string("redux.sync.") + Op + " %o0, %i0, 0xffffffff;"});
    S.push_back({Name + "_partial", {"b32", "pred"}, {"b32"},
                 std::string("@!%i1 bra $skip;\n activemask.b32 %r0;\n redux.sync.") + Op +
                     " %o0, %i0, %r0;\n$skip:"});
  }
  // Sub-warp collectives: each lane's member mask names its own group of
  // 4, 8 or 16 lanes (CUB's logical warps), so each group gets its own
  // result. match and elect with such masks take the per-thread path.
  S.push_back({"subwarp_vote", {"pred", "b32", "b32"}, {"b32", "pred", "pred", "pred", "b32", "b32"},
               "vote.sync.ballot.b32 %o0, %i0, %i1;\n vote.sync.all.pred %o1, %i0, %i1;\n"
               " vote.sync.any.pred %o2, %i0, %i1;\n vote.sync.uni.pred %o3, %i0, %i1;\n"
               " redux.sync.add.u32 %o4, %i2, %i1;\n redux.sync.max.s32 %o5, %i2, %i1;"});
  S.push_back({"subwarp_match", {"b32", "b32"}, {"b32", "b32"},
               "match.any.sync.b32 %o0, %i0, %i1;\n elect.sync %o1|%p0, %i1;"});
  // Warp 0 and warp 1 of a 64-thread block wait for each other through
  // shared flags polled with ld.acquire (a spin-wait, as libcu++'s
  // atomic_ref::load loops compile): whichever warp runs first must let
  // the other run while it spins. Each lane then reads its partner's value.
  S.push_back({"spin_pingpong", {"b32"}, {"b32"},
               ".shared .align 4 .u32 sp_flag[2];\n .shared .align 4 .u32 sp_data[64];\n"
               " setp.eq.u32 %p0, %tid_, 0;\n @!%p0 bra $init_done;\n"
               " st.shared.u32 [sp_flag], 0;\n st.shared.u32 [sp_flag+4], 0;\n$init_done:\n bar.sync 0;\n"
               " shl.b32 %r0, %tid_, 2;\n mov.u32 %r1, sp_data;\n add.u32 %r3, %r1, %r0;\n"
               " st.shared.u32 [%r3], %i0;\n bar.warp.sync -1;\n"
               " setp.lt.u32 %p1, %tid_, 32;\n @%p1 bra $warp0;\n"
               "$w1spin:\n ld.acquire.cta.shared.u32 %r2, [sp_flag];\n setp.eq.u32 %p2, %r2, 0;\n @%p2 bra $w1spin;\n"
               " sub.u32 %r3, %r3, 128;\n ld.shared.u32 %o0, [%r3];\n bar.warp.sync -1;\n"
               " setp.eq.u32 %p3, %tid_, 32;\n @%p3 st.release.cta.shared.u32 [sp_flag+4], 1;\n bra $pp_end;\n"
               "$warp0:\n @%p0 st.release.cta.shared.u32 [sp_flag], 1;\n"
               "$w0spin:\n ld.acquire.cta.shared.u32 %r2, [sp_flag+4];\n setp.eq.u32 %p2, %r2, 0;\n @%p2 bra $w0spin;\n"
               " add.u32 %r3, %r3, 128;\n ld.shared.u32 %o0, [%r3];\n$pp_end:"});
  // Division in a branch that lanes with a zero divisor skip: the skipped
  // lanes must not divide (x86 traps on it).
  S.push_back({"divrem_guarded", {"b32", "b32"}, {"b32", "b32"},
               "mov.u32 %o0, 77;\n mov.u32 %o1, 77;\n setp.eq.u32 %p0, %i1, 0;\n @%p0 bra $nodiv;\n"
               " rem.u32 %o0, %i0, %i1;\n div.s32 %o1, %i0, %i1;\n$nodiv:"});
  S.push_back({"elect", {"pred"}, {"b32", "pred"},
               "@!%i0 bra $skip;\n activemask.b32 %r0;\n elect.sync %o0|%o1, %r0;\n$skip:"});
  return S;
}

Family &fam() {
  static Family F(specs());
  return F;
}

constexpr unsigned Warps = 64, NT = Warps * 32;

std::vector<uint32_t> randomBits(unsigned Pct) {
  std::vector<uint32_t> V(NT);
  for (auto &X : V)
    X = rng()() % 100 < Pct;
  // Some warps all-true and all-false: the uniform cases of vote.
  for (unsigned L = 0; L < 32; ++L)
    V[L] = 1, V[32 + L] = 0;
  return V;
}

/// Reports the first lanes where Got differs from Want.
template <typename T>
void expectLanes(const char *What, const std::vector<T> &Got, const std::vector<T> &Want) {
  size_t Bad = 0;
  std::string Msg;
  for (size_t K = 0; K < Got.size(); ++K)
    if (Got[K] != Want[K] && Bad++ < 6)
      Msg += "  warp " + std::to_string(K / 32) + " lane " + std::to_string(K % 32) + ": got " +
             hex(uint64_t(Got[K])) + ", want " + hex(uint64_t(Want[K])) + "\n";
  EXPECT_EQ(Bad, 0u) << What << ": " << Bad << " lanes differ\n" << Msg;
}

uint32_t maskOf(const std::vector<uint32_t> &Flags, unsigned W) {
  uint32_t M = 0;
  for (unsigned L = 0; L < 32; ++L)
    M |= (Flags[W * 32 + L] ? 1u : 0u) << L;
  return M;
}

TEST(PtxWarp, ShflAllModes) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  std::vector<uint32_t> A(NT), B(NT), C(NT);
  for (unsigned K = 0; K < NT; ++K) {
    A[K] = uint32_t(rng()());
    B[K] = rng()() % 40; // lane/delta, past 31 too (only b[4:0] counts)
    unsigned W = K / 32;
    // c: clamp in bits 4:0, segment mask in 12:8; per warp, the usual
    // forms (0x1f, 0 for up, width-w segments 0x(32-w)<<8 | (w-1)) and random.
    uint32_t Forms[] = {0x1f, 0x0, 0x181f, 0x1c07, 0x1e01, 0x100f, uint32_t(rng()()) & 0x1f1f};
    C[K] = W % 8 == 7 ? uint32_t(rng()()) & 0x1f1f : Forms[W % 7];
  }
  for (int Mode = 0; Mode < 4; ++Mode) {
    std::vector<uint32_t> D(NT), P(NT), WantD(NT), WantP(NT);
    ASSERT_EQ(F.launch(std::string("shfl_") + ShflModes[Mode], NT, {D.data(), P.data()},
                       {A.data(), B.data(), C.data()}, 32), "");
    for (unsigned K = 0; K < NT; ++K) {
      int Lane = K % 32, Base = K - Lane;
      int BVal = B[K] & 31, CVal = C[K] & 31, Seg = (C[K] >> 8) & 31;
      int MaxLane = (Lane & Seg) | (CVal & ~Seg), MinLane = Lane & Seg;
      int J;
      bool PVal;
      switch (Mode) {
      case 0: J = Lane - BVal; PVal = J >= MaxLane; break;
      case 1: J = Lane + BVal; PVal = J <= MaxLane; break;
      case 2: J = Lane ^ BVal; PVal = J <= MaxLane; break;
      default: J = MinLane | (BVal & ~Seg); PVal = J <= MaxLane; break;
      }
      if (!PVal)
        J = Lane;
      WantD[K] = A[Base + J];
      WantP[K] = PVal;
    }
    SCOPED_TRACE(ShflModes[Mode]);
    expectLanes("shfl value", D, WantD);
    expectLanes("shfl predicate", P, WantP);
  }
}

TEST(PtxWarp, ShflPartialMask) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  std::vector<uint32_t> A(NT), B(NT), Q = randomBits(60);
  for (unsigned K = 0; K < NT; ++K)
    A[K] = uint32_t(rng()());
  // Each active lane reads from a random lane of the active set.
  for (unsigned W = 0; W < Warps; ++W) {
    std::vector<unsigned> Active;
    for (unsigned L = 0; L < 32; ++L)
      if (Q[W * 32 + L])
        Active.push_back(L);
    for (unsigned L = 0; L < 32; ++L)
      B[W * 32 + L] = Active.empty() ? 0 : Active[rng()() % Active.size()];
  }
  std::vector<uint32_t> D(NT), P(NT), M(NT), WantD(NT), WantP(NT), WantM(NT);
  ASSERT_EQ(F.launch("shfl_partial", NT, {D.data(), P.data(), M.data()}, {A.data(), B.data(), Q.data()}, 32), "");
  for (unsigned K = 0; K < NT; ++K)
    if (Q[K]) {
      WantD[K] = A[K - K % 32 + B[K]];
      WantP[K] = 1;
      WantM[K] = maskOf(Q, K / 32); // activemask inside the branch
    }
  expectLanes("shfl.idx under a partial mask", D, WantD);
  expectLanes("its predicate", P, WantP);
  expectLanes("activemask", M, WantM);
}

void voteDivergent(const char *Kernel) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  auto P = randomBits(50), Q = randomBits(50);
  // Warps where every lane of the taken side votes the same way.
  for (unsigned L = 0; L < 32; ++L)
    P[64 + L] = 1, Q[64 + L] = L % 3 != 0;
  std::vector<uint32_t> Ballot(NT), All(NT), Any(NT), Uni(NT), Act(NT);
  ASSERT_EQ(F.launch(Kernel, NT, {Ballot.data(), All.data(), Any.data(), Uni.data(), Act.data()},
                     {P.data(), Q.data()}, 32), "");
  std::vector<uint32_t> WB(NT), WAll(NT), WAny(NT), WUni(NT), WAct(NT);
  for (unsigned W = 0; W < Warps; ++W) {
    uint32_t Taken = maskOf(Q, W), Pm = maskOf(P, W);
    for (unsigned L = 0; L < 32; ++L) {
      unsigned K = W * 32 + L;
      if (Q[K]) { // then side: votes on p among the taken lanes
        uint32_t B = Pm & Taken;
        WB[K] = B, WAll[K] = B == Taken, WAny[K] = B != 0, WUni[K] = B == 0 || B == Taken, WAct[K] = Taken;
      } else { // else side: ballot/any of !p among the others
        uint32_t B = ~Pm & ~Taken;
        WB[K] = B, WAny[K] = B != 0, WAct[K] = ~Taken;
      }
    }
  }
  expectLanes("ballot", Ballot, WB);
  expectLanes("all", All, WAll);
  expectLanes("any", Any, WAny);
  expectLanes("uni", Uni, WUni);
  expectLanes("activemask", Act, WAct);
}

TEST(PtxWarp, VoteDivergentExplicitMasks) { voteDivergent("vote_divergent_masks"); }

// activemask.b32 inside the two sides of a divergent if/else names the
// lanes executing that side, as a GPU that runs the sides one after the
// other does. The warp functions (host/jit/Vectorize.h) give this by
// construction; the per-thread fiber path cannot (FERRY_HOST_WARP=0).
TEST(PtxWarp, VoteDivergentActivemask) { voteDivergent("vote_divergent"); }

TEST(PtxWarp, Match) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  std::vector<uint32_t> A(NT);
  std::vector<uint64_t> A64(NT);
  for (unsigned K = 0; K < NT; ++K) {
    unsigned W = K / 32;
    A[K] = W % 4 == 0 ? 7 : uint32_t(rng()() % (W % 4 == 1 ? 2 : 5)); // uniform warps too
    A64[K] = uint64_t(rng()() % 3) << 40 | (K % 2); // differs only in the high word for some
  }
  std::vector<uint32_t> AnyM(NT), AllM(NT), AllP(NT), Any64(NT);
  ASSERT_EQ(F.launch("match_b32", NT, {AnyM.data(), AllM.data(), AllP.data()}, {A.data()}, 32), "");
  ASSERT_EQ(F.launch("match_b64", NT, {Any64.data()}, {A64.data()}, 32), "");
  std::vector<uint32_t> WAny(NT), WAll(NT), WP(NT), WAny64(NT);
  for (unsigned K = 0; K < NT; ++K) {
    unsigned Base = K - K % 32;
    uint32_t M = 0, M64 = 0;
    for (unsigned L = 0; L < 32; ++L) {
      M |= (A[Base + L] == A[K] ? 1u : 0u) << L;
      M64 |= (A64[Base + L] == A64[K] ? 1u : 0u) << L;
    }
    WAny[K] = M, WAny64[K] = M64;
    // match.all: the member mask if every lane holds the same value, else 0.
    WAll[K] = M == 0xFFFFFFFF ? M : 0;
    WP[K] = M == 0xFFFFFFFF;
  }
  expectLanes("match.any.b32", AnyM, WAny);
  expectLanes("match.all.b32", AllM, WAll);
  expectLanes("match.all predicate", AllP, WP);
  expectLanes("match.any.b64", Any64, WAny64);
  // Partial: only the active lanes take part.
  auto Q = randomBits(70);
  std::vector<uint32_t> PAny(NT), PAll(NT), PP(NT), WPAny(NT), WPAll(NT), WPP(NT);
  for (unsigned W = 0; W < Warps; W += 3) // warps whose active lanes agree
    for (unsigned L = 0; L < 32; ++L)
      if (Q[W * 32 + L])
        A[W * 32 + L] = 5;
  ASSERT_EQ(F.launch("match_partial", NT, {PAny.data(), PAll.data(), PP.data()}, {A.data(), Q.data()}, 32), "");
  for (unsigned K = 0; K < NT; ++K) {
    if (!Q[K])
      continue;
    unsigned Base = K - K % 32;
    uint32_t Act = maskOf(Q, K / 32), M = 0;
    for (unsigned L = 0; L < 32; ++L)
      M |= (Q[Base + L] && A[Base + L] == A[K] ? 1u : 0u) << L;
    WPAny[K] = M, WPAll[K] = M == Act ? Act : 0, WPP[K] = M == Act;
  }
  expectLanes("partial match.any", PAny, WPAny);
  expectLanes("partial match.all", PAll, WPAll);
  expectLanes("partial match.all predicate", PP, WPP);
}

TEST(PtxWarp, Redux) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  std::vector<uint32_t> A = edgyU32(NT);
  auto Q = randomBits(40);
  for (const char *Op : ReduxOps) {
    std::string Name = std::string("redux_") + Op;
    Name[Name.find('.')] = '_';
    std::string O = std::string(Op).substr(0, 3);
    bool Signed = std::string(Op).find(".s32") != std::string::npos;
    auto Reduce = [&](uint32_t X, uint32_t Y) -> uint32_t {
      if (O == "add") return X + Y;
      if (O == "and") return X & Y;
      if (O == "or.") return X | Y;
      if (O == "xor") return X ^ Y;
      bool Less = Signed ? int32_t(X) < int32_t(Y) : X < Y;
      return (O == "min") == Less ? X : Y;
    };
    for (bool Partial : {false, true}) {
      std::vector<uint32_t> D(NT), Want(NT);
      std::string K = Partial ? Name + "_partial" : Name;
      std::string Err = Partial ? F.launch(K, NT, {D.data()}, {A.data(), Q.data()}, 32)
                                : F.launch(K, NT, {D.data()}, {A.data()}, 32);
      ASSERT_EQ(Err, "") << K;
      for (unsigned W = 0; W < Warps; ++W) {
        bool First = true;
        uint32_t R = 0;
        for (unsigned L = 0; L < 32; ++L)
          if (!Partial || Q[W * 32 + L]) {
            R = First ? A[W * 32 + L] : Reduce(R, A[W * 32 + L]);
            First = false;
          }
        for (unsigned L = 0; L < 32; ++L)
          if (!Partial || Q[W * 32 + L])
            Want[W * 32 + L] = R;
      }
      SCOPED_TRACE(K);
      expectLanes("redux", D, Want);
    }
  }
}

// Member masks of logical warps: lane L of a warp whose groups are W lanes
// wide names the W lanes of its group; warps use W = 4, 8, 16 and 32.
std::vector<uint32_t> groupMasks() {
  std::vector<uint32_t> M(NT);
  for (unsigned K = 0; K < NT; ++K) {
    unsigned W = 4u << (K / 32 % 4), L = K % 32;
    M[K] = (W == 32 ? ~0u : (1u << W) - 1) << (L & ~(W - 1));
  }
  return M;
}

TEST(PtxWarp, SubWarpVoteRedux) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  auto P = randomBits(50);
  auto M = groupMasks();
  std::vector<uint32_t> V(NT);
  for (unsigned K = 0; K < NT; ++K)
    V[K] = uint32_t(rng()() % 2001) - 1000;
  // Warps whose groups vote all-true (all and uni true, not just any).
  for (unsigned L = 0; L < 32; ++L)
    P[96 + L] = 1;
  std::vector<uint32_t> Ballot(NT), All(NT), Any(NT), Uni(NT), Sum(NT), Max(NT);
  ASSERT_EQ(F.launch("subwarp_vote", NT, {Ballot.data(), All.data(), Any.data(), Uni.data(), Sum.data(), Max.data()},
                     {P.data(), M.data(), V.data()}, 32),
            "");
  std::vector<uint32_t> WB(NT), WAll(NT), WAny(NT), WUni(NT), WSum(NT), WMax(NT);
  for (unsigned K = 0; K < NT; ++K) {
    unsigned Base = K - K % 32;
    uint32_t B = maskOf(P, K / 32) & M[K], S = 0;
    int32_t Mx = INT32_MIN;
    for (unsigned L = 0; L < 32; ++L)
      if (M[K] >> L & 1) {
        S += V[Base + L];
        Mx = std::max(Mx, int32_t(V[Base + L]));
      }
    WB[K] = B, WAll[K] = B == M[K], WAny[K] = B != 0, WUni[K] = B == 0 || B == M[K];
    WSum[K] = S, WMax[K] = uint32_t(Mx);
  }
  expectLanes("sub-warp ballot", Ballot, WB);
  expectLanes("sub-warp all", All, WAll);
  expectLanes("sub-warp any", Any, WAny);
  expectLanes("sub-warp uni", Uni, WUni);
  expectLanes("sub-warp redux.add", Sum, WSum);
  expectLanes("sub-warp redux.max", Max, WMax);
}

TEST(PtxWarp, SubWarpMatchElect) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  auto M = groupMasks();
  std::vector<uint32_t> V(NT), Any(NT), Leader(NT), WAny(NT), WLeader(NT);
  for (unsigned K = 0; K < NT; ++K)
    V[K] = uint32_t(rng()() % 3);
  ASSERT_EQ(F.launch("subwarp_match", NT, {Any.data(), Leader.data()}, {V.data(), M.data()}, 32), "");
  for (unsigned K = 0; K < NT; ++K) {
    unsigned Base = K - K % 32;
    uint32_t R = 0;
    for (unsigned L = 0; L < 32; ++L)
      R |= (M[K] >> L & 1 && V[Base + L] == V[K] ? 1u : 0u) << L;
    WAny[K] = R, WLeader[K] = __builtin_ctz(M[K]);
  }
  expectLanes("sub-warp match.any", Any, WAny);
  expectLanes("sub-warp elect leader", Leader, WLeader);
}

TEST(PtxWarp, SpinWaitBetweenWarps) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  std::vector<uint32_t> A(NT), D(NT), Want(NT);
  for (unsigned K = 0; K < NT; ++K)
    A[K] = uint32_t(rng()());
  ASSERT_EQ(F.launch("spin_pingpong", NT, {D.data()}, {A.data()}, 64), "");
  for (unsigned K = 0; K < NT; ++K)
    Want[K] = A[K ^ 32];
  expectLanes("partner's value after the flags", D, Want);
}

TEST(PtxWarp, DivisionSkippedByZeroDivisorLanes) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  std::vector<uint32_t> A(NT), Bv(NT), Rem(NT), Div(NT), WRem(NT), WDiv(NT);
  for (unsigned K = 0; K < NT; ++K) {
    A[K] = uint32_t(rng()() % 1000000);
    Bv[K] = rng()() % 5 < 2 ? 0 : uint32_t(int32_t(rng()() % 101) - 50);
  }
  ASSERT_EQ(F.launch("divrem_guarded", NT, {Rem.data(), Div.data()}, {A.data(), Bv.data()}, 32), "");
  for (unsigned K = 0; K < NT; ++K) {
    WRem[K] = Bv[K] ? A[K] % Bv[K] : 77;
    WDiv[K] = Bv[K] ? uint32_t(int32_t(A[K]) / int32_t(Bv[K])) : 77;
  }
  expectLanes("rem.u32", Rem, WRem);
  expectLanes("div.s32", Div, WDiv);
}

TEST(PtxWarp, Elect) {
  Family &F = fam();
  ASSERT_EQ(F.error(), "");
  auto Q = randomBits(30);
  std::vector<uint32_t> D(NT), P(NT), WD(NT), WP(NT);
  ASSERT_EQ(F.launch("elect", NT, {D.data(), P.data()}, {Q.data()}, 32), "");
  for (unsigned K = 0; K < NT; ++K) {
    uint32_t M = maskOf(Q, K / 32);
    if (!Q[K])
      continue;
    unsigned Leader = __builtin_ctz(M); // the lowest lane of the member mask
    WD[K] = Leader, WP[K] = K % 32 == Leader;
  }
  expectLanes("elect.sync leader", D, WD);
  expectLanes("elect.sync predicate", P, WP);
}

} // namespace
