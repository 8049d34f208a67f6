/// \file
/// Device code found in a file: a host ELF executable, shared library or
/// object with `.nv_fatbin` / `__nv_relfatbin` sections, a bare fatbin
/// (`nvcc -fatbin`), a cubin (ELF with e_machine EM_CUDA = 190, SASS only) or
/// a PTX text file. Uses LLVM's Object library for ELF; the container parsing
/// itself is Container.h's.
///
/// Sections read: `.nv_fatbin` holds one container per translation unit of a
/// whole-program build (and the device-link container); with -rdc=true the
/// per-TU containers, which carry the PTX, sit in `__nv_relfatbin`.
/// `.nvFatBinSegment` holds the `__fatBinC_Wrapper_t`s the host code
/// registers; their data addresses are mapped back to file offsets when the
/// file is linked (in an object file they are relocations and read as 0).
#pragma once

#include "ptx/fatbin/Container.h"

#include <optional>

namespace ferry::fatbin {

enum class FileKind { HostElf, Cubin, Fatbin, Ptx };

const char *fileKindName(FileKind K);

struct FileContainer {
  std::string Section; ///< "" for a bare fatbin file
  Container C;
};

struct FileWrapper {
  Wrapper W;          ///< W.Offset is the file offset
  uint64_t Address;   ///< the wrapper's own virtual address (0 in objects)
  /// File offset of the container W.Data points at, if it could be resolved.
  std::optional<uint64_t> DataOffset;
};

/// A file's device code. Spans inside point into Bytes, so the object is
/// move-only (moving a vector keeps its buffer).
struct FileImage {
  FileImage() = default;
  FileImage(FileImage &&) = default;
  FileImage &operator=(FileImage &&) = default;
  FileImage(const FileImage &) = delete;
  FileImage &operator=(const FileImage &) = delete;

  std::string Name;
  FileKind Kind = FileKind::Fatbin;
  std::string Description; ///< e.g. "ELF64 shared library, x86-64"
  std::vector<uint8_t> Bytes;
  std::vector<FileContainer> Containers;
  std::vector<FileWrapper> Wrappers;
  unsigned CubinSm = 0;      ///< Cubin: the SASS architecture from e_flags
  std::string_view Ptx;      ///< Ptx: the text (trailing NULs removed)
};

/// Reads and classifies a file. Errors name the file and, for malformed
/// device code, the byte offset.
Expected<FileImage> readFile(const std::string &Path, const Limits &L = {});

/// Same, over bytes already in memory (Name is used in messages).
Expected<FileImage> readBuffer(std::vector<uint8_t> Bytes, std::string Name,
                               const Limits &L = {});

} // namespace ferry::fatbin
