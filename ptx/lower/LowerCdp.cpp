/// \file
/// Calls of the CUDA device runtime (dynamic parallelism, CDP2). nvcc
/// declares the runtime as `.extern .func __cudaCDP2*`, defined only by
/// libcudadevrt's SASS, so ferry supplies them: each call becomes one of the
/// ferry.cdp.* intrinsics, which the backend's executor implements
/// (SimtIR.md "Device runtime"). A child launch is
///   buf = __cudaCDP2GetParameterBufferV2(kernel, grid, block, smem)
///   (stores of the arguments into buf at the child's parameter offsets)
///   __cudaCDP2LaunchDeviceV2(buf, stream)
/// and the kernel operand is the kernel's handle (ModuleLowering::entryHandle).
#include "ptx/lower/Context.h"
#include "ptx/lower/DeviceRuntime.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace ferry::ptx::lower {

namespace {

/// The op of a __cudaCDP2* name; Op::Unsupported when ferry has no row.
cdp::Op cdpOp(StringRef Name) {
  static const StringMap<cdp::Op> Ops = [] {
    StringMap<cdp::Op> M;
#define FERRY_CDP(Id, PtxName, Args, Result) M[PtxName] = cdp::Op::Id;
#define FERRY_CDP_ALIAS(Id, PtxName) M[PtxName] = cdp::Op::Id;
#include "ptx/lower/DeviceRuntime.def"
#undef FERRY_CDP
    return M;
  }();
  auto It = Ops.find(Name);
  return It == Ops.end() ? cdp::Op::Unsupported : It->second;
}

/// The argument kinds of an op (DeviceRuntime.def).
StringRef argKinds(cdp::Op Op) {
  static const StringRef Kinds[] = {
      "p",
#define FERRY_CDP(Id, PtxName, Args, Result) Args,
#include "ptx/lower/DeviceRuntime.def"
#undef FERRY_CDP
  };
  return Kinds[unsigned(Op)];
}

} // namespace

Error FunctionLowering::lowerCdpCall(StringRef Name, ArrayRef<Operand> Args, ArrayRef<Operand> Rets) {
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  // An argument as a 64-bit integer. A .param argument is read at its
  // declared size (a .b32 slot holds four bytes).
  auto Arg64 = [&](unsigned K, bool Signed) -> Expected<Value *> {
    if (K >= Args.size())
      return fail(Name + ": missing argument " + Twine(K));
    const Operand &A = Args[K];
    Value *V;
    if (const VarDecl *D = lookupVar(A.Name); D && D->Space != StateSpace::Reg) {
      auto It = VarSlots.find(D);
      if (It == VarSlots.end())
        return fail("no storage for argument '" + A.Name + "'");
      Type *Ty = ML.paramValueType(*D);
      V = B.CreateLoad(Ty, It->second);
      if (!Ty->isIntegerTy())
        V = B.CreateBitCast(V, B.getIntNTy(unsigned(Ty->getPrimitiveSizeInBits())));
    } else {
      Expected<Value *> R = get(A, ScalarType::B64);
      if (!R)
        return R.takeError();
      V = *R;
    }
    if (V->getType()->getIntegerBitWidth() > 64)
      return fail(Name + ": argument " + Twine(K) + " is wider than 64 bits");
    return Signed ? B.CreateSExtOrTrunc(V, I64) : B.CreateZExtOrTrunc(V, I64);
  };
  // The three 32-bit words of a dim3 passed as a .param array.
  auto Dim3 = [&](unsigned K, Value *Out[3]) -> Error {
    const VarDecl *D = K < Args.size() ? lookupVar(Args[K].Name) : nullptr;
    auto It = D ? VarSlots.find(D) : VarSlots.end();
    if (It == VarSlots.end() || ModuleLowering::declSize(*D) < 12)
      return fail(Name + ": argument " + Twine(K) + " is not a dim3 .param");
    for (unsigned I = 0; I < 3; ++I)
      Out[I] = B.CreateLoad(I32, B.CreateConstGEP1_32(B.getInt8Ty(), It->second, 4 * I));
    return Error::success();
  };
  // The result into the return operand, at the operand's own width.
  auto StoreRet = [&](Value *V) -> Error {
    if (Rets.empty())
      return Error::success();
    const Operand &R = Rets[0];
    if (const VarDecl *D = lookupVar(R.Name); D && D->Space != StateSpace::Reg) {
      Type *Ty = ML.paramValueType(*D);
      if (!Ty->isIntegerTy())
        return fail(Name + ": non-integer return value");
      B.CreateStore(B.CreateZExtOrTrunc(V, Ty), VarSlots[D]);
      return Error::success();
    }
    RegRef RR = lookupReg(R.Name);
    bool Narrow = RR.D && bits(RR.D->Type) <= 32;
    return set(R, B.CreateZExtOrTrunc(V, Narrow ? I32 : I64), Narrow ? ScalarType::B32 : ScalarType::B64);
  };

  if (Name == "__cudaCDP2GetParameterBufferV2") {
    Expected<Value *> Kernel = Arg64(0, false), Smem = Arg64(3, false);
    if (!Kernel) return Kernel.takeError();
    if (!Smem) return Smem.takeError();
    Value *Grid[3], *Block[3];
    if (Error E = Dim3(1, Grid)) return E;
    if (Error E = Dim3(2, Block)) return E;
    Value *Buf = B.CreateCall(ML.intrinsic(Intr::CdpParamBuffer),
                              {*Kernel, Grid[0], Grid[1], Grid[2], Block[0], Block[1], Block[2],
                               B.CreateTrunc(*Smem, I32)});
    return StoreRet(B.CreatePtrToInt(Buf, I64));
  }
  if (Name == "__cudaCDP2LaunchDeviceV2" || Name == "__cudaCDP2LaunchDeviceV2_ptsz") {
    Expected<Value *> Buf = Arg64(0, false), Stream = Arg64(1, false);
    if (!Buf) return Buf.takeError();
    if (!Stream) return Stream.takeError();
    Value *R = B.CreateCall(ML.intrinsic(Intr::CdpLaunch), {B.CreateIntToPtr(*Buf, ptrTy(C, 0)), *Stream});
    return StoreRet(R);
  }

  cdp::Op Op = cdpOp(Name);
  StringRef Kinds = argKinds(Op);
  Value *Ops[5] = {B.getInt64(0), B.getInt64(0), B.getInt64(0), B.getInt64(0), B.getInt64(0)};
  if (Op == cdp::Op::Unsupported) {
    // The executor names the function in its log line, and returns NULL
    // rather than an error code where the function returns a pointer
    // (cudaGetErrorString, the CDP1 parameter buffer): every cudaError_t
    // result is 32 bits wide.
    Constant *Str = B.CreateGlobalString(Name, "ferry.cdp.name", addrSpaceOf(StateSpace::Global));
    Ops[0] = B.CreatePtrToInt(Str, I64);
    bool ReturnsPointer = false;
    if (!Rets.empty()) {
      if (const VarDecl *D = lookupVar(Rets[0].Name); D && D->Space != StateSpace::Reg)
        ReturnsPointer = ModuleLowering::declSize(*D) == 8;
      else if (RegRef RR = lookupReg(Rets[0].Name); RR.D)
        ReturnsPointer = bits(RR.D->Type) == 64;
    }
    Ops[1] = B.getInt64(ReturnsPointer);
  } else {
    if (Args.size() != Kinds.size())
      return fail(Name + ": " + Twine(Args.size()) + " arguments, expected " + Twine(Kinds.size()));
    for (unsigned K = 0; K < Kinds.size(); ++K) {
      Expected<Value *> V = Arg64(K, Kinds[K] == 'i');
      if (!V) return V.takeError();
      Ops[K] = *V;
    }
  }
  Value *R = B.CreateCall(ML.intrinsic(Intr::CdpCall),
                          {B.getInt32(uint32_t(Op)), Ops[0], Ops[1], Ops[2], Ops[3], Ops[4]});
  // cudaError_t results are 32-bit; the pointer results (unsupported
  // functions such as cudaGetErrorString) 64-bit: the return slot decides.
  return StoreRet(R);
}

} // namespace ferry::ptx::lower
