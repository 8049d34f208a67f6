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
#include "ptx/parser/Parser.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdlib>

#include <cctype>

namespace ferry::core {

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
    auto AddPart = [&](const fatbin::Entry &E) -> Status {
      auto Text = fatbin::ptxText(E);
      if (!Text)
        return makeError(CUDA_ERROR_INVALID_IMAGE, Text.error().message());
      Lib->Ptx += *Text;
      Lib->Ptx += '\n';
      if (std::find(Lib->PtxParts.begin(), Lib->PtxParts.end(), *Text) == Lib->PtxParts.end())
        Lib->PtxParts.emplace_back(*Text);
      return Status::ok();
    };
    for (const auto &C : Img->Containers) {
      // cuLinkComplete's image: its PTX entries are the linked inputs, all
      // needed, not alternatives for different architectures.
      if (link::isLinkImage(C)) {
        for (const fatbin::Entry &E : C.Entries)
          if (E.isPtx())
            if (Status S = AddPart(E); !S)
              return S.takeError();
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
      if (!fatbin::ptxUsableOn(C.Entries[*Pick], Sm))
        log::module().info("no PTX for sm_{} in a container; compiling its PTX for {} instead (ferry "
                           "JIT-compiles any target; a kernel using what ferry cannot lower fails alone)",
                           Sm, C.Entries[*Pick].archName());
      if (Status S = AddPart(C.Entries[*Pick]); !S)
        return S.takeError();
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

Library::~Library() { forgetCode(); }

void Library::forgetCode() {
  // Queued launches hold their LoadedCode (LaunchRequest::Hold), so the
  // code can be dropped here without draining; its variables leave the
  // allocation table first.
  std::lock_guard<std::mutex> L(CodeM);
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

Status Library::buildFor(DeviceEntry &D, DeviceCode &Out) {
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
        return finishLoad(D, Out, std::move(*Obj));
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
  return finishLoad(D, Out, std::move(*Obj));
}

Status Library::finishLoad(DeviceEntry &D, DeviceCode &Out, std::unique_ptr<CodeObject> Obj) {
  auto Loaded = D.Backend->load(*Obj);
  if (!Loaded)
    return Loaded.takeError();
  Out.Object = std::move(Obj);
  Out.Loaded = std::shared_ptr<const LoadedCode>(std::move(*Loaded));
  // Module variables are device memory: copies, fills and pointer queries
  // find them in the allocation table like any allocation.
  for (const std::string &Name : Globals)
    if (auto G = Out.Loaded->global(Name); G && G->Bytes) {
      Allocation A;
      A.Base = uintptr_t(G->Address);
      A.Bytes = G->Bytes;
      A.Kind = AllocKind::ModuleGlobal;
      A.ManagedVariable =
          std::find(ManagedGlobals.begin(), ManagedGlobals.end(), Name) != ManagedGlobals.end();
      A.DeviceOrdinal = D.Ordinal;
      alloctable::insert(A);
      Out.GlobalBases.push_back(A.Base);
    }
  return Status::ok();
}

Expected<std::shared_ptr<const LoadedCode>> Library::loadedCode(DeviceEntry &D) {
  std::lock_guard<std::mutex> L(CodeM);
  DeviceCode &DC = Code[D.Backend];
  if (!DC.Tried) {
    DC.Tried = true;
    if (Status S = buildFor(D, DC); !S) {
      log::module().error("compiling the image for device {}: {}", D.Ordinal, S.message());
      DC.Failure = S.takeError();
    }
  }
  if (DC.Failure)
    return *DC.Failure;
  return DC.Loaded;
}

Expected<Library::KernelCode> Library::kernelCode(DeviceEntry &D, const std::string &Name) {
  auto LC = loadedCode(D);
  if (!LC)
    return LC.takeError();
  auto Infos = (*LC)->info();
  for (unsigned I = 0; I < Infos.size(); ++I)
    if (Infos[I].Name == Name)
      return KernelCode{*LC, I, &Infos[I]};
  std::lock_guard<std::mutex> L(CodeM);
  DeviceCode &DC = Code[D.Backend];
  if (auto It = DC.Unlowered.find(Name); It != DC.Unlowered.end())
    // What NVIDIA reports when its JIT cannot compile a kernel's PTX; the
    // rest of the module runs.
    return makeError(CUDA_ERROR_INVALID_PTX, "kernel '" + Name + "' was not translated: " + It->second);
  return makeError(CUDA_ERROR_NOT_FOUND, "kernel '" + Name + "' is not in the compiled image");
}

std::map<std::string, std::string> Library::untranslated(const DeviceEntry &D) {
  std::lock_guard<std::mutex> L(CodeM);
  auto It = Code.find(D.Backend);
  return It == Code.end() ? std::map<std::string, std::string>() : It->second.Unlowered;
}

bool Library::isLoaded(const DeviceEntry &D) {
  std::lock_guard<std::mutex> L(CodeM);
  auto It = Code.find(D.Backend);
  return It != Code.end() && It->second.Loaded != nullptr;
}

Expected<LoadedCode::Global> Library::global(DeviceEntry &D, const std::string &Name) {
  auto LC = loadedCode(D);
  if (!LC)
    return LC.takeError();
  if (auto G = (*LC)->global(Name))
    return *G;
  return makeError(CUDA_ERROR_NOT_FOUND, "no global named '" + Name + "'");
}

} // namespace ferry::core
