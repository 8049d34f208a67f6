/// \file
/// The two narrow seams between libcuda's object model and the machines that
/// do the work (DESIGN.md "data path", STYLE.md item 7):
///
///  - the *device backend* (`DeviceBackend`, `Device`, `Queue`, `Signal`,
///    `LoadedCode`): devices and their properties, memory, in-order queues of
///    copies/fills/launches/host functions, completion signals with
///    timestamps, and the device's sticky fault;
///  - the *compiler backend* (`CompilerBackend`, `CodeObject`): SIMT IR (an
///    LLVM module, one thread's view; see ptx/lower/SimtIntrinsics.def) in,
///    a loadable code object plus per-kernel metadata out.
///
/// Everything CUDA-specific (handles, contexts, the legacy default stream's
/// implicit synchronisation, CUdevice_attribute numbering, error mapping)
/// stays in libcuda/core. Backends speak plain C++ with ferry::Expected;
/// failures carry a CUresult the core passes on unchanged, so a backend picks
/// the code a CUDA program would see (e.g. CUDA_ERROR_OUT_OF_MEMORY).
///
/// Addresses: all backends here provide unified virtual addressing. A device
/// pointer is a `void *` in the process's address space (host backend: plain
/// host memory; HSA: SVM/fine-grained memory), so copies take pointers and
/// the backend decides the direction itself.
#pragma once

#include "support/Expected.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace ferry {

class CompilerBackend;
struct DeviceProfile;

//===----------------------------------------------------------------------===//
// Device backend
//===----------------------------------------------------------------------===//

/// What a device is, in the units CUDA reports. libcuda maps these onto
/// CUdevice_attribute values; a backend fills every field (defaults are the
/// host backend's choices, which are also sane for a GPU).
struct DeviceProperties {
  std::string Name;
  std::array<uint8_t, 16> Uuid{}; ///< Stable for one device across runs.
  int CcMajor = 8, CcMinor = 6;
  uint64_t TotalMemory = 0;
  int MultiprocessorCount = 1;
  int WarpSize = 32;
  int MaxThreadsPerBlock = 1024;
  std::array<int, 3> MaxBlockDim{1024, 1024, 64};
  std::array<int, 3> MaxGridDim{0x7fffffff, 65535, 65535};
  int MaxThreadsPerMultiprocessor = 2048;
  int MaxBlocksPerMultiprocessor = 32;
  size_t SharedMemPerBlock = 48 * 1024;       ///< Static limit.
  size_t SharedMemPerBlockOptin = 100 * 1024; ///< With cuFuncSetAttribute.
  size_t SharedMemPerMultiprocessor = 100 * 1024;
  size_t ReservedSharedMemPerBlock = 0;
  size_t TotalConstantMemory = 64 * 1024;
  int RegistersPerBlock = 65536;
  int RegistersPerMultiprocessor = 65536;
  int ClockRateKHz = 1000000;
  int MemoryClockRateKHz = 1000000;
  int MemoryBusWidth = 64;
  int L2CacheSize = 0;
  int AsyncEngineCount = 1;
  int PciDomain = 0, PciBus = 0, PciDevice = 0;
  bool Integrated = false;
  bool CanMapHostMemory = true;
  bool ManagedMemory = true;
  bool ConcurrentManagedAccess = true;
  bool PageableMemoryAccess = false;      ///< Device may touch malloc'ed memory.
  /// The host may load and store device memory directly (host backend, an
  /// APU or a large-BAR GPU); false where the CPU cannot reach the VRAM.
  bool HostAccessesDeviceMemory = true;
  bool HostNativeAtomics = false;
  bool CooperativeLaunch = true;
  /// L2 persistence (cudaLimitPersistingL2CacheSize, access-policy
  /// windows) is a hint no backend acts on, so honouring the API costs
  /// nothing: the limit is kept in units of L2CacheSize / 16 up to this
  /// maximum, windows up to MaxAccessPolicyWindowSize bytes are accepted.
  /// The defaults are an H100's proportions (10/16 of the L2, 128 MiB).
  int MaxPersistingL2CacheSize = -1; ///< -1: 10/16 of L2CacheSize.
  int MaxAccessPolicyWindowSize = 128 << 20;
  /// Occupancy rules: registers are allocated per warp in units of
  /// RegisterAllocUnit and shared memory per block in units of
  /// SharedAllocUnit (0: exact); a multiprocessor's shared memory is one of
  /// CarveoutKiB (ascending; empty: all of SharedMemPerMultiprocessor).
  int RegisterAllocUnit = 0;
  int SharedAllocUnit = 0;
  std::vector<int> CarveoutKiB;
  /// The FERRY_DEVICE_PROFILE this device reports (DeviceProfile.h), or
  /// null for the device as it is.
  const DeviceProfile *Profile = nullptr;

  int maxPersistingL2() const {
    return MaxPersistingL2CacheSize >= 0 ? MaxPersistingL2CacheSize : L2CacheSize / 16 * 10;
  }
};

/// Where an allocation lives. Device memory is only promised to the device;
/// HostPinned is host memory the device can reach (cuMemHostAlloc); Managed
/// is reachable from both (cuMemAllocManaged).
enum class MemoryKind { Device, HostPinned, Managed };

/// A completion marker placed into a queue. It becomes complete when every
/// command enqueued before it has finished, and then holds the time at which
/// that happened. Thread safety: all methods may be called from any thread.
/// Ownership: shared (an event holds its latest signal; queues that wait on
/// it hold it too), so it outlives whichever queue produced it.
class Signal {
public:
  virtual ~Signal() = default;
  /// True once complete. Never blocks.
  virtual bool isComplete() const = 0;
  /// Blocks the calling thread until complete.
  virtual void wait() const = 0;
  /// Completion time in nanoseconds on a clock shared by all signals of one
  /// device backend; valid only when complete.
  virtual uint64_t timestampNs() const = 0;
};

/// A byte rectangle (or box) copy: Height rows of WidthBytes, Depth slices.
/// Pitches are byte distances between rows; SlicePitch between slices. The
/// core has already applied the x/y/z offsets to Dst and Src.
struct CopyRect {
  void *Dst = nullptr;
  const void *Src = nullptr;
  size_t WidthBytes = 0, Height = 1, Depth = 1;
  size_t DstPitch = 0, DstSlicePitch = 0;
  size_t SrcPitch = 0, SrcSlicePitch = 0;
};

/// A fill of Height rows of Width elements of ElemBytes (1, 2 or 4) each
/// with the low ElemBytes of Value, rows Pitch bytes apart.
struct FillRect {
  void *Dst = nullptr;
  uint32_t Value = 0;
  unsigned ElemBytes = 1;
  size_t Width = 0, Height = 1, Pitch = 0;
};

class LoadedCode;
struct KernelInfo;

/// One kernel launch, fully resolved by the core: the kernel is loaded on
/// this queue's device, Args is the parameter buffer laid out as KernelInfo
/// says (the core packs kernelParams/extra into it). The queue copies what it
/// needs, so the request may die after enqueueLaunch returns.
struct LaunchRequest {
  const LoadedCode *Code = nullptr;
  /// Keeps Code alive until the queued launch has run, even if the module
  /// is unloaded meanwhile.
  std::shared_ptr<const LoadedCode> Hold;
  unsigned KernelIndex = 0; ///< Index into Code->info().
  std::array<uint32_t, 3> Grid{1, 1, 1};
  std::array<uint32_t, 3> Block{1, 1, 1};
  uint32_t DynamicSharedBytes = 0;
  /// cuLaunchCooperativeKernel / CU_LAUNCH_ATTRIBUTE_COOPERATIVE: every
  /// block must be resident at once (grid-wide sync).
  bool Cooperative = false;
  std::vector<std::byte> Args;
  /// For the kernel's device-side launches (dynamic parallelism): the
  /// context's cudaLimitDevRuntimePendingLaunchCount, and the device's
  /// ordinal (cudaGetDevice in device code).
  uint32_t PendingLaunchLimit = 2048;
  int DeviceOrdinal = 0;
};

/// An in-order command queue; libcuda makes one per stream. Commands run in
/// the order they were enqueued; enqueue* only queues work and returns (an
/// error from enqueue* means nothing was queued). Failures during execution
/// do not surface here: a faulting kernel sets the device's sticky fault and
/// later commands of every queue of that device may be skipped.
///
/// Threading: the core serialises enqueue* calls per queue (so their order is
/// the program's order); execution happens on backend threads concurrently
/// with further enqueues. Host functions run on a backend thread, never on
/// the enqueuing thread, and must not block on this same queue.
/// Ownership: the core owns the queue (unique_ptr). Destruction waits for
/// the queue to drain.
class Queue {
public:
  virtual ~Queue() = default;
  virtual Status enqueueCopy(const CopyRect &R) = 0;
  virtual Status enqueueFill(const FillRect &R) = 0;
  virtual Status enqueueLaunch(const LaunchRequest &L) = 0;
  /// Runs Fn on a backend thread after all earlier commands completed; later
  /// commands wait for Fn to return. Fn receives CUDA_SUCCESS or the sticky
  /// fault that stopped the queue (cuStreamAddCallback's status argument).
  virtual Status enqueueHostFunction(std::function<void(CUresult)> Fn) = 0;
  /// Makes later commands wait until S is complete (cuStreamWaitEvent, and
  /// the core's legacy-stream ordering). S may come from another queue of
  /// the same backend.
  virtual Status enqueueWait(std::shared_ptr<Signal> S) = 0;
  /// Returns a signal that completes after every command enqueued so far.
  virtual Expected<std::shared_ptr<Signal>> enqueueSignal() = 0;
  /// True when nothing enqueued is still pending. Never blocks.
  virtual bool isIdle() const = 0;
  /// Blocks until everything enqueued so far has completed.
  virtual void drain() = 0;
  /// Host work run by the enqueuing thread itself (libs' stream-ordered
  /// BLAS/FFT calls through ferryLaunchHostFuncInline): when the queue is
  /// idle, beginInline marks it busy and returns true; commands enqueued
  /// meanwhile (from any thread) wait until endInline, and drain() waits
  /// for it as for any command. False (the default): enqueue normally.
  virtual bool beginInline() { return false; }
  virtual void endInline() {}
};

/// A code object loaded onto one device: kernels ready to launch and the
/// module's global variables placed in device memory. Created by
/// Device::load; owned by the core (one per module per device); immutable
/// after creation, so safe to read from any thread. Must outlive every queued
/// launch that uses it (the core drains before unloading).
class LoadedCode {
public:
  virtual ~LoadedCode() = default;
  virtual std::span<const KernelInfo> info() const = 0;
  struct Global {
    void *Address = nullptr;
    size_t Bytes = 0;
  };
  /// A `.global`/`.const` variable by its PTX name; nullopt when absent.
  virtual std::optional<Global> global(std::string_view Name) const = 0;
};

class CodeObject;

/// One device. Owned by its DeviceBackend and alive until process exit (the
/// core keeps raw pointers). All methods are thread-safe.
class Device {
public:
  virtual ~Device() = default;
  virtual const DeviceProperties &properties() const = 0;

  /// Allocates Bytes (> 0) of the given kind, aligned to at least 256 bytes.
  /// Out of memory is CUDA_ERROR_OUT_OF_MEMORY.
  virtual Expected<void *> allocate(MemoryKind Kind, size_t Bytes) = 0;
  /// Frees what allocate returned with the same Kind and Bytes. The core has
  /// already waited for queued work that may touch it.
  virtual Status release(MemoryKind Kind, void *Ptr, size_t Bytes) = 0;
  /// PTX with `.address_size 32` was loaded: later allocations go where its
  /// 32-bit addresses reach (below 4 GiB). False when the device cannot
  /// place memory there (its kernels then cannot run). Thread-safe.
  virtual bool placeBelow4GiB() { return false; }
  /// Makes existing host memory reachable by the device (cuMemHostRegister)
  /// and returns its device address (the same pointer under UVA).
  virtual Expected<void *> registerHost(void *Ptr, size_t Bytes) = 0;
  virtual Status unregisterHost(void *Ptr) = 0;
  struct MemoryInfo {
    uint64_t Free = 0, Total = 0;
  };
  virtual MemoryInfo memoryInfo() const = 0;

  /// A new in-order queue. Priority: 0 normal, negative higher (CUDA's
  /// convention); backends may ignore it.
  virtual Expected<std::unique_ptr<Queue>> createQueue(int Priority) = 0;
  /// An already-complete signal stamped now (cuEventRecord on an idle
  /// stream, or a freshly created event).
  virtual std::shared_ptr<Signal> completedSignal() = 0;

  /// Makes a compiled code object runnable on this device, allocating and
  /// initialising its globals. The code object must come from this device's
  /// compiler backend.
  virtual Expected<std::unique_ptr<LoadedCode>> load(const CodeObject &Code) = 0;

  /// The first fault a kernel hit on this device (CUDA_SUCCESS when none),
  /// with a message naming the kernel and cause. Sticky until clearFault.
  virtual Status fault() const = 0;
  /// Forgets the fault (primary context reset / context destroy).
  virtual void clearFault() = 0;
};

/// A family of devices (host CPU, HSA). Created once by the core, in the
/// order FERRY_BACKEND asks for; lives until process exit.
class DeviceBackend {
public:
  virtual ~DeviceBackend() = default;
  /// Short name used by FERRY_BACKEND and logs: "host", "hsa".
  virtual std::string_view name() const = 0;
  /// The devices found. Stable after creation; may be empty (no GPU).
  virtual std::span<Device *const> devices() const = 0;
  /// The compiler that produces code for these devices.
  virtual CompilerBackend *compiler() = 0;
};

/// Registration: each backend library contributes one factory through a
/// static `BackendRegistration` object (the backend's objects are linked
/// whole into libcuda.so). Factories run on the first cuInit, on the thread
/// that calls it, under the core's init lock; a factory returns an error
/// when its machine is absent (e.g. no ROCr), which is logged, not fatal.
using DeviceBackendFactory = Expected<std::unique_ptr<DeviceBackend>> (*)();
struct BackendRegistration {
  BackendRegistration(const char *Name, int Preference, DeviceBackendFactory Factory);
};
struct RegisteredBackend {
  const char *Name;
  int Preference; ///< Higher is tried first by FERRY_BACKEND=auto.
  DeviceBackendFactory Factory;
};
/// All registered backends, in registration order. Thread-safe after static
/// initialisation.
std::span<const RegisteredBackend> registeredBackends();

//===----------------------------------------------------------------------===//
// Compiler backend
//===----------------------------------------------------------------------===//

/// One kernel parameter as the compiled code expects it in the argument
/// buffer.
struct KernelParam {
  uint32_t Offset = 0, Bytes = 0, Align = 1;
};

/// What the core needs to know about a compiled kernel without running it
/// (cuFuncGetAttribute, cuKernelGetParamInfo, launch validation).
struct KernelInfo {
  std::string Name; ///< The PTX .entry name (mangled).
  std::vector<KernelParam> Params;
  uint32_t ParamBytes = 0;         ///< Size of the packed argument buffer.
  uint32_t StaticSharedBytes = 0;  ///< .shared declared in the module.
  uint32_t LocalBytes = 0;         ///< Per-thread .local.
  uint32_t ConstBytes = 0;
  uint32_t Registers = 0;          ///< Reported, informational.
  uint32_t MaxThreadsPerBlock = 0; ///< From .maxntid or the device limit.
  std::array<uint32_t, 3> ReqNtid{0, 0, 0}; ///< .reqntid, zeros when absent.
  /// Resident blocks per multiprocessor of BlockThreads threads with
  /// DynamicShared bytes of dynamic shared memory, by the backend's own
  /// resource model where NVIDIA's register arithmetic does not describe
  /// the hardware (AMD: wave slots by VGPRs/SGPRs, LDS, barriers; its
  /// Registers are VGPRs); empty: NVIDIA's model (Occupancy.cpp).
  std::function<int(int BlockThreads, size_t DynamicShared)> ResidentBlocks;
};

/// Compiled code for one device kind, not yet loaded anywhere. Immutable;
/// safe to share between threads and devices of the same kind. Owned by the
/// core (or the code cache).
class CodeObject {
public:
  virtual ~CodeObject() = default;
  virtual std::span<const KernelInfo> kernels() const = 0;
  /// Bytes the on-disk cache stores; CompilerBackend::deserialize reverses it.
  virtual Expected<std::vector<std::byte>> serialize() const = 0;
};

struct CompileOptions {
  int OptLevel = 3;
  /// Only these kernels (lazy loading compiles one at a time); empty = all.
  std::vector<std::string> Kernels;
  /// Extra flags from cuModuleLoadDataEx/cuLinkCreate JIT options.
  bool FastMath = false;
  /// Lazy loading compiles a module piecewise (ptx/lower/Pieces.h): the
  /// module variables the input declares (external, addrspace 1/4) are
  /// the ones this code, the module's variables piece loaded on the same
  /// device, defines, so every piece shares one storage. Only given to a
  /// backend whose sharesVariables() is true; the code compiled with it
  /// keeps Variables alive. Null: the input defines what it uses.
  std::shared_ptr<const LoadedCode> Variables;
};

/// Turns SIMT IR into code objects. Thread-safety: compile/deserialize may
/// be called from several threads at once (each call gets its own module).
/// Owned by its DeviceBackend.
class CompilerBackend {
public:
  virtual ~CompilerBackend() = default;
  /// Identifies the generated code for the cache key ("host-x86-64-avx2",
  /// "amdgcn-gfx1100"): two devices with the same target share code.
  virtual std::string target() const = 0;
  /// Consumes the module (it may be rewritten in place) and produces code.
  /// Errors use CUDA_ERROR_INVALID_PTX / CUDA_ERROR_NO_BINARY_FOR_GPU with a
  /// message naming the kernel and what was unsupported.
  virtual Expected<std::unique_ptr<CodeObject>> compile(llvm::Module &SimtIr,
                                                        const CompileOptions &Options) = 0;
  virtual Expected<std::unique_ptr<CodeObject>> deserialize(std::span<const std::byte> Bytes) = 0;
  /// Whether compile() resolves declared module variables against
  /// CompileOptions::Variables (one code object's variables used by
  /// another's code). When false, lazy loading compiles the kernels that
  /// use module variables together with them.
  virtual bool sharesVariables() const { return false; }
  /// deserialize() of code compiled with CompileOptions::Variables, whose
  /// declared variables resolve against Variables the same way.
  virtual Expected<std::unique_ptr<CodeObject>> deserializeLinked(std::span<const std::byte> Bytes,
                                                                  std::shared_ptr<const LoadedCode> Variables) {
    return makeError(CUDA_ERROR_NOT_SUPPORTED, "this compiler does not share module variables");
  }
  /// A context on the device became active: modules will follow. Starts,
  /// in the background, what the first compile or cached load needs (the
  /// host JIT: 0.3 ms, most of it CPU identification) so that it overlaps
  /// the program's own setup and the image's parsing. Idempotent.
  virtual void prepare() {}
};

} // namespace ferry
