/// \file
/// libFuzzer target for the fatbin container reader (ptx/fatbin, pure C++
/// part): arbitrary bytes go through the container/wrapper parsers,
/// decompression, PTX text extraction and scanning, the entry choice rule,
/// and the pointer reader where it is safe to aim it at the input. Any
/// crash, sanitizer report or over-read is a bug; errors are the expected
/// outcome for most inputs. Seeds: tests/fuzz/corpus/fatbin/ (containers cut
/// from nvcc 13 output).
#include "ptx/fatbin/Container.h"
#include "ptx/fatbin/Memory.h"
#include "ptx/fatbin/Payload.h"
#include "ptx/fatbin/PtxScan.h"
#include "ptx/fatbin/Select.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace ferry::fatbin;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // Small limits keep each run cheap; the checks they guard are the same.
  Limits L;
  L.MaxUncompressedSize = 1 << 20;
  L.MaxContainerSize = 1 << 24;
  std::span<const uint8_t> Bytes(Data, Size);

  (void)parseWrapper(Bytes.first(Size < WrapperSize ? Size : WrapperSize), 0);

  auto Cs = parseContainerSequence(Bytes, 0x1000, L);
  if (Cs) {
    for (const Container &C : *Cs) {
      for (const Entry &E : C.Entries) {
        (void)E.archName();
        (void)describeFlags(E.Flags);
        if (E.isPtx()) {
          auto Text = ptxText(E, L);
          if (Text)
            (void)listPtxEntries(*Text);
        } else {
          (void)decompressPayload(E, L);
        }
      }
      for (unsigned Sm : {75u, 86u, 90u, 100u, 120u})
        (void)choosePtxEntry(C.Entries, Sm);
    }
  }

  // The pointer reader trusts memory beyond a validated header, so aim it
  // only where the input holds everything the header claims: a container
  // whose declared size fits, or text made NUL-terminated.
  if (Size >= ContainerHeaderSize && detectImage(Data) == ImageKind::Container) {
    auto Need = containerSizeAt(Data, L);
    if (Need && *Need <= Size)
      (void)readImage(Data, L);
  }
  std::vector<uint8_t> Text(Data, Data + Size);
  Text.push_back(0);
  if (detectImage(Text.data()) == ImageKind::Ptx) {
    auto M = readImage(Text.data(), L);
    if (M)
      (void)listPtxEntries(M->Ptx);
  }
  return 0;
}
