/// \file
/// Reading from a bare pointer (ptx/fatbin/Memory.h): detection, wrappers of
/// both versions, prelinked lists, size limits, PTX text. Buffers are exact
/// heap allocations so ASan catches any read past them.
#include "Builders.h"
#include "ptx/fatbin/Memory.h"
#include "ptx/fatbin/Payload.h"

#include <gtest/gtest.h>

#include <memory>

using namespace ferry::fatbin;
using namespace ferry::fatbin::test;

namespace {

/// An exact-size heap copy.
std::unique_ptr<uint8_t[]> heapCopy(const std::vector<uint8_t> &B) {
  auto P = std::make_unique<uint8_t[]>(B.size());
  std::memcpy(P.get(), B.data(), B.size());
  return P;
}

std::unique_ptr<uint8_t[]> heapString(const std::string &S) {
  auto B = bytesOf(S);
  B.push_back(0);
  return heapCopy(B);
}

std::vector<uint8_t> sampleContainer(unsigned Sm) {
  EntrySpec S;
  S.Sm = Sm;
  std::string Ptx = ".version 9.0\n.target sm_" + std::to_string(Sm) + "\n.entry k" +
                    std::to_string(Sm) + "() { ret; }\n";
  S.Payload = bytesOf(Ptx);
  S.Payload.push_back(0);
  return buildContainer({S});
}

std::vector<uint8_t> wrapper(uint32_t Version, const void *Data, const void *Last) {
  std::vector<uint8_t> W(24, 0);
  put(W, 0, WrapperMagic, 4);
  put(W, 4, Version, 4);
  put(W, 8, reinterpret_cast<uintptr_t>(Data), 8);
  put(W, 16, reinterpret_cast<uintptr_t>(Last), 8);
  return W;
}

} // namespace

TEST(FatbinMemory, DetectionRule) {
  auto C = heapCopy(sampleContainer(75));
  EXPECT_EQ(detectImage(C.get()), ImageKind::Container);
  auto W = heapCopy(wrapper(1, C.get(), nullptr));
  EXPECT_EQ(detectImage(W.get()), ImageKind::Wrapper);
  auto Elf = heapCopy({0x7f, 'E', 'L', 'F', 2, 1, 1, 0});
  EXPECT_EQ(detectImage(Elf.get()), ImageKind::Elf);
  auto Ptx = heapString("\n.version 9.0\n");
  EXPECT_EQ(detectImage(Ptx.get()), ImageKind::Ptx);
  // Short strings are not read past their NUL, even when they begin like a
  // magic number ('P' is the container magic's first byte).
  auto P = heapString("P");
  EXPECT_EQ(detectImage(P.get()), ImageKind::Ptx);
  auto Empty = heapString("");
  EXPECT_EQ(detectImage(Empty.get()), ImageKind::Unknown);
  auto Bin = heapCopy({0x01, 0x02, 0x03, 0x04});
  EXPECT_EQ(detectImage(Bin.get()), ImageKind::Unknown);
}

TEST(FatbinMemory, ReadsContainerAndWrapperV1) {
  auto CB = sampleContainer(80);
  auto C = heapCopy(CB);
  auto M = readImage(C.get());
  ASSERT_TRUE(M) << M.error().message();
  EXPECT_EQ(M->Kind, ImageKind::Container);
  ASSERT_EQ(M->Containers.size(), 1u);
  EXPECT_EQ(M->Containers[0].totalSize(), CB.size());
  auto Text = ptxText(M->Containers[0].Entries[0]);
  ASSERT_TRUE(Text);
  EXPECT_NE(Text->find(".target sm_80"), std::string::npos);

  auto W = heapCopy(wrapper(1, C.get(), nullptr));
  M = readImage(W.get());
  ASSERT_TRUE(M) << M.error().message();
  EXPECT_EQ(M->Kind, ImageKind::Wrapper);
  ASSERT_TRUE(M->Wrap);
  EXPECT_EQ(M->Wrap->Version, 1u);
  ASSERT_EQ(M->Containers.size(), 1u);
  EXPECT_EQ(M->FirstPrelinked, 1u);
  EXPECT_EQ(M->Containers[0].Entries[0].SmArch, 80u);
}

TEST(FatbinMemory, WrapperV2FollowsPrelinkedList) {
  auto Main = heapCopy(sampleContainer(75));
  auto A = heapCopy(sampleContainer(80));
  auto B = heapCopy(sampleContainer(86));
  // Elements may be containers (what nvcc 13 stores) or wrappers.
  auto BW = heapCopy(wrapper(1, B.get(), nullptr));
  const void *List[] = {A.get(), BW.get(), nullptr};
  auto W = heapCopy(wrapper(2, Main.get(), List));
  auto M = readImage(W.get());
  ASSERT_TRUE(M) << M.error().message();
  ASSERT_EQ(M->Containers.size(), 3u);
  EXPECT_EQ(M->FirstPrelinked, 1u);
  EXPECT_EQ(M->Containers[0].Entries[0].SmArch, 75u);
  EXPECT_EQ(M->Containers[1].Entries[0].SmArch, 80u);
  EXPECT_EQ(M->Containers[2].Entries[0].SmArch, 86u);
  // An empty list and a null list are both just the main container.
  const void *None[] = {nullptr};
  W = heapCopy(wrapper(2, Main.get(), None));
  M = readImage(W.get());
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Containers.size(), 1u);
  W = heapCopy(wrapper(2, Main.get(), nullptr));
  ASSERT_TRUE(readImage(W.get()));
}

TEST(FatbinMemory, RejectsBadPointersAndAbsurdSizes) {
  EXPECT_EQ(readImage(nullptr).code(), CUDA_ERROR_INVALID_VALUE);
  auto W = heapCopy(wrapper(1, nullptr, nullptr));
  auto M = readImage(W.get());
  ASSERT_FALSE(M);
  EXPECT_NE(M.error().message().find("null data"), std::string::npos);
  auto W3 = heapCopy(wrapper(3, nullptr, nullptr));
  EXPECT_FALSE(readImage(W3.get()));
  // A 16-byte container header that claims a terabyte of entries: rejected
  // from the header alone, before anything past it is read.
  auto CB = sampleContainer(75);
  CB.resize(16);
  put(CB, 8, 1ull << 40, 8);
  auto C = heapCopy(CB);
  M = readImage(C.get());
  ASSERT_FALSE(M);
  EXPECT_EQ(M.error().code(), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_NE(M.error().message().find("offset 0x0"), std::string::npos) << M.error().message();
  Limits Small;
  Small.MaxContainerSize = 8;
  auto Good = heapCopy(sampleContainer(75));
  EXPECT_FALSE(readImage(Good.get(), Small));
}

TEST(FatbinMemory, PtxTextAndElfSize) {
  auto P = heapString("// comment\n.version 9.0\n.target sm_80\n");
  auto M = readImage(P.get());
  ASSERT_TRUE(M) << M.error().message();
  EXPECT_EQ(M->Kind, ImageKind::Ptx);
  EXPECT_EQ(M->Ptx.size(), std::strlen(reinterpret_cast<const char *>(P.get())));
  auto NotPtx = heapString("hello world");
  M = readImage(NotPtx.get());
  ASSERT_FALSE(M);
  EXPECT_NE(M.error().message().find(".version"), std::string::npos);
  auto Empty = heapString("");
  EXPECT_FALSE(readImage(Empty.get()));

  // A minimal ELF64 header with two section headers; the image ends where
  // the furthest section's bytes end.
  std::vector<uint8_t> E(64 + 2 * 64 + 32, 0);
  std::memcpy(E.data(), "\x7f" "ELF\x02\x01\x01", 7);
  put(E, 0x28, 64, 8);      // e_shoff
  put(E, 0x3a, 64, 2);      // e_shentsize
  put(E, 0x3c, 2, 2);       // e_shnum
  put(E, 64 + 64 + 4, 1, 4);       // sh_type PROGBITS
  put(E, 64 + 64 + 0x18, 192, 8);  // sh_offset
  put(E, 64 + 64 + 0x20, 32, 8);   // sh_size
  auto H = heapCopy(E);
  auto Size = elfSizeAt(H.get());
  ASSERT_TRUE(Size) << Size.error().message();
  EXPECT_EQ(*Size, E.size());
  M = readImage(H.get());
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Elf.size(), E.size());
  put(E, 64 + 64 + 0x20, 1ull << 50, 8); // absurd section size
  H = heapCopy(E);
  EXPECT_FALSE(elfSizeAt(H.get()));
  put(E, 0x28, 1ull << 60, 8); // absurd section table offset
  H = heapCopy(E);
  EXPECT_FALSE(elfSizeAt(H.get()));
  E[4] = 1; // 32-bit
  H = heapCopy(E);
  EXPECT_FALSE(elfSizeAt(H.get()));
}
