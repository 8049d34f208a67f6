/// \file
/// The reader on real nvcc 13 output (built by tests/fatbin/CMakeLists.txt):
/// for every build flavour, the PTX we extract must be byte for byte what
/// `nvcc -ptx` gives for the same source, arch and flags, after the embedding
/// transform nvcc applies (NvccSamples.h), trailing NUL aside. Also checks
/// sections, wrappers, flags and compression against the facts in
/// /work/shared/reference/cuda13-driver-contract.md, and the pointer reader
/// on a dlopen'ed nvcc-built shared library.
#include "NvccSamples.h"
#include "ptx/fatbin/File.h"
#include "ptx/fatbin/Memory.h"
#include "ptx/fatbin/Payload.h"
#include "ptx/fatbin/PtxScan.h"
#include "ptx/fatbin/Select.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstring>
#include <optional>

using namespace ferry::fatbin;
using namespace ferry::fatbin::test;

namespace {

struct Flavour {
  const char *Binary;
  std::vector<const char *> Refs; ///< reference PTX files, one per PTX entry
  Compression PtxC;
  std::optional<Compression> ElfC; ///< none: differs between containers
};

// Compression per mode is from the contract document: default (= balance)
// zstd on PTX only; speed LZ4 on PTX; size zstd on PTX and ELF; none raw.
const Flavour Flavours[] = {
    {"default", {"ref.default.ptx"}, Compression::Zstd, Compression::None},
    {"sm80.o", {"ref.sm80.ptx"}, Compression::Zstd, Compression::None},
    {"multi.o", {"ref.sm90a.ptx", "ref.sm86.ptx", "ref.sm100f.ptx"}, Compression::Zstd,
     Compression::None},
    {"speed.o", {"ref.default.ptx"}, Compression::Lz4, Compression::None},
    {"size.o", {"ref.default.ptx"}, Compression::Zstd, Compression::Zstd},
    {"none.o", {"ref.default.ptx"}, Compression::None, Compression::None},
    // -rdc=true: the relocatable TU containers compress their ELF too, the
    // device-link container does not.
    {"rdc", {"ref.rdc_a.ptx", "ref.rdc_b.ptx"}, Compression::Zstd, std::nullopt},
    {"debug.o", {"ref.debug.ptx"}, Compression::Zstd, Compression::Zstd},
    {"libkernels.so", {"ref.default.ptx"}, Compression::Zstd, Compression::None},
    {"cudart_shared", {"ref.default.ptx"}, Compression::Zstd, Compression::None},
    {"kernels.fatbin", {"ref.default.ptx"}, Compression::Zstd, Compression::None},
};

#define REQUIRE_SAMPLES()                                                                          \
  if (!haveSamples())                                                                              \
  GTEST_SKIP() << "nvcc was not found at configure time; no samples"

class NvccFlavour : public ::testing::TestWithParam<Flavour> {};

std::string flavourName(const ::testing::TestParamInfo<Flavour> &I) {
  std::string N = I.param.Binary;
  std::replace_if(N.begin(), N.end(), [](char C) { return !isalnum(static_cast<unsigned char>(C)); },
                  '_');
  return N;
}

} // namespace

TEST(FatbinNvcc, NormalizationRuleOnKnownText) {
  // The transform itself, on text whose embedded form is written by hand.
  EXPECT_EQ(embedNormalize("//\n// header\n\n.version 9.0\n\t// .globl\tk\n"
                           ".visible .entry k(\n\t.param .u64 \tk_param_0\n)\n"
                           "\t.loc\t1 2 3\n  add.s32 \t%r1, %r2;  // tail\n"),
            "\n\n\n.version 9.0\n\n.visible .entry k(\n.param .u64 k_param_0\n)\n"
            ".loc\t1 2 3\nadd.s32 %r1, %r2; \n");
}

TEST_P(NvccFlavour, PtxMatchesNvccPtxByteForByte) {
  REQUIRE_SAMPLES();
  const Flavour &F = GetParam();
  auto Img = readFile(samplePath(F.Binary));
  ASSERT_TRUE(Img) << Img.error().message();
  std::vector<std::string> Extracted;
  for (const FileContainer &FC : Img->Containers) {
    for (const Entry &E : FC.C.Entries) {
      auto Bytes = decompressPayload(E);
      ASSERT_TRUE(Bytes) << Bytes.error().message();
      if (E.isPtx()) {
        EXPECT_EQ(E.compression(), F.PtxC) << E.archName();
        EXPECT_EQ(E.VersionMajor, 9);
        EXPECT_EQ(E.VersionMinor, 0);
        // Stored PTX ends in NUL padding; the text is returned without it.
        if (E.compression() != Compression::None) {
          ASSERT_FALSE(Bytes->empty());
          EXPECT_EQ(Bytes->back(), 0);
        }
        auto Text = ptxText(E);
        ASSERT_TRUE(Text) << Text.error().message();
        EXPECT_NE(Text->back(), '\0');
        EXPECT_NE(Text->find(".target " + E.archName()), std::string::npos) << E.archName();
        Extracted.push_back(std::move(*Text));
      } else {
        if (F.ElfC) {
          EXPECT_EQ(E.compression(), *F.ElfC) << E.archName();
        }
        ASSERT_GE(Bytes->size(), 64u);
        EXPECT_EQ(std::memcmp(Bytes->data(), "\x7f"
                                             "ELF",
                              4),
                  0);
        EXPECT_EQ((*Bytes)[18], 190); // EM_CUDA
      }
    }
  }
  ASSERT_EQ(Extracted.size(), F.Refs.size());
  for (const char *Ref : F.Refs) {
    std::string Want = embedNormalize(readText(samplePath(Ref)));
    ASSERT_FALSE(Want.empty()) << Ref;
    bool Found = std::find(Extracted.begin(), Extracted.end(), Want) != Extracted.end();
    EXPECT_TRUE(Found) << F.Binary << ": no PTX entry equals " << Ref;
  }
}

INSTANTIATE_TEST_SUITE_P(Builds, NvccFlavour, ::testing::ValuesIn(Flavours), flavourName);

TEST(FatbinNvcc, ExecutableSectionsAndWrappers) {
  REQUIRE_SAMPLES();
  auto Img = readFile(samplePath("default"));
  ASSERT_TRUE(Img) << Img.error().message();
  EXPECT_EQ(Img->Kind, FileKind::HostElf);
  // One container per TU plus the device-link container (ELF only), both in
  // .nv_fatbin, each registered by a wrapper.
  ASSERT_EQ(Img->Containers.size(), 2u);
  for (const auto &FC : Img->Containers) {
    EXPECT_EQ(FC.Section, ".nv_fatbin");
    EXPECT_EQ(FC.C.Offset % 8, 0u);
  }
  ASSERT_EQ(Img->Wrappers.size(), 2u);
  for (const FileWrapper &W : Img->Wrappers) {
    ASSERT_TRUE(W.DataOffset);
    bool Points = false;
    for (const auto &FC : Img->Containers)
      Points |= FC.C.Offset == *W.DataOffset;
    EXPECT_TRUE(Points) << "wrapper data does not point at a container";
  }
}

TEST(FatbinNvcc, RdcKeepsPtxInRelfatbinAndUsesWrapperV2) {
  REQUIRE_SAMPLES();
  auto Img = readFile(samplePath("rdc"));
  ASSERT_TRUE(Img) << Img.error().message();
  int Rel = 0;
  for (const auto &FC : Img->Containers)
    if (FC.Section == "__nv_relfatbin") {
      ++Rel;
      bool HasPtx = false;
      for (const Entry &E : FC.C.Entries)
        HasPtx |= E.isPtx();
      EXPECT_TRUE(HasPtx);
    }
  EXPECT_EQ(Rel, 2); // two translation units
  bool V2 = false;
  for (const FileWrapper &W : Img->Wrappers)
    V2 |= W.W.Version == 2 && W.W.FilenameOrFatbins != 0;
  EXPECT_TRUE(V2);
  std::vector<std::string> Kernels;
  for (const auto &FC : Img->Containers)
    for (const Entry &E : FC.C.Entries)
      if (E.isPtx())
        for (auto &K : listPtxEntries(*ptxText(E)))
          Kernels.push_back(K);
  std::sort(Kernels.begin(), Kernels.end());
  EXPECT_EQ(Kernels, (std::vector<std::string>{"_Z4fillPii", "_Z9useTriplePi"}));
}

TEST(FatbinNvcc, MultiArchFlagsAndChoice) {
  REQUIRE_SAMPLES();
  auto Img = readFile(samplePath("multi.o"));
  ASSERT_TRUE(Img) << Img.error().message();
  ASSERT_EQ(Img->Containers.size(), 1u);
  const auto &Es = Img->Containers[0].C.Entries;
  std::vector<std::string> Names;
  for (const Entry &E : Es)
    Names.push_back(std::string(E.isPtx() ? "ptx:" : "elf:") + E.archName());
  std::sort(Names.begin(), Names.end());
  EXPECT_EQ(Names, (std::vector<std::string>{"elf:sm_80", "elf:sm_90a", "ptx:sm_100f",
                                             "ptx:sm_86", "ptx:sm_90a"}));
  auto ArchOf = [&](size_t I) { return Es[I].archName(); };
  auto Pick = [&](unsigned Sm) -> std::string {
    auto R = choosePtxEntry(Es, Sm);
    return R ? ArchOf(*R) : "none";
  };
  EXPECT_EQ(Pick(80), "sm_86"); // none fits sm_80: the most conservative newer one
  EXPECT_EQ(Pick(86), "sm_86");
  EXPECT_EQ(Pick(89), "sm_86");
  EXPECT_EQ(Pick(90), "sm_90a");
  EXPECT_EQ(Pick(100), "sm_100f");
  EXPECT_EQ(Pick(103), "sm_100f");
  EXPECT_EQ(Pick(120), "sm_86"); // 90a and 100f do not carry over to sm_120
}

TEST(FatbinNvcc, DebugBuildNamesSourceAndOptions) {
  REQUIRE_SAMPLES();
  auto Img = readFile(samplePath("debug.o"));
  ASSERT_TRUE(Img) << Img.error().message();
  ASSERT_FALSE(Img->Containers.empty());
  for (const Entry &E : Img->Containers[0].C.Entries) {
    EXPECT_TRUE(E.Flags & flags::Debug);
    EXPECT_NE(E.Filename.find("kernels.cu"), std::string::npos) << E.Filename;
    EXPECT_GT(E.HeaderSize, 0x40u);
    if (E.isPtx()) {
      EXPECT_NE(E.Options.find("-g"), std::string::npos) << E.Options;
    }
  }
}

TEST(FatbinNvcc, CubinAndPtxFiles) {
  REQUIRE_SAMPLES();
  auto Cubin = readFile(samplePath("kernels.cubin"));
  ASSERT_TRUE(Cubin) << Cubin.error().message();
  EXPECT_EQ(Cubin->Kind, FileKind::Cubin);
  EXPECT_EQ(Cubin->CubinSm, 80u);
  EXPECT_TRUE(Cubin->Containers.empty());
  // The pointer reader sizes a cubin from its headers alone.
  auto Size = elfSizeAt(Cubin->Bytes.data());
  ASSERT_TRUE(Size) << Size.error().message();
  EXPECT_EQ(*Size, Cubin->Bytes.size());
  auto Ptx = readFile(samplePath("ref.sm80.ptx"));
  ASSERT_TRUE(Ptx) << Ptx.error().message();
  EXPECT_EQ(Ptx->Kind, FileKind::Ptx);
  EXPECT_EQ(listPtxEntries(Ptx->Ptx),
            (std::vector<std::string>{"_Z6addOnePii", "_Z5scaleIfEvPT_S0_i",
                                      "_Z5scaleIdEvPT_S0_i"}));
  auto Missing = readFile(samplePath("does-not-exist"));
  ASSERT_FALSE(Missing);
  EXPECT_EQ(Missing.error().code(), CUDA_ERROR_FILE_NOT_FOUND);
}

TEST(FatbinNvcc, PointerReaderOnFileContainers) {
  REQUIRE_SAMPLES();
  auto Img = readFile(samplePath("rdc"));
  ASSERT_TRUE(Img);
  // Rebuild what the runtime sees for -rdc=true: a version-2 wrapper whose
  // data is the device-link container and whose list holds the TU
  // containers.
  std::vector<const void *> List;
  const void *Dlink = nullptr;
  for (const auto &FC : Img->Containers) {
    if (FC.Section == "__nv_relfatbin")
      List.push_back(FC.C.Bytes.data());
    else
      Dlink = FC.C.Bytes.data();
  }
  ASSERT_NE(Dlink, nullptr);
  List.push_back(nullptr);
  uint64_t W[3] = {WrapperMagic | (uint64_t(2) << 32), reinterpret_cast<uintptr_t>(Dlink),
                   reinterpret_cast<uintptr_t>(List.data())};
  auto M = readImage(W);
  ASSERT_TRUE(M) << M.error().message();
  ASSERT_EQ(M->Containers.size(), 3u);
  for (size_t I = 1; I < 3; ++I)
    EXPECT_EQ(M->Containers[I].Bytes.data(), List[I - 1]);
}

namespace {
struct Lookup {
  const char *Suffix;
  uintptr_t Base = 0;
  bool Found = false;
};
int findBase(dl_phdr_info *Info, size_t, void *Data) {
  auto *L = static_cast<Lookup *>(Data);
  std::string Name = Info->dlpi_name ? Info->dlpi_name : "";
  if (Name.size() >= std::strlen(L->Suffix) &&
      Name.compare(Name.size() - std::strlen(L->Suffix), std::string::npos, L->Suffix) == 0) {
    L->Base = Info->dlpi_addr;
    L->Found = true;
    return 1;
  }
  return 0;
}
} // namespace

TEST(FatbinNvcc, PointerReaderOnLoadedSharedLibrary) {
  REQUIRE_SAMPLES();
  // Load an nvcc-built library and read its registered wrapper from process
  // memory, with relocations applied, exactly as libcuda receives it.
  std::string Path = samplePath("libkernels.so");
  void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(H, nullptr) << dlerror();
  Lookup L{"/libkernels.so"};
  dl_iterate_phdr(findBase, &L);
  ASSERT_TRUE(L.Found);
  auto Img = readFile(Path);
  ASSERT_TRUE(Img);
  ASSERT_FALSE(Img->Wrappers.empty());
  const FileWrapper &FW = Img->Wrappers.back();
  ASSERT_NE(FW.Address, 0u);
  const void *Live = reinterpret_cast<const void *>(L.Base + FW.Address);
  EXPECT_EQ(detectImage(Live), ImageKind::Wrapper);
  auto M = readImage(Live);
  ASSERT_TRUE(M) << M.error().message();
  ASSERT_GE(M->Containers.size(), 1u);
  // The container in memory is the one in the file.
  bool Same = false;
  for (const auto &FC : Img->Containers)
    Same |= FC.C.Bytes.size() == M->Containers[0].Bytes.size() &&
            std::memcmp(FC.C.Bytes.data(), M->Containers[0].Bytes.data(), FC.C.Bytes.size()) == 0;
  EXPECT_TRUE(Same);
  dlclose(H);
}

TEST(FatbinNvcc, DamagedExecutablesAreErrorsNotCrashes) {
  REQUIRE_SAMPLES();
  auto Img = readFile(samplePath("default"));
  ASSERT_TRUE(Img);
  ASSERT_FALSE(Img->Containers.empty());
  const Container &C = Img->Containers.back().C;
  // Cut the file inside the last container: either LLVM or our section check
  // must refuse it.
  std::vector<uint8_t> Cut(Img->Bytes.begin(), Img->Bytes.begin() + C.Offset + 100);
  auto R = readBuffer(std::move(Cut), "cut");
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().message().find("cut"), std::string::npos);
  // Damage an entry header inside the section: the error names the section
  // and the entry's file offset.
  std::vector<uint8_t> Bad = Img->Bytes;
  uint64_t At = C.Entries[0].Offset + 4; // header_size
  Bad[At] = 0x08;
  R = readBuffer(std::move(Bad), "bad");
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().message().find(".nv_fatbin"), std::string::npos) << R.error().message();
  EXPECT_NE(R.error().message().find(hexOffset(C.Entries[0].Offset)), std::string::npos)
      << R.error().message();
  // Cuts at many points of a small object file never crash.
  auto Obj = readFile(samplePath("speed.o"));
  ASSERT_TRUE(Obj);
  for (size_t N = 0; N < Obj->Bytes.size(); N += 97) {
    std::vector<uint8_t> Part(Obj->Bytes.begin(), Obj->Bytes.begin() + N);
    (void)readBuffer(std::move(Part), "part");
  }
}
