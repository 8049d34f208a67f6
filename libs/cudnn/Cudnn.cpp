//===- Cudnn.cpp - ferry's libcudnn.so.9: versions and handles only -------===//
/// \file
/// XLA (JAX's CUDA plugin) will not compile any program without a cuDNN
/// handle, even one that never convolves, and NVIDIA's cuDNN must not be
/// loaded under ferry (its kernels would run, or fail to load; tools/audit
/// refuses it). So ferry ships a libcudnn.so.9 that answers what a client
/// asks at start-up: the version (the cuDNN 9.19 API this file follows),
/// the CUDA runtime version, the library properties, handles with their
/// stream, status strings. Every computation is absent: the backend
/// (graph) API returns CUDNN_STATUS_NOT_SUPPORTED with a log line naming
/// the call, and the legacy calls are not exported, so a client that
/// resolves one (XLA's stubs do, by name) gets a visible error. Not a cuDNN
/// implementation: what XLA lowers to cuDNN (convolutions, fused attention)
/// fails on ferry with that error.
//===----------------------------------------------------------------------===//
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <string>

namespace {

// cudnnStatus_t values of cuDNN 9 (cudnn_graph.h).
enum Status : int {
  Success = 0,
  NotInitialized = 1001,
  BadParam = 2000,
  BadParamNullPointer = 2002,
  NotSupported = 3000,
};

constexpr int Major = 9, Minor = 19, Patch = 0;
constexpr unsigned HandleMagic = 0x63646e6e; // "cdnn"

struct Handle {
  unsigned Magic = HandleMagic;
  void *Stream = nullptr;
};

std::mutex Lock;
std::set<Handle *> Live;

bool live(Handle *H) {
  std::lock_guard<std::mutex> G(Lock);
  return H && Live.count(H);
}

void notImplemented(const char *Name) {
  static std::mutex Said;
  static std::set<std::string> Names;
  std::lock_guard<std::mutex> G(Said);
  if (Names.insert(Name).second)
    std::fprintf(stderr, "ferry: warning: %s is not implemented (ferry has no cuDNN)\n", Name);
}

} // namespace

#define FERRY_CUDNN_EXPORT extern "C" __attribute__((visibility("default")))

FERRY_CUDNN_EXPORT size_t cudnnGetVersion() { return Major * 10000 + Minor * 100 + Patch; }
FERRY_CUDNN_EXPORT size_t cudnnGetMaxDeviceVersion() { return 1200; }
FERRY_CUDNN_EXPORT size_t cudnnGetCudartVersion() { return 13000; }

FERRY_CUDNN_EXPORT int cudnnGetProperty(int Type, int *Value) {
  if (!Value)
    return BadParamNullPointer;
  switch (Type) { // libraryPropertyType: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
  case 0: *Value = Major; return Success;
  case 1: *Value = Minor; return Success;
  case 2: *Value = Patch; return Success;
  default: return BadParam;
  }
}

FERRY_CUDNN_EXPORT const char *cudnnGetErrorString(int S) {
  switch (S) {
  case Success: return "CUDNN_STATUS_SUCCESS";
  case NotInitialized: return "CUDNN_STATUS_NOT_INITIALIZED";
  case BadParam: return "CUDNN_STATUS_BAD_PARAM";
  case BadParamNullPointer: return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
  case NotSupported: return "CUDNN_STATUS_NOT_SUPPORTED";
  default: return "CUDNN_STATUS_UNKNOWN";
  }
}

FERRY_CUDNN_EXPORT void cudnnGetLastErrorString(char *Message, size_t Max) {
  if (Message && Max)
    std::snprintf(Message, Max, "%s", "ferry's libcudnn.so.9 implements versions and handles only");
}

// The version checks cuDNN's sub-libraries export (graph/ops/cnn/adv):
// one library here, so every part matches.
FERRY_CUDNN_EXPORT int cudnnGraphVersionCheck() { return Success; }
FERRY_CUDNN_EXPORT int cudnnOpsVersionCheck() { return Success; }
FERRY_CUDNN_EXPORT int cudnnCnnVersionCheck() { return Success; }
FERRY_CUDNN_EXPORT int cudnnAdvVersionCheck() { return Success; }

FERRY_CUDNN_EXPORT int cudnnCreate(Handle **Out) {
  if (!Out)
    return BadParamNullPointer;
  Handle *H = new (std::nothrow) Handle;
  if (!H)
    return NotInitialized;
  std::lock_guard<std::mutex> G(Lock);
  Live.insert(H);
  *Out = H;
  return Success;
}

FERRY_CUDNN_EXPORT int cudnnDestroy(Handle *H) {
  {
    std::lock_guard<std::mutex> G(Lock);
    if (!H || !Live.erase(H))
      return BadParam;
  }
  delete H;
  return Success;
}

FERRY_CUDNN_EXPORT int cudnnSetStream(Handle *H, void *Stream) {
  if (!live(H))
    return BadParam;
  H->Stream = Stream;
  return Success;
}

FERRY_CUDNN_EXPORT int cudnnGetStream(Handle *H, void **Stream) {
  if (!live(H) || !Stream)
    return BadParam;
  *Stream = H->Stream;
  return Success;
}

FERRY_CUDNN_EXPORT int cudnnQueryRuntimeError(Handle *H, int *RStatus, int, void *) {
  if (!live(H) || !RStatus)
    return BadParam;
  *RStatus = Success;
  return Success;
}

// The backend (graph) API, through which cuDNN 9 clients (cudnn-frontend,
// so XLA) build every operation: not implemented.
#define FERRY_CUDNN_NOT_SUPPORTED(Name, ...)                                                       \
  FERRY_CUDNN_EXPORT int Name(__VA_ARGS__) {                                                       \
    notImplemented(#Name);                                                                         \
    return NotSupported;                                                                           \
  }
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendCreateDescriptor, int, void **)
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendDestroyDescriptor, void *)
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendInitialize, void *)
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendFinalize, void *)
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendSetAttribute, void *, int, int, int64_t, const void *)
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendGetAttribute, void const *, int, int, int64_t, int64_t *, void *)
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendExecute, Handle *, void *, void *)
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendPopulateCudaGraph, Handle *, void *, void *, void *)
FERRY_CUDNN_NOT_SUPPORTED(cudnnBackendUpdateCudaGraph, Handle *, void *, void *, void *)
