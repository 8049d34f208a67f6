//===- Pieces.cpp - Lazy loading's units of compilation ---------------------===//
/// \file
/// Pieces.h: the reach of kernels through the IR (calls, address-taken
/// functions, constants and their initialisers), and the copy of an image
/// cut down to one piece with llvm::CloneModule's definition filter.
//===----------------------------------------------------------------------===//
#include "ptx/lower/Pieces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <cctype>

using namespace llvm;

namespace ferry::ptx {

namespace {

constexpr StringLiteral EntryHandlePrefix = "ferry.entry."; // ModuleLowering::entryHandle
/// The metadata whose nodes name a kernel by their first operand (SimtIR.md).
constexpr StringLiteral PerKernelMetadata[] = {"ferry.kernels", "ferry.params", "ferry.directives",
                                                "ferry.resources"};

const Function *functionOf(const MDNode *N) {
  if (!N || N->getNumOperands() == 0)
    return nullptr;
  return mdconst::dyn_extract_or_null<Function>(N->getOperand(0));
}

/// The global values one value refers to directly (through constant
/// expressions and aggregates, not through other globals).
void refsOf(const Value *V, SmallVectorImpl<const GlobalValue *> &Out, SmallPtrSetImpl<const Constant *> &Seen) {
  if (auto *G = dyn_cast<GlobalValue>(V)) {
    Out.push_back(G);
    return;
  }
  auto *C = dyn_cast<Constant>(V);
  if (!C || !Seen.insert(C).second)
    return;
  for (const Use &U : C->operands())
    refsOf(U.get(), Out, Seen);
}

/// What reaching Roots takes: every global value met, and the kernels
/// launched through handles. Module variables are walked into (their
/// initialisers) only when WalkVariables.
struct Reach {
  SetVector<const GlobalValue *> Seen;
  bool UsesVariable = false;

  void run(const Module &M, ArrayRef<const GlobalValue *> Roots, bool WalkVariables) {
    SmallVector<const GlobalValue *, 64> Work(Roots.begin(), Roots.end());
    SmallPtrSet<const Constant *, 32> Consts;
    while (!Work.empty()) {
      const GlobalValue *G = Work.pop_back_val();
      if (!Seen.insert(G))
        continue;
      SmallVector<const GlobalValue *, 16> Refs;
      if (auto *F = dyn_cast<Function>(G)) {
        for (const BasicBlock &BB : *F)
          for (const Instruction &I : BB)
            for (const Use &U : I.operands())
              refsOf(U.get(), Refs, Consts);
      } else if (auto *V = dyn_cast<GlobalVariable>(G)) {
        bool IsVariable = isModuleVariable(*V);
        UsesVariable |= IsVariable;
        if (V->getName().starts_with(EntryHandlePrefix))
          if (const Function *K = M.getFunction(V->getName().drop_front(EntryHandlePrefix.size())))
            Refs.push_back(K);
        if (V->hasInitializer() && (!IsVariable || WalkVariables))
          refsOf(V->getInitializer(), Refs, Consts);
      } else if (auto *A = dyn_cast<GlobalAlias>(G)) {
        refsOf(A->getAliasee(), Refs, Consts);
      }
      for (const GlobalValue *R : Refs)
        if (!Seen.contains(R))
          Work.push_back(R);
    }
  }
};

std::vector<const Function *> kernelsOf(const Module &M) {
  std::vector<const Function *> Out;
  if (const NamedMDNode *List = M.getNamedMetadata("ferry.kernels"))
    for (const MDNode *N : List->operands())
      if (const Function *F = functionOf(N); F && !F->isDeclaration())
        Out.push_back(F);
  return Out;
}

} // namespace

bool isModuleVariable(const GlobalVariable &G) {
  unsigned AS = G.getAddressSpace();
  if ((AS != 1 && AS != 4) || !G.hasName() || G.isDeclaration())
    return false;
  // Names with a '.' (never a PTX identifier) are the lowering's own: launch
  // handles, and function-scope variables hoisted to module scope as
  // "<function>.<variable>" (only pieces with that function use them), but
  // also a module variable renamed when an -rdc image's modules were linked.
  StringRef Name = G.getName();
  if (Name.starts_with(EntryHandlePrefix))
    return false;
  size_t Dot = Name.find('.');
  return Dot == StringRef::npos || !G.getParent() || !G.getParent()->getFunction(Name.take_front(Dot));
}

std::vector<std::string> kernelNames(const Module &M) {
  std::vector<std::string> Out;
  for (const Function *F : kernelsOf(M))
    Out.push_back(F->getName().str());
  return Out;
}

std::vector<std::string> kernelGroup(const Module &M, StringRef K) {
  const Function *F = M.getFunction(K);
  if (!F)
    return {K.str()};
  Reach R;
  R.run(M, {F}, /*WalkVariables=*/false);
  std::vector<std::string> Out;
  for (const Function *E : kernelsOf(M))
    if (R.Seen.contains(E))
      Out.push_back(E->getName().str());
  return Out;
}

std::vector<std::string> variableUsers(const Module &M) {
  std::vector<std::string> Out;
  for (const Function *K : kernelsOf(M)) {
    Reach R;
    R.run(M, {K}, /*WalkVariables=*/false);
    if (R.UsesVariable)
      Out.push_back(K->getName().str());
  }
  return Out;
}

PiecePlan planPieces(const Module &M, bool SharesVariables) {
  PiecePlan P;
  for (const GlobalVariable &G : M.globals())
    P.HasVariables |= isModuleVariable(G);
  if (!P.HasVariables || SharesVariables)
    return P;
  // The users and what they launch (which may use variables in turn, and
  // is then a user itself).
  StringSet<> In;
  for (const std::string &U : variableUsers(M))
    for (std::string &K : kernelGroup(M, U))
      In.insert(K);
  for (const Function *K : kernelsOf(M))
    if (In.contains(K->getName()))
      P.VariablesPieceKernels.push_back(K->getName().str());
  return P;
}

std::unique_ptr<Module> extractPiece(const Module &M, ArrayRef<std::string> Kernels, bool DefineVariables) {
  SmallVector<const GlobalValue *, 16> Roots;
  for (const std::string &K : Kernels)
    if (const Function *F = M.getFunction(K))
      Roots.push_back(F);
  if (DefineVariables)
    for (const GlobalVariable &G : M.globals())
      if (isModuleVariable(G))
        Roots.push_back(&G);
  Reach R;
  R.run(M, Roots, DefineVariables);
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> Out = CloneModule(M, VMap, [&](const GlobalValue *G) {
    if (auto *V = dyn_cast<GlobalVariable>(G); V && isModuleVariable(*V) && !DefineVariables)
      return false; // Resolved against the variables piece.
    return R.Seen.contains(G);
  });
  // Only the piece's kernels are listed: launched kernels reached through a
  // handle are kernels of this piece too (Reach added them).
  for (StringRef Name : PerKernelMetadata) {
    NamedMDNode *List = Out->getNamedMetadata(Name);
    if (!List)
      continue;
    SmallVector<MDNode *, 8> Keep;
    for (MDNode *N : List->operands())
      if (const Function *F = functionOf(N); F && !F->isDeclaration())
        Keep.push_back(N);
    List->clearOperands();
    for (MDNode *N : Keep)
      List->addOperand(N);
  }
  // Declared variables are another code object's: never assumed near.
  for (GlobalVariable &G : Out->globals())
    if (G.isDeclaration()) {
      G.setVisibility(GlobalValue::DefaultVisibility);
      G.setDSOLocal(false);
    }
  // Declarations nothing uses any more (the rest of the image) go, so the
  // piece's bitcode, and with it its cache key, depends on its own code only.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function &F : make_early_inc_range(Out->functions()))
      if (F.isDeclaration() && F.use_empty()) {
        F.eraseFromParent();
        Changed = true;
      }
    for (GlobalVariable &G : make_early_inc_range(Out->globals()))
      if (G.isDeclaration() && G.use_empty()) {
        G.eraseFromParent();
        Changed = true;
      }
    for (GlobalAlias &A : make_early_inc_range(Out->aliases()))
      if (A.use_empty() && !R.Seen.contains(M.getNamedAlias(A.getName()))) {
        A.eraseFromParent();
        Changed = true;
      }
  }
  return Out;
}

std::string variableCellName(StringRef Name) { return (Name + ".ferry.cell").str(); }

std::vector<std::string> reachVariablesThroughCells(Module &Piece) {
  std::vector<std::string> Out;
  SmallVector<GlobalVariable *, 8> Declared;
  for (GlobalVariable &G : Piece.globals())
    if (G.isDeclaration() && G.hasName() && (G.getAddressSpace() == 1 || G.getAddressSpace() == 4) &&
        !G.getName().starts_with(EntryHandlePrefix))
      Declared.push_back(&G);
  for (GlobalVariable *G : Declared) {
    // Constant expressions over G become instructions, so that every use is
    // an instruction of some function; a global's initialiser cannot load.
    convertUsersOfConstantsToInstructions({G});
    bool InInitialiser = false;
    for (User *U : G->users())
      InInitialiser |= !isa<Instruction>(U);
    if (InInitialiser)
      continue;
    auto *Cell = new GlobalVariable(Piece, G->getType(), /*isConstant=*/false, GlobalValue::ExternalLinkage,
                                    Constant::getNullValue(G->getType()), variableCellName(G->getName()),
                                    nullptr, GlobalValue::NotThreadLocal, /*AddressSpace=*/1,
                                    /*isExternallyInitialized=*/true);
    Cell->setAlignment(Align(8));
    DenseMap<Function *, Value *> Loaded;
    for (Use &U : make_early_inc_range(G->uses())) {
      Function *F = cast<Instruction>(U.getUser())->getFunction();
      Value *&V = Loaded[F];
      if (!V) {
        IRBuilder<> B(&*F->getEntryBlock().getFirstNonPHIOrDbgOrAlloca());
        V = B.CreateAlignedLoad(G->getType(), Cell, Align(8), G->getName() + ".addr");
      }
      U.set(V);
    }
    Out.push_back(G->getName().str());
    G->eraseFromParent();
  }
  return Out;
}

} // namespace ferry::ptx

//===----------------------------------------------------------------------===//
// PtxSlicer
//===----------------------------------------------------------------------===//

namespace ferry::ptx {

namespace {

bool isIdentStart(char C) { return std::isalpha(uint8_t(C)) || C == '_' || C == '$' || C == '%'; }
bool isIdentChar(char C) { return std::isalnum(uint8_t(C)) || C == '_' || C == '$'; }

/// Calls Fn with every identifier of Text outside comments and strings.
template <typename FnT> void forEachIdent(std::string_view Text, FnT Fn) {
  size_t I = 0, N = Text.size();
  while (I < N) {
    char C = Text[I];
    if (C == '/' && I + 1 < N && Text[I + 1] == '/') {
      while (I < N && Text[I] != '\n')
        ++I;
    } else if (C == '/' && I + 1 < N && Text[I + 1] == '*') {
      size_t E = Text.find("*/", I + 2);
      I = E == std::string_view::npos ? N : E + 2;
    } else if (C == '"') {
      size_t E = Text.find('"', I + 1);
      I = E == std::string_view::npos ? N : E + 1;
    } else if (isIdentStart(C)) {
      size_t B = I++;
      while (I < N && isIdentChar(Text[I]))
        ++I;
      Fn(Text.substr(B, I - B));
    } else if (std::isdigit(uint8_t(C))) {
      while (I < N && isIdentChar(Text[I])) // 0f3F800000, 12U: not names
        ++I;
    } else {
      ++I;
    }
  }
}

/// Text without its comments (a comment before a declaration belongs to
/// its item, and may mention `.func`).
std::string stripComments(std::string_view Text) {
  std::string Out;
  size_t I = 0, N = Text.size();
  while (I < N) {
    if (Text[I] == '/' && I + 1 < N && Text[I + 1] == '/') {
      while (I < N && Text[I] != '\n')
        ++I;
    } else if (Text[I] == '/' && I + 1 < N && Text[I + 1] == '*') {
      size_t E = Text.find("*/", I + 2);
      I = E == std::string_view::npos ? N : E + 2;
    } else {
      Out.push_back(Text[I++]);
    }
  }
  return Out;
}

/// `.version`, `.target`, `.address_size` and `.file` end at the end of
/// their line, with no ';'.
bool lineDirective(std::string_view Text) {
  size_t B = Text.find_first_not_of(" \t\r\n");
  if (B == std::string_view::npos)
    return false;
  Text = Text.substr(B);
  for (std::string_view D : {".version", ".target", ".address_size", ".file"})
    if (Text.substr(0, D.size()) == D && (Text.size() == D.size() || std::isspace(uint8_t(Text[D.size()]))))
      return true;
  return false;
}

/// The name a `.entry`/`.func` header declares: the identifier after the
/// keyword and, for `.func`, after its return parameter list.
std::string headerName(std::string_view Header) {
  size_t K = Header.find(".entry");
  size_t Skip = 6;
  if (K == std::string_view::npos) {
    K = Header.find(".func");
    Skip = 5;
  }
  if (K == std::string_view::npos)
    return {};
  size_t I = K + Skip, N = Header.size();
  while (I < N && std::isspace(uint8_t(Header[I])))
    ++I;
  if (I < N && Header[I] == '(') {
    int Depth = 0;
    for (; I < N; ++I) {
      Depth += Header[I] == '(';
      Depth -= Header[I] == ')';
      if (Depth == 0) {
        ++I;
        break;
      }
    }
    while (I < N && std::isspace(uint8_t(Header[I])))
      ++I;
  }
  size_t B = I;
  while (I < N && isIdentChar(Header[I]))
    ++I;
  return std::string(Header.substr(B, I - B));
}

} // namespace

PtxSlicer::PtxSlicer(std::string_view Ptx) : Text(Ptx) {
  // Top-level items: a statement ends with ';' at brace depth 0 (an
  // initialiser's braces belong to it); a function ends with the '}' that
  // closes its body.
  size_t I = 0, N = Ptx.size(), Begin = 0;
  int Depth = 0;
  bool Initialiser = false;
  auto Close = [&](size_t End, bool Body) {
    Item It;
    It.Begin = Begin;
    It.End = End;
    std::string_view S = Ptx.substr(Begin, End - Begin);
    std::string HeadText = stripComments(Body ? S.substr(0, S.find('{')) : S);
    std::string_view Head = HeadText;
    bool Fn = Head.find(".entry") != std::string_view::npos || Head.find(".func") != std::string_view::npos;
    if (Fn) {
      It.K = Body ? Item::Function : Item::Prototype;
      It.Name = headerName(Head);
    } else if (Body) {
      Usable = false; // A block at module scope that is no function.
    }
    if (!Fn && Head.find(".alias") != std::string_view::npos)
      Usable = false;
    Items.push_back(std::move(It));
    Begin = End;
  };
  while (I < N) {
    char C = Ptx[I];
    if (C == '/' && I + 1 < N && Ptx[I + 1] == '/') {
      while (I < N && Ptx[I] != '\n')
        ++I;
      continue;
    }
    if (C == '/' && I + 1 < N && Ptx[I + 1] == '*') {
      size_t E = Ptx.find("*/", I + 2);
      I = E == std::string_view::npos ? N : E + 2;
      continue;
    }
    if (C == '"') {
      size_t E = Ptx.find('"', I + 1);
      I = E == std::string_view::npos ? N : E + 1;
      continue;
    }
    if (C == '=' && Depth == 0)
      Initialiser = true;
    if (C == '\n' && Depth == 0 && lineDirective(stripComments(Ptx.substr(Begin, I - Begin)))) {
      Close(I + 1, false);
      Initialiser = false;
      ++I;
      continue;
    }
    if (C == '{') {
      ++Depth;
    } else if (C == '}') {
      if (--Depth < 0) {
        Usable = false;
        return;
      }
      if (Depth == 0 && !Initialiser) {
        Close(I + 1, true);
        Initialiser = false;
      }
    } else if (C == ';' && Depth == 0) {
      Close(I + 1, false);
      Initialiser = false;
    }
    ++I;
  }
  if (Depth != 0) {
    Usable = false;
    return;
  }
  // Trailing text (whitespace, comments) is kept as a statement.
  if (Begin < N)
    Close(N, false);
  llvm::StringMap<unsigned> ByName;
  for (unsigned K = 0; K < Items.size(); ++K)
    if (Items[K].K == Item::Function) {
      Functions.push_back(K);
      if (!ByName.try_emplace(Items[K].Name, K).second)
        Usable = false; // Two bodies of one name: not followed.
    }
  for (Item &It : Items) {
    if (It.K == Item::Prototype)
      continue;
    std::string_view S = Ptx.substr(It.Begin, It.End - It.Begin);
    if (It.K == Item::Function)
      S = S.substr(S.find('{'));
    llvm::SmallDenseSet<unsigned, 8> Seen;
    forEachIdent(S, [&](std::string_view Id) {
      auto F = ByName.find(llvm::StringRef(Id.data(), Id.size()));
      if (F != ByName.end() && Seen.insert(F->second).second)
        It.Reaches.push_back(F->second);
    });
    if (It.K == Item::Statement)
      Always.insert(Always.end(), It.Reaches.begin(), It.Reaches.end());
  }
}

std::vector<std::string> PtxSlicer::reach(llvm::ArrayRef<std::string> Kernels) const {
  std::vector<bool> In(Items.size(), false);
  std::vector<unsigned> Work(Always.begin(), Always.end());
  llvm::StringSet<> Wanted;
  for (const std::string &K : Kernels)
    Wanted.insert(K);
  for (unsigned F : Functions)
    if (Wanted.contains(Items[F].Name))
      Work.push_back(F);
  while (!Work.empty()) {
    unsigned F = Work.back();
    Work.pop_back();
    if (In[F])
      continue;
    In[F] = true;
    for (unsigned R : Items[F].Reaches)
      if (!In[R])
        Work.push_back(R);
  }
  std::vector<std::string> Out;
  for (unsigned F : Functions)
    if (In[F])
      Out.push_back(Items[F].Name);
  return Out;
}

std::string PtxSlicer::slice(llvm::ArrayRef<std::string> Kernels) const {
  llvm::StringSet<> Keep, Defined;
  for (const std::string &F : reach(Kernels))
    Keep.insert(F);
  for (unsigned F : Functions)
    Defined.insert(Items[F].Name);
  std::string Out;
  Out.reserve(Text.size() / 8);
  for (const Item &It : Items) {
    bool Take = It.K == Item::Statement || Keep.contains(It.Name) ||
                (It.K == Item::Prototype && !Defined.contains(It.Name));
    if (Take)
      Out.append(Text.substr(It.Begin, It.End - It.Begin));
    else // Blank lines keep the line numbers of diagnostics the image's.
      Out.append(size_t(std::count(Text.begin() + It.Begin, Text.begin() + It.End, '\n')), '\n');
  }
  return Out;
}

} // namespace ferry::ptx
