/// \file
/// Reading device code from a bare pointer, as libcuda must: cuModuleLoadData,
/// cuModuleLoadFatBinary and cuLibraryLoadData receive a `const void *` and no
/// size. It may point at a fatbin wrapper, a bare container, an ELF image
/// (cubin) or NUL-terminated PTX text.
///
/// Detection rule (detectImage), reading one byte at a time and never past a
/// NUL byte before a decision, so NUL-terminated PTX shorter than four bytes
/// is not over-read:
///   - u32 0x466243B1 (bytes B1 43 62 46) → fatbin wrapper;
///   - u32 0xBA55ED50 (bytes 50 ED 55 BA) → fatbin container;
///   - bytes 7F 'E' 'L' 'F'                → ELF image;
///   - otherwise, a first byte that is printable ASCII or whitespace → PTX
///     text (readImage then requires a `.version` directive in it);
///   - anything else (including an empty string) → unknown.
///
/// Sizes come from the headers: a container's is its header plus the entry
/// size it declares; an ELF image's is the furthest byte its ELF, program and
/// section headers reach; PTX ends at its NUL. Each is checked against Limits
/// *before* anything beyond the header is touched, so an absurd size is an
/// error, not a wild read. Beyond that the caller's pointer is trusted, as
/// NVIDIA's driver trusts it.
#pragma once

#include "ptx/fatbin/Container.h"

#include <optional>

namespace ferry::fatbin {

enum class ImageKind { Wrapper, Container, Elf, Ptx, Unknown };

const char *imageKindName(ImageKind K);

/// Applies the detection rule above. P must not be null.
ImageKind detectImage(const void *P);

/// What a pointer holds, parsed. Containers and text point into the caller's
/// memory.
struct MemoryImage {
  ImageKind Kind = ImageKind::Unknown;
  std::optional<Wrapper> Wrap; ///< Kind == Wrapper
  /// Wrapper: the container its data field points at, then (version 2, from
  /// -rdc=true) the prelinked fatbins of its NULL-terminated list, in order.
  /// Container: the one container.
  std::vector<Container> Containers;
  /// Index in Containers where the prelinked ones start (== size() if none).
  size_t FirstPrelinked = 0;
  std::span<const uint8_t> Elf;    ///< Kind == Elf: the whole image
  std::string_view Ptx;            ///< Kind == Ptx: the text without its NUL
};

/// Detects and parses. Errors carry CUDA_ERROR_INVALID_IMAGE (or _VALUE for
/// a null pointer) and offsets relative to P.
Expected<MemoryImage> readImage(const void *P, const Limits &L = {});

/// Size of the container at P, from its header, checked against L.
Expected<uint64_t> containerSizeAt(const void *P, const Limits &L = {});

/// Size of the ELF image at P, from its headers, checked against L.
Expected<uint64_t> elfSizeAt(const void *P, const Limits &L = {});

} // namespace ferry::fatbin
