//===- sim/isa/Decoder.h - machine code to Inst records -------------------===//
/// \file
/// Decodes AMDGPU machine code with LLVM's MC disassembler, prints each
/// instruction in AMD assembler syntax with the MC instruction printer, and
/// parses that text into an Inst. Owned by one Simulator (one thread).
//===----------------------------------------------------------------------===//
#ifndef FERRY_SIM_ISA_DECODER_H
#define FERRY_SIM_ISA_DECODER_H

#include "sim/isa/Inst.h"
#include "sim/isa/Simulator.h"

#include <memory>
#include <string>

namespace ferry::sim {

class Decoder {
public:
  Decoder(Gfx Target, uint64_t SharedBase, uint64_t PrivateBase);
  ~Decoder();
  /// Empty when the MC layer for the target could be created.
  const std::string &setupError() const { return SetupError; }
  /// Decodes one instruction from Bytes (Avail bytes readable). On failure
  /// returns null and says why in Err.
  std::unique_ptr<Inst> decode(const uint8_t *Bytes, size_t Avail, uint64_t Addr,
                               std::string &Err);
  /// Parses one instruction's assembler text (exposed for tests).
  bool parse(const std::string &Text, Inst &Out, std::string &Err) const;

private:
  struct MC;
  Gfx Target;
  uint64_t SharedBase, PrivateBase;
  std::unique_ptr<MC> Impl;
  std::string SetupError;
};

} // namespace ferry::sim

#endif
