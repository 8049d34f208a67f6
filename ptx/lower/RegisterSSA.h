//===- RegisterSSA.h - PTX registers as SSA values while lowering -*- C++ -*-===//
/// \file
/// PTX registers are mutable variables; SIMT IR wants SSA values. An alloca
/// per register and mem2reg afterwards cost more than the whole lowering
/// (the IDF computation of mem2reg is per alloca, over every block), so the
/// lowering builds SSA form itself, after Braun et al., "Simple and Efficient
/// Construction of Static Single Assignment Form" (CC 2013):
///  - a write records the register's value at the end of the current block;
///  - a read takes the current block's value; failing that it follows the
///    block's forward() link (a block the lowering made, whose only
///    predecessor it knows), or, in a block whose predecessors are all known
///    (seal(): a label no later branch targets), merges the predecessors'
///    values (a phi only where they differ); and failing that it leaves an
///    empty phi at the top of the block: a placeholder, because the
///    predecessors of a loop header are known only when the whole body has
///    been walked;
///  - a guarded instruction's join block gets its phis from join(), which
///    knows the registers the instruction wrote;
///  - finish() fills the placeholders from the final CFG (making more phis
///    where its walk meets a join) and removes the phis that turn out to be
///    trivial (every operand the phi itself or one value).
/// A register read before any write is zero, never poison (SimtIR.md).
///
/// Every read and write is at the end of its block, which is where the
/// lowering's IRBuilder always inserts.
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"

#include <utility>
#include <vector>

namespace llvm {
class BasicBlock;
class PHINode;
class Type;
class Value;
} // namespace llvm

namespace ferry::ptx::lower {

class RegisterSSA {
public:
  /// Entry is the function's entry block: it has no predecessors, and a
  /// register not written there is zero at its end.
  explicit RegisterSSA(llvm::BasicBlock *Entry) : Entry(Entry) {}

  /// Adds Count registers of type T (a %r<N> range is N registers); returns
  /// the number of the first.
  unsigned add(llvm::Type *T, unsigned Count = 1);
  llvm::Type *type(unsigned Reg) const { return Types[Reg]; }

  /// The register's value at the current end of BB.
  llvm::Value *read(unsigned Reg, llvm::BasicBlock *BB) {
    if (Last[Reg].first == BB)
      return Last[Reg].second;
    return readSlow(Reg, BB);
  }
  /// Sets the register's value at the current end of BB (V of type(Reg)).
  void write(unsigned Reg, llvm::BasicBlock *BB, llvm::Value *V);

  /// BB's only predecessor is, and will stay, From: a register BB does not
  /// write has From's value.
  void forward(llvm::BasicBlock *BB, llvm::BasicBlock *From) { block(BB)->Link = block(From); }
  /// BB's predecessors are all there (no branch to it will be added).
  void seal(llvm::BasicBlock *BB) { block(BB)->Sealed = true; }

  /// For a guarded instruction: records the registers written from here on
  /// until join().
  void startGuard();
  /// Join's predecessors are Before (guard false) and, unless null, After
  /// (the end of the guarded instruction): makes a phi in Join for every
  /// register written since startGuard(), and forwards the others.
  void join(llvm::BasicBlock *Join, llvm::BasicBlock *Before, llvm::BasicBlock *After);

  /// Completes the phis once the function's CFG is final.
  void finish();

private:
  /// What is known of one basic block: its forward link or whether its
  /// predecessors are final, and the registers' values at its end.
  struct Block {
    llvm::BasicBlock *BB;
    Block *Link = nullptr;
    bool Sealed = false;
    llvm::SmallDenseMap<unsigned, llvm::Value *, 4> End;
    explicit Block(llvm::BasicBlock *BB) : BB(BB) {}
  };
  Block *block(llvm::BasicBlock *BB);
  llvm::Value *readSlow(unsigned Reg, llvm::BasicBlock *BB);
  /// The value at the end of X; Final: the CFG is complete, so blocks
  /// without a forward link are resolved through their predecessors.
  llvm::Value *valueAtEnd(unsigned Reg, Block *X, bool Final, unsigned Depth = 0);
  /// The value on entry to X, whose predecessors are final, from theirs.
  llvm::Value *merge(unsigned Reg, Block *X, bool Final, unsigned Depth);
  llvm::PHINode *placeholder(unsigned Reg, Block *X);
  /// A phi at X, whose merge is under way, found again by a walk from it.
  llvm::PHINode *cyclePhi(unsigned Reg, Block *X);

  llvm::BasicBlock *Entry;
  std::vector<llvm::Type *> Types;
  /// Per register, the block and value of its last read or write: most
  /// reads are of a register just written or read in the same block.
  std::vector<std::pair<llvm::BasicBlock *, llvm::Value *>> Last;
  llvm::SpecificBumpPtrAllocator<Block> Alloc;
  llvm::DenseMap<llvm::BasicBlock *, Block *> Blocks;
  llvm::BasicBlock *LastBB = nullptr; ///< block()'s one-entry cache.
  Block *LastBlock = nullptr;
  /// Phis waiting for their operands, and every phi made here.
  std::vector<std::pair<llvm::PHINode *, unsigned>> Unfilled;
  std::vector<llvm::PHINode *> Phis;
  bool Guarded = false;
  llvm::SmallVector<unsigned, 8> GuardWrites;
};

} // namespace ferry::ptx::lower
