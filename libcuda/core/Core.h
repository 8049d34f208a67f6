/// \file
/// libcuda's object model: the driver (backends and devices), contexts and
/// the per-thread context stack, streams and events, allocations, libraries
/// and kernels. Entry points (libcuda/api) validate arguments, resolve
/// handles (core/Handle.h) and call into these classes; nothing here knows
/// about the C ABI's structs, so the logic is testable in C++ directly.
///
/// Threading: every public function may be called from any number of host
/// threads at once. Each class documents the lock that guards its state;
/// locks are never held while waiting on device work, except a context's
/// EnqueueM, which is held only for the duration of an enqueue.
#pragma once

#include "libcuda/Backend.h"
#include "libcuda/core/Handle.h"

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace ferry::ptx {
class PtxSlicer;
} // namespace ferry::ptx

namespace ferry::core {

class Context;
class Stream;
class MemPool;

//===----------------------------------------------------------------------===//
// Devices and initialisation
//===----------------------------------------------------------------------===//

/// A CUDA device ordinal's view of a backend device.
struct DeviceEntry {
  int Ordinal = 0;
  ferry::Device *Backend = nullptr;
  DeviceBackend *Family = nullptr;
  Ref<Context> Primary; ///< Exists from init on; inactive until retained.
};

/// cuInit: creates the backends (FERRY_BACKEND) and the device list
/// (CUDA_VISIBLE_DEVICES). Idempotent; the first call's outcome sticks.
Status initialize();
/// Success after a successful initialize(), else CUDA_ERROR_NOT_INITIALIZED.
Status requireInit();
int deviceCount();
/// Null when out of range.
DeviceEntry *device(int Ordinal);

/// The driver version reported everywhere (cuDriverGetVersion, the
/// integrity hash): 13.0.
inline constexpr int DriverVersion = 13000;

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

/// A context-local storage value (export table C693336E).
struct ClsEntry {
  void *Value = nullptr;
  void (*Dtor)(void *Ctx, void *Key, void *Value) = nullptr;
};

class Context final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::Context;
  Context(DeviceEntry &Dev, bool Primary, unsigned Flags);
  ~Context() override;

  DeviceEntry &device() const { return Dev; }
  bool isPrimary() const { return Primary; }
  uint64_t id() const { return Id; }
  unsigned flags() const { return Flags.load(); }
  void setFlags(unsigned F) { Flags.store(F); }

  /// Created contexts are destroyed once; primary contexts become inactive.
  bool isDestroyed() const { return Destroyed.load(); }

  /// Primary-context reference counting (cuDevicePrimaryCtxRetain/Release).
  void retain();
  /// CompilerBackend::prepare for the context's device.
  void prepareCompiler();
  /// Returns the new count; at zero the context's resources are released.
  Expected<unsigned> release();
  unsigned retainCount() const;
  bool isActive() const;
  /// cuDevicePrimaryCtxReset / cuCtxDestroy: drains work, runs CLS
  /// destructors, frees allocations, destroys streams and events' queues,
  /// clears the sticky error.
  void teardown();
  /// Created contexts: teardown and retire the handle.
  void destroy();

  /// The legacy default stream (made on first use).
  Expected<Ref<Stream>> legacyStream();
  /// This thread's per-thread default stream in this context.
  Expected<Ref<Stream>> perThreadStream();
  /// Registers/unregisters a stream for implicit-sync bookkeeping.
  void addStream(Stream *S);
  void removeStream(Stream *S);
  /// Drains every stream (cuCtxSynchronize), then reports the sticky error.
  Status synchronize();
  /// The sticky error of this context's device, if any.
  Status stickyError() const;

  /// Implicit synchronisation of the legacy default stream. Called with
  /// EnqueueM held before enqueueing on S.
  Status orderBeforeEnqueue(Stream &S);
  /// Serialises enqueues in this context, so cross-stream ordering for the
  /// legacy stream is decided atomically with the enqueue itself.
  std::mutex EnqueueM;

  // Limits (CUlimit index) and cache configuration.
  Expected<size_t> getLimit(int Limit) const;
  Status setLimit(int Limit, size_t Value);
  int cacheConfig() const { return CacheConfig.load(); }
  void setCacheConfig(int C) { CacheConfig.store(C); }
  int sharedMemConfig() const { return SharedConfig.load(); }
  void setSharedMemConfig(int C) { SharedConfig.store(C); }

  // Context-local storage.
  void clsInsert(void *Key, void *Value, void (*Dtor)(void *, void *, void *));
  Status clsRemove(void *Key);
  Expected<void *> clsGet(void *Key) const;

  /// Allocations made in this context (for teardown).
  void noteAllocation(void *Ptr);
  void forgetAllocation(void *Ptr);

private:
  void activateLocked();
  void runClsDestructors();

  DeviceEntry &Dev;
  bool Primary;
  uint64_t Id;
  std::atomic<unsigned> Flags;
  std::atomic<bool> Destroyed{false};
  std::atomic<int> CacheConfig{0};
  std::atomic<int> SharedConfig{0};

  mutable std::mutex M; ///< Guards everything below.
  unsigned Retains = 0;
  bool Active = false;
  Ref<Stream> Legacy;
  std::unordered_map<std::thread::id, Ref<Stream>> PerThread;
  std::vector<Stream *> Streams; ///< Live streams, incl. Legacy/PerThread.
  std::array<size_t, 10> Limits{};
  std::vector<std::pair<void *, ClsEntry>> Cls;
  std::vector<void *> Allocations;
};

/// The calling thread's context stack (cuCtxPush/Pop/Set/GetCurrent).
namespace ctxstack {
Ref<Context> current();
/// Replaces the top (or pushes onto an empty stack); null pops the top.
void setCurrent(Ref<Context> C);
void push(Ref<Context> C);
Ref<Context> pop();
/// Removes C from this thread's stack wherever it is (destroy).
void forget(const Context *C);
size_t depth();
} // namespace ctxstack

/// The current context, made ready for work: CUDA_ERROR_INVALID_CONTEXT when
/// there is none, CONTEXT_IS_DESTROYED when it was destroyed.
Expected<Ref<Context>> currentContext();
/// Like currentContext, but with no current context and an initialised
/// driver, makes device 0's primary context current (cudart-like
/// convenience for cuLibraryLoadData users that never set one is NOT done:
/// this only exists for entry points documented to use the primary context).
Expected<Ref<Context>> contextOrCurrent(void *Handle);

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

/// Stream capture (core/Graph.h) as far as Stream::submit must know it.
namespace capture {
/// Nonzero while a capture is under way anywhere in the process, so submit
/// takes the capture lock only then.
extern std::atomic<int> Outstanding;
/// Records Enqueue's commands as graph nodes when S is capturing, or
/// refuses work that would depend on a capture implicitly (the legacy
/// stream). nullopt: S is not involved, submit as usual.
std::optional<Status> onSubmit(Stream &S, const std::function<Status(Queue &)> &Enqueue);
} // namespace capture

class Stream final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::Stream;
  enum class Role { Legacy, PerThread, Created };
  Stream(Ref<Context> Ctx, std::unique_ptr<Queue> Q, Role R, unsigned Flags, int Priority);
  ~Stream() override;

  Context &context() const { return *Ctx; }
  Ref<Context> contextRef() const { return Ctx; }
  Queue &queue() { return *Q; }
  Role role() const { return R; }
  unsigned flags() const { return Flags; }
  int priority() const { return Priority; }
  uint64_t id() const { return Id; }
  /// Non-blocking streams (CU_STREAM_NON_BLOCKING) skip legacy ordering.
  bool isBlocking() const { return (Flags & 1u) == 0; }

  /// Runs Enqueue under the context's enqueue lock after the legacy-stream
  /// ordering commands. Enqueue returns the backend's Status. While the
  /// stream captures, Enqueue's commands become graph nodes instead.
  template <typename Fn> Status submit(Fn &&Enqueue) {
    if (capture::Outstanding.load(std::memory_order_acquire) != 0)
      if (auto R = capture::onSubmit(*this, std::function<Status(Queue &)>(std::ref(Enqueue))))
        return std::move(*R);
    std::lock_guard<std::mutex> L(Ctx->EnqueueM);
    if (Status S = Ctx->orderBeforeEnqueue(*this); !S)
      return S;
    return Enqueue(*Q);
  }
  /// Waits for everything enqueued so far, then reports the sticky error.
  Status synchronize();
  bool isIdle() const { return Q->isIdle(); }
  /// Drains and detaches from the context (cuStreamDestroy).
  void destroy();

private:
  Ref<Context> Ctx;
  std::unique_ptr<Queue> Q;
  Role R;
  unsigned Flags;
  int Priority;
  uint64_t Id;
  bool Detached = false;
};

/// Resolves a CUstream value: 0 → legacy default stream (or the per-thread
/// one when PerThreadDefault, i.e. _ptsz/_ptds entry points), 0x1
/// (CU_STREAM_LEGACY), 0x2 (CU_STREAM_PER_THREAD), else a created stream.
Expected<Ref<Stream>> resolveStream(void *Handle, bool PerThreadDefault);

class Event final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::Event;
  Event(Ref<Context> Ctx, unsigned Flags) : Object(Kind::Event), Ctx(std::move(Ctx)), Flags(Flags) {}
  unsigned flags() const { return Flags; }
  Context &context() const { return *Ctx; }
  Status record(Stream &S);
  /// Success when complete or never recorded; NOT_READY otherwise.
  Status query() const;
  Status synchronize() const;
  /// Milliseconds between two recorded, completed events.
  static Expected<float> elapsed(const Event &Start, const Event &End);
  std::shared_ptr<Signal> signal() const;
  /// Makes Sig the latest record: a graph's event-record node enqueues the
  /// signal itself, inside its launch's single submit.
  void setSignal(std::shared_ptr<Signal> Sig) {
    std::lock_guard<std::mutex> L(M);
    Latest = std::move(Sig);
  }

private:
  Ref<Context> Ctx;
  unsigned Flags;
  mutable std::mutex M;
  std::shared_ptr<Signal> Latest;
};

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// ModuleGlobal: a loaded module's `.global`/`.const` variable, device
/// memory owned by the module (never freed by cuMemFree).
/// Vmm: a range mapped with cuMemMap (api/Vmm.cpp owns it; it is device
/// memory to every other API but never freed by cuMemFree or teardown).
/// Graph: the memory of a graph alloc node (core/GraphMem.h owns it;
/// cuMemFree/cuMemFreeAsync only mark it freed in stream order).
enum class AllocKind { Device, Host, Managed, Registered, ModuleGlobal, Vmm, Graph };

struct Allocation {
  uintptr_t Base = 0;
  size_t Bytes = 0;
  AllocKind Kind = AllocKind::Device;
  unsigned Flags = 0; ///< cuMemHostAlloc / cuMemHostRegister flags.
  int DeviceOrdinal = 0;
  Context *Ctx = nullptr; ///< Owning context (not a reference: the context
                          ///< frees its allocations on teardown).
  uint64_t Id = 0;        ///< CU_POINTER_ATTRIBUTE_BUFFER_ID.
  /// A ModuleGlobal declared `.attribute(.managed)` (`__managed__`): managed
  /// memory to pointer queries and memory hints, but owned by its module.
  bool ManagedVariable = false;
  /// Managed memory to every query and hint: cuMemAllocManaged memory and
  /// `__managed__` variables.
  bool isManaged() const { return Kind == AllocKind::Managed || ManagedVariable; }
  /// The pool of a stream-ordered allocation (core/MemPool.h), else null.
  std::shared_ptr<MemPool> Pool;
};

/// The process-wide table of live allocations, ordered by base address so a
/// pointer anywhere inside one finds it (pointer attributes,
/// cuMemGetAddressRange). Guarded by a shared mutex.
namespace alloctable {
void insert(const Allocation &A);
std::optional<Allocation> erase(uintptr_t Base);
/// The allocation containing Ptr, if any.
std::optional<Allocation> find(uintptr_t Ptr);
/// A fresh CU_POINTER_ATTRIBUTE_BUFFER_ID.
uint64_t nextId();
/// An allocation of device Ordinal, of kind Device, Managed or Host, that
/// ends above Limit, if any (what 32-bit PTX addresses cannot reach).
std::optional<Allocation> firstEndingAbove(uintptr_t Limit, int Ordinal);
} // namespace alloctable

Expected<void *> allocate(Context &Ctx, AllocKind Kind, size_t Bytes, unsigned Flags);
/// Checks that [Ptr, Ptr+Bytes) is memory the device can address, as
/// NVIDIA's driver checks the device side of explicit-direction copies and
/// fills: inside one allocation (device, managed, pinned or registered host
/// memory, or a module variable). Anything else, pageable host memory
/// included, is CUDA_ERROR_INVALID_VALUE (measured on an H100).
Status checkDeviceRange(const void *Ptr, size_t Bytes, const char *What);

/// Frees an allocation made by allocate(); Ptr must be its base and of one
/// of the kinds in Accept.
Status release(void *Ptr, std::initializer_list<AllocKind> Accept);
Status registerHost(Context &Ctx, void *Ptr, size_t Bytes, unsigned Flags);
Status unregisterHost(void *Ptr);

//===----------------------------------------------------------------------===//
// Libraries, modules, kernels
//===----------------------------------------------------------------------===//

class Library;

/// A kernel of a library (CUkernel), context-independent. Launching one
/// compiles it lazily for the current context's device.
class Kernel final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::Kernel;
  Kernel(Ref<Library> Lib, std::string Name)
      : Object(Kind::Kernel), Lib(std::move(Lib)), Name(std::move(Name)) {}
  Library &library() const { return *Lib; }
  const std::string &name() const { return Name; }
  /// Attributes set through cuKernelSetAttribute / cuFuncSetAttribute.
  std::atomic<int> MaxDynamicShared{0};
  std::atomic<int> PreferredCarveout{-1};
  std::atomic<int> CacheConfig{0};

private:
  Ref<Library> Lib; ///< Library::unload breaks the cycle with Kernels.
  std::string Name;
};

/// A loaded image (cuLibraryLoadData, cuModuleLoadData): the bytes are
/// copied, the kernel names come from the image's PTX `.entry` directives,
/// and code is compiled later, on first use. Libraries exist without any
/// context (cudart registers fatbins before creating one).
class Library final : public Object {
public:
  static constexpr Kind ObjectKind = Kind::Library;
  /// Parses Image (a fatbin wrapper, fatbin container, PTX text or ELF);
  /// a bad image is CUDA_ERROR_INVALID_IMAGE.
  static Expected<Ref<Library>> load(const void *Image, bool AsModule);
  explicit Library(bool AsModule); // Out of line: the IR members' types are incomplete here.
  ~Library() override;

  /// Kernel by PTX entry name; CUDA_ERROR_NOT_FOUND when absent.
  Expected<Ref<Kernel>> kernel(const std::string &Name);
  const std::vector<std::string> &entryNames() const { return Entries; }
  /// Kernel objects (cuLibraryEnumerateKernels).
  std::vector<Ref<Kernel>> kernels();
  /// Unloads: retires the kernel handles and this one.
  void unload();

  /// The PTX text chosen for this image, empty when it had none.
  const std::string &ptx() const { return Ptx; }
  /// Names of .global/.const variables declared in the PTX.
  const std::vector<std::string> &globalNames() const { return Globals; }
  /// The sm_XY of the PTX's `.target` directive as XY (75 for sm_75), 0
  /// when there is none.
  unsigned ptxTarget() const { return PtxTarget; }
  bool uses32BitAddresses() const { return Addresses32; }

  /// A kernel's code on one device.
  struct KernelCode {
    std::shared_ptr<const LoadedCode> Code;
    unsigned Index = 0;
    const KernelInfo *Info = nullptr;
  };
  /// Kernel Name's code on D, compiled by the device's compiler backend
  /// and loaded on first use, once; a failure is remembered and reported
  /// again. Lazy loading (CUDA_MODULE_LOADING=LAZY, the CUDA 12+ default)
  /// compiles the kernel alone (with what it reaches: ptx/lower/Pieces.h),
  /// EAGER the whole image; Why ("launch", "attribute query"...) is for the
  /// JIT log. A kernel the PTX lowering could not translate reports why as
  /// CUDA_ERROR_INVALID_PTX (NVIDIA's code when its JIT cannot compile a
  /// kernel); a kernel of a refused image, RefusedCode.
  Expected<KernelCode> kernelCode(DeviceEntry &D, const std::string &Name, const char *Why = "first use");
  /// Compiles every kernel for D now (EAGER loading, cuModuleLoadDataEx
  /// asking for the JIT's log): the whole image when nothing of it was
  /// compiled for D yet, else the kernels still missing, as one piece.
  /// The error is that of the image or of its variables (a kernel's own
  /// failure is reported by kernelCode).
  Status compileAll(DeviceEntry &D);
  /// The kernels compiled for D so far, in the image's order.
  std::vector<KernelCode> compiledKernels(const DeviceEntry &D);
  /// The kernels of the image that were not translated, each with why
  /// (empty before the image is lowered).
  std::map<std::string, std::string> untranslated(const DeviceEntry &D);
  /// Whether kernel Name has been compiled and loaded on D already.
  bool isLoaded(const DeviceEntry &D, const std::string &Name);
  /// A .global/.const variable's storage on D. Lazy loading compiles the
  /// image's variables only (their one storage, which every kernel compiled
  /// later uses); EAGER, the whole image.
  Expected<LoadedCode::Global> global(DeviceEntry &D, const std::string &Name);

private:
  struct DeviceCode {
    bool WholeTried = false;     ///< The image was compiled as one (EAGER).
    bool VariablesTried = false; ///< Lazy: the variables piece was built.
    /// The image's or its variables' failure, which every kernel reports.
    std::optional<Error> Failure;
    /// The code that defines the module variables on this device (the
    /// variables piece, or the whole image's code); null before it is
    /// built and when the image has none.
    std::shared_ptr<const LoadedCode> Variables;
    std::vector<std::unique_ptr<CodeObject>> Objects;
    std::map<std::string, KernelCode> Kernels;       ///< Compiled and loaded.
    std::map<std::string, Error> KernelFailures;     ///< Lazy compiles that failed.
    std::map<std::string, std::string> Unlowered;    ///< Kernel → why (whole image).
    std::vector<uintptr_t> GlobalBases; ///< Registered in the alloctable.
  };
  void forgetCode();
  /// EAGER: the whole image as one code object (cached by its PTX).
  Status buildWhole(DeviceEntry &D, DeviceCode &Out);
  /// Lazy: lowers the image once, for every device (Ir, IrUnlowered).
  Status lowerImage();
  Status buildVariables(DeviceEntry &D, DeviceCode &DC);
  /// Compiles (or loads from the code cache, keyed by the piece's own PTX
  /// slice or IR) and loads the piece holding Kernels.
  Status buildPiece(DeviceEntry &D, DeviceCode &DC, const std::vector<std::string> &Kernels,
                    bool DefinesVariables, const char *Why);
  bool slicing(CompilerBackend &Compiler);
  struct PieceIr {
    std::unique_ptr<llvm::LLVMContext> Ctx;
    std::unique_ptr<llvm::Module> M;
    PieceIr();
    PieceIr(PieceIr &&);
    PieceIr &operator=(PieceIr &&);
    ~PieceIr();
  };
  /// Lowers a slice's text and cuts the piece of Kernels out of it.
  Expected<PieceIr> lowerSlice(const std::string &Text, const std::vector<std::string> &Kernels,
                               bool DefineVariables);
  std::unique_ptr<ptx::PtxSlicer> Slicer; ///< Made on first use (guarded by CodeM).
  /// Loads compiled code on D; code that defines the module variables has
  /// them registered as DC's variables.
  Status finishLoad(DeviceEntry &D, DeviceCode &DC, std::unique_ptr<CodeObject> Obj, bool DefinesVariables);
  /// What kernelCode reports for a kernel that is not in DC.Kernels.
  Error missingKernel(DeviceCode &DC, const std::string &Name);

  /// The image's SIMT IR for lazy loading, lowered on the first lazy
  /// compile and kept while the library lives (guarded by CodeM).
  std::unique_ptr<llvm::LLVMContext> IrContext;
  std::unique_ptr<llvm::Module> Ir;
  std::optional<Error> IrFailure;
  std::map<std::string, std::string> IrUnlowered;

  std::vector<uint8_t> Image;
  std::string Ptx;
  std::vector<std::string> PtxParts; ///< One PTX module per container.
  /// Why a container of the image (or the whole image) had no PTX ferry
  /// can run: the first such container's code (NO_BINARY_FOR_GPU or
  /// UNSUPPORTED_PTX_VERSION) and reason, CUDA_SUCCESS when none was
  /// refused. Kernels not found in the usable PTX fail with it.
  /// The PTX says `.address_size 32`: its addresses reach only the low
  /// 4 GiB (see ptx/lower/Pipeline.cpp).
  bool Addresses32 = false;
  CUresult RefusedCode = CUDA_SUCCESS;
  std::string RefusedWhy;
  std::set<std::string> RefusedWarned; ///< Kernels whose refusal was logged (guarded by M).
  Error refusedKernel(const std::string &Name, std::string Why);
  unsigned PtxTarget = 0;
  std::mutex CodeM; ///< Guards Code; held while compiling.
  /// Also held to change Code's map or a DeviceCode's Kernels, so that
  /// kernelCode finds a compiled kernel under it alone.
  std::mutex LookupM;
  DeviceCode &deviceCode(const DeviceEntry &D);
  std::map<const ferry::Device *, DeviceCode> Code;
  std::vector<std::string> Entries;
  std::vector<std::string> Globals;
  std::vector<std::string> ManagedGlobals; ///< Those of Globals that are `__managed__`.
  std::mutex M;
  std::map<std::string, Ref<Kernel>> Kernels;
};

/// Scans PTX text for `.entry NAME` and module-scope `.global`/`.const`
/// variable names. Tolerant: an unparsable line is skipped.
void scanPtxNames(std::string_view Ptx, std::vector<std::string> &Entries,
                  std::vector<std::string> &Globals, std::vector<std::string> *Managed = nullptr);

} // namespace ferry::core
