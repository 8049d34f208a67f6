/// \file
/// The AMD side of the `ferry` tool, usable with no AMD GPU present:
///   ferry compile --offload-arch=gfx942[,gfx1100…] PROGRAM
///     compiles the program's kernels for each target exactly as libcuda
///     would when it loads them (same PTX choice, same SIMT IR, same compiler
///     seam), so the code cache is filled ahead of time and the first launch
///     on that GPU compiles nothing;
///   ferry inspect --isa=gfx1100 PROGRAM (tools/Inspect.cpp forwards here)
///     prints the AMDGPU disassembly of the program's kernels.
/// Images: libcuda compiles each registered fatbin on its own. A program
/// with one wrapper (one translation unit, or an -rdc link) is one image of
/// all its PTX containers; otherwise each container is its own image.
#include "hsa/HsaBackend.h"
#include "ptx/fatbin/File.h"
#include "ptx/fatbin/Payload.h"
#include "ptx/fatbin/Select.h"
#include "ptx/lower/Lower.h"
#include "ptx/lower/Pieces.h"
#include "support/Cache.h"
#include "support/Settings.h"
#include "tools/Command.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace ferry::tool {

int inspectIsa(const std::string &File, const std::string &Arch);

namespace {

/// libcuda picks PTX for the device's compute capability; AMD devices
/// report DeviceProperties' default (libcuda/Backend.h).
unsigned amdDeviceSm() {
  DeviceProperties P;
  return unsigned(P.CcMajor * 10 + P.CcMinor);
}

std::vector<std::string> splitList(const std::string &S) {
  std::vector<std::string> Out;
  size_t Start = 0;
  while (Start <= S.size()) {
    size_t Comma = S.find(',', Start);
    std::string Item = S.substr(Start, Comma == std::string::npos ? std::string::npos : Comma - Start);
    if (!Item.empty())
      Out.push_back(Item);
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  return Out;
}

/// The PTX texts of each image of a program, as libcuda would choose them.
bool programImages(const std::string &File, std::vector<std::vector<std::string>> &Images) {
  auto Img = fatbin::readFile(File);
  if (!Img) {
    std::fprintf(stderr, "ferry: %s\n", Img.error().message().c_str());
    return false;
  }
  if (Img->Kind == fatbin::FileKind::Ptx) {
    Images.push_back({std::string(Img->Ptx)});
    return true;
  }
  bool OneImage = Img->Wrappers.size() <= 1;
  for (const fatbin::FileContainer &FC : Img->Containers) {
    auto Pick = fatbin::choosePtxEntry(FC.C.Entries, amdDeviceSm());
    if (!Pick)
      continue; // A container without usable PTX (an -rdc link's SASS).
    auto Text = fatbin::ptxText(FC.C.Entries[*Pick]);
    if (!Text) {
      std::fprintf(stderr, "ferry: %s: %s\n", File.c_str(), Text.error().message().c_str());
      return false;
    }
    if (OneImage && !Images.empty())
      Images.back().push_back(*Text);
    else
      Images.push_back({*Text});
  }
  if (Images.empty()) {
    std::fprintf(stderr, "ferry: %s carries no PTX (ferry never runs SASS)\n", File.c_str());
    return false;
  }
  return true;
}

/// Lowers and links one image as libcuda's Library::buildFor does.
std::unique_ptr<llvm::Module> lowerImage(const std::vector<std::string> &Parts,
                                         llvm::LLVMContext &Ctx) {
  std::unique_ptr<llvm::Module> Linked;
  for (size_t I = 0; I < Parts.size(); ++I) {
    std::string Name = "module" + std::to_string(I) + ".ptx";
    auto R = ptx::lowerText(Parts[I], Name, Ctx);
    if (!R) {
      std::fprintf(stderr, "ferry: %s\n", llvm::toString(R.takeError()).c_str());
      return nullptr;
    }
    for (const ptx::KernelError &KE : R->Errors)
      std::fprintf(stderr, "ferry: kernel not translated: %s\n", KE.format(Name).c_str());
    if (!Linked)
      Linked = std::move(R->M);
    else if (llvm::Linker::linkModules(*Linked, std::move(R->M))) {
      std::fprintf(stderr, "ferry: linking the image's PTX modules failed\n");
      return nullptr;
    }
  }
  return Linked;
}

/// Compiles every image for Arch through the compiler seam (which reads and
/// fills the code cache); calls Use with each code object.
template <typename Fn>
bool compileProgram(const std::string &File, const std::string &Arch, Fn Use) {
  auto T = hsa::resolveTarget(Arch);
  if (!T) {
    std::fprintf(stderr, "ferry: %s\n", llvm::toString(T.takeError()).c_str());
    return false;
  }
  std::vector<std::vector<std::string>> Images;
  if (!programImages(File, Images))
    return false;
  hsa::HsaCompilerBackend Compiler(*T);
  bool Ok = true;
  for (size_t I = 0; I < Images.size(); ++I) {
    llvm::LLVMContext Ctx;
    auto M = lowerImage(Images[I], Ctx);
    if (!M) {
      Ok = false;
      continue;
    }
    // What libcuda compiles (core/Library.cpp): with lazy loading (the
    // default), the image's pieces (ptx/lower/Pieces.h): the module
    // variables alone, and each kernel with what it launches, reaching the
    // variables through cells; an image of one PTX module has each piece
    // lowered from its slice of the text (PtxSlicer). With
    // CUDA_MODULE_LOADING=EAGER, the whole image.
    std::vector<std::unique_ptr<llvm::LLVMContext>> PieceContexts; // Outlive Pieces.
    std::vector<std::unique_ptr<llvm::Module>> Pieces;
    if (Settings::get().getString(SettingKey::ModuleLoading) == "EAGER") {
      Pieces.push_back(std::move(M));
    } else {
      std::unique_ptr<ptx::PtxSlicer> Slicer;
      if (Images[I].size() == 1)
        Slicer = std::make_unique<ptx::PtxSlicer>(Images[I].front());
      if (Slicer && !Slicer->usable())
        Slicer.reset();
      // libcuda's Library::lowerSlice.
      auto Piece = [&](const std::vector<std::string> &Kernels, bool Variables) -> std::unique_ptr<llvm::Module> {
        if (!Slicer)
          return ptx::extractPiece(*M, Variables ? std::vector<std::string>{} : ptx::kernelGroup(*M, Kernels[0]),
                                   Variables);
        // Each in a context of its own, as libcuda lowers it (named types
        // would be renamed in a shared one, and the bitcode differ).
        PieceContexts.push_back(std::make_unique<llvm::LLVMContext>());
        auto R = ptx::lowerText(Slicer->slice(Kernels), "module0.ptx", *PieceContexts.back());
        if (!R) {
          std::fprintf(stderr, "ferry: %s\n", llvm::toString(R.takeError()).c_str());
          return nullptr;
        }
        std::vector<std::string> Group;
        for (const std::string &K : Kernels)
          for (std::string &G : ptx::kernelGroup(*R->M, K))
            if (std::find(Group.begin(), Group.end(), G) == Group.end())
              Group.push_back(std::move(G));
        return ptx::extractPiece(*R->M, Group, Variables);
      };
      if (ptx::planPieces(*M, true).HasVariables)
        Pieces.push_back(Piece({}, true));
      for (const std::string &K : ptx::kernelNames(*M)) {
        Pieces.push_back(Piece({K}, false));
        if (Pieces.back() && !Compiler.sharesVariables())
          ptx::reachVariablesThroughCells(*Pieces.back());
      }
    }
    for (std::unique_ptr<llvm::Module> &P : Pieces) {
      if (!P) {
        Ok = false;
        continue;
      }
      ferry::CompileOptions Opts; // What libcuda passes (core/Library.cpp).
      auto CO = Compiler.compile(*P, Opts);
      if (!CO) {
        std::fprintf(stderr, "ferry: image %zu for %s: %s\n", I, T->Name.c_str(),
                     CO.error().message().c_str());
        Ok = false;
        continue;
      }
      Use(I, static_cast<const hsa::HsaCodeObject &>(**CO));
    }
  }
  return Ok;
}

int usageCompile(FILE *Out) {
  std::fprintf(Out,
               "usage: ferry compile --offload-arch=gfxNNN[,gfxMMM...] PROGRAM\n"
               "  Compiles PROGRAM's kernels for the AMD GPUs named and stores them in the\n"
               "  code cache ($CUDA_CACHE_PATH, else ~/.cache/ferry), so the first launch on\n"
               "  such a GPU compiles nothing. Needs no AMD GPU. Targets checked in CI:\n"
               "  gfx90a, gfx942, gfx1030, gfx1100, gfx1201.\n");
  return Out == stdout ? 0 : 2;
}

int runCompile(const std::vector<std::string> &Args) {
  std::vector<std::string> Archs;
  std::string File;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--help" || A == "-h")
      return usageCompile(stdout);
    if (A.rfind("--offload-arch=", 0) == 0) {
      for (std::string &X : splitList(A.substr(15)))
        Archs.push_back(X);
    } else if (A == "--offload-arch" && I + 1 < Args.size()) {
      for (std::string &X : splitList(Args[++I]))
        Archs.push_back(X);
    } else if (!A.empty() && A[0] == '-') {
      std::fprintf(stderr, "ferry compile: unknown option '%s'\n", A.c_str());
      return usageCompile(stderr);
    } else if (File.empty()) {
      File = A;
    } else {
      std::fprintf(stderr, "ferry compile: more than one PROGRAM given\n");
      return 2;
    }
  }
  if (File.empty() || Archs.empty())
    return usageCompile(stderr);
  CodeCache &Cache = CodeCache::fromSettings();
  if (!Cache.enabled())
    std::fprintf(stderr, "ferry compile: the code cache is disabled (CUDA_CACHE_DISABLE); "
                         "compiling only to check\n");
  bool Ok = true;
  for (const std::string &Arch : Archs)
    Ok &= compileProgram(File, Arch, [&](size_t I, const hsa::HsaCodeObject &CO) {
      std::printf("%s: image %zu: %zu kernel(s) for %s, %zu bytes\n", File.c_str(), I,
                  CO.amdgpu().Kernels.size(), CO.amdgpu().Target.c_str(), CO.amdgpu().Bytes.size());
    });
  if (Cache.enabled())
    std::printf("code cache: %s (%llu stored, %llu already there)\n", Cache.directory().c_str(),
                (unsigned long long)Cache.stats().Stores, (unsigned long long)Cache.stats().Hits);
  return Ok ? 0 : 1;
}

} // namespace

int inspectIsa(const std::string &File, const std::string &Arch) {
  bool Ok = compileProgram(File, Arch, [&](size_t I, const hsa::HsaCodeObject &CO) {
    std::printf("image %zu: %s code object v5 for %s, %zu bytes\n", I, File.c_str(),
                CO.amdgpu().Target.c_str(), CO.amdgpu().Bytes.size());
    for (const hsa::KernelInfo &K : CO.amdgpu().Kernels)
      std::printf("  kernel %s: kernarg %u bytes, LDS %u, scratch %u, wave%u, %u VGPRs, %u SGPRs\n",
                  K.Name.c_str(), K.KernargSize, K.GroupSegmentSize, K.PrivateSegmentSize,
                  K.WavefrontSize, K.VgprCount, K.SgprCount);
    auto Text = hsa::disassemble(CO.amdgpu().Bytes);
    if (!Text) {
      std::fprintf(stderr, "ferry inspect: %s\n", llvm::toString(Text.takeError()).c_str());
      return;
    }
    std::fputs(Text->c_str(), stdout);
  });
  return Ok ? 0 : 1;
}

} // namespace ferry::tool

FERRY_REGISTER_COMMAND(Compile, "compile",
                       "compile a program's kernels for AMD GPUs ahead of time (code cache)",
                       ferry::tool::runCompile);
