/// \file
/// Libraries and modules: an image is read with ptx/fatbin (wrapper,
/// container, PTX text or ELF), the PTX entry for the device is chosen and
/// kept, and kernel/global names come from it. Compilation is lazy and
/// happens elsewhere; loading needs no context, as cudart registers its
/// fatbins before creating one.
#include "libcuda/core/Core.h"
#include "libcuda/core/Link.h"

#include "ptx/fatbin/Memory.h"
#include "ptx/fatbin/Payload.h"
#include "ptx/fatbin/PtxScan.h"
#include "ptx/fatbin/Select.h"
#include "support/Cache.h"
#include "support/Log.h"
#include "support/Settings.h"
#include "ptx/lower/Lower.h"
#include "ptx/lower/Pieces.h"
#include "ptx/parser/Parser.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <cctype>

namespace ferry::core {

namespace {
/// Whether PTX text defines __cudaCDP2LaunchDeviceV2, as NVIDIA's device
/// runtime library does (a program's own PTX only declares it .extern).
bool definesDeviceRuntime(std::string_view Ptx) {
  for (size_t At = Ptx.find("__cudaCDP2LaunchDeviceV2("); At != std::string_view::npos;
       At = Ptx.find("__cudaCDP2LaunchDeviceV2(", At + 1)) {
    size_t Line = Ptx.rfind('\n', At);
    std::string_view Head = Ptx.substr(Line == std::string_view::npos ? 0 : Line + 1, At - (Line + 1));
    if (Head.find(".visible") != std::string_view::npos && Head.find(".func") != std::string_view::npos)
      return true;
  }
  return false;
}
} // namespace

static std::string errorText(llvm::Error E) {
  std::string S;
  llvm::handleAllErrors(std::move(E), [&](const llvm::ErrorInfoBase &EI) {
    if (!S.empty())
      S += "; ";
    S += EI.message();
  });
  return S;
}

/// The compute capability PTX is chosen for: the first device's when the
/// driver is up, else the host device's configured one.
static unsigned targetSm() {
  if (requireInit() && deviceCount() > 0) {
    const auto &P = device(0)->Backend->properties();
    return unsigned(P.CcMajor * 10 + P.CcMinor);
  }
  return unsigned(Settings::get().getInt(SettingKey::Sm));
}

void scanPtxNames(std::string_view Ptx, std::vector<std::string> &Entries,
                  std::vector<std::string> &Globals, std::vector<std::string> *Managed) {
  for (auto &E : fatbin::listPtxEntries(Ptx))
    Entries.push_back(E);
  // Module-scope variables: a statement at brace depth 0 that has a .global
  // or .const state space; its name is the identifier before '[', '=' or
  // ';'. Comments are skipped; anything odd is skipped, not an error.
  int Depth = 0;
  size_t I = 0, N = Ptx.size();
  std::string Stmt;
  while (I < N) {
    char C = Ptx[I];
    if (C == '/' && I + 1 < N && Ptx[I + 1] == '/') {
      while (I < N && Ptx[I] != '\n')
        ++I;
      continue;
    }
    if (C == '/' && I + 1 < N && Ptx[I + 1] == '*') {
      size_t End = Ptx.find("*/", I + 2);
      I = End == std::string_view::npos ? N : End + 2;
      continue;
    }
    if (C == '{' && Depth == 0 && Stmt.find('=') != std::string::npos) {
      // An initialiser (`.const .b8 x[4] = {1, 2, 3, 4};`): part of the
      // statement, not a function body.
      int Nest = 0;
      for (; I < N; ++I) {
        Nest += Ptx[I] == '{';
        Nest -= Ptx[I] == '}';
        if (Nest == 0) {
          ++I;
          break;
        }
      }
      continue;
    }
    if (C == '{') {
      ++Depth;
      Stmt.clear();
    } else if (C == '}') {
      Depth = Depth > 0 ? Depth - 1 : 0;
      Stmt.clear();
    } else if (Depth == 0 && C == ';') {
      bool IsVar = Stmt.find(".global") != std::string::npos ||
                   Stmt.find(".const") != std::string::npos;
      if (IsVar && Stmt.find(".entry") == std::string::npos &&
          Stmt.find(".func") == std::string::npos) {
        size_t Cut = Stmt.find_first_of("[=");
        std::string Head = Stmt.substr(0, Cut);
        while (!Head.empty() && std::isspace(uint8_t(Head.back())))
          Head.pop_back();
        size_t Start = Head.size();
        while (Start > 0 && (std::isalnum(uint8_t(Head[Start - 1])) || Head[Start - 1] == '_' ||
                             Head[Start - 1] == '$'))
          --Start;
        if (Start < Head.size()) {
          Globals.push_back(Head.substr(Start));
          // `.global .attribute(.managed) ...`: a __managed__ variable.
          if (Managed && Stmt.find(".managed") != std::string::npos)
            Managed->push_back(Globals.back());
        }
      }
      Stmt.clear();
    } else if (Depth == 0) {
      Stmt += C;
    }
    ++I;
  }
}

/// PTX text newer than ferry's front end reads is refused the way ptxas
/// refuses a newer `.version` (CUDA_ERROR_UNSUPPORTED_PTX_VERSION), with the
/// line it is on.
static Status checkPtxVersion(std::string_view Ptx) {
  size_t At = Ptx.find(".version");
  if (At == std::string_view::npos)
    return Status::ok(); // The parser says what is missing.
  const char *P = Ptx.data() + At + 8;
  char *End = nullptr;
  unsigned long Major = std::strtoul(P, &End, 10);
  if (End == P || *End != '.')
    return Status::ok();
  unsigned long Minor = std::strtoul(End + 1, nullptr, 10);
  fatbin::PtxVersion V{unsigned(Major), unsigned(Minor)};
  if (V <= fatbin::MaxSupportedPtx)
    return Status::ok();
  size_t Line = 1 + size_t(std::count(Ptx.begin(), Ptx.begin() + At, '\n'));
  return makeError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
                   "line " + std::to_string(Line) + ": unsupported .version " + std::to_string(Major) + "." +
                       std::to_string(Minor) + "; ferry reads PTX ISA up to " +
                       std::to_string(fatbin::MaxSupportedPtx.Major) + "." +
                       std::to_string(fatbin::MaxSupportedPtx.Minor));
}

Expected<Ref<Library>> Library::load(const void *Image, bool AsModule) {
  if (!Image)
    return makeError(CUDA_ERROR_INVALID_VALUE, "image pointer is null");
  auto Img = fatbin::readImage(Image);
  if (!Img)
    return makeError(CUDA_ERROR_INVALID_IMAGE, Img.error().message());
  auto Lib = std::make_shared<Library>(AsModule);
  unsigned Sm = targetSm();
  switch (Img->Kind) {
  case fatbin::ImageKind::Ptx:
    if (Status S = checkPtxVersion(Img->Ptx); !S) {
      // As a fatbin entry of a newer PTX ISA is refused (Select.h).
      Lib->RefusedCode = S.code();
      Lib->RefusedWhy = S.message();
      break;
    }
    Lib->Ptx = std::string(Img->Ptx);
    Lib->PtxParts.push_back(Lib->Ptx);
    break;
  case fatbin::ImageKind::Wrapper:
  case fatbin::ImageKind::Container: {
    // One PTX per container; -rdc builds bring several, which are kept
    // concatenated for name lookup (the linker step comes with compilation).
    // An -rdc image's first container holds only the linked SASS; its PTX
    // is in the prelinked containers, so a container without PTX is worth
    // a warning only when no container has any.
    std::vector<std::string> Skipped;
    auto Refuse = [&](CUresult Code, const std::string &Why) {
      if (Lib->RefusedCode == CUDA_SUCCESS) {
        Lib->RefusedCode = Code;
        Lib->RefusedWhy = Why;
      }
    };
    // Adds an entry's PTX; false when it is NVIDIA's device runtime
    // (libcudadevrt, linked into -rdc programs), whose PTX defines the CDP
    // entry points ferry implements itself (ptx/lower/LowerCdp.cpp): NVIDIA's
    // library code never runs on ferry, whatever target its PTX names.
    auto AddPart = [&](const fatbin::Entry &E) -> Expected<bool> {
      auto Text = fatbin::ptxText(E);
      if (!Text)
        return makeError(CUDA_ERROR_INVALID_IMAGE, Text.error().message());
      if (definesDeviceRuntime(*Text)) {
        log::module().debug("NVIDIA's device runtime (libcudadevrt) skipped: ferry provides its own");
        return false;
      }
      Lib->Ptx += *Text;
      Lib->Ptx += '\n';
      if (std::find(Lib->PtxParts.begin(), Lib->PtxParts.end(), *Text) == Lib->PtxParts.end())
        Lib->PtxParts.emplace_back(*Text);
      return true;
    };
    for (const auto &C : Img->Containers) {
      // cuLinkComplete's image: its PTX entries are the linked inputs, all
      // needed, not alternatives for different architectures.
      if (link::isLinkImage(C)) {
        for (const fatbin::Entry &E : C.Entries)
          if (E.isPtx())
            if (Expected<bool> Added = AddPart(E); !Added)
              return Added.takeError();
        continue;
      }
      auto Pick = fatbin::choosePtxEntry(C.Entries, Sm);
      if (!Pick) {
        Skipped.push_back(Pick.error().message());
        // A container with PTX that ferry cannot use refuses its kernels. One
        // with only SASS is what an -rdc image's first container is (its
        // kernels' PTX is in the others), so it refuses nothing unless no
        // container has PTX (below).
        bool HasPtx = false;
        for (const fatbin::Entry &E : C.Entries)
          HasPtx |= E.isPtx();
        if (HasPtx)
          Refuse(Pick.error().code(), Pick.error().message());
        continue;
      }
      Expected<bool> Added = AddPart(C.Entries[*Pick]);
      if (!Added)
        return Added.takeError();
      if (*Added && !fatbin::ptxUsableOn(C.Entries[*Pick], Sm))
        log::module().info("no PTX for sm_{} in a container; compiling its PTX for {} instead (ferry "
                           "JIT-compiles any target; a kernel using what ferry cannot lower fails alone)",
                           Sm, C.Entries[*Pick].archName());
    }
    if (Lib->PtxParts.empty() && !Skipped.empty())
      Refuse(CUDA_ERROR_NO_BINARY_FOR_GPU, Skipped.front());
    for (const std::string &Why : Skipped) {
      if (Lib->PtxParts.empty())
        log::module().warn("image container without usable PTX for sm_{}: {}", Sm, Why);
      else
        log::module().debug("container without PTX skipped: {}", Why);
    }
    break;
  }
  case fatbin::ImageKind::Elf:
    Lib->RefusedCode = CUDA_ERROR_NO_BINARY_FOR_GPU;
    Lib->RefusedWhy = "the image is a SASS ELF (cubin) with no PTX, and ferry never runs SASS";
    log::module().warn("image is a SASS ELF (cubin) with no PTX; ferry never runs SASS, so its "
                        "kernels will report CUDA_ERROR_NO_BINARY_FOR_GPU");
    break;
  case fatbin::ImageKind::Unknown:
    return makeError(CUDA_ERROR_INVALID_IMAGE, "image is neither a fatbin, PTX nor ELF");
  }
  // cuModuleLoad* JIT-compiles PTX on NVIDIA, so malformed PTX fails the
  // load itself; here the text is parsed and checked now (cheap) and code
  // generation stays lazy. Libraries (cudart's start-up registration) are
  // only checked when first used.
  // A module with nothing to run fails to load, as NVIDIA's does (its JIT
  // or loader refuses the image then). A library loads, because cudart
  // registers every fatbin of a program at start-up, and its kernels fail
  // when they are looked up or launched.
  if (AsModule && Lib->PtxParts.empty() && Lib->RefusedCode != CUDA_SUCCESS)
    return makeError(Lib->RefusedCode, Lib->RefusedWhy);
  if (AsModule)
    for (size_t I = 0; I < Lib->PtxParts.size(); ++I)
      if (auto M = ptx::parseAndCheck(Lib->PtxParts[I], "module" + std::to_string(I) + ".ptx"); !M)
        return makeError(CUDA_ERROR_INVALID_PTX, errorText(M.takeError()));
  scanPtxNames(Lib->Ptx, Lib->Entries, Lib->Globals, &Lib->ManagedGlobals);
  // 32-bit PTX reaches only the low 4 GiB: from now on the devices place
  // memory there (launches check that what was allocated before is too).
  // (PTX without the directive is 32-bit, as the PTX ISA says.)
  for (const std::string &Part : Lib->PtxParts) {
    size_t At = Part.find(".address_size");
    unsigned long Size = At == std::string::npos ? 32 : std::strtoul(Part.c_str() + At + 13, nullptr, 10);
    Lib->Addresses32 |= Size == 32;
  }
  if (Lib->Addresses32) {
    if (requireInit())
      for (int I = 0; I < deviceCount(); ++I)
        if (!device(I)->Backend->placeBelow4GiB())
          log::module().warn("device {} cannot place memory below 4 GiB: kernels of this .address_size 32 "
                             "PTX will fail to launch", I);
  }
  if (size_t T = Lib->Ptx.find(".target"); T != std::string::npos) {
    size_t Sm = Lib->Ptx.find("sm_", T);
    if (Sm != std::string::npos && Sm < T + 32)
      Lib->PtxTarget = unsigned(std::strtoul(Lib->Ptx.c_str() + Sm + 3, nullptr, 10));
  }
  log::module().debug("loaded {} ({} kernels, {} globals, {} bytes of PTX)",
                       fatbin::imageKindName(Img->Kind), Lib->Entries.size(), Lib->Globals.size(),
                       Lib->Ptx.size());
  publish(Lib);
  return Lib;
}

Library::Library(bool AsModule) : Object(AsModule ? Kind::Module : Kind::Library) {}

Library::~Library() { forgetCode(); }

Library::PieceIr::PieceIr() = default;
Library::PieceIr::PieceIr(PieceIr &&) = default;
Library::PieceIr &Library::PieceIr::operator=(PieceIr &&O) {
  M.reset(); // Before the context it lives in.
  Ctx = std::move(O.Ctx);
  M = std::move(O.M);
  return *this;
}
Library::PieceIr::~PieceIr() { M.reset(); } // Before its context.

void Library::forgetCode() {
  // Queued launches hold their LoadedCode (LaunchRequest::Hold), so the
  // code can be dropped here without draining; its variables leave the
  // allocation table first.
  std::lock_guard<std::mutex> L(CodeM);
  std::lock_guard<std::mutex> LL(LookupM);
  for (auto &[Dev, DC] : Code)
    for (uintptr_t B : DC.GlobalBases)
      alloctable::erase(B);
  Code.clear();
}

/// A kernel of a refused image: the error, logged once per kernel as a
/// warning (the program may look it up on every launch).
Error Library::refusedKernel(const std::string &Name, std::string Why) {
  Error E = makeError(RefusedCode != CUDA_SUCCESS ? RefusedCode : CUDA_ERROR_NO_BINARY_FOR_GPU, std::move(Why));
  std::lock_guard<std::mutex> L(M);
  if (RefusedWarned.insert(Name).second)
    log::module().warn("{}", E.message());
  return E;
}

Expected<Ref<Kernel>> Library::kernel(const std::string &Name) {
  if (Ptx.empty())
    return refusedKernel(Name, "kernel '" + Name + "' cannot run: the image has no PTX for this device" +
                                   (RefusedWhy.empty() ? "" : ": " + RefusedWhy));
  bool Known = false;
  for (auto &E : Entries)
    Known |= E == Name;
  // A kernel of a refused container is unknown here (ferry reads kernel
  // names from PTX), but NVIDIA would know it and have no code for it.
  if (!Known && RefusedCode != CUDA_SUCCESS)
    return refusedKernel(Name, "kernel '" + Name + "' is in none of the image's usable PTX; a part of "
                                "the image was refused: " + RefusedWhy);
  if (!Known)
    return makeError(CUDA_ERROR_NOT_FOUND, "no kernel named '" + Name + "' in the image");
  std::lock_guard<std::mutex> L(M);
  auto &K = Kernels[Name];
  if (!K) {
    K = std::make_shared<Kernel>(std::static_pointer_cast<Library>(shared_from_this()), Name);
    publish(K);
  }
  return K;
}

std::vector<Ref<Kernel>> Library::kernels() {
  std::vector<Ref<Kernel>> Out;
  for (const auto &E : Entries)
    if (auto K = kernel(E))
      Out.push_back(*K);
  return Out;
}

void Library::unload() {
  std::map<std::string, Ref<Kernel>> Old;
  {
    std::lock_guard<std::mutex> L(M);
    Old.swap(Kernels);
  }
  forgetCode();
  for (auto &[N, K] : Old)
    retire(K.get());
  retire(this);
}

Status Library::buildWhole(DeviceEntry &D, DeviceCode &Out) {
  if (PtxParts.empty())
    return makeError(CUDA_ERROR_NO_BINARY_FOR_GPU, "the image has no PTX (ferry never runs SASS)");
  CompilerBackend *Compiler = D.Family ? D.Family->compiler() : nullptr;
  if (!Compiler)
    return makeError(CUDA_ERROR_NOT_SUPPORTED,
                     "device " + std::to_string(D.Ordinal) + " has no kernel compiler");
  CompileOptions Opts;
  // The code cache, keyed by the image's PTX, the code target, this build
  // and the options: a hit skips the whole front end (parse, lowering,
  // linking) as well as code generation.
  CodeCache &Cache = CodeCache::fromSettings();
  std::string Key;
  if (Cache.enabled()) {
    CodeCache::KeyBuilder KB;
    KB.add("ferry-image-1").add(Compiler->target()).add(CodeCache::buildIdentity());
    KB.add(std::to_string(Opts.OptLevel) + (Opts.FastMath ? "f" : ""));
    for (const std::string &Part : PtxParts)
      KB.add(Part);
    Key = KB.finish();
    if (auto Hit = Cache.load(Key)) {
      auto Obj = Compiler->deserialize(
          std::span<const std::byte>(reinterpret_cast<const std::byte *>(Hit->data()), Hit->size()));
      if (Obj) {
        log::cache().debug("image loaded from the code cache ({} kernels)", (*Obj)->kernels().size());
        return finishLoad(D, Out, std::move(*Obj), true);
      }
      log::cache().warn("cached image unusable ({}); compiling again", Obj.error().message());
    }
  }
  // Each container's PTX is its own module (one per translation unit with
  // -rdc); they are lowered separately and linked, so extern device
  // functions and variables resolve across them.
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> Linked;
  for (size_t I = 0; I < PtxParts.size(); ++I) {
    std::string Name = "module" + std::to_string(I) + ".ptx";
    auto R = ptx::lowerText(PtxParts[I], Name, Ctx);
    if (!R)
      return makeError(CUDA_ERROR_INVALID_PTX, errorText(R.takeError()));
    for (const ptx::KernelError &KE : R->Errors)
      Out.Unlowered.emplace(KE.Function, KE.format(Name));
    if (!Linked) {
      Linked = std::move(R->M);
      continue;
    }
    if (llvm::Linker::linkModules(*Linked, std::move(R->M)))
      return makeError(CUDA_ERROR_INVALID_PTX, "linking the image's PTX modules failed");
  }
  for (const auto &[Fn, Why] : Out.Unlowered)
    log::module().warn("kernel not translated: {}", Why);
  auto Obj = Compiler->compile(*Linked, Opts);
  if (!Obj)
    return Obj.takeError();
  // An image with untranslated kernels is not cached: their reasons are not
  // part of the code object and must be reported again.
  if (Cache.enabled() && Out.Unlowered.empty()) {
    if (auto Bytes = (*Obj)->serialize())
      Cache.store(Key, std::string_view(reinterpret_cast<const char *>(Bytes->data()), Bytes->size()));
    else
      log::cache().debug("compiled image not cached: {}", Bytes.error().message());
  }
  return finishLoad(D, Out, std::move(*Obj), true);
}

/// Gives the cells of Loaded (ptx::reachVariablesThroughCells) of the
/// variables Names the addresses of those in Variables, before any kernel
/// of Loaded can run.
static Status fillCells(DeviceEntry &D, const LoadedCode &Loaded, const LoadedCode &Variables,
                        const std::vector<std::string> &Names) {
  std::vector<std::pair<void *, uint64_t>> Writes;
  for (const std::string &Name : Names) {
    auto Cell = Loaded.global(ptx::variableCellName(Name));
    if (!Cell)
      continue; // The piece does not use it.
    auto Var = Variables.global(Name);
    if (Cell->Bytes < sizeof(uint64_t) || !Var)
      return makeError(CUDA_ERROR_INVALID_IMAGE, "module variable '" + Name + "' cannot be reached from the " +
                                                     "compiled kernel (" + (Var ? "bad cell" : "not defined") + ")");
    Writes.emplace_back(Cell->Address, uint64_t(reinterpret_cast<uintptr_t>(Var->Address)));
  }
  if (D.Backend->properties().HostAccessesDeviceMemory) {
    for (auto &[At, Addr] : Writes)
      std::memcpy(At, &Addr, sizeof Addr);
    return Status::ok();
  }
  auto Q = D.Backend->createQueue(0);
  if (!Q)
    return Q.takeError();
  for (auto &[At, Addr] : Writes) {
    CopyRect R;
    R.Dst = At;
    R.Src = &Addr;
    R.WidthBytes = R.DstPitch = R.SrcPitch = sizeof Addr;
    if (Status S = (*Q)->enqueueCopy(R); !S)
      return S;
  }
  (*Q)->drain();
  return D.Backend->fault();
}

Status Library::finishLoad(DeviceEntry &D, DeviceCode &DC, std::unique_ptr<CodeObject> Obj,
                           bool DefinesVariables) {
  auto Made = D.Backend->load(*Obj);
  if (!Made)
    return Made.takeError();
  std::shared_ptr<const LoadedCode> Loaded(std::move(*Made));
  // A piece of a backend that shares no variables between code objects
  // reaches them through cells (buildPiece): by the variables' IR names,
  // which are the PTX names unless the image's modules were linked.
  CompilerBackend *Compiler = D.Family ? D.Family->compiler() : nullptr;
  if (!DefinesVariables && DC.Variables && Compiler && !Compiler->sharesVariables()) {
    std::vector<std::string> Names;
    if (Ir) {
      for (const llvm::GlobalVariable &G : Ir->globals())
        if (ptx::isModuleVariable(G))
          Names.push_back(G.getName().str());
    } else {
      Names = Globals;
    }
    if (Status S = fillCells(D, *Loaded, *DC.Variables, Names); !S)
      return S;
  }
  auto Infos = Loaded->info();
  {
    std::lock_guard<std::mutex> LL(LookupM);
    for (unsigned I = 0; I < Infos.size(); ++I)
      DC.Kernels.emplace(Infos[I].Name, KernelCode{Loaded, I, &Infos[I]});
  }
  DC.Objects.push_back(std::move(Obj));
  if (!DefinesVariables)
    return Status::ok();
  DC.Variables = Loaded;
  // Module variables are device memory: copies, fills and pointer queries
  // find them in the allocation table like any allocation.
  for (const std::string &Name : Globals)
    if (auto G = Loaded->global(Name); G && G->Bytes) {
      Allocation A;
      A.Base = uintptr_t(G->Address);
      A.Bytes = G->Bytes;
      A.Kind = AllocKind::ModuleGlobal;
      A.ManagedVariable =
          std::find(ManagedGlobals.begin(), ManagedGlobals.end(), Name) != ManagedGlobals.end();
      A.DeviceOrdinal = D.Ordinal;
      alloctable::insert(A);
      DC.GlobalBases.push_back(A.Base);
    }
  return Status::ok();
}

/// CUDA_MODULE_LOADING=EAGER: the whole image in one compile.
static bool eagerLoading() { return Settings::get().getString(SettingKey::ModuleLoading) == "EAGER"; }

Status Library::lowerImage() {
  if (Ir)
    return Status::ok();
  if (IrFailure)
    return *IrFailure;
  if (PtxParts.empty())
    return makeError(CUDA_ERROR_NO_BINARY_FOR_GPU, "the image has no PTX (ferry never runs SASS)");
  auto T0 = std::chrono::steady_clock::now();
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> Linked;
  Status S = Status::ok();
  for (size_t I = 0; I < PtxParts.size() && S; ++I) {
    std::string Name = "module" + std::to_string(I) + ".ptx";
    auto R = ptx::lowerText(PtxParts[I], Name, *Ctx);
    if (!R) {
      S = makeError(CUDA_ERROR_INVALID_PTX, errorText(R.takeError()));
      break;
    }
    for (const ptx::KernelError &KE : R->Errors)
      IrUnlowered.emplace(KE.Function, KE.format(Name));
    if (!Linked)
      Linked = std::move(R->M);
    else if (llvm::Linker::linkModules(*Linked, std::move(R->M)))
      S = makeError(CUDA_ERROR_INVALID_PTX, "linking the image's PTX modules failed");
  }
  if (!S) {
    log::module().error("lowering the image: {}", S.message());
    IrFailure = S.takeError();
    return *IrFailure;
  }
  for (const auto &[Fn, Why] : IrUnlowered)
    log::module().warn("kernel not translated: {}", Why);
  log::jit().debug("lazy loading: lowered the image ({} kernels, {} bytes of PTX) in {:.1f} ms", Entries.size(),
                   Ptx.size(), std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T0).count());
  IrContext = std::move(Ctx);
  Ir = std::move(Linked);
  return Status::ok();
}

/// Whether lazy loading lowers slices of the image's text (PtxSlicer), for an
/// image of one PTX module; else it lowers the image whole once and cuts
/// pieces out of its IR. (Every backend reaches the variables piece's
/// variables from other pieces: by name, or through cells.)
bool Library::slicing(CompilerBackend &Compiler) {
  if (PtxParts.size() != 1)
    return false;
  if (!Slicer)
    Slicer = std::make_unique<ptx::PtxSlicer>(PtxParts.front());
  return Slicer->usable();
}

Expected<Library::PieceIr> Library::lowerSlice(const std::string &Text, const std::vector<std::string> &Kernels,
                                               bool DefineVariables) {
  PieceIr P;
  P.Ctx = std::make_unique<llvm::LLVMContext>();
  auto R = ptx::lowerText(Text, "module0.ptx", *P.Ctx);
  if (!R)
    return makeError(CUDA_ERROR_INVALID_PTX, errorText(R.takeError()));
  for (const ptx::KernelError &KE : R->Errors)
    if (IrUnlowered.emplace(KE.Function, KE.format("module0.ptx")).second)
      log::module().warn("kernel not translated: {}", KE.format("module0.ptx"));
  std::vector<std::string> Group;
  for (const std::string &K : Kernels)
    for (std::string &G : ptx::kernelGroup(*R->M, K))
      if (std::find(Group.begin(), Group.end(), G) == Group.end())
        Group.push_back(std::move(G));
  P.M = ptx::extractPiece(*R->M, Group, DefineVariables);
  return P;
}

Status Library::buildPiece(DeviceEntry &D, DeviceCode &DC, const std::vector<std::string> &Kernels,
                           bool DefinesVariables, const char *Why) {
  CompilerBackend *Compiler = D.Family ? D.Family->compiler() : nullptr;
  if (!Compiler)
    return makeError(CUDA_ERROR_NOT_SUPPORTED,
                     "device " + std::to_string(D.Ordinal) + " has no kernel compiler");
  std::string Label = Kernels.empty()         ? std::string("the module's variables")
                      : Kernels.size() == 1   ? "kernel " + Kernels.front()
                                              : "kernels " + Kernels.front() + " and " +
                                                    std::to_string(Kernels.size() - 1) + " more";
  bool Sliced = slicing(*Compiler);
  // A backend whose code objects cannot name another's variables reaches
  // them through cells the piece defines (ptx/lower/Pieces.h).
  bool UseCells = !DefinesVariables && !Compiler->sharesVariables();
  // The slice's text when slicing (so a cached piece costs no lowering),
  // else the piece's IR: only what the kernels reach, nothing else of the
  // image, is in the key.
  PieceIr Piece;
  std::string KeyText;
  if (Sliced) {
    KeyText = "slice:" + std::string(DefinesVariables ? "defines" : "declares");
    for (const std::string &K : Kernels)
      KeyText += ":" + K;
    KeyText += "\n" + Slicer->slice(Kernels);
  } else {
    if (Status S = lowerImage(); !S)
      return S;
    Piece.M = ptx::extractPiece(*Ir, Kernels, DefinesVariables);
    if (UseCells)
      ptx::reachVariablesThroughCells(*Piece.M);
    llvm::raw_string_ostream OS(KeyText);
    llvm::WriteBitcodeToFile(*Piece.M, OS);
    OS.flush();
  }
  CompileOptions Opts;
  if (!DefinesVariables && Compiler->sharesVariables())
    Opts.Variables = DC.Variables;
  CodeCache &Cache = CodeCache::fromSettings();
  std::string Key;
  if (Cache.enabled()) {
    CodeCache::KeyBuilder KB;
    KB.add("ferry-piece-1").add(Compiler->target()).add(CodeCache::buildIdentity());
    KB.add(std::to_string(Opts.OptLevel) + (Opts.FastMath ? "f" : "") + (Opts.Variables ? "v" : "") +
           (UseCells ? "c" : ""));
    KB.add(KeyText);
    Key = KB.finish();
    if (auto Hit = Cache.load(Key)) {
      std::span<const std::byte> Bytes(reinterpret_cast<const std::byte *>(Hit->data()), Hit->size());
      auto Obj = Opts.Variables ? Compiler->deserializeLinked(Bytes, Opts.Variables) : Compiler->deserialize(Bytes);
      if (Obj) {
        log::cache().debug("{} loaded from the code cache", Label);
        return finishLoad(D, DC, std::move(*Obj), DefinesVariables);
      }
      log::cache().warn("cached piece unusable ({}); compiling again", Obj.error().message());
    }
  }
  log::jit().debug("lazy loading: compiling {} for device {} ({})", Label, D.Ordinal, Why);
  auto T0 = std::chrono::steady_clock::now();
  if (Sliced) {
    auto P = lowerSlice(KeyText.substr(KeyText.find('\n') + 1), Kernels, DefinesVariables);
    if (!P)
      return P.takeError();
    Piece = std::move(*P);
    if (UseCells)
      ptx::reachVariablesThroughCells(*Piece.M);
  }
  // A kernel the lowering could not translate is not in the piece (the
  // caller reports why); nothing else to compile then.
  if (!DefinesVariables && ptx::kernelNames(*Piece.M).empty())
    return Status::ok();
  auto T1 = std::chrono::steady_clock::now();
  auto Obj = Compiler->compile(*Piece.M, Opts);
  if (!Obj)
    return Obj.takeError();
  auto Ms = [](auto A, auto B) { return std::chrono::duration<double, std::milli>(B - A).count(); };
  log::jit().debug("lazy loading: compiled {} for device {}: lowering {:.1f} ms, code generation {:.1f} ms", Label,
                   D.Ordinal, Ms(T0, T1), Ms(T1, std::chrono::steady_clock::now()));
  if (Cache.enabled()) {
    if (auto Bytes = (*Obj)->serialize())
      Cache.store(Key, std::string_view(reinterpret_cast<const char *>(Bytes->data()), Bytes->size()));
    else
      log::cache().debug("compiled piece not cached: {}", Bytes.error().message());
  }
  return finishLoad(D, DC, std::move(*Obj), DefinesVariables);
}

Status Library::buildVariables(DeviceEntry &D, DeviceCode &DC) {
  DC.VariablesTried = true;
  if (PtxParts.empty())
    return makeError(CUDA_ERROR_NO_BINARY_FOR_GPU, "the image has no PTX (ferry never runs SASS)");
  CompilerBackend *Compiler = D.Family ? D.Family->compiler() : nullptr;
  std::vector<std::string> With; // Kernels compiled with the variables.
  if (!(Compiler && slicing(*Compiler))) {
    if (Status S = lowerImage(); !S)
      return S;
    // Other pieces reach the variables by name or through cells: the
    // variables piece holds no kernel.
    ptx::PiecePlan Plan = ptx::planPieces(*Ir, /*SharesVariables=*/true);
    if (!Plan.HasVariables)
      return Status::ok();
    With = Plan.VariablesPieceKernels;
  } else if (Globals.empty()) {
    return Status::ok(); // No module variable (scanPtxNames saw every one).
  }
  if (!With.empty())
    log::jit().debug("lazy loading: the module's variables come with the {} kernel(s) that use them (the "
                     "backend shares no variables between code objects)", With.size());
  Status S = buildPiece(D, DC, With, true, "their storage is needed");
  if (!S)
    log::module().error("compiling the image's variables for device {}: {}", D.Ordinal, S.message());
  return S;
}

Error Library::missingKernel(DeviceCode &DC, const std::string &Name) {
  const std::string *Why = nullptr;
  if (auto It = DC.Unlowered.find(Name); It != DC.Unlowered.end())
    Why = &It->second;
  else if (auto It2 = IrUnlowered.find(Name); It2 != IrUnlowered.end())
    Why = &It2->second;
  if (Why)
    // What NVIDIA reports when its JIT cannot compile a kernel's PTX; the
    // rest of the module runs.
    return makeError(CUDA_ERROR_INVALID_PTX, "kernel '" + Name + "' was not translated: " + *Why);
  if (auto F = DC.KernelFailures.find(Name); F != DC.KernelFailures.end())
    return F->second;
  return makeError(CUDA_ERROR_NOT_FOUND, "kernel '" + Name + "' is not in the compiled image");
}

Library::DeviceCode &Library::deviceCode(const DeviceEntry &D) {
  std::lock_guard<std::mutex> LL(LookupM);
  return Code[D.Backend]; // std::map: the reference stays valid.
}

Expected<Library::KernelCode> Library::kernelCode(DeviceEntry &D, const std::string &Name, const char *Why) {
  // Launches of compiled kernels never wait for another kernel's compile.
  {
    std::lock_guard<std::mutex> LL(LookupM);
    if (auto It = Code.find(D.Backend); It != Code.end())
      if (auto K = It->second.Kernels.find(Name); K != It->second.Kernels.end())
        return K->second;
  }
  std::lock_guard<std::mutex> L(CodeM);
  DeviceCode &DC = deviceCode(D);
  if (auto It = DC.Kernels.find(Name); It != DC.Kernels.end())
    return It->second;
  if (DC.Failure)
    return *DC.Failure;
  if (DC.WholeTried || DC.KernelFailures.count(Name) || DC.Unlowered.count(Name) || IrUnlowered.count(Name))
    return missingKernel(DC, Name);
  bool Fresh = DC.Kernels.empty() && !DC.VariablesTried;
  if (Fresh && eagerLoading()) {
    DC.WholeTried = true;
    log::jit().debug("compiling the whole image for device {} ({} of kernel {})", D.Ordinal, Why, Name);
    if (Status S = buildWhole(D, DC); !S) {
      log::module().error("compiling the image for device {}: {}", D.Ordinal, S.message());
      DC.Failure = S.takeError();
      return *DC.Failure;
    }
  } else {
    if (!DC.VariablesTried)
      if (Status S = buildVariables(D, DC); !S) {
        DC.Failure = S.takeError();
        return *DC.Failure;
      }
    if (!DC.Kernels.count(Name) && !IrUnlowered.count(Name)) {
      // The kernels it launches from the device come with it (by the
      // slice's reach, or kernelGroup on the image's IR).
      std::vector<std::string> Group = Ir ? ptx::kernelGroup(*Ir, Name) : std::vector<std::string>{Name};
      if (Status S = buildPiece(D, DC, Group, false, Why); !S) {
        log::module().error("compiling kernel {} for device {}: {}", Name, D.Ordinal, S.message());
        DC.KernelFailures.emplace(Name, S.takeError());
      }
    }
  }
  if (auto It = DC.Kernels.find(Name); It != DC.Kernels.end())
    return It->second;
  return missingKernel(DC, Name);
}

Status Library::compileAll(DeviceEntry &D) {
  std::lock_guard<std::mutex> L(CodeM);
  DeviceCode &DC = deviceCode(D);
  if (DC.Failure)
    return *DC.Failure;
  if (DC.WholeTried)
    return Status::ok();
  if (DC.Kernels.empty() && !DC.VariablesTried) {
    DC.WholeTried = true;
    log::jit().debug("compiling the whole image for device {}", D.Ordinal);
    if (Status S = buildWhole(D, DC); !S) {
      log::module().error("compiling the image for device {}: {}", D.Ordinal, S.message());
      DC.Failure = S.takeError();
      return *DC.Failure;
    }
    return Status::ok();
  }
  if (Status S = lowerImage(); !S)
    return S;
  if (!DC.VariablesTried)
    if (Status S = buildVariables(D, DC); !S) {
      DC.Failure = S.takeError();
      return *DC.Failure;
    }
  std::vector<std::string> Missing;
  for (const std::string &K : ptx::kernelNames(*Ir))
    if (!DC.Kernels.count(K) && !DC.KernelFailures.count(K))
      Missing.push_back(K);
  if (Missing.empty())
    return Status::ok();
  if (Status S = buildPiece(D, DC, Missing, false, "every kernel asked for"); !S) {
    log::module().error("compiling the image's kernels for device {}: {}", D.Ordinal, S.message());
    for (const std::string &K : Missing)
      DC.KernelFailures.emplace(K, Error(S.code(), S.message()));
  }
  return Status::ok();
}

std::vector<Library::KernelCode> Library::compiledKernels(const DeviceEntry &D) {
  std::lock_guard<std::mutex> L(CodeM);
  std::vector<KernelCode> Out;
  auto It = Code.find(D.Backend);
  if (It == Code.end())
    return Out;
  for (const std::string &E : Entries)
    if (auto K = It->second.Kernels.find(E); K != It->second.Kernels.end())
      Out.push_back(K->second);
  return Out;
}

std::map<std::string, std::string> Library::untranslated(const DeviceEntry &D) {
  std::lock_guard<std::mutex> L(CodeM);
  std::map<std::string, std::string> Out = IrUnlowered;
  if (auto It = Code.find(D.Backend); It != Code.end())
    Out.insert(It->second.Unlowered.begin(), It->second.Unlowered.end());
  return Out;
}

bool Library::isLoaded(const DeviceEntry &D, const std::string &Name) {
  std::lock_guard<std::mutex> L(CodeM);
  auto It = Code.find(D.Backend);
  return It != Code.end() && It->second.Kernels.count(Name);
}

Expected<LoadedCode::Global> Library::global(DeviceEntry &D, const std::string &Name) {
  std::lock_guard<std::mutex> L(CodeM);
  DeviceCode &DC = deviceCode(D);
  if (DC.Failure)
    return *DC.Failure;
  bool Fresh = DC.Kernels.empty() && !DC.VariablesTried && !DC.WholeTried;
  if (Fresh && eagerLoading()) {
    DC.WholeTried = true;
    if (Status S = buildWhole(D, DC); !S) {
      log::module().error("compiling the image for device {}: {}", D.Ordinal, S.message());
      DC.Failure = S.takeError();
      return *DC.Failure;
    }
  } else if (!DC.WholeTried) {
    if (!DC.VariablesTried)
      if (Status S = buildVariables(D, DC); !S) {
        DC.Failure = S.takeError();
        return *DC.Failure;
      }
  }
  if (DC.Variables)
    if (auto G = DC.Variables->global(Name))
      return *G;
  return makeError(CUDA_ERROR_NOT_FOUND, "no global named '" + Name + "'");
}

} // namespace ferry::core
