/// \file
/// Precise math for the AMD backend: links ocml/ockl from rocm-device-libs
/// (bitcode, read by LLVM 19) into a module that calls them, and defines the
/// __oclc_* control constants those libraries branch on. ROCm normally
/// supplies the controls as tiny per-ISA bitcode files; defining them here
/// lets one set of libraries serve ISAs newer than the installed ones
/// (Debian's 5.2 libraries know nothing of gfx942, gfx11 or gfx12).
#include "hsa/Lowering.h"

#include "support/Log.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;

namespace ferry::hsa {

static constexpr const char *DefaultDeviceLibsDir = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

static std::string deviceLibsDir(const CompileOptions &Opts) {
  if (!Opts.DeviceLibsDir.empty())
    return Opts.DeviceLibsDir;
  // TODO(settings): FERRY_HSA_DEVICE_LIBS belongs in support/Settings.def.
  if (const char *Env = std::getenv("FERRY_HSA_DEVICE_LIBS"); Env && *Env)
    return Env;
  return DefaultDeviceLibsDir;
}

static bool needsLibraries(const Module &M) {
  for (const Function &F : M)
    if (F.isDeclaration() &&
        (F.getName().starts_with("__ocml_") || F.getName().starts_with("__ockl_")))
      return true;
  return false;
}

/// Gives each declared control constant its value for this target.
static void defineControls(Module &M, const TargetInfo &T, const CompileOptions &Opts) {
  const std::pair<const char *, uint64_t> Controls[] = {
      {"__oclc_ISA_version", T.IsaVersion},
      {"__oclc_ABI_version", 500},
      {"__oclc_wavefrontsize64", T.WavefrontSize == 64},
      {"__oclc_finite_only_opt", 0},
      {"__oclc_unsafe_math_opt", 0},
      {"__oclc_daz_opt", Opts.FlushDenormals},
      {"__oclc_correctly_rounded_sqrt32", 1},
  };
  for (auto [Name, Value] : Controls) {
    GlobalVariable *G = M.getNamedGlobal(Name);
    if (!G || !G->getValueType()->isIntegerTy())
      continue;
    G->setInitializer(ConstantInt::get(G->getValueType(), Value));
    G->setConstant(true);
    G->setLinkage(GlobalValue::InternalLinkage);
  }
}

Error linkDeviceLibs(Module &M, const TargetInfo &T, const CompileOptions &Opts) {
  if (!needsLibraries(M))
    return Error::success();
  std::string Dir = deviceLibsDir(Opts);
  for (const char *Lib : {"ocml.bc", "ockl.bc"}) {
    if (!needsLibraries(M))
      break;
    SmallString<256> Path(Dir);
    sys::path::append(Path, Lib);
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
    if (!Buf)
      return createStringError(Buf.getError(),
                               "precise math needs rocm-device-libs: cannot read " + Path +
                                   " (set FERRY_HSA_DEVICE_LIBS): " + Buf.getError().message());
    Expected<std::unique_ptr<Module>> LibM = parseBitcodeFile(**Buf, M.getContext());
    if (!LibM)
      return LibM.takeError();
    (*LibM)->setDataLayout(M.getDataLayout());
    (*LibM)->setTargetTriple(M.getTargetTriple());
    if (Linker::linkModules(M, std::move(*LibM), Linker::LinkOnlyNeeded))
      return createStringError(inconvertibleErrorCode(), "linking %s failed", Path.c_str());
    log::hsa().debug("linked {}", Path.str());
  }
  defineControls(M, T, Opts);
  for (const Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty() &&
        (F.getName().starts_with("__ocml_") || F.getName().starts_with("__ockl_")))
      return createStringError(inconvertibleErrorCode(),
                               "device library function %s not found in %s",
                               F.getName().str().c_str(), Dir.c_str());
  return Error::success();
}

} // namespace ferry::hsa
