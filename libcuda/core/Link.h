/// \file
/// JIT linking (cuLinkCreate … cuLinkComplete) without SASS: ferry runs PTX,
/// so "linking" means checking that the inputs' PTX modules fit together
/// (every `.extern` function or variable is defined, with external linkage,
/// by exactly one input) and packing them into one image that
/// cuModuleLoadData / cuLibraryLoadData accept.
///
/// The image is a fatbin container whose entries are the inputs' PTX texts,
/// one per input, in the order they were added; a marker in the container
/// header (header size 24, "FERRYLNK" after the standard 16 bytes) tells
/// Library::load to take every PTX entry as one part of the program instead
/// of choosing the best one, as it does for the alternative-architecture
/// entries of an nvcc fatbin. Library then lowers each part separately and
/// links the LLVM modules, the same path -rdc executables take, so externs
/// resolve across parts. The image holds no pointers: it may be copied,
/// written to a file and loaded later, as a cubin from nvJitLink could.
#pragma once

#include "ptx/fatbin/Container.h"
#include "support/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ferry::core::link {

/// One input's PTX, already parsed and checked once (addInput does it).
struct Part {
  std::string Name; ///< The input's name as the user gave it (messages).
  std::string Ptx;
};

/// The symbols a PTX module offers to and needs from other modules.
struct Symbols {
  std::vector<std::string> Defines; ///< External-linkage definitions.
  std::vector<std::string> WeakDefines; ///< `.weak`/`.common`: may repeat.
  std::vector<std::string> Needs;   ///< `.extern` (or bodiless) references.
  unsigned Sm = 0;                  ///< `.target sm_XY` as XY.
  unsigned VersionMajor = 0, VersionMinor = 0; ///< `.version`.
};

/// Parses and checks Ptx (named Name in diagnostics) and lists its symbols.
/// A parse or check failure is CUDA_ERROR_INVALID_PTX with every diagnostic.
Expected<Symbols> scanSymbols(const std::string &Ptx, const std::string &Name);

/// Checks that the parts link: every needed symbol is defined by some part
/// and no symbol is defined twice. On failure the error (INVALID_PTX) holds
/// one nvlink-style line per problem, naming the symbol and the input.
Status resolve(const std::vector<Part> &Parts, const std::vector<Symbols> &Syms);

/// The linked image (see the file comment).
std::vector<uint8_t> buildImage(const std::vector<Part> &Parts, const std::vector<Symbols> &Syms);

/// True when C was made by buildImage: all its PTX entries are parts.
bool isLinkImage(const fatbin::Container &C);

} // namespace ferry::core::link
