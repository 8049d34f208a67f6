//===- Ast.h - the PTX abstract syntax tree ---------------------*- C++ -*-===//
/// \file
/// The tree the PTX front end builds and ptx/lower consumes: one Module per
/// PTX text, holding declarations and functions; function bodies are blocks
/// of statements (instructions, labels, declarations, nested blocks).
///
/// Why it looks like this:
///  - Every node lives in the Module's BumpPtrAllocator and every list is an
///    ArrayRef into that arena, so nodes are trivially destructible, parsing
///    allocates nothing per token, and a Module is freed in one go.
///  - Every name (identifier, register, label, string) is a StringRef into
///    the Module's own copy of the source text, so nothing is interned twice
///    and the caller's buffer may go away after parsing.
///  - The closed sets of PTX (opcodes, modifiers, types, special registers)
///    are enums generated from the .def tables next to this file; an
///    instruction keeps its modifiers as an ordered list of enum values,
///    exactly as written, which the printer reproduces and the checker
///    validates against the opcode's row in Instructions.def.
///  - Operands are a flat tagged struct rather than a class hierarchy: a
///    lowering pass switches on Operand::K and reads the few fields that kind
///    uses (documented on each kind).
///
/// Walking a module:
/// \code
///   for (const Node *N : M.items())
///     if (auto *F = llvm::dyn_cast<Function>(N); F && F->Body)
///       walk(F->Body->Body);   // ArrayRef<Node *>: Instruction, Label,
///                              // VarDecl, Block (nested {}), Pragma, ...
///   void walk(llvm::ArrayRef<Node *> Stmts) {
///     for (const Node *S : Stmts)
///       if (auto *I = llvm::dyn_cast<Instruction>(S))
///         ... I->Op, I->Mods, I->Ops, I->Guard ...
///       else if (auto *B = llvm::dyn_cast<Block>(S))
///         walk(B->Body);
///   }
/// \endcode
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Casting.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ferry::ptx {

/// 1-based line and column of a token's first character in the PTX text.
struct SourceLoc {
  uint32_t Line = 0;
  uint32_t Col = 0;
};

//===----------------------------------------------------------------------===//
// Closed sets, generated from the tables.
//===----------------------------------------------------------------------===//

/// A PTX fundamental type (Types.def).
enum class ScalarType : uint8_t {
#define PTX_TYPE(E, S, Bits, Kind) E,
#include "ptx/parser/Types.def"
};
inline constexpr unsigned NumScalarTypes = 0
#define PTX_TYPE(E, S, Bits, Kind) +1
#include "ptx/parser/Types.def"
    ;

/// What family a type belongs to; drives integer/float/bit semantics.
enum class TypeKind : uint8_t { Bits, Unsigned, Signed, Float, Pred, Opaque };

llvm::StringRef typeName(ScalarType T); ///< "u32" (no dot).
unsigned typeBits(ScalarType T);        ///< Storage width in bits.
TypeKind typeKind(ScalarType T);
std::optional<ScalarType> lookupType(llvm::StringRef NameWithoutDot);

/// Modifier classes: which role a dotted modifier can play. An opcode's row
/// in Instructions.def lists the classes it accepts.
enum ModClass : uint64_t {
  MC_Type = 1ull << 0,       ///< .u32 .f16x2 ...
  MC_Vec = 1ull << 1,        ///< .v2 .v4 .v8
  MC_Round = 1ull << 2,      ///< .rn .rz .rm .rp .rni ... .rna .rs
  MC_Ftz = 1ull << 3,        ///< .ftz
  MC_Sat = 1ull << 4,        ///< .sat .satfinite
  MC_Approx = 1ull << 5,     ///< .approx .full
  MC_IntMode = 1ull << 6,    ///< .lo .hi .wide .cc .shiftamt .clamp .wrap .l .r
  MC_FloatMode = 1ull << 7,  ///< .relu .NaN .xorsign .abs .noftz .oob
  MC_Cmp = 1ull << 8,        ///< .eq .ne .lt ... .equ ... .num .nan
  MC_BoolOp = 1ull << 9,     ///< .and .or .xor (setp/set combiners)
  MC_Op = 1ull << 10,        ///< atomic/reduction ops: .add .min .cas .popc...
  MC_Space = 1ull << 11,     ///< .global .shared::cta .param ...
  MC_Sem = 1ull << 12,       ///< .relaxed .acquire .release .acq_rel .sc ...
  MC_Scope = 1ull << 13,     ///< .cta .cluster .gpu .sys
  MC_Cache = 1ull << 14,     ///< .ca .cg .cs .lu .cv .wb .wt .nc
  MC_Hint = 1ull << 15,      ///< .L1::evict_last .L2::128B .L2::cache_hint
  MC_Sync = 1ull << 16,      ///< .sync .aligned .uni
  MC_Barrier = 1ull << 17,   ///< bar: .sync .arrive .red .cta
  MC_Shfl = 1ull << 18,      ///< .up .down .bfly .idx
  MC_Vote = 1ull << 19,      ///< .all .any .uni .ballot
  MC_Fence = 1ull << 20,     ///< .proxy .alias .async .tensormap .gl .sys
  MC_Geom = 1ull << 21,      ///< .1d .2d .3d .a1d .cube ...
  MC_Tex = 1ull << 22,       ///< .level .grad .r/.g/.b/.a, txq queries, .trap
  MC_Layout = 1ull << 23,    ///< .row .col
  MC_Shape = 1ull << 24,     ///< .m16n16k16 .m8n8 ...
  MC_Mma = 1ull << 25,       ///< .x4 .trans .a/.b/.c/.d fragments, kinds
  MC_Misc = 1ull << 26,      ///< opcode-specific words (.to .f4e .parity ...)
};

/// One dotted modifier after an opcode (Modifiers.def). Types are modifiers
/// too (their enumerators share the ScalarType names).
enum class Modifier : uint16_t {
#define PTX_MOD(E, S, Classes) E,
#include "ptx/parser/Modifiers.def"
};

llvm::StringRef modifierName(Modifier M); ///< Spelling without the dot.
uint64_t modifierClasses(Modifier M);     ///< ModClass bits.
/// The type a type modifier names (Modifier::U32 -> ScalarType::U32).
std::optional<ScalarType> modifierType(Modifier M);
std::optional<Modifier> lookupModifier(llvm::StringRef NameWithoutDot);

/// Instruction flags of Instructions.def rows.
enum InsnFlag : unsigned {
  IF_Call = 1u << 0,   ///< call syntax: (rets), target, (args), proto
  IF_Branch = 1u << 1, ///< the last operand names a label
  IF_Term = 1u << 2,   ///< ends straight-line code
};

/// An opcode (Instructions.def).
enum class Opcode : uint16_t {
#define PTX_INSN(E, S, Sec, Shape, Classes, Flags) E,
#include "ptx/parser/Instructions.def"
};

/// One row of the grammar table.
struct OpcodeInfo {
  llvm::StringRef Name;    ///< "ld", "cp.async.commit_group".
  llvm::StringRef Section; ///< PTX ISA 9.0 section(s), e.g. "9.7.9.8".
  llvm::StringRef Shape;   ///< Operand shape letters, see Instructions.def.
  uint64_t Classes;        ///< Accepted ModClass bits.
  unsigned Flags;          ///< InsnFlag bits.
};
const OpcodeInfo &opcodeInfo(Opcode Op);
llvm::ArrayRef<OpcodeInfo> allOpcodes(); ///< Indexed by Opcode.

/// A predefined special register (SpecialRegs.def).
enum class SpecialReg : uint8_t {
#define PTX_SREG(E, S, Kind) E,
#include "ptx/parser/SpecialRegs.def"
};
enum class SpecialRegKind : uint8_t { Scalar, Vec4, Indexed };
llvm::StringRef specialRegName(SpecialReg R); ///< Without the '%'.
SpecialRegKind specialRegKind(SpecialReg R);

/// State spaces of declarations (5.1).
enum class StateSpace : uint8_t { None, Reg, Sreg, Const, Global, Local, Param, Shared, Tex };
llvm::StringRef stateSpaceName(StateSpace S); ///< "global" (no dot); "" for None.

/// Linkage of module-scope symbols (11.6).
enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };
llvm::StringRef linkageName(Linkage L);

/// Component selectors written after a register: %tid.x, %r1.b0 (video).
/// Bytes and Halves are the multi-lane selectors and masks of the SIMD video
/// instructions (9.7.19): .b7654, .b10, .h32, ..., their digits in
/// Operand::Lanes.
enum class Component : uint8_t { None, X, Y, Z, W, R, G, B, A, B0, B1, B2, B3, H0, H1, Bytes, Halves };
llvm::StringRef componentName(Component C); ///< "x", "b0", "b"/"h" for Bytes/Halves (no dot).

//===----------------------------------------------------------------------===//
// Operands.
//===----------------------------------------------------------------------===//

class VarDecl;

/// What a Name operand was found to refer to; filled by checkModule().
enum class RefKind : uint8_t { Unresolved, Register, Variable, Label, Function, Prototype };

/// One instruction operand. Fields used per kind:
///  - Reg:       Name (identifier as written, e.g. "%r1" or "temp_reg"),
///               Comp (.x/.b0 selector), Negated (!%p). Register vs other
///               symbol is a question of declarations, so the parser
///               produces Name for every identifier and the checker sets Ref.
///  - Name:      an identifier that is not (yet known to be) a register:
///               variable, function, label. Name, Ref (after checking),
///               Int = constant offset for "sym+4".
///  - SReg:      SReg, Comp (.x for Vec4 kinds), Int = index (%envreg3 -> 3).
///  - Sink:      the "_" placeholder.
///  - Int:       Int (value, two's complement as written after folding any
///               constant expression).
///  - Float:     FloatBits, FForm (0f / 0d / decimal), see asDouble().
///  - Address:   [Name+Int]; Name empty for [imm]; Name may be a register or
///               a symbol (Ref tells after checking).
///  - Vector:    {e0, e1, ...}: Elems (Reg, Sink, Int, Float).
///  - Pair:      d|p (setp/shfl second destination): Elems[0], Elems[1].
///  - Bracket:   [a, b, {c,...}] texture/surface argument list: Elems.
///  - ParenList: (a, b) call return/argument lists: Elems.
/// Operands as parsed never carry Reg: the parser emits Name for all
/// identifiers and checkModule() rewrites a Name to Reg once it resolves to a
/// .reg declaration (so lowering sees Reg vs Name).
struct Operand {
  enum class Kind : uint8_t { Reg, Name, SReg, Sink, Int, Float, Address, Vector, Pair, Bracket, ParenList };
  enum class FloatForm : uint8_t { Decimal, Hex32, Hex64 };

  Kind K = Kind::Int;
  bool Negated = false;
  bool Minus = false;     ///< -%r (vmad's negated sources).
  llvm::StringRef Lanes;  ///< Digits of a Bytes/Halves selector ("7654").
  Component Comp = Component::None;
  RefKind Ref = RefKind::Unresolved;
  SpecialReg SReg = SpecialReg::Tid;
  FloatForm FForm = FloatForm::Decimal;
  SourceLoc Loc;
  llvm::StringRef Name;
  int64_t Int = 0;
  uint64_t FloatBits = 0; ///< 0f: the 32 float bits; 0d/decimal: double bits.
  llvm::ArrayRef<Operand> Elems;
  /// After checkModule(): the declaration a Reg, Name or Address base names
  /// (its Type gives a register's declared type). For a register of a range
  /// (%r5 of `.reg .b32 %r<10>`) this is the range's declaration. Null for
  /// labels, functions, prototypes and unresolved names.
  const VarDecl *Decl = nullptr;

  bool isRegLike() const { return K == Kind::Reg || K == Kind::Name || K == Kind::SReg; }
  /// The float immediate's value (0f forms widened exactly).
  double asDouble() const;
};

//===----------------------------------------------------------------------===//
// Nodes.
//===----------------------------------------------------------------------===//

/// Base of every tree node; use llvm::isa/dyn_cast on it.
class Node {
public:
  enum class Kind : uint8_t {
    // Statements (inside function bodies).
    Instruction, Label, Var, Block, Pragma, Loc, BranchTargets, CallPrototype,
    // Module-scope items (Var and Pragma also occur here).
    Function, Alias, File, Section,
  };
  Kind getKind() const { return K; }
  SourceLoc Loc;

protected:
  explicit Node(Kind K) : K(K) {}

private:
  Kind K;
};

/// An initializer of a module-scope variable (5.4.4):
///  - Int / Float: a constant (Float uses the Operand float encoding).
///  - Symbol: the address of a variable or function: Name, Generic (written
///    generic(sym)), Offset (sym+off), Mask (written 0xff(sym): the mask
///    applied to the address; 0 when absent).
///  - List: {a, b, {c, d}} with nested braces: Elems.
struct Initializer {
  enum class Kind : uint8_t { Int, Float, Symbol, List };
  Kind K = Kind::Int;
  bool Generic = false;
  Operand::FloatForm FForm = Operand::FloatForm::Decimal;
  SourceLoc Loc;
  int64_t Int = 0;
  uint64_t FloatBits = 0;
  llvm::StringRef Name;
  int64_t Offset = 0;
  uint64_t Mask = 0;
  llvm::ArrayRef<const Initializer *> Elems;
};

/// A variable, register, or parameter declaration. One node per declared
/// name ("`.reg .b32 %a, %b;`" yields two), so uses resolve to one node.
///  - `.reg .b32 %r<100>;` is one node with RangeCount = 100: it declares
///    %r0 .. %r99.
///  - Dims: array dimensions, outermost first; 0 stands for `[]` (size from
///    the initializer or an extern/dynamic array).
///  - Params of functions: Space = Param (or Reg for .reg params of .func),
///    with the .ptr attributes in PtrSpace/PtrAlign when written.
class VarDecl : public Node {
public:
  VarDecl() : Node(Kind::Var) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Var; }

  StateSpace Space = StateSpace::None;
  Linkage Link = Linkage::None;
  ScalarType Type = ScalarType::B32;
  uint8_t VecWidth = 0;          ///< 0 (scalar), 2, 4, or 8.
  uint32_t Align = 0;            ///< .align N; 0 when not written.
  uint32_t RangeCount = 0;       ///< N of name<N>; 0 when not a range.
  bool IsPtr = false;            ///< .ptr attribute written on a param.
  StateSpace PtrSpace = StateSpace::None; ///< .ptr.global etc.
  uint32_t PtrAlign = 0;         ///< .ptr ... .align N.
  bool Managed = false;          ///< .attribute(.managed)
  bool Unified = false;          ///< .attribute(.unified(hi, lo))
  uint64_t UnifiedHi = 0, UnifiedLo = 0;
  llvm::StringRef Name;
  llvm::ArrayRef<uint64_t> Dims;
  const Initializer *Init = nullptr;

  /// Total element count of the array (product of Dims), 1 for scalars, 0 if
  /// some dimension is unsized.
  uint64_t elementCount() const;
};

/// One instruction: `@!p opcode.mod.mod operands;`.
class Instruction : public Node {
public:
  Instruction() : Node(Kind::Instruction) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Instruction; }

  Opcode Op = Opcode::Add;
  llvm::StringRef Guard;        ///< Predicate name of @p; empty when unguarded.
  bool GuardNegated = false;    ///< @!p.
  const VarDecl *GuardDecl = nullptr; ///< The guard's .pred declaration (after checkModule()).
  SourceLoc GuardLoc;
  llvm::ArrayRef<Modifier> Mods; ///< In written order.
  llvm::ArrayRef<Operand> Ops;   ///< In written order (destination first).

  const OpcodeInfo &info() const { return opcodeInfo(Op); }
  bool has(Modifier M) const;
  /// The first / last type modifier (cvt.f32.s32: first is the destination
  /// type f32, last the source type s32); nullopt when untyped.
  std::optional<ScalarType> firstType() const;
  std::optional<ScalarType> lastType() const;
  /// The state-space modifier if any (ld.global -> Global; .shared::cta and
  /// .shared::cluster map to Shared; .param::entry/func to Param).
  StateSpace space() const;
  /// The modifier of a given class, first one written, if any.
  std::optional<Modifier> firstOfClass(uint64_t ClassBits) const;
};

/// A label definition `name:` preceding a statement.
class Label : public Node {
public:
  Label() : Node(Kind::Label) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Label; }
  llvm::StringRef Name;
};

/// A nested `{ ... }` scope; declarations inside are visible only there.
class Block : public Node {
public:
  Block() : Node(Kind::Block) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Block; }
  llvm::ArrayRef<Node *> Body;
};

/// `.pragma "a", "b";` (strings kept without quotes), in a body or at
/// module scope.
class Pragma : public Node {
public:
  Pragma() : Node(Kind::Pragma) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Pragma; }
  llvm::ArrayRef<llvm::StringRef> Strings;
};

/// `.loc file line col [, extra...]`: debug line information. Extra holds
/// the raw text after the column (function_name/inlined_at), trimmed.
class LocDirective : public Node {
public:
  LocDirective() : Node(Kind::Loc) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Loc; }
  uint32_t File = 0, Line = 0, Col = 0;
  llvm::StringRef Extra;
};

/// `name: .branchtargets L1, L2;` (for brx.idx) or `name: .calltargets f, g;`
/// (for indirect call).
class BranchTargets : public Node {
public:
  BranchTargets() : Node(Kind::BranchTargets) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::BranchTargets; }
  bool IsCallTargets = false;
  llvm::StringRef Name;
  llvm::ArrayRef<llvm::StringRef> Targets;
};

/// `name: .callprototype (.param .b32 _) _ (.param .b64 _, ...);` describing
/// an indirect call's signature. Parameter names are "_" as written.
class CallPrototype : public Node {
public:
  CallPrototype() : Node(Kind::CallPrototype) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::CallPrototype; }
  llvm::StringRef Name;
  llvm::ArrayRef<VarDecl *> Returns;
  llvm::ArrayRef<VarDecl *> Params;
  bool NoReturn = false;
};

/// Performance-tuning and related directives attached to a function (11.4).
struct FuncDirective {
  enum class Kind : uint8_t {
    MaxNTid, ReqNTid, MinNCtaPerSm, MaxNCtaPerSm, MaxNReg, MaxClusterRank,
    ReqNCtaPerCluster, ExplicitCluster, NoReturn, Pragma, BlocksAreClusters,
    AbiPreserve, AbiPreserveControl,
  };
  Kind K = Kind::MaxNTid;
  SourceLoc Loc;
  llvm::ArrayRef<uint32_t> Values;         ///< e.g. .maxntid 256, 1, 1
  llvm::ArrayRef<llvm::StringRef> Strings; ///< .pragma strings (unquoted)
};
llvm::StringRef funcDirectiveName(FuncDirective::Kind K); ///< "maxntid"

/// A kernel (.entry) or device function (.func), declaration or definition.
class Function : public Node {
public:
  Function() : Node(Kind::Function) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Function; }
  bool IsEntry = false;
  Linkage Link = Linkage::None;
  llvm::StringRef Name;
  llvm::ArrayRef<VarDecl *> Returns; ///< .func (.param .b32 r) name(...)
  llvm::ArrayRef<VarDecl *> Params;
  llvm::ArrayRef<FuncDirective> Directives;
  Block *Body = nullptr; ///< nullptr for a declaration (prototype only).

  const FuncDirective *directive(FuncDirective::Kind K) const;
};

/// `.alias alias_name, aliasee;` (11.6.?): a function alias.
class Alias : public Node {
public:
  Alias() : Node(Kind::Alias) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Alias; }
  llvm::StringRef Name, Aliasee;
};

/// `.file N "path" [, timestamp, size]`.
class FileDirective : public Node {
public:
  FileDirective() : Node(Kind::File) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::File; }
  uint32_t Index = 0;
  llvm::StringRef Path;  ///< Unquoted (escape sequences as written).
  llvm::StringRef Extra; ///< Raw text after the path (timestamp, size).
};

/// `.section .debug_xxx { ... }`: DWARF the compiler emitted. Kept as raw
/// text (between the braces) because ferry only ever prints it back.
class Section : public Node {
public:
  Section() : Node(Kind::Section) {}
  static bool classof(const Node *N) { return N->getKind() == Kind::Section; }
  llvm::StringRef Name; ///< ".debug_info"
  llvm::StringRef Raw;  ///< Text between the braces, untouched.
};

/// The `.target` line: architecture and options (11.3.?).
struct TargetInfo {
  uint32_t SmVersion = 0;  ///< 90 for sm_90a.
  char ArchSuffix = 0;     ///< 'a' (sm_90a), 'f' (sm_100f) or 0.
  bool TexmodeIndependent = false; ///< texmode_independent (else unified).
  bool Debug = false;
  bool MapF64ToF32 = false;
  llvm::ArrayRef<llvm::StringRef> Raw; ///< Every word as written.
};

/// One parsed PTX module. Owns the arena all nodes live in and a copy of the
/// source text all names point into. Not copyable.
class Module {
public:
  Module() = default;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  uint32_t VersionMajor = 0, VersionMinor = 0; ///< .version 9.0
  TargetInfo Target;
  /// .address_size; the PTX ISA's default when the directive is absent is
  /// 32 (nvcc always writes `.address_size 64`).
  uint32_t AddressSize = 32;
  bool HasAddressSize = false;
  llvm::ArrayRef<Node *> Items; ///< Module-scope items in written order.
  llvm::StringRef FileName;     ///< For diagnostics.

  llvm::ArrayRef<Node *> items() const { return Items; }
  const Function *findFunction(llvm::StringRef Name) const;
  const VarDecl *findGlobal(llvm::StringRef Name) const;

  /// The arena every node and list of this module lives in.
  llvm::BumpPtrAllocator &arena() { return Alloc; }
  /// Copy a range into the arena.
  template <typename T> llvm::ArrayRef<T> copy(llvm::ArrayRef<T> Src) {
    if (Src.empty())
      return {};
    T *P = Alloc.Allocate<T>(Src.size());
    std::uninitialized_copy(Src.begin(), Src.end(), P);
    return llvm::ArrayRef<T>(P, Src.size());
  }
  template <typename T, typename... Args> T *make(Args &&...A) {
    return new (Alloc.Allocate<T>()) T(std::forward<Args>(A)...);
  }
  llvm::StringRef Source; ///< The arena copy of the text.

private:
  llvm::BumpPtrAllocator Alloc;
};

} // namespace ferry::ptx
