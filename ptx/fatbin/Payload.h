/// \file
/// An entry's payload as its consumer wants it: decompressed (LZ4 raw block
/// or zstd frame, as the entry's flags say), size-checked against the header,
/// and for PTX turned into text without nvcc's trailing NUL padding.
#pragma once

#include "ptx/fatbin/Container.h"

namespace ferry::fatbin {

/// The payload bytes after decompression. For compressed entries the result
/// has exactly UncompressedSize bytes or this fails; raw entries come back as
/// stored (padding included). Errors name the payload's offset.
Expected<std::vector<uint8_t>> decompressPayload(const Entry &E, const Limits &L = {});

/// The PTX text of a PTX entry, trailing NULs removed. Fails for ELF entries,
/// and for payloads that hold a NUL before the end of the text.
Expected<std::string> ptxText(const Entry &E, const Limits &L = {});

} // namespace ferry::fatbin
