/// \file
/// Streams and events: thin forwards to the driver (cudaStream_t is a
/// CUstream and cudaEvent_t a CUevent, and their flag words share values),
/// plus cudaStreamAddCallback, whose callback takes a cudaError_t and so is
/// wrapped.
#include "Runtime.h"

namespace ferry::cudart {
namespace {

struct CallbackData {
  cudaStreamCallback_t Fn;
  void *UserData;
};

void callbackTrampoline(CUstream Stream, CUresult Status, void *Data) {
  auto *D = static_cast<CallbackData *>(Data);
  D->Fn(Stream, toCudaError(Status), D->UserData);
  delete D;
}

cudaError_t streamSynchronize(const DriverTable &D, cudaStream_t S) {
  return inContext([&] { return D.cuStreamSynchronize(S); });
}
cudaError_t streamQuery(const DriverTable &D, cudaStream_t S) {
  return inContext([&] { return D.cuStreamQuery(S); });
}
cudaError_t streamWaitEvent(const DriverTable &D, cudaStream_t S, cudaEvent_t E, unsigned F) {
  return inContext([&] { return D.cuStreamWaitEvent(S, E, F); });
}
cudaError_t streamAddCallback(const DriverTable &D, cudaStream_t S, cudaStreamCallback_t Fn,
                              void *User, unsigned Flags) {
  if (!Fn || Flags)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  auto *Data = new CallbackData{Fn, User};
  CUresult R = D.cuStreamAddCallback(S, callbackTrampoline, Data, 0);
  if (R != CUDA_SUCCESS)
    delete Data;
  return finish(R, C.Device);
}
cudaError_t streamGetPriority(const DriverTable &D, cudaStream_t S, int *P) {
  if (!P)
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return D.cuStreamGetPriority(S, P); });
}
cudaError_t streamGetFlags(const DriverTable &D, cudaStream_t S, unsigned *F) {
  if (!F)
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return D.cuStreamGetFlags(S, F); });
}
cudaError_t streamGetId(const DriverTable &D, cudaStream_t S, unsigned long long *Id) {
  if (!Id)
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return D.cuStreamGetId(S, Id); });
}
cudaError_t streamGetDevice(const DriverTable &D, cudaStream_t S, int *Device) {
  if (!Device)
    return recordError(cudaErrorInvalidValue);
  Context C;
  if (cudaError_t E = enter(C))
    return E;
  CUcontext Ctx = nullptr;
  if (CUresult R = D.cuStreamGetCtx(S, &Ctx, nullptr))
    return finish(R, C.Device);
  CUdevice Dev;
  if (CUresult R = D.cuCtxGetDevice(&Dev, Ctx))
    return finish(R, C.Device);
  for (int I = 0; I < deviceCount(); ++I) {
    CUdevice H;
    if (deviceHandle(I, H) == cudaSuccess && H == Dev) {
      *Device = I;
      return cudaSuccess;
    }
  }
  return recordError(cudaErrorInvalidDevice);
}
cudaError_t eventRecord(const DriverTable &D, cudaEvent_t E, cudaStream_t S) {
  return inContext([&] { return D.cuEventRecord(E, S); });
}
cudaError_t eventRecordWithFlags(const DriverTable &D, cudaEvent_t E, cudaStream_t S,
                                 unsigned F) {
  return inContext([&] { return D.cuEventRecordWithFlags(E, S, F); });
}

} // namespace
} // namespace ferry::cudart

using namespace ferry::cudart;

extern "C" {

cudaError_t cudaStreamCreate(cudaStream_t *Stream) {
  if (!Stream)
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return driver().cuStreamCreate(Stream, 0); });
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *Stream, unsigned int Flags) {
  if (!Stream || (Flags & ~static_cast<unsigned>(cudaStreamNonBlocking)))
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return driver().cuStreamCreate(Stream, Flags); });
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *Stream, unsigned int Flags, int Priority) {
  if (!Stream || (Flags & ~static_cast<unsigned>(cudaStreamNonBlocking)))
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return driver().cuStreamCreateWithPriority(Stream, Flags, Priority); });
}

cudaError_t cudaStreamDestroy(cudaStream_t Stream) {
  // The default and per-thread streams cannot be destroyed.
  if (!Stream || Stream == cudaStreamLegacy || Stream == cudaStreamPerThread)
    return recordError(cudaErrorInvalidResourceHandle);
  return inContext([&] { return driver().cuStreamDestroy(Stream); });
}

cudaError_t cudaStreamSynchronize(cudaStream_t S) { return streamSynchronize(driver(false), S); }
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t S) { return streamSynchronize(driver(true), S); }
cudaError_t cudaStreamQuery(cudaStream_t S) { return streamQuery(driver(false), S); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t S) { return streamQuery(driver(true), S); }
cudaError_t cudaStreamWaitEvent(cudaStream_t S, cudaEvent_t E, unsigned int F) {
  return streamWaitEvent(driver(false), S, E, F);
}
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t S, cudaEvent_t E, unsigned int F) {
  return streamWaitEvent(driver(true), S, E, F);
}
cudaError_t cudaStreamAddCallback(cudaStream_t S, cudaStreamCallback_t Fn, void *User,
                                  unsigned int Flags) {
  return streamAddCallback(driver(false), S, Fn, User, Flags);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t S, cudaStreamCallback_t Fn, void *User,
                                       unsigned int Flags) {
  return streamAddCallback(driver(true), S, Fn, User, Flags);
}
cudaError_t cudaStreamGetPriority(cudaStream_t S, int *P) {
  return streamGetPriority(driver(false), S, P);
}
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t S, int *P) {
  return streamGetPriority(driver(true), S, P);
}
cudaError_t cudaStreamGetFlags(cudaStream_t S, unsigned int *F) {
  return streamGetFlags(driver(false), S, F);
}
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t S, unsigned int *F) {
  return streamGetFlags(driver(true), S, F);
}
cudaError_t cudaStreamGetId(cudaStream_t S, unsigned long long *Id) {
  return streamGetId(driver(false), S, Id);
}
cudaError_t cudaStreamGetId_ptsz(cudaStream_t S, unsigned long long *Id) {
  return streamGetId(driver(true), S, Id);
}
cudaError_t cudaStreamGetDevice(cudaStream_t S, int *Device) {
  return streamGetDevice(driver(false), S, Device);
}
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t S, int *Device) {
  return streamGetDevice(driver(true), S, Device);
}

cudaError_t cudaEventCreate(cudaEvent_t *Event) {
  if (!Event)
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return driver().cuEventCreate(Event, 0); });
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *Event, unsigned int Flags) {
  if (!Event || (Flags & ~0x7u))
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return driver().cuEventCreate(Event, Flags); });
}

cudaError_t cudaEventRecord(cudaEvent_t E, cudaStream_t S) { return eventRecord(driver(false), E, S); }
cudaError_t cudaEventRecord_ptsz(cudaEvent_t E, cudaStream_t S) {
  return eventRecord(driver(true), E, S);
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t E, cudaStream_t S, unsigned int F) {
  return eventRecordWithFlags(driver(false), E, S, F);
}
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t E, cudaStream_t S, unsigned int F) {
  return eventRecordWithFlags(driver(true), E, S, F);
}

cudaError_t cudaEventQuery(cudaEvent_t E) {
  return inContext([&] { return driver().cuEventQuery(E); });
}

cudaError_t cudaEventSynchronize(cudaEvent_t E) {
  return inContext([&] { return driver().cuEventSynchronize(E); });
}

cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t Start, cudaEvent_t End) {
  if (!Ms)
    return recordError(cudaErrorInvalidValue);
  return inContext([&] { return driver().cuEventElapsedTime(Ms, Start, End); });
}

cudaError_t cudaEventDestroy(cudaEvent_t E) {
  if (!E)
    return recordError(cudaErrorInvalidResourceHandle);
  return inContext([&] { return driver().cuEventDestroy(E); });
}

} // extern "C"
