//===- Context.h - shared state of the lowering passes ----------*- C++ -*-===//
/// \file
/// The state the lowering passes share: ModuleLowering (the LLVM module, the
/// PTX-name → LLVM symbol maps, intrinsic declarations) and FunctionLowering
/// (one PTX function body being turned into LLVM IR: registers, labels,
/// scopes, the IRBuilder). The per-family files (LowerArith.cpp,
/// LowerMem.cpp, ...) implement FunctionLowering's lower* members; they read
/// and write operands only through get()/set()/address(), which own the PTX
/// rules for register widths, immediates, vectors and symbols. Registers are
/// SSA values from the start (RegisterSSA.h), never memory.
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx/lower/Lower.h"
#include "ptx/lower/RegisterSSA.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <map>
#include <optional>

namespace ferry::ptx::lower {

/// Names of the canonical-NaN marker functions (FunctionLowering::
/// canonicalNaN), all gone after the pass nan-results.
inline constexpr llvm::StringLiteral NanMarkerPrefix = "ferry.nan.marker.";
/// Names of the f64 NaN-choice marker functions (FunctionLowering::
/// pickNaN), also gone after the pass nan-results.
inline constexpr llvm::StringLiteral NanPickPrefix = "ferry.nan.pick.";

/// The ferry intrinsics (SimtIntrinsics.def).
enum class Intr {
#define FERRY_INTRINSIC(Id, Name, ...) Id,
#include "ptx/lower/SimtIntrinsics.def"
#undef FERRY_INTRINSIC
};

/// LLVM address space of a PTX state space (SimtIR.md): generic 0, global 1,
/// shared 3, const 4, local 5; param is generic (the parameter buffer and
/// .func parameter copies are ordinary memory).
unsigned addrSpaceOf(StateSpace S);

/// Layout of one kernel's parameter buffer.
struct ParamSlot {
  uint64_t Offset = 0, Size = 0, Align = 1;
};

/// The LLVM signature chosen for a .func (SimtIR.md "device functions").
struct FuncSig {
  llvm::Function *F = nullptr;
  const Function *Ptx = nullptr;
  /// True when the single scalar return is the LLVM return value; otherwise
  /// every return is a leading pointer argument the callee stores through.
  bool ScalarReturn = false;
  unsigned NumRetPtrs = 0;
  /// Per PTX parameter: passed by pointer (an aggregate) or by value.
  llvm::SmallVector<bool, 8> ByPointer;
};

class ModuleLowering {
public:
  ModuleLowering(const Module &P, llvm::Module &M) : P(P), M(M), C(M.getContext()) {}

  const Module &P;
  llvm::Module &M;
  llvm::LLVMContext &C;

  /// Module-scope variables by PTX name.
  llvm::StringMap<llvm::GlobalVariable *> Globals;
  llvm::StringMap<const VarDecl *> GlobalDecls;
  /// Function-scope .shared/.global/.const hoisted to module scope.
  llvm::DenseMap<const VarDecl *, llvm::GlobalVariable *> Hoisted;
  /// Functions by PTX name (entries and .funcs; runtime externs excluded).
  llvm::StringMap<FuncSig> Funcs;
  /// Kernel parameter layouts.
  llvm::DenseMap<const Function *, std::vector<ParamSlot>> ParamLayouts;
  llvm::DenseMap<const Function *, uint64_t> ParamTotal;
  std::vector<KernelError> Errors;

  /// The declaration of a ferry intrinsic.
  llvm::Function *intrinsic(Intr I);
  /// Runtime externs nvcc declares (vprintf, malloc, free, __assertfail,
  /// the device runtime's __cudaCDP2* functions).
  static bool isRuntimeExtern(llvm::StringRef Name);
  /// The launch handle of kernel Name: the constant global
  /// "ferry.entry.<Name>" holding the name (SimtIR.md "Device runtime").
  llvm::GlobalVariable *entryHandle(llvm::StringRef Name);
  static constexpr llvm::StringLiteral EntryHandlePrefix = "ferry.entry.";
  /// Byte size and alignment of a declaration's storage.
  static uint64_t declSize(const VarDecl &D);
  static uint64_t declAlign(const VarDecl &D);
  /// LLVM type of a .func parameter or return passed by value.
  llvm::Type *paramValueType(const VarDecl &D);

private:
  llvm::DenseMap<unsigned, llvm::Function *> IntrCache;
};

/// A lowering failure for the current function: never a crash.
struct LowerFailure {
  SourceLoc Loc;
  std::string Message;
};

/// Lowers one PTX function body into its (already declared) LLVM function.
class FunctionLowering {
public:
  FunctionLowering(ModuleLowering &ML, const Function &PF, FuncSig &Sig);
  /// Lowers the body; on failure the LLVM function's body is left partial
  /// and the caller deletes it.
  llvm::Error run();

  // ---- Shared helpers (Lowering.cpp) ------------------------------------
  ModuleLowering &ML;
  const Function &PF;
  FuncSig &Sig;
  llvm::Function &F;
  llvm::LLVMContext &C;
  llvm::IRBuilder<> B;
  const Instruction *Cur = nullptr; ///< For error locations.

  llvm::Error fail(const llvm::Twine &Msg);
  llvm::Error notLowered(const Instruction &I, llvm::StringRef Why = "");
  /// The instruction's spelling, e.g. "mma.sync.aligned.m16n8k16...".
  std::string spell(const Instruction &I) const;

  /// Register storage type (SimtIR.md): i1 for .pred, float/double for
  /// f32/f64, iN for every other type of N bits.
  llvm::Type *regType(ScalarType T);
  /// The value type instructions compute with: half/bfloat/<2 x half>/
  /// <2 x bfloat>/float/double for float types, iN otherwise.
  llvm::Type *valType(ScalarType T);
  static bool isFloat(ScalarType T) { return typeKind(T) == TypeKind::Float; }
  static bool isSigned(ScalarType T) { return typeKind(T) == TypeKind::Signed; }
  static unsigned bits(ScalarType T) { return typeBits(T); }

  /// Reads an operand as a value of valType(T): registers (converted per the
  /// PTX width rules), special registers, immediates, {a, b} vectors packed
  /// low element first, symbol addresses (as integers of T's width).
  llvm::Expected<llvm::Value *> get(const Operand &Op, ScalarType T);
  /// Reads a predicate operand (honours `!p`).
  llvm::Expected<llvm::Value *> getPred(const Operand &Op);
  /// Writes a value of valType(T) to a destination operand: a register
  /// (extended by T's signedness when the register is wider), `_`, or a
  /// {a, b} vector (split low element first).
  llvm::Error set(const Operand &Op, llvm::Value *V, ScalarType T);
  /// Writes an i1 to a predicate destination.
  llvm::Error setPred(const Operand &Op, llvm::Value *V);
  /// Converts a value between a register type and a value type.
  llvm::Value *fitBits(llvm::Value *V, llvm::Type *To, bool SignExtend);

  /// The pointer an address operand denotes, in the LLVM address space of
  /// PTX space S (generic when S is None).
  llvm::Expected<llvm::Value *> address(const Operand &Op, StateSpace S);
  /// The pointer of a named symbol (variable, parameter, function) in its
  /// own space; sets *Space to that space.
  llvm::Expected<llvm::Value *> symbolPointer(llvm::StringRef Name, StateSpace *Space);
  llvm::Value *castPtr(llvm::Value *P, unsigned AS);

  /// The register declaration a name denotes, or null.
  struct RegRef {
    const VarDecl *D = nullptr;
    uint32_t Index = 0;
  };
  RegRef lookupReg(llvm::StringRef Name) const;
  /// The register a Reg/Name/Address operand names: the checker's
  /// resolution (Operand::Decl) when there is one, else lookupReg().
  RegRef regOf(const Operand &Op) const;
  const VarDecl *lookupVar(llvm::StringRef Name) const;
  /// A register's whole value (a vector for .v2/.v4 registers), of
  /// regType(D.Type) or a vector of it, at the builder's insertion point.
  llvm::Value *readReg(RegRef R);
  /// Writes V, of exactly the register's type.
  void writeReg(RegRef R, llvm::Value *V);
  /// The register's RegisterSSA number (made on first use).
  unsigned regNumber(RegRef R);
  /// CC.CF of the carry instructions (add.cc, addc, mad.cc, ...): an i1.
  llvm::Value *readCarry();
  void writeCarry(llvm::Value *V);

  /// Ferry intrinsic call.
  llvm::CallInst *call(Intr I, llvm::ArrayRef<llvm::Value *> Args = {});
  llvm::Value *callLLVM(llvm::Intrinsic::ID Id, llvm::ArrayRef<llvm::Type *> Tys,
                        llvm::ArrayRef<llvm::Value *> Args);
  /// Flushes a subnormal f32 (or vector of f32) to a zero of the same sign.
  llvm::Value *flush(llvm::Value *V);
  /// Clamps to [0, 1], NaN → +0 (.sat on floats).
  llvm::Value *saturate(llvm::Value *V);
  /// NVIDIA's NaN result of f32/f16/bf16 arithmetic and conversions: a NaN
  /// becomes the canonical NaN (0x7fffffff, 0x7fff) where it can be seen
  /// (a marker resolved by the pass nan-results). Other types unchanged.
  llvm::Value *canonicalNaN(llvm::Value *V);
  /// NVIDIA's choice among NaN operands of an f64 operation: R, the
  /// result, unless one of Order (all the operands, in the H100's
  /// priority) is a NaN, then the first such one quieted. A marker resolved
  /// by the pass nan-results: selects only where the NaN's bits can be seen
  /// and two different operands can both be NaN. Other types unchanged.
  llvm::Value *pickNaN(llvm::Value *R, llvm::ArrayRef<llvm::Value *> Order);
  /// V with its quiet bit set (a quiet NaN from a signalling one; V must be
  /// a NaN for the result to mean anything).
  llvm::Value *quietNaN(llvm::Value *V);
  /// Starts a new basic block (after a terminator) and makes it current.
  void startBlock(const llvm::Twine &Name = "");
  /// Scope / atomic-ordering helpers (LowerAtom.cpp).
  llvm::SyncScope::ID syncScope(const Instruction &I, bool DefaultGpu);
  llvm::AtomicOrdering ordering(const Instruction &I, llvm::AtomicOrdering Default);

  /// Corrects a round-to-nearest result R to rounding mode Mode (.rz/.rm/.rp)
  /// given Err, a value whose sign is the sign of (exact - R) (zero when R is
  /// exact). Overflowed results are handled with Finite (true when the exact
  /// result is finite). Defined in LowerArith.cpp.
  llvm::Value *directedRound(llvm::Value *R, llvm::Value *Err, Modifier Mode,
                             llvm::Value *Finite);
  /// The f32 result, in rounding mode Mode, of an operation computed in
  /// double as D (exact, or not on an f32 rounding boundary unless exact).
  llvm::Value *viaDouble(llvm::Value *D, Modifier Mode);
  /// R, except that an exact zero sum of X and Y is -0 in .rm unless both
  /// are +0 (IEEE 754 6.3); IsExactZero says the exact sum is zero.
  llvm::Value *exactZeroSign(llvm::Value *R, llvm::Value *IsExactZero, llvm::Value *X,
                             llvm::Value *Y, Modifier Mode);
  /// A double whose sign is the sign of a*b + c - R for R = RN(a*b + c)
  /// (f64; zero when R is exact). Defined in LowerFloat.cpp.
  llvm::Value *fmaErrorF64(llvm::Value *A, llvm::Value *Bv, llvm::Value *Cv, llvm::Value *R);

  // ---- Families -----------------------------------------------------------
  llvm::Error lowerInstruction(const Instruction &I);
  llvm::Error lowerIntArith(const Instruction &I);   // LowerArith.cpp
  llvm::Error lowerIntPairArith(const Instruction &I, bool Signed); // LowerArith.cpp
  llvm::Error lowerFloatArith(const Instruction &I); // LowerFloat.cpp
  llvm::Error lowerLogic(const Instruction &I);      // LowerLogic.cpp
  llvm::Error lowerCompare(const Instruction &I);    // LowerLogic.cpp
  llvm::Error lowerCvt(const Instruction &I);        // LowerCvt.cpp
  llvm::Error lowerMov(const Instruction &I);        // LowerCvt.cpp
  llvm::Error lowerMem(const Instruction &I);        // LowerMem.cpp
  llvm::Error lowerAtom(const Instruction &I);       // LowerAtom.cpp
  llvm::Error lowerControl(const Instruction &I);    // LowerControl.cpp
  llvm::Error lowerCall(const Instruction &I);       // LowerControl.cpp
  /// A call of a __cudaCDP2* device runtime function (LowerCdp.cpp).
  llvm::Error lowerCdpCall(llvm::StringRef Name, llvm::ArrayRef<Operand> Args,
                           llvm::ArrayRef<Operand> Rets);
  llvm::Error lowerWarp(const Instruction &I);       // LowerWarp.cpp
  llvm::Error lowerTex(const Instruction &I);        // LowerTex.cpp
  llvm::Error lowerMma(const Instruction &I);        // LowerMma.cpp
  llvm::Error lowerWgmma(const Instruction &I);      // LowerWgmma.cpp
  llvm::Error lowerMisc(const Instruction &I);       // LowerMisc.cpp: mbarrier, bulk copies,
  llvm::Error lowerMbarrier(const Instruction &I);   //   video, fns
  llvm::Error lowerBulkCopy(const Instruction &I);
  llvm::Error lowerVideo(const Instruction &I);
  llvm::Error lowerFns(const Instruction &I);
  llvm::Expected<llvm::Value *> readSpecial(const Operand &Op); // LowerSreg.cpp

  // ---- Function state -------------------------------------------------------
  llvm::BasicBlock *EntryBB = nullptr;  ///< Allocas live here.
  llvm::BasicBlock *ReturnBB = nullptr; ///< Shared return block (.func/.entry).
  llvm::Value *Params = nullptr;        ///< %params of an entry.
  std::optional<RegisterSSA> Regs;      ///< Made with EntryBB.
  /// First RegisterSSA number of each register declaration (a %r<N>
  /// range has N consecutive numbers).
  llvm::DenseMap<const VarDecl *, unsigned> RegBase;
  unsigned CarryReg = 0;                ///< CC.CF.
  llvm::StringMap<llvm::BasicBlock *> Labels;
  /// Instructions are numbered in body order (collectLabels, then again
  /// lowerBody); per label, the number of the last branch to it, so that a
  /// label's block is sealed (RegisterSSA) when no later branch targets it.
  unsigned NumInstrs = 0;
  llvm::StringMap<unsigned> LastBranchTo;
  llvm::SmallVector<std::pair<llvm::StringRef, unsigned>, 2> Switches; ///< brx.idx lists.
  llvm::StringMap<const BranchTargets *> TargetLists;
  llvm::StringMap<const CallPrototype *> Prototypes;
  /// Storage of non-register function-scope variables (.local, .param of
  /// calls, .func parameters) and hoisted globals.
  llvm::DenseMap<const VarDecl *, llvm::Value *> VarSlots;
  /// .func return slots, in order.
  llvm::SmallVector<std::pair<const VarDecl *, llvm::Value *>, 2> RetSlots;
  /// Lexical scopes: declared name → declaration, plus %r<N> ranges.
  llvm::SmallVector<llvm::StringMap<const VarDecl *>, 4> Scopes;
  llvm::SmallVector<llvm::StringMap<const VarDecl *>, 4> Ranges;
  unsigned HoistCounter = 0;

  llvm::Error collectLabels(llvm::ArrayRef<Node *> Body);
  llvm::Error lowerBody(llvm::ArrayRef<Node *> Body);
  llvm::Error declareLocal(const VarDecl &D);
  llvm::Error emitReturn();
};

/// The address-space cast or integer conversion helpers shared by passes.
llvm::Type *ptrTy(llvm::LLVMContext &C, unsigned AS = 0);

} // namespace ferry::ptx::lower
