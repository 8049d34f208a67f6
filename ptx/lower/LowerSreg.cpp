//===- LowerSreg.cpp - special registers (PTX ISA chapter 10) --------------===//
/// \file
/// Every special register as a ferry intrinsic or a value computed from
/// them. Launches have no clusters in ferry (every CTA is its own cluster of
/// one), so %clusterid = %ctaid, %nclusterid = %nctaid, %cluster_ctaid = 0,
/// %cluster_nctaid = 1, %cluster_ctarank = 0, %cluster_nctarank = 1 and
/// %is_explicit_cluster = 0. %lanemask_* are computed from %laneid.
/// %envreg*, %pm*, %reserved_smem_* and %current_graph_exec read 0;
/// %aggr_smem_size reads %total_smem_size.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Context.h"

using namespace llvm;

namespace ferry::ptx::lower {

Expected<Value *> FunctionLowering::readSpecial(const Operand &Op) {
  auto Comp = [&](Intr X, Intr Y, Intr Z) -> Expected<Value *> {
    switch (Op.Comp) {
    case Component::X: return static_cast<Value *>(call(X));
    case Component::Y: return static_cast<Value *>(call(Y));
    case Component::Z: return static_cast<Value *>(call(Z));
    case Component::W: return static_cast<Value *>(B.getInt32(0));
    default: return fail("%" + specialRegName(Op.SReg) + " needs .x/.y/.z");
    }
  };
  auto Lanemask = [&](bool Le, bool Invert) -> Value * {
    // lt = (1 << lane) - 1; le = (2 << lane) - 1, in 64 bits so lane 31 works.
    Value *L = B.CreateZExt(call(Intr::LaneId), B.getInt64Ty());
    Value *M = B.CreateSub(B.CreateShl(B.getInt64(Le ? 2 : 1), L), B.getInt64(1));
    Value *R = B.CreateTrunc(M, B.getInt32Ty());
    return Invert ? B.CreateNot(R) : R;
  };
  switch (Op.SReg) {
  case SpecialReg::Tid: return Comp(Intr::TidX, Intr::TidY, Intr::TidZ);
  case SpecialReg::NTid: return Comp(Intr::NtidX, Intr::NtidY, Intr::NtidZ);
  case SpecialReg::CtaId:
  case SpecialReg::ClusterId: return Comp(Intr::CtaidX, Intr::CtaidY, Intr::CtaidZ);
  case SpecialReg::NCtaId:
  case SpecialReg::NClusterId: return Comp(Intr::NctaidX, Intr::NctaidY, Intr::NctaidZ);
  case SpecialReg::ClusterCtaId: return static_cast<Value *>(B.getInt32(0));
  case SpecialReg::ClusterNCtaId: return static_cast<Value *>(B.getInt32(Op.Comp == Component::W ? 0 : 1));
  case SpecialReg::ClusterCtaRank: return static_cast<Value *>(B.getInt32(0));
  case SpecialReg::ClusterNCtaRank: return static_cast<Value *>(B.getInt32(1));
  case SpecialReg::IsExplicitCluster: return static_cast<Value *>(B.getInt32(0));
  case SpecialReg::LaneId: return static_cast<Value *>(call(Intr::LaneId));
  case SpecialReg::WarpId: return static_cast<Value *>(call(Intr::WarpId));
  case SpecialReg::NWarpId: return static_cast<Value *>(call(Intr::NWarpId));
  case SpecialReg::SmId: return static_cast<Value *>(call(Intr::SmId));
  case SpecialReg::NSmId: return static_cast<Value *>(call(Intr::NSmId));
  case SpecialReg::GridId: return static_cast<Value *>(call(Intr::GridId));
  case SpecialReg::LanemaskEq:
    return B.CreateShl(B.getInt32(1), call(Intr::LaneId));
  case SpecialReg::LanemaskLt: return Lanemask(false, false);
  case SpecialReg::LanemaskLe: return Lanemask(true, false);
  case SpecialReg::LanemaskGe: return Lanemask(false, true);
  case SpecialReg::LanemaskGt: return Lanemask(true, true);
  case SpecialReg::Clock: return static_cast<Value *>(call(Intr::Clock));
  case SpecialReg::ClockHi: return B.CreateTrunc(B.CreateLShr(call(Intr::Clock64), 32), B.getInt32Ty());
  case SpecialReg::Clock64: return static_cast<Value *>(call(Intr::Clock64));
  case SpecialReg::GlobalTimer: return static_cast<Value *>(call(Intr::GlobalTimer));
  case SpecialReg::GlobalTimerLo: return B.CreateTrunc(call(Intr::GlobalTimer), B.getInt32Ty());
  case SpecialReg::GlobalTimerHi:
    return B.CreateTrunc(B.CreateLShr(call(Intr::GlobalTimer), 32), B.getInt32Ty());
  case SpecialReg::DynamicSmemSize: return static_cast<Value *>(call(Intr::DynSmemSize));
  case SpecialReg::TotalSmemSize:
  case SpecialReg::AggrSmemSize: return static_cast<Value *>(call(Intr::TotalSmemSize));
  case SpecialReg::Pm64:
  case SpecialReg::CurrentGraphExec: return static_cast<Value *>(B.getInt64(0));
  case SpecialReg::EnvReg:
    // Cooperative groups read the grid workspace as %envreg1 (high half)
    // and %envreg2 (low half); the other environment registers read 0.
    if (Op.Int == 1)
      return B.CreateTrunc(B.CreateLShr(call(Intr::GridWorkspace), 32), B.getInt32Ty());
    if (Op.Int == 2)
      return B.CreateTrunc(call(Intr::GridWorkspace), B.getInt32Ty());
    return static_cast<Value *>(B.getInt32(0));
  default: // %pm*, %reserved_smem_*
    return static_cast<Value *>(B.getInt32(0));
  }
}

} // namespace ferry::ptx::lower
