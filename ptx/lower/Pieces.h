//===- Pieces.h - Lazy loading's units of compilation -----------*- C++ -*-===//
/// \file
/// A lowered image (the SIMT IR of all its kernels) split into what lazy
/// loading compiles separately (CUDA_MODULE_LOADING=LAZY, libcuda's
/// core/Library.cpp): a *piece* is a copy of the image holding some kernels
/// and exactly what they reach (device functions, constants, shared
/// variables), so compiling it costs what those kernels cost, not the image.
///
/// Module variables (named `.global`/`.const` definitions, addrspace 1 and
/// 4) have one storage per module and device, which every kernel compiled
/// later must share: one piece, the *variables piece*, defines them all, and
/// the others declare them (external) for the backend to resolve against
/// that piece's loaded code. A backend that cannot resolve variables across
/// code objects (AMD) reaches them through cells the piece defines
/// (reachVariablesThroughCells), filled when the piece is loaded;
/// planPieces' SharesVariables = false (the kernels that use variables
/// compiled together with them) is what it did before, and costs a module
/// whose variables many kernels use all of those kernels at once.
///
/// Kernel launch handles (`ferry.entry.<name>`, device-side launches) are
/// not module variables: a launch resolves its handle in the launching
/// kernel's own code, so a kernel is always compiled with the kernels its
/// code launches (kernelGroup).
///
/// Pure functions of the IR: the same image gives the same pieces (the same
/// bitcode) in every process, which is what makes them cacheable, and what
/// lets `ferry compile` fill the cache with what libcuda will look up.
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class GlobalVariable;
class Module;
} // namespace llvm

namespace ferry::ptx {

/// Whether G has one storage per module (see the file comment): a named
/// `.global`/`.const` definition of the PTX's module scope.
bool isModuleVariable(const llvm::GlobalVariable &G);

/// The lowered kernels of M (`!ferry.kernels`), in module order.
std::vector<std::string> kernelNames(const llvm::Module &M);

/// Kernel K and the kernels its code launches from the device, transitively,
/// in module order: what must be compiled together with K.
std::vector<std::string> kernelGroup(const llvm::Module &M, llvm::StringRef K);

/// The kernels whose code (with everything it calls) uses a module variable.
std::vector<std::string> variableUsers(const llvm::Module &M);

/// How an image is compiled lazily: the variables piece (its kernels:
/// none when the backend shares variables across code objects, else every
/// variable user and what they launch) and whether the image has a module
/// variable at all (no variables piece is needed otherwise).
struct PiecePlan {
  bool HasVariables = false;
  std::vector<std::string> VariablesPieceKernels;
};
PiecePlan planPieces(const llvm::Module &M, bool SharesVariables);

/// A copy of M (in M's context) with only Kernels and what they reach; the
/// `!ferry.*` metadata lists only those kernels. DefineVariables: every
/// module variable is defined, with its initialiser (the variables piece);
/// otherwise those the kernels use are external declarations and the rest
/// are gone.
std::unique_ptr<llvm::Module> extractPiece(const llvm::Module &M, llvm::ArrayRef<std::string> Kernels,
                                           bool DefineVariables);

/// For a backend whose code objects cannot name another code object's
/// symbols (AMD: ROCr's loader resolves only an object's own): each module
/// variable a piece declares is reached through a *cell* the piece defines,
/// `<name>.ferry.cell` (addrspace 1, externally initialised, null), which
/// holds the variable's address; every function that used the variable
/// loads the cell once at its entry. The loader of the piece writes the
/// variables piece's addresses into the cells (libcuda's core/Library.cpp)
/// before any kernel of it runs. Returns the variables given cells, by their
/// IR names; a variable also named by a global's initialiser keeps its
/// declaration (its load then fails, naming it).
std::vector<std::string> reachVariablesThroughCells(llvm::Module &Piece);

/// The cell of variable Name (reachVariablesThroughCells).
std::string variableCellName(llvm::StringRef Name);

} // namespace ferry::ptx

namespace ferry::ptx {

/// The PTX text of one image cut down to the functions some kernels reach,
/// so that lazy loading lowers (not only compiles) just those: a module of
/// hundreds of kernels costs its first launch what that kernel costs. The
/// index is made once per image (a linear scan, no parsing); a slice keeps
/// every directive and module-scope declaration in order (so variables and
/// their initialisers are the image's), the kernels' and reached
/// functions' bodies, and the prototypes of what it keeps or of what the
/// image never defines (runtime externs such as vprintf). Reach is by name:
/// a function body naming another function (call, address taken, a
/// device-side launch's kernel) reaches it, and functions named by
/// module-scope initialisers are reached by every slice.
class PtxSlicer {
public:
  explicit PtxSlicer(std::string_view Ptx);
  /// False when the text has something the slicer does not follow
  /// (`.alias`, unbalanced braces); lower the whole text then.
  bool usable() const { return Usable; }
  /// Kernels and every function they reach, by name, in text order.
  std::vector<std::string> reach(llvm::ArrayRef<std::string> Kernels) const;
  /// The text of a slice holding Kernels (none: the declarations only).
  std::string slice(llvm::ArrayRef<std::string> Kernels) const;

private:
  struct Item {
    size_t Begin = 0, End = 0; ///< Bytes of the text (End exclusive).
    enum Kind { Statement, Prototype, Function } K = Statement;
    std::string Name;               ///< Prototype and Function: its name.
    std::vector<unsigned> Reaches;  ///< Function indices it names.
  };
  std::string_view Text;
  std::vector<Item> Items;
  std::vector<unsigned> Functions; ///< Items of kind Function.
  std::vector<unsigned> Always;    ///< Functions named by declarations.
  bool Usable = true;
};

} // namespace ferry::ptx
