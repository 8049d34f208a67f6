//===- Compare.cpp - structural equality of modules --------------------------===//
/// \file
/// Compares two modules node by node, ignoring source locations and the
/// checker's resolution results; the round-trip tests (parse, print, parse)
/// use it. A decimal float literal equals its 0d hex spelling, since the
/// printer writes floats in hex.
//===----------------------------------------------------------------------===//
#include "ptx/parser/Parser.h"

#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace ferry::ptx {

namespace {

struct Cmp {
  std::string Why;
  bool fail(const Twine &T) {
    if (Why.empty())
      Why = T.str();
    return false;
  }

  static bool sameFloat(Operand::FloatForm FA, uint64_t A, Operand::FloatForm FB, uint64_t B) {
    auto Norm = [](Operand::FloatForm F) {
      return F == Operand::FloatForm::Decimal ? Operand::FloatForm::Hex64 : F;
    };
    return Norm(FA) == Norm(FB) && A == B;
  }

  bool op(const Operand &A, const Operand &B) {
    // A Reg (checked) and a Name (unchecked) are the same syntax.
    auto Kind = [](Operand::Kind K) { return K == Operand::Kind::Reg ? Operand::Kind::Name : K; };
    if (Kind(A.K) != Kind(B.K) || A.Negated != B.Negated || A.Comp != B.Comp ||
        A.Minus != B.Minus || A.Lanes != B.Lanes)
      return fail("operand kinds differ");
    switch (A.K) {
    case Operand::Kind::Reg:
    case Operand::Kind::Name:
    case Operand::Kind::Address:
      if (A.Name != B.Name || A.Int != B.Int)
        return fail("operand '" + A.Name + "' vs '" + B.Name + "'");
      return true;
    case Operand::Kind::SReg:
      return (A.SReg == B.SReg && A.Int == B.Int) || fail("special registers differ");
    case Operand::Kind::Sink: return true;
    case Operand::Kind::Int: return A.Int == B.Int || fail("immediates " + Twine(A.Int) + " vs " + Twine(B.Int));
    case Operand::Kind::Float:
      return sameFloat(A.FForm, A.FloatBits, B.FForm, B.FloatBits) || fail("float immediates differ");
    default:
      if (A.Elems.size() != B.Elems.size())
        return fail("operand list lengths differ");
      for (size_t I = 0; I < A.Elems.size(); ++I)
        if (!op(A.Elems[I], B.Elems[I]))
          return false;
      return true;
    }
  }

  bool init(const Initializer *A, const Initializer *B) {
    if (!A || !B)
      return A == B || fail("initializer presence differs");
    if (A->K != B->K || A->Int != B->Int || A->Name != B->Name || A->Generic != B->Generic ||
        A->Offset != B->Offset || A->Mask != B->Mask || A->Elems.size() != B->Elems.size())
      return fail("initializers differ");
    if (A->K == Initializer::Kind::Float && !sameFloat(A->FForm, A->FloatBits, B->FForm, B->FloatBits))
      return fail("float initializers differ");
    for (size_t I = 0; I < A->Elems.size(); ++I)
      if (!init(A->Elems[I], B->Elems[I]))
        return false;
    return true;
  }

  bool decl(const VarDecl &A, const VarDecl &B) {
    if (A.Space != B.Space || A.Link != B.Link || A.Type != B.Type || A.VecWidth != B.VecWidth ||
        A.Align != B.Align || A.RangeCount != B.RangeCount || A.IsPtr != B.IsPtr || A.PtrSpace != B.PtrSpace ||
        A.PtrAlign != B.PtrAlign || A.Managed != B.Managed || A.Unified != B.Unified ||
        A.UnifiedHi != B.UnifiedHi || A.UnifiedLo != B.UnifiedLo || A.Name != B.Name || A.Dims != B.Dims)
      return fail("declarations of '" + A.Name + "' / '" + B.Name + "' differ");
    return init(A.Init, B.Init);
  }

  bool decls(ArrayRef<VarDecl *> A, ArrayRef<VarDecl *> B) {
    if (A.size() != B.size())
      return fail("parameter counts differ");
    for (size_t I = 0; I < A.size(); ++I)
      if (!decl(*A[I], *B[I]))
        return false;
    return true;
  }

  bool nodes(ArrayRef<Node *> A, ArrayRef<Node *> B) {
    if (A.size() != B.size())
      return fail("statement counts differ (" + Twine(A.size()) + " vs " + Twine(B.size()) + ")");
    for (size_t I = 0; I < A.size(); ++I)
      if (!node(*A[I], *B[I]))
        return false;
    return true;
  }

  bool node(const Node &A, const Node &B) {
    if (A.getKind() != B.getKind())
      return fail("node kinds differ at line " + Twine(A.Loc.Line));
    switch (A.getKind()) {
    case Node::Kind::Instruction: {
      auto &X = cast<Instruction>(A), &Y = cast<Instruction>(B);
      if (X.Op != Y.Op || X.Guard != Y.Guard || X.GuardNegated != Y.GuardNegated || X.Mods != Y.Mods ||
          X.Ops.size() != Y.Ops.size())
        return fail("instructions differ at line " + Twine(A.Loc.Line));
      for (size_t I = 0; I < X.Ops.size(); ++I)
        if (!op(X.Ops[I], Y.Ops[I]))
          return fail("operand " + Twine(I) + " differs at line " + Twine(A.Loc.Line));
      return true;
    }
    case Node::Kind::Label: return cast<Label>(A).Name == cast<Label>(B).Name || fail("labels differ");
    case Node::Kind::Var: return decl(cast<VarDecl>(A), cast<VarDecl>(B));
    case Node::Kind::Block: return nodes(cast<Block>(A).Body, cast<Block>(B).Body);
    case Node::Kind::Pragma:
      return cast<Pragma>(A).Strings == cast<Pragma>(B).Strings || fail("pragmas differ");
    case Node::Kind::Loc: {
      auto &X = cast<LocDirective>(A), &Y = cast<LocDirective>(B);
      return (X.File == Y.File && X.Line == Y.Line && X.Col == Y.Col && X.Extra == Y.Extra) || fail(".loc differs");
    }
    case Node::Kind::BranchTargets: {
      auto &X = cast<BranchTargets>(A), &Y = cast<BranchTargets>(B);
      return (X.Name == Y.Name && X.IsCallTargets == Y.IsCallTargets && X.Targets == Y.Targets) ||
             fail("target lists differ");
    }
    case Node::Kind::CallPrototype: {
      auto &X = cast<CallPrototype>(A), &Y = cast<CallPrototype>(B);
      if (X.Name != Y.Name || X.NoReturn != Y.NoReturn)
        return fail("prototypes differ");
      return decls(X.Returns, Y.Returns) && decls(X.Params, Y.Params);
    }
    case Node::Kind::Function: {
      auto &X = cast<Function>(A), &Y = cast<Function>(B);
      if (X.IsEntry != Y.IsEntry || X.Link != Y.Link || X.Name != Y.Name ||
          X.Directives.size() != Y.Directives.size() || bool(X.Body) != bool(Y.Body))
        return fail("function headers of '" + X.Name + "' differ");
      for (size_t I = 0; I < X.Directives.size(); ++I) {
        auto &P = X.Directives[I], &Q = Y.Directives[I];
        if (P.K != Q.K || P.Values != Q.Values || P.Strings != Q.Strings)
          return fail("function directives differ");
      }
      if (!decls(X.Returns, Y.Returns) || !decls(X.Params, Y.Params))
        return false;
      return !X.Body || nodes(X.Body->Body, Y.Body->Body);
    }
    case Node::Kind::Alias:
      return (cast<Alias>(A).Name == cast<Alias>(B).Name && cast<Alias>(A).Aliasee == cast<Alias>(B).Aliasee) ||
             fail("aliases differ");
    case Node::Kind::File: {
      auto &X = cast<FileDirective>(A), &Y = cast<FileDirective>(B);
      return (X.Index == Y.Index && X.Path == Y.Path && X.Extra == Y.Extra) || fail(".file differs");
    }
    case Node::Kind::Section: {
      auto &X = cast<Section>(A), &Y = cast<Section>(B);
      return (X.Name == Y.Name && X.Raw == Y.Raw) || fail("sections differ");
    }
    }
    return true;
  }
};

} // namespace

bool equalModules(const Module &A, const Module &B, std::string *Why) {
  Cmp C;
  bool Same = true;
  if (A.VersionMajor != B.VersionMajor || A.VersionMinor != B.VersionMinor)
    Same = C.fail("versions differ");
  else if (A.Target.Raw != B.Target.Raw)
    Same = C.fail("targets differ");
  else if (A.AddressSize != B.AddressSize || A.HasAddressSize != B.HasAddressSize)
    Same = C.fail("address sizes differ");
  else
    Same = C.nodes(A.Items, B.Items);
  if (!Same && Why)
    *Why = C.Why;
  return Same;
}

} // namespace ferry::ptx
