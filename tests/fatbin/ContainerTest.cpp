/// \file
/// The container reader on hand-built and on real (nvcc-cut, committed under
/// tests/fuzz/corpus/fatbin) containers: well-formed parsing, decompression,
/// and malformed input of every kind: each must be an error that names a
/// byte offset, never a crash or an over-read (this binary also runs under
/// ASan via scripts/test-asan).
#include "Builders.h"
#include "ptx/fatbin/Container.h"
#include "ptx/fatbin/Payload.h"
#include "ptx/fatbin/PtxScan.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace ferry::fatbin;
using namespace ferry::fatbin::test;

namespace {

std::vector<uint8_t> readBytes(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(In), {});
}

std::string corpusPath(const char *Name) {
  return std::string(FERRY_SOURCE_DIR) + "/tests/fuzz/corpus/fatbin/" + Name;
}

const char *SamplePtx = ".version 9.0\n.target sm_75\n.address_size 64\n\n"
                        ".visible .entry _Z3fooPi(\n.param .u64 p\n)\n{\nret;\n}\n";

std::vector<uint8_t> withNul(const std::string &S) {
  auto B = bytesOf(S);
  B.push_back(0);
  return B;
}

std::vector<uint8_t> zstdCompress(const std::vector<uint8_t> &In) {
  std::vector<uint8_t> Out(ZSTD_compressBound(In.size()));
  size_t N = ZSTD_compress(Out.data(), Out.size(), In.data(), In.size(), 3);
  EXPECT_FALSE(ZSTD_isError(N));
  Out.resize(N);
  return Out;
}

std::vector<uint8_t> lz4Compress(const std::vector<uint8_t> &In) {
  std::vector<uint8_t> Out(LZ4_compressBound(int(In.size())));
  int N = LZ4_compress_default(reinterpret_cast<const char *>(In.data()),
                               reinterpret_cast<char *>(Out.data()), int(In.size()),
                               int(Out.size()));
  EXPECT_GT(N, 0);
  Out.resize(size_t(N));
  return Out;
}

/// Every failure the reader reports must say where.
void expectOffsetError(const std::string &Message) {
  EXPECT_NE(Message.find("offset 0x"), std::string::npos) << Message;
}

} // namespace

TEST(FatbinContainer, ParsesHandBuiltEntries) {
  EntrySpec Ptx;
  Ptx.Payload = withNul(SamplePtx);
  Ptx.Options = "-O3 ";
  EntrySpec Elf;
  Elf.Kind = 2;
  Elf.Sm = 90;
  Elf.Major = 1;
  Elf.Minor = 8;
  Elf.Flags = 0x11 | flags::ArchSpecific | flags::Debug;
  Elf.Payload = {0x7f, 'E', 'L', 'F', 1, 2, 3};
  Elf.Filename = "k.cu";
  auto B = buildContainer({Ptx, Elf});
  auto C = parseContainer(B, 0x1000);
  ASSERT_TRUE(C) << C.error().message();
  EXPECT_EQ(C->Offset, 0x1000u);
  EXPECT_EQ(C->totalSize(), B.size());
  ASSERT_EQ(C->Entries.size(), 2u);
  const Entry &P = C->Entries[0];
  EXPECT_TRUE(P.isPtx());
  EXPECT_EQ(P.Offset, 0x1010u);
  EXPECT_EQ(P.archName(), "sm_75");
  EXPECT_EQ(P.VersionMajor, 9);
  EXPECT_EQ(P.VersionMinor, 0);
  EXPECT_EQ(P.Options, "-O3 ");
  EXPECT_TRUE(P.OptionsAreText);
  EXPECT_EQ(P.compression(), Compression::None);
  auto Text = ptxText(P);
  ASSERT_TRUE(Text) << Text.error().message();
  EXPECT_EQ(*Text, SamplePtx); // padding NULs removed
  const Entry &E = C->Entries[1];
  EXPECT_TRUE(E.isElf());
  EXPECT_EQ(E.archName(), "sm_90a");
  EXPECT_EQ(E.Filename, "k.cu");
  EXPECT_EQ(E.Offset, 0x1010u + P.HeaderSize + P.PaddedSize);
  EXPECT_EQ(describeFlags(E.Flags), "64bit|debug|linux|arch-specific");
  EXPECT_FALSE(ptxText(E)); // not PTX
}

TEST(FatbinContainer, DecompressesZstdAndLz4) {
  auto Raw = withNul(SamplePtx);
  for (bool UseLz4 : {false, true}) {
    EntrySpec S;
    S.Payload = UseLz4 ? lz4Compress(Raw) : zstdCompress(Raw);
    S.CompressedSize = uint32_t(S.Payload.size());
    S.UncompressedSize = Raw.size();
    S.Flags = 0x11 | (UseLz4 ? flags::Lz4 : flags::Zstd);
    auto B = buildContainer({S});
    auto C = parseContainer(B);
    ASSERT_TRUE(C) << C.error().message();
    EXPECT_EQ(C->Entries[0].compression(), UseLz4 ? Compression::Lz4 : Compression::Zstd);
    auto Bytes = decompressPayload(C->Entries[0]);
    ASSERT_TRUE(Bytes) << Bytes.error().message();
    EXPECT_EQ(*Bytes, Raw);
    auto Text = ptxText(C->Entries[0]);
    ASSERT_TRUE(Text);
    EXPECT_EQ(*Text, SamplePtx);
  }
}

TEST(FatbinContainer, RealCorpusContainersDecode) {
  // Facts from the contract document: nvcc 13's default build stores sm_75
  // SASS raw and compute_75 PTX 9.0 zstd-compressed; speed uses LZ4 for PTX;
  // size compresses the ELF too; -G adds the debug flag and a filename.
  struct Case {
    const char *File;
    Compression PtxC, ElfC;
  } Cases[] = {{"default.fatbin", Compression::Zstd, Compression::None},
               {"lz4.fatbin", Compression::Lz4, Compression::None},
               {"size.fatbin", Compression::Zstd, Compression::Zstd},
               {"debug.fatbin", Compression::Zstd, Compression::Zstd}};
  for (const Case &K : Cases) {
    SCOPED_TRACE(K.File);
    auto B = readBytes(corpusPath(K.File));
    ASSERT_FALSE(B.empty());
    auto Cs = parseContainerSequence(B);
    ASSERT_TRUE(Cs) << Cs.error().message();
    ASSERT_EQ(Cs->size(), 1u);
    int Ptx = 0;
    for (const Entry &E : (*Cs)[0].Entries) {
      EXPECT_EQ(E.SmArch, 75u);
      auto Bytes = decompressPayload(E);
      ASSERT_TRUE(Bytes) << Bytes.error().message();
      if (E.isPtx()) {
        ++Ptx;
        EXPECT_EQ(E.compression(), K.PtxC);
        auto Text = ptxText(E);
        ASSERT_TRUE(Text) << Text.error().message();
        EXPECT_NE(Text->find(".version 9.0\n"), std::string::npos);
        EXPECT_NE(Text->find(".target sm_75"), std::string::npos);
        auto Kernels = listPtxEntries(*Text);
        EXPECT_EQ(Kernels, (std::vector<std::string>{"_Z6addOnePii", "_Z5scaleIfEvPT_S0_i",
                                                     "_Z5scaleIdEvPT_S0_i"}));
      } else {
        EXPECT_EQ(E.compression(), K.ElfC);
        ASSERT_GE(Bytes->size(), 20u);
        EXPECT_EQ(std::string(Bytes->begin(), Bytes->begin() + 4), "\x7f"
                                                                    "ELF");
        EXPECT_EQ((*Bytes)[18], 190); // e_machine EM_CUDA
      }
      if (std::string(K.File) == "debug.fatbin") {
        EXPECT_TRUE(E.Flags & flags::Debug);
        EXPECT_NE(E.Filename.find("kernels.cu"), std::string::npos) << E.Filename;
        if (E.isPtx()) {
          EXPECT_NE(E.Options.find("-g"), std::string::npos) << E.Options;
        }
      }
    }
    EXPECT_EQ(Ptx, 1);
  }
}

TEST(FatbinMalformed, TruncationAtEveryOffsetIsAnError) {
  for (const char *File : {"default.fatbin", "debug.fatbin"}) {
    auto Full = readBytes(corpusPath(File));
    ASSERT_FALSE(Full.empty());
    for (size_t N = 0; N < Full.size(); ++N) {
      // An exact-size heap copy, so ASan sees any read past the end.
      std::vector<uint8_t> Cut(Full.begin(), Full.begin() + N);
      auto C = parseContainer(Cut, 0x100);
      ASSERT_FALSE(C) << File << " cut at " << N;
      expectOffsetError(C.error().message());
      auto S = parseContainerSequence(Cut, 0x100);
      if (N > 0) {
        ASSERT_FALSE(S) << File << " cut at " << N;
      }
    }
  }
}

TEST(FatbinMalformed, TruncationMessageNamesOffsetAndSizes) {
  EntrySpec S;
  S.Payload = withNul(SamplePtx);
  auto B = buildContainer({S});
  B.resize(16 + 12);     // 12 bytes of a 0x50-byte entry header remain
  B[8] = 12;             // and the container says so
  for (int I = 9; I < 16; ++I)
    B[I] = 0;
  auto C = parseContainer(B, 0x190);
  ASSERT_FALSE(C);
  EXPECT_EQ(C.error().message(), "truncated entry header at offset 0x1a0: need 64 bytes, 12 remain");
  EXPECT_EQ(C.error().code(), CUDA_ERROR_INVALID_IMAGE);
}

TEST(FatbinMalformed, WrongMagicAndVersion) {
  auto B = buildContainer({});
  B[0] ^= 1;
  auto C = parseContainer(B, 0x40);
  ASSERT_FALSE(C);
  EXPECT_NE(C.error().message().find("bad container magic"), std::string::npos);
  expectOffsetError(C.error().message());
  B = buildContainer({});
  B[4] = 2;
  C = parseContainer(B);
  ASSERT_FALSE(C);
  EXPECT_NE(C.error().message().find("version 2"), std::string::npos);
  std::vector<uint8_t> W(24, 0);
  put(W, 0, 0x466243B0, 4);
  auto PW = parseWrapper(W, 8);
  ASSERT_FALSE(PW);
  expectOffsetError(PW.error().message());
  put(W, 0, WrapperMagic, 4);
  put(W, 4, 3, 4);
  PW = parseWrapper(W);
  ASSERT_FALSE(PW);
  EXPECT_NE(PW.error().message().find("version 3"), std::string::npos);
  put(W, 4, 2, 4);
  EXPECT_TRUE(parseWrapper(W));
}

TEST(FatbinMalformed, OversizedFields) {
  EntrySpec S;
  S.Payload = withNul(SamplePtx);
  S.Options = "-O3";
  auto Good = buildContainer({S});
  auto Mutate = [&](size_t At, uint64_t V, int Bytes) {
    auto B = Good;
    put(B, At, V, Bytes);
    auto C = parseContainer(B, 0x2000);
    EXPECT_FALSE(C) << "field at " << At << " = " << V;
    if (!C)
      expectOffsetError(C.error().message());
  };
  Mutate(8, ~0ull, 8);                  // container entries size 2^64-1
  Mutate(8, 1ull << 40, 8);             // beyond the limit
  Mutate(8, Good.size(), 8);            // just past the buffer
  Mutate(6, 0xffff, 2);                 // container header size
  Mutate(6, 8, 2);                      // container header size below 16
  Mutate(16 + 0x04, 0xffffffff, 4);     // entry header size
  Mutate(16 + 0x04, 0x20, 4);           // entry header size below 0x40
  Mutate(16 + 0x08, ~0ull, 8);          // padded payload size
  Mutate(16 + 0x08, 1ull << 62, 8);
  Mutate(16 + 0x00, 7, 2);              // entry kind
  Mutate(16 + 0x14, 0x4c, 4);           // options pair would cross the header end
  Mutate(16 + 0x40, 0x1000, 4);         // options text outside the header
  Mutate(16 + 0x44, 0xffffffff, 4);     // options size
  Mutate(16 + 0x24, 0xffffffff, 4);     // filename length
  // Compressed-size bookkeeping.
  auto Z = Good;
  put(Z, 16 + 0x28, 0x11 | flags::Zstd, 8);
  put(Z, 16 + 0x10, 0, 4); // compressed but size 0
  put(Z, 16 + 0x38, 100, 8);
  EXPECT_FALSE(parseContainer(Z));
  put(Z, 16 + 0x10, 0x10000, 4); // compressed size > padded
  EXPECT_FALSE(parseContainer(Z));
  put(Z, 16 + 0x10, 8, 4);
  put(Z, 16 + 0x38, 1ull << 50, 8); // uncompressed size beyond the limit
  auto C = parseContainer(Z);
  ASSERT_FALSE(C);
  expectOffsetError(C.error().message());
  put(Z, 16 + 0x28, 0x11 | flags::Zstd | flags::Lz4, 8);
  put(Z, 16 + 0x38, 100, 8);
  EXPECT_FALSE(parseContainer(Z)); // both compressions
}

TEST(FatbinMalformed, AbsurdEntryCounts) {
  // Minimal entries (a bare 0x40 header, no payload) make progress but must
  // not run forever or grow without bound.
  EntrySpec Tiny;
  Tiny.Kind = 2;
  std::vector<EntrySpec> Many(5000, Tiny);
  auto B = buildContainer(Many);
  auto C = parseContainer(B);
  ASSERT_FALSE(C);
  EXPECT_NE(C.error().message().find("more than 4096 entries"), std::string::npos);
  expectOffsetError(C.error().message());
  Limits L;
  L.MaxEntriesPerContainer = 10000;
  EXPECT_TRUE(parseContainer(B, 0, L));
  // A zero-entry container is valid and empty.
  auto Empty = parseContainer(buildContainer({}));
  ASSERT_TRUE(Empty);
  EXPECT_TRUE(Empty->Entries.empty());
}

TEST(FatbinMalformed, CorruptCompressedPayloads) {
  for (const char *File : {"default.fatbin", "lz4.fatbin"}) {
    SCOPED_TRACE(File);
    auto Full = readBytes(corpusPath(File));
    auto C = parseContainer(Full);
    ASSERT_TRUE(C);
    const Entry *Ptx = nullptr;
    for (const Entry &E : C->Entries)
      if (E.isPtx())
        Ptx = &E;
    ASSERT_NE(Ptx, nullptr);
    ASSERT_NE(Ptx->compression(), Compression::None);
    auto Good = decompressPayload(*Ptx);
    ASSERT_TRUE(Good);
    // Deterministic corruptions: each must fail and say where.
    auto Check = [&](Entry E, const char *What) {
      auto R = decompressPayload(E);
      EXPECT_FALSE(R) << What;
      if (!R)
        expectOffsetError(R.error().message());
    };
    Entry E = *Ptx;
    E.UncompressedSize += 1;
    Check(E, "uncompressed size one too big");
    E = *Ptx;
    E.UncompressedSize -= 1;
    Check(E, "uncompressed size one too small");
    E = *Ptx;
    E.CompressedSize -= 1;
    E.Payload = E.Payload.first(E.CompressedSize);
    Check(E, "payload cut by one byte");
    std::vector<uint8_t> Copy(Ptx->Payload.begin(), Ptx->Payload.end());
    Copy[0] ^= 0xff; // zstd: frame magic; LZ4: first token
    E = *Ptx;
    E.Payload = Copy;
    Check(E, "first byte flipped");
    // Every single-byte flip: never a crash or over-read; a failure names an
    // offset; a success (zstd frames from nvcc carry no checksum) still has
    // exactly the promised size.
    for (size_t I = 0; I < Ptx->Payload.size(); ++I) {
      std::vector<uint8_t> Flip(Ptx->Payload.begin(), Ptx->Payload.end());
      Flip[I] ^= 0x5a;
      E = *Ptx;
      E.Payload = Flip;
      auto R = decompressPayload(E);
      if (R)
        EXPECT_EQ(R->size(), Ptx->UncompressedSize);
      else
        expectOffsetError(R.error().message());
    }
  }
}

TEST(FatbinMalformed, PtxWithInnerNul) {
  EntrySpec S;
  std::string Text = SamplePtx;
  Text[5] = '\0';
  S.Payload = withNul(Text);
  auto B = buildContainer({S});
  auto C = parseContainer(B);
  ASSERT_TRUE(C);
  auto T = ptxText(C->Entries[0]);
  ASSERT_FALSE(T);
  EXPECT_EQ(T.error().code(), CUDA_ERROR_INVALID_PTX);
  expectOffsetError(T.error().message());
}

TEST(FatbinSequence, PaddingBetweenContainersAndGarbage) {
  EntrySpec S;
  S.Payload = withNul(SamplePtx);
  auto One = buildContainer({S});
  std::vector<uint8_t> Sec = One;
  Sec.resize(align8(Sec.size()) + 16, 0); // zero padding
  size_t Second = Sec.size();
  Sec.insert(Sec.end(), One.begin(), One.end());
  Sec.resize(Sec.size() + 5, 0); // short zero tail
  auto Cs = parseContainerSequence(Sec, 0x500);
  ASSERT_TRUE(Cs) << Cs.error().message();
  ASSERT_EQ(Cs->size(), 2u);
  EXPECT_EQ((*Cs)[1].Offset, 0x500 + Second);
  Sec.push_back(0x42); // garbage where a container would start
  Sec.resize(align8(Sec.size()) + 8, 0x42);
  Cs = parseContainerSequence(Sec, 0x500);
  ASSERT_FALSE(Cs);
  expectOffsetError(Cs.error().message());
}

TEST(FatbinPtxScan, ListsEntryNamesOnly) {
  const char *Ptx = "// .entry commented(\n"
                    ".version 9.0\n.target sm_80\n"
                    "/* .entry blockcomment( */\n"
                    ".func helper(.param .b32 x) { ret; }\n"
                    ".visible .entry first(\n.param .u64 a\n)\n{ ret; }\n"
                    ".weak .entry\n\tsecond_$1 ()\n{ ret; }\n"
                    ".global .b8 s[1] = {\".entry fake\"};\n"
                    ".entry third{ ret; }\n";
  EXPECT_EQ(listPtxEntries(Ptx), (std::vector<std::string>{"first", "second_$1", "third"}));
  EXPECT_TRUE(listPtxEntries("").empty());
  EXPECT_TRUE(listPtxEntries(".entry").empty());
  EXPECT_TRUE(listPtxEntries("/* unterminated .entry x(").empty());
}
