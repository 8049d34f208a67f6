/// \file
/// The symbol check and the image format of JIT linking (Link.h). The check
/// works on the parsed PTX, not on the lowered LLVM modules, so it is cheap
/// enough to run at cuLinkComplete and its messages use PTX names.
#include "libcuda/core/Link.h"

#include "ptx/parser/Parser.h"

#include "llvm/Support/Error.h"

#include <cstring>
#include <map>
#include <set>

namespace ferry::core::link {

namespace {
/// The bytes after the standard 16-byte container header that mark a link
/// image.
constexpr char Marker[8] = {'F', 'E', 'R', 'R', 'Y', 'L', 'N', 'K'};
constexpr uint16_t LinkHeaderSize = 16 + sizeof(Marker);

/// Functions the PTX lowering provides itself (the CUDA device runtime's
/// syscalls nvcc declares `.extern`): no input has to define them.
bool providedByRuntime(const std::string &Name) {
  return Name == "vprintf" || Name == "malloc" || Name == "free" || Name == "__assertfail" ||
         Name == "cudaGraphSetConditional" ||
         Name.rfind("__cudaCDP2", 0) == 0; // The device runtime (ptx/lower/LowerCdp.cpp).
}

void put(std::vector<uint8_t> &B, size_t At, uint64_t V, int Bytes) {
  for (int I = 0; I < Bytes; ++I)
    B[At + I] = uint8_t(V >> (8 * I));
}

size_t align8(size_t N) { return (N + 7) & ~size_t(7); }
} // namespace

Expected<Symbols> scanSymbols(const std::string &Ptx, const std::string &Name) {
  auto M = ptx::parseAndCheck(Ptx, Name);
  if (!M) {
    std::string Msg;
    llvm::handleAllErrors(M.takeError(), [&](const llvm::ErrorInfoBase &EI) {
      if (!Msg.empty())
        Msg += "\n";
      Msg += EI.message();
    });
    return makeError(CUDA_ERROR_INVALID_PTX, Msg);
  }
  Symbols S;
  S.Sm = (*M)->Target.SmVersion;
  S.VersionMajor = (*M)->VersionMajor;
  S.VersionMinor = (*M)->VersionMinor;
  // A declaration is satisfied inside its own module when the module also
  // defines the name (a forward declaration), whatever the linkage.
  std::set<std::string> Local;
  std::vector<std::string> Declared;
  for (const ptx::Node *N : (*M)->items()) {
    if (const auto *F = llvm::dyn_cast<ptx::Function>(N)) {
      std::string FnName = F->Name.str();
      if (F->Body) {
        Local.insert(FnName);
        // Functions without linkage are file-scope statics; entries are
        // visible whether or not `.visible` is written.
        if (F->Link == ptx::Linkage::Weak || F->Link == ptx::Linkage::Common)
          S.WeakDefines.push_back(FnName);
        else if (F->Link == ptx::Linkage::Visible || F->IsEntry)
          S.Defines.push_back(FnName);
      } else if (!F->IsEntry) {
        Declared.push_back(FnName);
      }
    } else if (const auto *V = llvm::dyn_cast<ptx::VarDecl>(N)) {
      // `.extern .shared` is dynamic shared memory, sized at launch; only
      // global and constant variables are shared between modules.
      if (V->Space != ptx::StateSpace::Global && V->Space != ptx::StateSpace::Const)
        continue;
      std::string VarName = V->Name.str();
      if (V->Link == ptx::Linkage::Extern) {
        Declared.push_back(VarName);
        continue;
      }
      Local.insert(VarName);
      if (V->Link == ptx::Linkage::Weak || V->Link == ptx::Linkage::Common)
        S.WeakDefines.push_back(VarName);
      else if (V->Link == ptx::Linkage::Visible)
        S.Defines.push_back(VarName);
    } else if (const auto *A = llvm::dyn_cast<ptx::Alias>(N)) {
      Local.insert(A->Name.str());
      S.Defines.push_back(A->Name.str());
    }
  }
  for (std::string &D : Declared)
    if (!Local.count(D) && !providedByRuntime(D))
      S.Needs.push_back(std::move(D));
  return S;
}

Status resolve(const std::vector<Part> &Parts, const std::vector<Symbols> &Syms) {
  std::map<std::string, size_t> Strong; // symbol -> defining part
  std::set<std::string> Weak;
  std::string Problems;
  auto Report = [&](const std::string &Line) {
    if (!Problems.empty())
      Problems += '\n';
    Problems += Line;
  };
  for (size_t I = 0; I < Syms.size(); ++I) {
    for (const std::string &D : Syms[I].Defines) {
      auto [It, New] = Strong.emplace(D, I);
      if (!New)
        Report("error: multiple definition of '" + D + "' in '" + Parts[I].Name +
               "', first defined in '" + Parts[It->second].Name + "'");
    }
    Weak.insert(Syms[I].WeakDefines.begin(), Syms[I].WeakDefines.end());
  }
  for (size_t I = 0; I < Syms.size(); ++I)
    for (const std::string &N : Syms[I].Needs)
      if (!Strong.count(N) && !Weak.count(N))
        Report("error: undefined reference to '" + N + "' in '" + Parts[I].Name + "'");
  if (!Problems.empty())
    return makeError(CUDA_ERROR_INVALID_PTX, Problems);
  return Status::ok();
}

std::vector<uint8_t> buildImage(const std::vector<Part> &Parts, const std::vector<Symbols> &Syms) {
  // Entries as nvcc lays out a PTX entry (tests/fatbin/Builders.h and
  // reference/cuda13-driver-contract.md): a 0x40-byte fixed header, the
  // input's name as the entry's filename, then the NUL-terminated text
  // padded to 8 bytes, stored uncompressed.
  std::vector<uint8_t> Body;
  for (size_t I = 0; I < Parts.size(); ++I) {
    const Part &P = Parts[I];
    size_t NameAt = 0x40;
    size_t HeaderSize = align8(NameAt + P.Name.size());
    size_t Padded = align8(P.Ptx.size() + 1);
    std::vector<uint8_t> E(HeaderSize + Padded, 0);
    put(E, 0x00, 1, 2);      // PTX
    put(E, 0x02, 0x0101, 2); // entry format version
    put(E, 0x04, HeaderSize, 4);
    put(E, 0x08, Padded, 8);
    put(E, 0x18, Syms[I].VersionMinor, 2);
    put(E, 0x1a, Syms[I].VersionMajor, 2);
    put(E, 0x1c, Syms[I].Sm, 4);
    if (!P.Name.empty()) {
      put(E, 0x20, NameAt, 4);
      put(E, 0x24, P.Name.size(), 4);
      std::memcpy(&E[NameAt], P.Name.data(), P.Name.size());
    }
    put(E, 0x28, fatbin::flags::Is64Bit | fatbin::flags::ProducerCuda | fatbin::flags::HostLinux, 8);
    std::memcpy(&E[HeaderSize], P.Ptx.data(), P.Ptx.size());
    Body.insert(Body.end(), E.begin(), E.end());
  }
  std::vector<uint8_t> B(LinkHeaderSize + Body.size(), 0);
  put(B, 0, fatbin::ContainerMagic, 4);
  put(B, 4, 1, 2);
  put(B, 6, LinkHeaderSize, 2);
  put(B, 8, Body.size(), 8);
  std::memcpy(&B[16], Marker, sizeof(Marker));
  if (!Body.empty())
    std::memcpy(&B[LinkHeaderSize], Body.data(), Body.size());
  return B;
}

bool isLinkImage(const fatbin::Container &C) {
  return C.HeaderSize == LinkHeaderSize && C.Bytes.size() >= LinkHeaderSize &&
         std::memcmp(C.Bytes.data() + 16, Marker, sizeof(Marker)) == 0;
}

} // namespace ferry::core::link
