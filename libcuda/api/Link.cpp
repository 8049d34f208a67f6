/// \file
/// JIT linking entry points (cuLinkCreate, cuLinkAddData, cuLinkAddFile,
/// cuLinkComplete, cuLinkDestroy). Each input contributes PTX: PTX text as
/// given, the best PTX entry of each container of a fatbinary, the PTX in
/// the fatbin sections of a host object or of the members of an archive. A
/// SASS-only input (a cubin, or a fatbinary without PTX) is refused with
/// CUDA_ERROR_NO_BINARY_FOR_GPU naming it, since ferry never runs SASS.
/// PTX is parsed and checked when added (NVIDIA compiles it then, so errors
/// surface at the same call); cuLinkComplete checks that externs resolve and
/// returns the image of core/Link.h, whose code is generated when loaded.
///
/// JIT options follow the driver API reference: the option arrays given to
/// cuLinkCreate are retained until cuLinkDestroy, log buffers receive the
/// messages of every step, and the *_SIZE_BYTES and CU_JIT_WALL_TIME values
/// are overwritten with the bytes logged and the milliseconds spent.
#include "libcuda/api/Common.h"
#include "libcuda/api/JitOptions.h"
#include "libcuda/core/Link.h"

#include "ptx/fatbin/File.h"
#include "ptx/fatbin/Memory.h"
#include "ptx/fatbin/Payload.h"
#include "ptx/fatbin/Select.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unordered_map>

using namespace ferry;
using namespace ferry::api;

namespace {

/// A link in progress (the object behind a CUlinkState).
struct LinkState {
  JitOptions Options;
  unsigned DeviceSm = 0; ///< Picks PTX entries out of fatbinaries.
  std::mutex M;          ///< Guards everything below.
  std::vector<core::link::Part> Parts;
  std::vector<core::link::Symbols> Syms;
  std::string InfoLog, ErrorLog;
  std::vector<uint8_t> Image; ///< cuLinkComplete's output, owned here.
  double Ms = 0;              ///< Time spent in add/complete so far.

  void info(const std::string &Line) {
    InfoLog += Line;
    InfoLog += '\n';
  }
  void error(const std::string &Line) {
    ErrorLog += Line;
    ErrorLog += '\n';
  }
  /// Pushes the logs and the wall time into the user's option slots.
  void publish(const JitOptions &Call) {
    for (const JitOptions *O : {static_cast<const JitOptions *>(&Options), &Call}) {
      O->Info.write(InfoLog);
      O->Error.write(ErrorLog);
      if (O->WallTimeSlot) {
        float F = float(Ms);
        void *Slot = nullptr;
        std::memcpy(&Slot, &F, sizeof F);
        *O->WallTimeSlot = Slot;
      }
    }
  }
};

/// Live link states: a CUlinkState is validated here before use, so a stale
/// or garbage handle is CUDA_ERROR_INVALID_HANDLE.
std::mutex RegistryM;
std::unordered_map<const void *, std::shared_ptr<LinkState>> &registry() {
  static auto *R = new std::unordered_map<const void *, std::shared_ptr<LinkState>>(); // Leaked: atexit-safe.
  return *R;
}

std::shared_ptr<LinkState> lookup(CUlinkState S) {
  std::lock_guard<std::mutex> L(RegistryM);
  auto It = registry().find(S);
  return It == registry().end() ? nullptr : It->second;
}

class Timer {
public:
  explicit Timer(LinkState &S) : S(S), Start(std::chrono::steady_clock::now()) {}
  ~Timer() {
    S.Ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  }

private:
  LinkState &S;
  std::chrono::steady_clock::time_point Start;
};

const char *inputTypeName(CUjitInputType T) {
  switch (T) {
  case CU_JIT_INPUT_CUBIN: return "cubin";
  case CU_JIT_INPUT_PTX: return "PTX";
  case CU_JIT_INPUT_FATBINARY: return "fatbinary";
  case CU_JIT_INPUT_OBJECT: return "host object";
  case CU_JIT_INPUT_LIBRARY: return "library";
  case CU_JIT_INPUT_NVVM: return "NVVM IR";
  default: return "unknown";
  }
}

/// The PTX texts of one fatbin container: all parts of a link image, else
/// the entry chosen for the device. Empty when it has no usable PTX (Why
/// then says what it offered).
Expected<std::vector<std::string>> containerPtx(const fatbin::Container &C, unsigned Sm, std::string &Why) {
  std::vector<std::string> Out;
  if (core::link::isLinkImage(C)) {
    for (const fatbin::Entry &E : C.Entries) {
      if (!E.isPtx())
        continue;
      auto T = fatbin::ptxText(E);
      if (!T)
        return T.takeError();
      Out.push_back(std::move(*T));
    }
    return Out;
  }
  auto Pick = fatbin::choosePtxEntry(C.Entries, Sm);
  if (!Pick) {
    Why = Pick.error().message();
    return Out;
  }
  auto T = fatbin::ptxText(C.Entries[*Pick]);
  if (!T)
    return T.takeError();
  Out.push_back(std::move(*T));
  return Out;
}

/// PTX from an ELF file (host object, or cubin) held in Bytes.
Expected<std::vector<std::string>> elfPtx(std::vector<uint8_t> Bytes, const std::string &Name, unsigned Sm,
                                          std::string &Why) {
  auto F = fatbin::readBuffer(std::move(Bytes), Name);
  if (!F)
    return makeError(CUDA_ERROR_INVALID_IMAGE, F.error().message());
  std::vector<std::string> Out;
  if (F->Kind == fatbin::FileKind::Cubin) {
    Why = "it is a cubin (SASS for sm_" + std::to_string(F->CubinSm) + ")";
    return Out;
  }
  if (F->Kind == fatbin::FileKind::Ptx) {
    Out.emplace_back(F->Ptx);
    return Out;
  }
  for (const fatbin::FileContainer &FC : F->Containers) {
    std::string W;
    auto Texts = containerPtx(FC.C, Sm, W);
    if (!Texts)
      return Texts.takeError();
    for (std::string &T : *Texts)
      if (std::find(Out.begin(), Out.end(), T) == Out.end())
        Out.push_back(std::move(T));
    if (!W.empty() && Why.empty())
      Why = W;
  }
  if (F->Containers.empty())
    Why = "it holds no fatbin section";
  return Out;
}

/// PTX of every member of a System V archive (`ar`, what nvcc -lib makes).
Expected<std::vector<std::string>> archivePtx(const uint8_t *P, size_t Size, const std::string &Name,
                                              unsigned Sm, std::string &Why) {
  std::vector<std::string> Out;
  size_t At = 8; // "!<arch>\n"
  while (At + 60 <= Size) {
    const char *H = reinterpret_cast<const char *>(P + At);
    std::string MemberName(H, 16);
    size_t MemberSize = std::strtoull(std::string(H + 48, 10).c_str(), nullptr, 10);
    At += 60;
    if (MemberSize > Size - At)
      return makeError(CUDA_ERROR_INVALID_IMAGE, "archive '" + Name + "' has a member running past its end");
    // "/", "/SYM64/" and "//" are the symbol and long-name tables; "/123"
    // is a member whose long name lives in the latter.
    bool Table = MemberName[0] == '/' && (MemberName[1] == ' ' || MemberName[1] == '/' || MemberName[1] == 'S');
    if (!Table) {
      std::string W;
      std::vector<uint8_t> Bytes(P + At, P + At + MemberSize);
      if (Bytes.size() >= 4 && std::memcmp(Bytes.data(), "\x7f" "ELF", 4) == 0) {
        auto Texts = elfPtx(std::move(Bytes), Name, Sm, W);
        if (!Texts)
          return Texts.takeError();
        for (std::string &T : *Texts)
          Out.push_back(std::move(T));
      }
    }
    At += MemberSize + (MemberSize & 1);
  }
  if (Out.empty())
    Why = "none of its members holds PTX";
  return Out;
}

/// The PTX texts an input contributes, or why it cannot contribute any.
Expected<std::vector<std::string>> inputPtx(CUjitInputType Type, const void *Data, size_t Size,
                                            const std::string &Name, unsigned Sm) {
  std::vector<std::string> Out;
  std::string Why;
  const auto *P = static_cast<const uint8_t *>(Data);
  switch (Type) {
  case CU_JIT_INPUT_PTX: {
    // The size may or may not count a terminating NUL.
    const char *T = static_cast<const char *>(Data);
    Out.emplace_back(T, strnlen(T, Size));
    return Out;
  }
  case CU_JIT_INPUT_FATBINARY: {
    auto Img = fatbin::readImage(Data);
    if (!Img)
      return makeError(CUDA_ERROR_INVALID_IMAGE, "fatbinary '" + Name + "': " + Img.error().message());
    if (Img->Kind == fatbin::ImageKind::Ptx) {
      Out.emplace_back(Img->Ptx);
      return Out;
    }
    if (Img->Kind != fatbin::ImageKind::Wrapper && Img->Kind != fatbin::ImageKind::Container)
      return makeError(CUDA_ERROR_INVALID_IMAGE, "input '" + Name + "' is not a fatbinary (it is " +
                                                     fatbin::imageKindName(Img->Kind) + ")");
    for (const fatbin::Container &C : Img->Containers) {
      auto Texts = containerPtx(C, Sm, Why);
      if (!Texts)
        return Texts.takeError();
      for (std::string &T : *Texts)
        if (std::find(Out.begin(), Out.end(), T) == Out.end())
          Out.push_back(std::move(T));
    }
    break;
  }
  case CU_JIT_INPUT_CUBIN:
    Why = "it is a cubin (SASS)";
    break;
  case CU_JIT_INPUT_OBJECT: {
    auto Texts = elfPtx(std::vector<uint8_t>(P, P + Size), Name, Sm, Why);
    if (!Texts)
      return Texts.takeError();
    Out = std::move(*Texts);
    break;
  }
  case CU_JIT_INPUT_LIBRARY: {
    if (Size < 8 || std::memcmp(P, "!<arch>\n", 8) != 0)
      return makeError(CUDA_ERROR_INVALID_IMAGE, "library '" + Name + "' is not an ar archive");
    auto Texts = archivePtx(P, Size, Name, Sm, Why);
    if (!Texts)
      return Texts.takeError();
    Out = std::move(*Texts);
    break;
  }
  case CU_JIT_INPUT_NVVM:
    return makeError(CUDA_ERROR_NOT_SUPPORTED,
                     "input '" + Name + "' is NVVM IR (LTO), which ferry does not link; give PTX instead");
  default:
    return makeError(CUDA_ERROR_INVALID_VALUE, "unknown JIT input type " + std::to_string(int(Type)));
  }
  if (Out.empty())
    return makeError(CUDA_ERROR_NO_BINARY_FOR_GPU,
                     std::string(inputTypeName(Type)) + " input '" + Name + "' has no PTX" +
                         (Why.empty() ? "" : " (" + Why + ")") +
                         "; ferry never runs SASS, so every input must carry PTX");
  return Out;
}

CUresult linkCreate(const char *Fn, unsigned N, CUjit_option *Options, void **Values, CUlinkState *Out) {
  if (!Out)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "stateOut is null");
  auto C = current(Fn);
  if (!C)
    return C.code();
  auto O = readOptions(N, Options, Values);
  if (!O)
    return fail(Fn, O.error());
  auto S = std::make_shared<LinkState>();
  S->Options = *O;
  const DeviceProperties &P = (*C)->device().Backend->properties();
  S->DeviceSm = unsigned(P.CcMajor * 10 + P.CcMinor);
  if (S->Options.Verbose)
    S->info("info    : ferry JIT link for sm_" + std::to_string(S->DeviceSm) +
            " (PTX inputs; code is generated when the image is loaded)");
  S->publish(JitOptions());
  {
    std::lock_guard<std::mutex> L(RegistryM);
    registry()[S.get()] = S;
  }
  *Out = reinterpret_cast<CUlinkState>(S.get());
  return CUDA_SUCCESS;
}

CUresult addInput(const char *Fn, CUlinkState State, CUjitInputType Type, const void *Data, size_t Size,
                  const std::string &Name, unsigned N, CUjit_option *Options, void **Values) {
  auto S = lookup(State);
  if (!S)
    return fail(Fn, CUDA_ERROR_INVALID_HANDLE, "not a live link state");
  auto O = readOptions(N, Options, Values);
  if (!O)
    return fail(Fn, O.error());
  std::lock_guard<std::mutex> L(S->M);
  CUresult R = CUDA_SUCCESS;
  {
    Timer T(*S);
    auto Texts = inputPtx(Type, Data, Size, Name, S->DeviceSm);
    if (!Texts) {
      S->error("error   : " + Texts.error().message());
      R = fail(Fn, Texts.error());
    } else {
      for (size_t I = 0; I < Texts->size() && R == CUDA_SUCCESS; ++I) {
        std::string PartName = Texts->size() == 1 ? Name : Name + "#" + std::to_string(I);
        auto Syms = core::link::scanSymbols((*Texts)[I], PartName);
        if (!Syms) {
          S->error("error   : PTX of '" + PartName + "' does not compile:\n" + Syms.error().message());
          R = fail(Fn, Syms.error());
          break;
        }
        if (S->Options.Verbose || O->Verbose)
          S->info("info    : added " + std::string(inputTypeName(Type)) + " input '" + PartName + "' (PTX for sm_" +
                  std::to_string(Syms->Sm) + ", " + std::to_string(Syms->Defines.size()) +
                  " external definitions, " + std::to_string(Syms->Needs.size()) + " external references)");
        S->Parts.push_back({PartName, std::move((*Texts)[I])});
        S->Syms.push_back(std::move(*Syms));
      }
    }
  }
  S->publish(*O);
  return R;
}

} // namespace

FERRY_EXPORT CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues,
                                      CUlinkState *stateOut) {
  return linkCreate(__func__, numOptions, options, optionValues, stateOut);
}
FERRY_EXPORT CUresult cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
                                   CUlinkState *stateOut) {
  return linkCreate(__func__, numOptions, options, optionValues, stateOut);
}

static CUresult addData(const char *Fn, CUlinkState state, CUjitInputType type, void *data, size_t size,
                        const char *name, unsigned N, CUjit_option *options, void **values) {
  if (!data || size == 0)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "data is null or size is 0");
  return addInput(Fn, state, type, data, size, name && *name ? name : "<data>", N, options, values);
}
FERRY_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                       const char *name, unsigned int numOptions, CUjit_option *options,
                                       void **optionValues) {
  return addData(__func__, state, type, data, size, name, numOptions, options, optionValues);
}
FERRY_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                    const char *name, unsigned int numOptions, CUjit_option *options,
                                    void **optionValues) {
  return addData(__func__, state, type, data, size, name, numOptions, options, optionValues);
}

static CUresult addFile(const char *Fn, CUlinkState state, CUjitInputType type, const char *path, unsigned N,
                        CUjit_option *options, void **values) {
  if (!path)
    return fail(Fn, CUDA_ERROR_INVALID_VALUE, "path is null");
  if (!lookup(state))
    return fail(Fn, CUDA_ERROR_INVALID_HANDLE, "not a live link state");
  std::ifstream In(path, std::ios::binary);
  if (!In)
    return fail(Fn, CUDA_ERROR_FILE_NOT_FOUND, std::string("cannot open ") + path);
  std::vector<char> Bytes((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  if (Bytes.empty())
    return fail(Fn, CUDA_ERROR_INVALID_IMAGE, std::string(path) + " is empty");
  size_t Size = Bytes.size();
  Bytes.push_back('\0'); // PTX files have no terminator; pointer-based readers need one.
  return addInput(Fn, state, type, Bytes.data(), Size, path, N, options, values);
}
FERRY_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                                       unsigned int numOptions, CUjit_option *options, void **optionValues) {
  return addFile(__func__, state, type, path, numOptions, options, optionValues);
}
FERRY_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                                    unsigned int numOptions, CUjit_option *options, void **optionValues) {
  return addFile(__func__, state, type, path, numOptions, options, optionValues);
}

FERRY_EXPORT CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut) {
  if (!cubinOut || !sizeOut)
    return fail(__func__, CUDA_ERROR_INVALID_VALUE, "cubinOut or sizeOut is null");
  auto S = lookup(state);
  if (!S)
    return fail(__func__, CUDA_ERROR_INVALID_HANDLE, "not a live link state");
  std::lock_guard<std::mutex> L(S->M);
  CUresult R = CUDA_SUCCESS;
  {
    Timer T(*S);
    if (S->Parts.empty()) {
      S->error("error   : no input to link");
      R = fail(__func__, CUDA_ERROR_INVALID_VALUE, "no input was added to the link");
    } else if (Status St = core::link::resolve(S->Parts, S->Syms); !St) {
      S->error(St.message());
      R = fail(__func__, St.code(), St.message());
    } else {
      S->Image = core::link::buildImage(S->Parts, S->Syms);
      *cubinOut = S->Image.data();
      *sizeOut = S->Image.size();
    }
  }
  if (R == CUDA_SUCCESS)
    S->info("info    : linked " + std::to_string(S->Parts.size()) + " PTX module(s) into a " +
            std::to_string(S->Image.size()) + "-byte image in " + std::to_string(S->Ms) + " ms");
  S->publish(JitOptions());
  return R;
}

FERRY_EXPORT CUresult cuLinkDestroy(CUlinkState state) {
  std::shared_ptr<LinkState> S;
  {
    std::lock_guard<std::mutex> L(RegistryM);
    auto It = registry().find(state);
    if (It == registry().end())
      return fail(__func__, CUDA_ERROR_INVALID_HANDLE, "not a live link state");
    S = std::move(It->second);
    registry().erase(It);
  }
  return CUDA_SUCCESS;
}
