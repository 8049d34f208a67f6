//===- sim/isa/Simulator.h - an AMD GPU's shader cores, in software -------===//
/// \file
/// The contract between the ISA simulator (sim/isa) and the HSA runtime
/// stand-in (sim/runtime). The runtime owns memory, queues and code objects;
/// the simulator executes one kernel dispatch at a time on a simulated GPU of
/// one target, reading and writing the runtime's memory through plain host
/// addresses after checking each access against the runtime's MemoryMap.
///
/// Semantics come from AMD's ISA manuals (CDNA2, CDNA3, RDNA3) and LLVM's
/// AMDGPUUsage (kernel descriptor, initial register state, apertures), never
/// from ferry's hsa/ lowering: sim/ links LLVM MC (for decoding) and nothing
/// of ferry, so that it can disagree with ferry.
///
/// Threading: a Simulator may be used by one thread at a time (the runtime's
/// packet processor); distinct Simulators are independent.
//===----------------------------------------------------------------------===//
#ifndef FERRY_SIM_ISA_SIMULATOR_H
#define FERRY_SIM_ISA_SIMULATOR_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ferry::sim {

/// The simulated processors. Wave size: 64 for the CDNA parts, 32 for RDNA3
/// (kernels are compiled wave32 for it).
enum class Gfx { Gfx90a, Gfx942, Gfx1100 };

/// "gfx90a" → Gfx90a, ...; false for a name the simulator does not model.
bool parseGfx(const std::string &Name, Gfx &Out);
const char *gfxName(Gfx G);
unsigned waveSize(Gfx G);

/// Global memory as the runtime lent it: every address a kernel reaches
/// through global/flat/buffer/scalar memory instructions must lie inside one
/// range the runtime allocated (device pools, locked or fine-grained host
/// memory, kernarg buffers, loaded code object segments). Thread-safe.
class MemoryMap {
public:
  virtual ~MemoryMap() = default;
  /// Whether [Addr, Addr+Size) lies inside one live allocation (Write: and
  /// that allocation is writable).
  virtual bool valid(uint64_t Addr, uint64_t Size, bool Write) const = 0;
  /// Where the simulator reads and writes [Addr, Addr+Size) (the checks of
  /// valid()), or null: the address itself unless the runtime keeps the
  /// memory elsewhere (device memory the host may not touch, sim/README.md).
  virtual uint8_t *host(uint64_t Addr, uint64_t Size, bool Write) const {
    return valid(Addr, Size, Write) ? reinterpret_cast<uint8_t *>(Addr) : nullptr;
  }
};

/// One kernel dispatch: the fields of the AQL kernel dispatch packet, plus
/// the packet's own address (the dispatch pointer a kernel may ask for) and
/// the queue's (the queue pointer).
struct Dispatch {
  uint64_t PacketAddr = 0;     // hsa_kernel_dispatch_packet_t in host memory
  uint64_t QueueAddr = 0;      // hsa_queue_t in host memory
  uint64_t KernelObject = 0;   // address of the 64-byte kernel descriptor
  uint64_t KernargAddr = 0;
  uint32_t Dims = 1;           // packet setup: 1..3
  uint32_t WorkgroupSize[3] = {1, 1, 1};
  uint32_t GridSize[3] = {1, 1, 1}; // in work-items
  uint32_t GroupSegmentSize = 0;    // LDS bytes (static + dynamic)
  uint32_t PrivateSegmentSize = 0;  // scratch bytes per work-item
  uint64_t DispatchId = 0;
  /// The agent's compute units: with the kernel's resources they say how
  /// many workgroups are resident at once (their waves run interleaved).
  uint32_t ComputeUnits = 1;
  /// Optional: the kernel's symbol name, used in fault and Unsupported
  /// messages (null: the descriptor's address is named instead).
  const char *KernelName = nullptr;
};

/// How a dispatch ended. Fault: the kernel did something a GPU would have
/// reported as a memory violation or illegal instruction (Kind says which);
/// Unsupported: the simulator met an opcode or feature it does not model.
/// Message names the opcode / address, the PC, the target and the kernel
/// (symbol name where the code object has one).
struct DispatchResult {
  enum Kind { Ok, MemoryFault, IllegalInstruction, Trap, Unsupported } Status = Ok;
  std::string Message;
  uint64_t Instructions = 0; // wave instructions executed (for bench/)
};

class Simulator {
public:
  static std::unique_ptr<Simulator> create(Gfx Target, const MemoryMap &Memory);
  virtual ~Simulator() = default;
  virtual Gfx target() const = 0;
  /// Runs the whole dispatch to completion and returns how it ended. Waves
  /// run in turns (s_barrier holds a workgroup's waves together); as many
  /// workgroups as the GPU holds at once are resident and interleaved, so a
  /// workgroup may wait for another resident one (a grid-wide barrier). The code
  /// (at KernelObject + kernel_code_entry_byte_offset) must stay unchanged
  /// while a Simulator lives: decoded instructions are cached by address.
  virtual DispatchResult run(const Dispatch &D) = 0;
  /// Forget cached decodes of [Addr, Addr+Size) (code object unloaded).
  virtual void forgetCode(uint64_t Addr, uint64_t Size) = 0;
  /// Flat-address apertures this target's kernels see (src_shared_base /
  /// src_private_base, also reported through the queue's aperture fields on
  /// gfx9): LDS and scratch accesses through flat instructions fall there.
  virtual uint64_t sharedApertureBase() const = 0;
  virtual uint64_t privateApertureBase() const = 0;
};

} // namespace ferry::sim

#endif
