/// \file
/// Joins the host compiler (host/jit) and the host executor (host/exec) to
/// libcuda's seams (libcuda/Backend.h): a CompilerBackend that turns SIMT IR
/// into a HostCodeObject, the HostDevice load hook that makes it a
/// LoadedCode, and the launch hook that hands a LaunchRequest to the
/// process-wide HostExecutor. All three are installed at static-init time,
/// which is why this library is linked whole into libcuda.so.
///
/// Kernel metadata that the core needs before any launch (the parameter
/// layout, .maxntid/.reqntid) is read from the SIMT IR's `!ferry.params`
/// and `!ferry.directives` (ptx/lower/SimtIR.md) before the module is
/// handed to the JIT; the rest (static shared size) comes from the compile.
#include "host/HostDevice.h"
#include "host/exec/HostExecutor.h"
#include "support/Log.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace ferry::host {
namespace {

/// Compiled host code: the JIT module (shared with every LoadedCode made
/// from it, so unloading the code object early cannot free running code)
/// and the per-kernel facts the core reads.
class HostCodeObject final : public CodeObject {
public:
  std::shared_ptr<CompiledModule> Module;
  std::vector<KernelInfo> Infos;
  std::vector<const HostKernel *> Kernels; ///< Parallel to Infos.

  std::span<const KernelInfo> kernels() const override { return Infos; }
  /// The kernel facts, then the JIT module's own serialized form; the
  /// core stores it in the code cache and deserialize() reverses it.
  Expected<std::vector<std::byte>> serialize() const override;
};

class HostLoadedCode final : public LoadedCode {
public:
  std::shared_ptr<CompiledModule> Module;
  std::vector<KernelInfo> Infos;
  std::vector<const HostKernel *> Kernels;

  std::span<const KernelInfo> info() const override { return Infos; }
  std::optional<Global> global(std::string_view Name) const override {
    auto G = Module->global(Name);
    if (!G)
      return std::nullopt;
    return Global{G->Address, G->Bytes};
  }
};

uint32_t constInt(const llvm::MDOperand &Op) {
  if (auto *C = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(Op))
    return uint32_t(C->getZExtValue());
  return 0;
}

llvm::Function *functionOf(const llvm::MDNode *N) {
  if (!N || N->getNumOperands() == 0)
    return nullptr;
  return llvm::mdconst::dyn_extract_or_null<llvm::Function>(N->getOperand(0));
}

/// Parameter layouts and launch-bound directives by kernel name.
struct SimtFacts {
  std::map<std::string, KernelInfo> ByName;
};

SimtFacts readFacts(const llvm::Module &M) {
  SimtFacts F;
  if (auto *Params = M.getNamedMetadata("ferry.params")) {
    for (const llvm::MDNode *N : Params->operands()) {
      llvm::Function *Fn = functionOf(N);
      if (!Fn || N->getNumOperands() < 2)
        continue;
      KernelInfo &K = F.ByName[Fn->getName().str()];
      K.Name = Fn->getName().str();
      K.ParamBytes = constInt(N->getOperand(1));
      for (unsigned I = 2; I + 2 < N->getNumOperands(); I += 3)
        K.Params.push_back(KernelParam{constInt(N->getOperand(I)), constInt(N->getOperand(I + 1)),
                                       constInt(N->getOperand(I + 2))});
    }
  }
  if (auto *Res = M.getNamedMetadata("ferry.resources")) {
    for (const llvm::MDNode *N : Res->operands()) {
      llvm::Function *Fn = functionOf(N);
      if (!Fn || N->getNumOperands() < 3)
        continue;
      KernelInfo &K = F.ByName[Fn->getName().str()];
      K.LocalBytes = constInt(N->getOperand(1));
      K.ConstBytes = constInt(N->getOperand(2));
    }
  }
  if (auto *Dirs = M.getNamedMetadata("ferry.directives")) {
    for (const llvm::MDNode *N : Dirs->operands()) {
      llvm::Function *Fn = functionOf(N);
      if (!Fn || N->getNumOperands() < 3)
        continue;
      auto *Name = llvm::dyn_cast<llvm::MDString>(N->getOperand(1));
      if (!Name)
        continue;
      KernelInfo &K = F.ByName[Fn->getName().str()];
      std::array<uint32_t, 3> V{1, 1, 1};
      for (unsigned I = 0; I < 3 && I + 2 < N->getNumOperands(); ++I)
        V[I] = constInt(N->getOperand(I + 2));
      uint64_t Product = uint64_t(V[0]) * V[1] * V[2];
      if (Name->getString() == "maxntid")
        K.MaxThreadsPerBlock = uint32_t(std::min<uint64_t>(Product, 1024));
      else if (Name->getString() == "reqntid") {
        K.ReqNtid = V;
        K.MaxThreadsPerBlock = uint32_t(std::min<uint64_t>(Product, 1024));
      }
    }
  }
  return F;
}

/// Kernel facts of a compiled module, in the module's kernel order.
void describe(HostCodeObject &Out, const SimtFacts &Facts) {
  for (const HostKernel &HK : Out.Module->kernels()) {
    KernelInfo Info;
    if (auto It = Facts.ByName.find(HK.Name); It != Facts.ByName.end())
      Info = It->second;
    Info.Name = HK.Name;
    if (!Info.ParamBytes)
      Info.ParamBytes = HK.ParamBytes;
    Info.StaticSharedBytes = HK.StaticSharedBytes;
    uint32_t Max = HK.MaxThreadsPerBlock ? HK.MaxThreadsPerBlock : 1024;
    Info.MaxThreadsPerBlock = Info.MaxThreadsPerBlock ? std::min(Info.MaxThreadsPerBlock, Max) : Max;
    Info.Registers = 32;
    Out.Infos.push_back(std::move(Info));
    Out.Kernels.push_back(&HK);
  }
}

class HostCompilerBackend final : public CompilerBackend {
public:
  std::string target() const override {
    auto C = HostExecutor::instance().compiler();
    return C ? "host-" + (*C)->targetDescription() : "host";
  }

  Expected<std::unique_ptr<CodeObject>> compile(llvm::Module &SimtIr,
                                                const CompileOptions &Options) override {
    auto Compiler = HostExecutor::instance().compiler();
    if (!Compiler)
      return Compiler.takeError();
    SimtFacts Facts = readFacts(SimtIr);
    // The JIT takes a module together with its own context; a bitcode
    // round trip moves the caller's module into a fresh one.
    std::string Bits;
    {
      llvm::raw_string_ostream OS(Bits);
      llvm::WriteBitcodeToFile(SimtIr, OS);
    }
    HostCompileOptions HO;
    HO.OptLevel = unsigned(std::clamp(Options.OptLevel, 0, 3));
    if (Options.Variables) {
      auto LinkWith = variablesOf(*Options.Variables);
      if (!LinkWith)
        return LinkWith.takeError();
      HO.LinkWith = *LinkWith;
    }
    auto CM = (*Compiler)->compileIR(Bits, SimtIr.getModuleIdentifier(), HO);
    if (!CM)
      return CM.takeError();
    auto Out = std::make_unique<HostCodeObject>();
    Out->Module = std::shared_ptr<CompiledModule>(std::move(*CM));
    describe(*Out, Facts);
    return std::unique_ptr<CodeObject>(std::move(Out));
  }

  /// Bytes from HostCodeObject::serialize().
  Expected<std::unique_ptr<CodeObject>> deserialize(std::span<const std::byte> Bytes) override {
    return load(Bytes, nullptr);
  }
  /// Pieces link against the variables piece's JIT module (its JITDylib
  /// comes first in their link order).
  bool sharesVariables() const override { return true; }
  Expected<std::unique_ptr<CodeObject>> deserializeLinked(std::span<const std::byte> Bytes,
                                                          std::shared_ptr<const LoadedCode> Variables) override {
    auto LinkWith = variablesOf(*Variables);
    if (!LinkWith)
      return LinkWith.takeError();
    return load(Bytes, *LinkWith);
  }
  void prepare() override { HostExecutor::instance().prepareCompiler(); }

private:
  static Expected<std::shared_ptr<const CompiledModule>> variablesOf(const LoadedCode &Code) {
    auto *L = dynamic_cast<const HostLoadedCode *>(&Code);
    if (!L)
      return makeError(CUDA_ERROR_INVALID_IMAGE, "host compiler: module variables loaded by another backend");
    return std::shared_ptr<const CompiledModule>(L->Module);
  }
  Expected<std::unique_ptr<CodeObject>> load(std::span<const std::byte> Bytes,
                                             std::shared_ptr<const CompiledModule> LinkWith);
};

/// Little-endian fields of the serialized code object.
void put32(std::string &Out, uint32_t V) { Out.append(reinterpret_cast<const char *>(&V), 4); }
void putStr(std::string &Out, std::string_view S) {
  put32(Out, uint32_t(S.size()));
  Out.append(S.data(), S.size());
}
struct Reader {
  std::string_view In;
  bool Ok = true;
  uint32_t get() {
    if (In.size() < 4) {
      Ok = false;
      return 0;
    }
    uint32_t V;
    std::memcpy(&V, In.data(), 4);
    In.remove_prefix(4);
    return V;
  }
  std::string_view str() {
    uint32_t N = get();
    if (!Ok || In.size() < N) {
      Ok = false;
      return {};
    }
    std::string_view S = In.substr(0, N);
    In.remove_prefix(N);
    return S;
  }
};
constexpr std::string_view CodeMagic = "FERRY-HOST-CODE-1";

Expected<std::vector<std::byte>> HostCodeObject::serialize() const {
  std::string S(CodeMagic);
  put32(S, uint32_t(Infos.size()));
  for (const KernelInfo &K : Infos) {
    putStr(S, K.Name);
    put32(S, uint32_t(K.Params.size()));
    for (const KernelParam &P : K.Params) {
      put32(S, P.Offset);
      put32(S, P.Bytes);
      put32(S, P.Align);
    }
    for (uint32_t V : {K.ParamBytes, K.StaticSharedBytes, K.LocalBytes, K.ConstBytes, K.Registers,
                       K.MaxThreadsPerBlock, K.ReqNtid[0], K.ReqNtid[1], K.ReqNtid[2]})
      put32(S, V);
  }
  putStr(S, Module->serialized());
  auto *B = reinterpret_cast<const std::byte *>(S.data());
  return std::vector<std::byte>(B, B + S.size());
}

Expected<std::unique_ptr<CodeObject>> HostCompilerBackend::load(std::span<const std::byte> Bytes,
                                                                std::shared_ptr<const CompiledModule> LinkWith) {
  auto Compiler = HostExecutor::instance().compiler();
  if (!Compiler)
    return Compiler.takeError();
  Reader R{std::string_view(reinterpret_cast<const char *>(Bytes.data()), Bytes.size())};
  if (R.In.substr(0, CodeMagic.size()) != CodeMagic)
    return makeError(CUDA_ERROR_INVALID_IMAGE, "not a serialized host code object");
  R.In.remove_prefix(CodeMagic.size());
  SimtFacts Facts;
  uint32_t N = R.get();
  for (uint32_t I = 0; R.Ok && I < N && I < (1u << 20); ++I) {
    KernelInfo K;
    K.Name = std::string(R.str());
    uint32_t NP = R.get();
    for (uint32_t J = 0; R.Ok && J < NP && J < 4096; ++J) {
      KernelParam P;
      P.Offset = R.get();
      P.Bytes = R.get();
      P.Align = R.get();
      K.Params.push_back(P);
    }
    for (uint32_t *V : {&K.ParamBytes, &K.StaticSharedBytes, &K.LocalBytes, &K.ConstBytes, &K.Registers,
                        &K.MaxThreadsPerBlock, &K.ReqNtid[0], &K.ReqNtid[1], &K.ReqNtid[2]})
      *V = R.get();
    Facts.ByName[K.Name] = std::move(K);
  }
  std::string_view ModuleBytes = R.str();
  if (!R.Ok || !R.In.empty())
    return makeError(CUDA_ERROR_INVALID_IMAGE, "truncated or oversized serialized host code object");
  auto CM = (*Compiler)->load(ModuleBytes, std::move(LinkWith));
  if (!CM)
    return CM.takeError();
  auto Out = std::make_unique<HostCodeObject>();
  Out->Module = std::shared_ptr<CompiledModule>(std::move(*CM));
  describe(*Out, Facts);
  return std::unique_ptr<CodeObject>(std::move(Out));
}

Expected<std::unique_ptr<LoadedCode>> loadHostCode(HostDevice &, const CodeObject &Code) {
  auto *HC = dynamic_cast<const HostCodeObject *>(&Code);
  if (!HC)
    return makeError(CUDA_ERROR_INVALID_IMAGE, "host device: code object was not made by the host compiler");
  auto L = std::make_unique<HostLoadedCode>();
  L->Module = HC->Module;
  L->Infos = HC->Infos;
  L->Kernels = HC->Kernels;
  return std::unique_ptr<LoadedCode>(std::move(L));
}

Status launchHostKernel(HostDevice &, const LaunchRequest &R) {
  auto *L = dynamic_cast<const HostLoadedCode *>(R.Code);
  if (!L || R.KernelIndex >= L->Kernels.size())
    return makeError(CUDA_ERROR_INVALID_HANDLE, "host device: launch of a kernel that is not loaded here");
  uint32_t Flags = R.Cooperative ? uint32_t(LaunchCooperative) : 0u;
  LaunchContext Context;
  Context.PendingLaunchLimit = R.PendingLaunchLimit;
  Context.Device = R.DeviceOrdinal;
  return HostExecutor::instance().launch(*L->Kernels[R.KernelIndex], R.Grid, R.Block,
                                         R.DynamicSharedBytes, R.Args.data(), Flags, Context);
}

struct Install {
  Install() {
    static HostCompilerBackend Compiler;
    HostBackend::setCompiler(&Compiler);
    HostDevice::installExecutor(&launchHostKernel, &loadHostCode);
  }
} Installer;

} // namespace
} // namespace ferry::host
