/// \file
/// The tracer's hand-written half: loading the real driver, writing lines,
/// and the three functions that hand out pointers (cuGetProcAddress,
/// cuGetProcAddress_v2 and cuGetExportTable).
#include "tools/trace/Tracer.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace ferry::trace {

static void *realLibrary() {
  static void *Handle = [] {
    const char *Path = std::getenv("FERRY_TRACE_REAL");
    if (!Path || !*Path) {
      std::fprintf(stderr, "ferry trace: FERRY_TRACE_REAL is not set; nothing to forward to\n");
      return static_cast<void *>(nullptr);
    }
    void *H = dlopen(Path, RTLD_NOW | RTLD_LOCAL);
    if (!H)
      std::fprintf(stderr, "ferry trace: cannot load the real driver '%s': %s\n", Path, dlerror());
    return H;
  }();
  return Handle;
}

void *resolveReal(const char *Name) {
  void *H = realLibrary();
  return H ? dlsym(H, Name) : nullptr;
}

static FILE *output() {
  static FILE *Out = [] {
    const char *Path = std::getenv("FERRY_TRACE");
    if (!Path || !*Path || std::strcmp(Path, "-") == 0)
      return stderr;
    FILE *F = std::fopen(Path, "a");
    if (!F) {
      std::fprintf(stderr, "ferry trace: cannot open '%s'; tracing to standard error\n", Path);
      return stderr;
    }
    return F;
  }();
  return Out;
}

void emit(const std::string &Line) {
  static std::mutex Lock;
  std::lock_guard<std::mutex> G(Lock);
  FILE *Out = output();
  std::fprintf(Out, "%s\n", Line.c_str());
  std::fflush(Out);
}

/// The wrapper for the real function at `Real` answering `Base`, if any.
static void *wrapperFor(const char *Base, void *Real) {
  for (size_t I = 0; I < NumWrappers; ++I)
    if (std::strcmp(Wrappers[I].Base, Base) == 0 && resolveReal(Wrappers[I].Symbol) == Real)
      return Wrappers[I].Wrapper;
  return nullptr;
}

/// The tracer's own versions of the functions that hand out pointers
/// (defined below); a program that looks one of them up must get the
/// tracer's, or every call it resolves through it escapes the trace.
static void *handWrittenFor(void *Real);

static void substitute(Call &C, const char *Symbol, void **Pfn) {
  if (!Symbol || !Pfn || !*Pfn)
    return;
  if (void *W = handWrittenFor(*Pfn))
    *Pfn = W;
  else if (void *W = wrapperFor(Symbol, *Pfn))
    *Pfn = W;
  else
    C.arg("note", "untraced pointer");
}

} // namespace ferry::trace

using namespace ferry::trace;

extern "C" FERRY_TRACE_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn,
                                                           int driverVersion, cuuint64_t flags,
                                                           CUdriverProcAddressQueryResult *found) {
  using Fn = CUresult (*)(const char *, void **, int, cuuint64_t,
                          CUdriverProcAddressQueryResult *);
  static Fn Real = reinterpret_cast<Fn>(resolveReal("cuGetProcAddress_v2"));
  Call C("cuGetProcAddress_v2");
  C.arg("symbol", symbol);
  C.arg("driverVersion", driverVersion);
  C.arg("flags", flags);
  if (!Real)
    return C.missing<CUresult>();
  CUresult R = Real(symbol, pfn, driverVersion, flags, found);
  C.setSucceeded(R == CUDA_SUCCESS);
  if (R == CUDA_SUCCESS)
    substitute(C, symbol, pfn);
  C.out("symbolFound", found);
  C.result(R);
  return R;
}

extern "C" FERRY_TRACE_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn,
                                                        int driverVersion, cuuint64_t flags) {
  using Fn = CUresult (*)(const char *, void **, int, cuuint64_t);
  static Fn Real = reinterpret_cast<Fn>(resolveReal("cuGetProcAddress"));
  Call C("cuGetProcAddress");
  C.arg("symbol", symbol);
  C.arg("driverVersion", driverVersion);
  C.arg("flags", flags);
  if (!Real)
    return C.missing<CUresult>();
  CUresult R = Real(symbol, pfn, driverVersion, flags);
  if (R == CUDA_SUCCESS)
    substitute(C, symbol, pfn);
  C.result(R);
  return R;
}

extern "C" FERRY_TRACE_EXPORT CUresult cuGetExportTable(const void **ppExportTable,
                                                        const CUuuid *pExportTableId) {
  using Fn = CUresult (*)(const void **, const CUuuid *);
  static Fn Real = reinterpret_cast<Fn>(resolveReal("cuGetExportTable"));
  Call C("cuGetExportTable");
  char Uuid[40] = "NULL";
  if (pExportTableId) {
    const unsigned char *B = reinterpret_cast<const unsigned char *>(pExportTableId->bytes);
    std::snprintf(Uuid, sizeof(Uuid), "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
                  B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7], B[8], B[9], B[10], B[11], B[12],
                  B[13], B[14], B[15]);
  }
  C.arg("id", static_cast<const char *>(Uuid));
  if (!Real)
    return C.missing<CUresult>();
  CUresult R = Real(ppExportTable, pExportTableId);
  C.setSucceeded(R == CUDA_SUCCESS);
  C.out("table", ppExportTable);
  C.result(R);
  return R;
}

namespace ferry::trace {
static void *handWrittenFor(void *Real) {
  if (Real == resolveReal("cuGetProcAddress_v2"))
    return reinterpret_cast<void *>(&::cuGetProcAddress_v2);
  if (Real == resolveReal("cuGetProcAddress"))
    return reinterpret_cast<void *>(&::cuGetProcAddress);
  if (Real == resolveReal("cuGetExportTable"))
    return reinterpret_cast<void *>(&::cuGetExportTable);
  return nullptr;
}
} // namespace ferry::trace
