//===- RegisterSSA.cpp - PTX registers as SSA values while lowering --------===//
/// \file
/// The on-the-fly SSA construction RegisterSSA.h describes. Walks along
/// single predecessors are iterative (a chain of guarded instructions is a
/// chain of blocks as long as the kernel); merges at joins recurse, to a
/// bounded depth past which a placeholder phi defers the join to finish().
/// Every value found is remembered for each block passed, so each (block,
/// register) pair is walked through once.
//===----------------------------------------------------------------------===//
#include "ptx/lower/RegisterSSA.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace ferry::ptx::lower {

unsigned RegisterSSA::add(Type *T, unsigned Count) {
  unsigned First = Types.size();
  Types.resize(First + Count, T);
  Last.resize(First + Count, {nullptr, nullptr});
  return First;
}

RegisterSSA::Block *RegisterSSA::block(BasicBlock *BB) {
  if (BB == LastBB)
    return LastBlock;
  Block *&B = Blocks[BB];
  if (!B)
    B = new (Alloc.Allocate()) Block(BB);
  LastBB = BB;
  LastBlock = B;
  return B;
}

void RegisterSSA::write(unsigned Reg, BasicBlock *BB, Value *V) {
  block(BB)->End[Reg] = V;
  Last[Reg] = {BB, V};
  if (Guarded)
    GuardWrites.push_back(Reg);
}

Value *RegisterSSA::readSlow(unsigned Reg, BasicBlock *BB) {
  Value *V = valueAtEnd(Reg, block(BB), false);
  Last[Reg] = {BB, V};
  return V;
}

PHINode *RegisterSSA::placeholder(unsigned Reg, Block *X) {
  BasicBlock *BB = X->BB;
  PHINode *Phi = BB->empty() ? PHINode::Create(Types[Reg], 2, "", BB)
                             : PHINode::Create(Types[Reg], 2, "", BB->begin());
  Unfilled.push_back({Phi, Reg});
  Phis.push_back(Phi);
  return Phi;
}

PHINode *RegisterSSA::cyclePhi(unsigned Reg, Block *X) {
  PHINode *Phi = placeholder(Reg, X);
  Unfilled.pop_back(); // merge() fills it.
  X->End[Reg] = Phi;
  return Phi;
}

Value *RegisterSSA::valueAtEnd(unsigned Reg, Block *X, bool Final, unsigned Depth) {
  if (auto It = X->End.find(Reg); It != X->End.end())
    return It->second ? It->second : cyclePhi(Reg, X);
  // Walk up through blocks that do not write the register and have one
  // known predecessor; the value at the end of each is the value found.
  SmallVector<Block *, 8> Chain;
  SmallPtrSet<Block *, 8> Seen; // Only a final walk can meet a cycle.
  Value *V = nullptr;
  for (Block *Y = X;;) {
    Chain.push_back(Y);
    if (Y->BB == Entry) {
      V = Constant::getNullValue(Types[Reg]);
      break;
    }
    Block *Next = Y->Link;
    if (!Next && (Y->Sealed || Final)) {
      // Predecessors final: none (unreachable code), one, or a join.
      auto PI = pred_begin(Y->BB), PE = pred_end(Y->BB);
      if (PI == PE || (!Y->Sealed && !Seen.insert(Y).second)) {
        V = Constant::getNullValue(Types[Reg]);
        break;
      }
      if (BasicBlock *P = Y->BB->getUniquePredecessor()) {
        Next = block(P);
      } else {
        // A sealed join is acyclic (its predecessors were all made before
        // it); a join found by a final walk may be a loop header.
        V = Y->Sealed && Depth < 64 ? merge(Reg, Y, Final, Depth + 1) : placeholder(Reg, Y);
        break;
      }
    }
    if (!Next) {
      V = placeholder(Reg, Y);
      break;
    }
    if (auto It = Next->End.find(Reg); It != Next->End.end()) {
      V = It->second ? It->second : cyclePhi(Reg, Next);
      break;
    }
    Y = Next;
  }
  for (Block *Y : Chain)
    Y->End[Reg] = V;
  return V;
}

Value *RegisterSSA::merge(unsigned Reg, Block *X, bool Final, unsigned Depth) {
  // Pending: a final walk can come back to X (a loop entered at its
  // bottom leaves a label with one predecessor, after it), and then gets
  // a phi at X (cyclePhi) that this merge fills.
  X->End[Reg] = nullptr;
  SmallVector<std::pair<Value *, BasicBlock *>, 4> In;
  bool Same = true;
  for (BasicBlock *P : predecessors(X->BB)) {
    In.push_back({valueAtEnd(Reg, block(P), Final, Depth), P});
    Same = Same && In.back().first == In.front().first;
  }
  if (auto *Cycle = cast_or_null<PHINode>(X->End.lookup(Reg))) {
    for (auto [V, P] : In)
      Cycle->addIncoming(V, P);
    return Cycle;
  }
  if (Same)
    return In.front().first;
  BasicBlock *BB = X->BB;
  PHINode *Phi = BB->empty() ? PHINode::Create(Types[Reg], In.size(), "", BB)
                             : PHINode::Create(Types[Reg], In.size(), "", BB->begin());
  for (auto [V, P] : In)
    Phi->addIncoming(V, P);
  Phis.push_back(Phi);
  return Phi;
}

void RegisterSSA::startGuard() {
  Guarded = true;
  GuardWrites.clear();
}

void RegisterSSA::join(BasicBlock *Join, BasicBlock *Before, BasicBlock *After) {
  Guarded = false;
  forward(Join, Before);
  if (!After)
    return;
  llvm::sort(GuardWrites);
  GuardWrites.erase(std::unique(GuardWrites.begin(), GuardWrites.end()), GuardWrites.end());
  Block *J = block(Join), *No = block(Before), *Yes = block(After);
  for (unsigned Reg : GuardWrites) {
    Value *VNo = valueAtEnd(Reg, No, false), *VYes = valueAtEnd(Reg, Yes, false);
    if (VNo == VYes)
      continue;
    PHINode *Phi = PHINode::Create(Types[Reg], 2, "", Join);
    Phi->addIncoming(VNo, Before);
    Phi->addIncoming(VYes, After);
    Phis.push_back(Phi);
    J->End[Reg] = Phi;
    Last[Reg] = {Join, Phi};
  }
}

void RegisterSSA::finish() {
  // Filling one phi may make others (a walk that reaches a join); each is
  // filled in turn.
  while (!Unfilled.empty()) {
    auto [Phi, Reg] = Unfilled.back();
    Unfilled.pop_back();
    for (BasicBlock *P : predecessors(Phi->getParent()))
      Phi->addIncoming(valueAtEnd(Reg, block(P), true), P);
  }
  // Trivial phis: every operand is the phi itself or one value V (no
  // operand at all: an unreachable block). Replacing one by V can make the
  // phis that use it trivial in turn.
  DenseMap<PHINode *, bool> Live;
  for (PHINode *Phi : Phis)
    Live[Phi] = true;
  std::vector<PHINode *> Work(Phis.rbegin(), Phis.rend());
  while (!Work.empty()) {
    PHINode *Phi = Work.back();
    Work.pop_back();
    if (!Live[Phi])
      continue;
    Value *Same = nullptr;
    bool Trivial = true;
    for (Value *In : Phi->incoming_values()) {
      if (In == Phi || In == Same)
        continue;
      if (Same) {
        Trivial = false;
        break;
      }
      Same = In;
    }
    if (!Trivial)
      continue;
    if (!Same)
      Same = Constant::getNullValue(Phi->getType());
    for (User *U : Phi->users())
      if (auto *UP = dyn_cast<PHINode>(U); UP && UP != Phi && Live.lookup(UP))
        Work.push_back(UP);
    Phi->replaceAllUsesWith(Same);
    Phi->eraseFromParent();
    Live[Phi] = false;
  }
  Phis.clear();
  Blocks.clear();
  LastBB = nullptr;
  Alloc.DestroyAll();
}

} // namespace ferry::ptx::lower
