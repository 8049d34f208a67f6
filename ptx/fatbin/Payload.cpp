/// \file
/// Decompression of fatbin payloads through liblz4 and libzstd. Both are
/// asked for exactly the size the entry header promises, so a payload that
/// expands to more or less is caught rather than trusted.
#include "ptx/fatbin/Payload.h"

#include <lz4.h>
#include <zstd.h>

#include <limits>

namespace ferry::fatbin {

static Error corrupt(const Entry &E, const std::string &Why) {
  return makeError(CUDA_ERROR_INVALID_IMAGE,
                   std::string(compressionName(E.compression())) + " payload at offset " +
                       hexOffset(E.PayloadOffset) + " (entry at offset " + hexOffset(E.Offset) +
                       "): " + Why);
}

Expected<std::vector<uint8_t>> decompressPayload(const Entry &E, const Limits &L) {
  Compression C = E.compression();
  if (C == Compression::None)
    return std::vector<uint8_t>(E.Payload.begin(), E.Payload.end());
  // parseContainer already bounded these, but entries can be built by hand.
  if (E.UncompressedSize == 0 || E.UncompressedSize > L.MaxUncompressedSize)
    return corrupt(E, "uncompressed size " + std::to_string(E.UncompressedSize) +
                          " is not in [1, " + std::to_string(L.MaxUncompressedSize) + "]");
  if (E.Payload.size() != E.CompressedSize)
    return corrupt(E, "stored payload has " + std::to_string(E.Payload.size()) +
                          " bytes, header says " + std::to_string(E.CompressedSize));
  std::vector<uint8_t> Out(E.UncompressedSize);
  if (C == Compression::Lz4) {
    if (E.UncompressedSize > uint64_t(std::numeric_limits<int>::max()))
      return corrupt(E, "uncompressed size too large for LZ4");
    int N = LZ4_decompress_safe(reinterpret_cast<const char *>(E.Payload.data()),
                                reinterpret_cast<char *>(Out.data()), int(E.Payload.size()),
                                int(Out.size()));
    if (N < 0)
      return corrupt(E, "corrupt LZ4 block (decoder stopped at input byte " + std::to_string(-N) +
                            ")");
    if (uint64_t(N) != E.UncompressedSize)
      return corrupt(E, "decompressed to " + std::to_string(N) + " bytes, header says " +
                            std::to_string(E.UncompressedSize));
    return Out;
  }
  // zstd: nvcc writes one standard frame. A frame that states a content size
  // different from the header's is caught before any work.
  unsigned long long Declared = ZSTD_getFrameContentSize(E.Payload.data(), E.Payload.size());
  if (Declared == ZSTD_CONTENTSIZE_ERROR)
    return corrupt(E, "not a zstd frame");
  if (Declared != ZSTD_CONTENTSIZE_UNKNOWN && Declared != E.UncompressedSize)
    return corrupt(E, "zstd frame declares " + std::to_string(Declared) +
                          " bytes, header says " + std::to_string(E.UncompressedSize));
  size_t N = ZSTD_decompress(Out.data(), Out.size(), E.Payload.data(), E.Payload.size());
  if (ZSTD_isError(N))
    return corrupt(E, std::string("corrupt zstd frame: ") + ZSTD_getErrorName(N));
  if (N != E.UncompressedSize)
    return corrupt(E, "decompressed to " + std::to_string(N) + " bytes, header says " +
                          std::to_string(E.UncompressedSize));
  return Out;
}

Expected<std::string> ptxText(const Entry &E, const Limits &L) {
  if (!E.isPtx())
    return makeError(CUDA_ERROR_INVALID_VALUE,
                     "entry at offset " + hexOffset(E.Offset) + " holds ELF, not PTX");
  auto Bytes = decompressPayload(E, L);
  if (!Bytes)
    return Bytes.takeError();
  size_t End = Bytes->size();
  while (End && (*Bytes)[End - 1] == 0)
    --End;
  for (size_t I = 0; I < End; ++I)
    if ((*Bytes)[I] == 0)
      return makeError(CUDA_ERROR_INVALID_PTX,
                       "PTX payload at offset " + hexOffset(E.PayloadOffset) +
                           " has a NUL byte inside the text at payload byte " + std::to_string(I));
  return std::string(reinterpret_cast<const char *>(Bytes->data()), End);
}

} // namespace ferry::fatbin
