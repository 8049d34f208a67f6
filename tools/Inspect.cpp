/// \file
/// `ferry inspect FILE [--json] [--dump-ptx DIR] [--sm N]`: what device code
/// a file carries, as ferry reads it: every fatbin container and entry (kind,
/// architecture, PTX version, compression, sizes, flags, kernel names), the
/// registration wrappers of an executable, and which PTX entry a device of
/// compute capability N would get. The first tool to reach for when a
/// program reports CUDA_ERROR_NO_BINARY_FOR_GPU or an invalid image.
#include "ptx/fatbin/File.h"
#include "ptx/fatbin/Payload.h"
#include "ptx/fatbin/PtxScan.h"
#include "ptx/fatbin/Select.h"
#include "tools/Command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

namespace ferry::tool {
namespace {

using namespace ferry::fatbin;

/// A minimal JSON writer: enough structure to keep commas right, and string
/// escaping per RFC 8259 (control characters as \u00XX).
class Json {
public:
  void beginObject(const char *Key = nullptr) { open(Key, '{'); }
  void endObject() { close('}'); }
  void beginArray(const char *Key = nullptr) { open(Key, '['); }
  void endArray() { close(']'); }
  void value(const char *Key, const std::string &S) { key(Key), str(S); }
  void value(const char *Key, const char *S) { value(Key, std::string(S)); }
  void value(const char *Key, uint64_t V) { key(Key), Out += std::to_string(V); }
  void value(const char *Key, bool V) { key(Key), Out += V ? "true" : "false"; }
  void null(const char *Key) { key(Key), Out += "null"; }
  void element(const std::string &S) { key(nullptr), str(S); }
  const std::string &text() const { return Out; }

  static std::string escape(const std::string &S) {
    std::string R;
    for (unsigned char C : S) {
      switch (C) {
      case '"':
        R += "\\\"";
        break;
      case '\\':
        R += "\\\\";
        break;
      case '\n':
        R += "\\n";
        break;
      case '\t':
        R += "\\t";
        break;
      case '\r':
        R += "\\r";
        break;
      default:
        if (C < 0x20 || C >= 0x7f) {
          // Non-ASCII bytes are not guaranteed UTF-8 here; escape them as
          // code points U+0080..U+00FF so the output is always valid JSON.
          char Buf[8];
          std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
          R += Buf;
        } else {
          R += char(C);
        }
      }
    }
    return R;
  }

private:
  void key(const char *K) {
    if (NeedComma)
      Out += ',';
    NeedComma = true;
    if (K)
      Out += '"' + escape(K) + "\":";
  }
  void str(const std::string &S) { Out += '"' + escape(S) + '"'; }
  void open(const char *K, char C) {
    key(K);
    Out += C;
    NeedComma = false;
  }
  void close(char C) {
    Out += C;
    NeedComma = true;
  }
  std::string Out;
  bool NeedComma = false;
};

struct Options {
  std::string File;
  bool AsJson = false;
  std::optional<std::string> DumpDir;
  std::optional<unsigned> DeviceSm;
  std::optional<std::string> Isa;
};

#ifdef FERRY_TOOL_HSA
} // namespace
int inspectIsa(const std::string &File, const std::string &Arch); // AmdCode.cpp
namespace {
#endif

int usage(FILE *Out) {
  std::fprintf(Out,
               "usage: ferry inspect FILE [--json] [--dump-ptx DIR] [--sm N] [--isa=gfxNNN]\n"
               "  FILE            ELF executable/shared library/object, fatbin, cubin or PTX\n"
               "  --json          machine-readable output\n"
               "  --dump-ptx DIR  write each PTX entry to DIR/<file>.<container>.<entry>.<arch>.ptx\n"
               "  --sm N          mark the PTX entry a device of compute capability N (e.g. 86)\n"
               "                  would get\n"
               "  --isa=gfxNNN    compile the kernels for that AMD GPU and print the AMDGPU\n"
               "                  disassembly (no GPU needed)\n");
  return Out == stdout ? 0 : 2;
}

/// Everything inspect knows about one entry, decoded once for both outputs.
struct EntryReport {
  const Entry *E;
  std::optional<std::string> Ptx;
  std::vector<std::string> Kernels;
  std::string Error; ///< decompression/decoding failure, if any
  std::string DumpPath;
  bool Chosen = false;
};

std::string ptxVersion(const Entry &E) {
  return std::to_string(E.VersionMajor) + "." + std::to_string(E.VersionMinor);
}

void printEntryText(size_t Index, const EntryReport &R) {
  const Entry &E = *R.E;
  std::printf("  entry %zu @%s: %s %s", Index, hexOffset(E.Offset).c_str(),
              E.isPtx() ? "PTX" : "ELF", E.archName().c_str());
  if (E.isPtx())
    std::printf(", PTX %s", ptxVersion(E).c_str());
  else
    std::printf(", ELF ABI %s", ptxVersion(E).c_str());
  if (E.compression() == Compression::None)
    std::printf(", uncompressed, %llu bytes", (unsigned long long)E.PaddedSize);
  else
    std::printf(", %s %u -> %llu bytes", compressionName(E.compression()), E.CompressedSize,
                (unsigned long long)E.UncompressedSize);
  std::printf(", flags %s (%s)%s\n", hexOffset(E.Flags).c_str(), describeFlags(E.Flags).c_str(),
              R.Chosen ? "  <- chosen" : "");
  if (!E.Filename.empty())
    std::printf("    source file: %s\n", E.Filename.c_str());
  if (!E.Options.empty()) {
    if (E.OptionsAreText)
      std::printf("    options: %s\n", E.Options.c_str());
    else
      std::printf("    options: %zu bytes of binary data\n", E.Options.size());
  }
  if (!R.Error.empty())
    std::printf("    error: %s\n", R.Error.c_str());
  if (R.Ptx) {
    std::printf("    kernels:");
    for (const auto &K : R.Kernels)
      std::printf(" %s", K.c_str());
    std::printf(R.Kernels.empty() ? " (none)\n" : "\n");
  }
  if (!R.DumpPath.empty())
    std::printf("    written to %s\n", R.DumpPath.c_str());
}

void entryJson(Json &J, size_t Index, const EntryReport &R) {
  const Entry &E = *R.E;
  J.beginObject();
  J.value("index", uint64_t(Index));
  J.value("offset", E.Offset);
  J.value("kind", E.isPtx() ? "ptx" : "elf");
  J.value("sm", uint64_t(E.SmArch));
  J.value("arch", E.archName());
  J.value("version", ptxVersion(E));
  J.value("header_size", uint64_t(E.HeaderSize));
  J.value("payload_offset", E.PayloadOffset);
  J.value("padded_size", E.PaddedSize);
  J.value("compression", compressionName(E.compression()));
  J.value("compressed_size", uint64_t(E.CompressedSize));
  J.value("uncompressed_size", E.expandedSize());
  J.value("flags", E.Flags);
  J.beginArray("flag_names");
  std::string Names = describeFlags(E.Flags);
  for (size_t Pos = 0; Pos <= Names.size();) {
    size_t Bar = Names.find('|', Pos);
    if (Bar == std::string::npos)
      Bar = Names.size();
    J.element(Names.substr(Pos, Bar - Pos));
    Pos = Bar + 1;
  }
  J.endArray();
  if (E.Filename.empty())
    J.null("filename");
  else
    J.value("filename", E.Filename);
  if (E.Options.empty() || !E.OptionsAreText)
    J.null("options");
  else
    J.value("options", E.Options);
  if (R.Ptx) {
    J.beginArray("kernels");
    for (const auto &K : R.Kernels)
      J.element(K);
    J.endArray();
  }
  if (!R.Error.empty())
    J.value("error", R.Error);
  if (!R.DumpPath.empty())
    J.value("dumped_to", R.DumpPath);
  if (R.Chosen)
    J.value("chosen", true);
  J.endObject();
}

bool writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary);
  Out.write(Text.data(), std::streamsize(Text.size()));
  return bool(Out);
}

int runInspect(const std::vector<std::string> &Args) {
  Options O;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--help" || A == "-h")
      return usage(stdout);
    if (A.rfind("--isa=", 0) == 0) {
      O.Isa = A.substr(6);
    } else if (A == "--isa" && I + 1 < Args.size()) {
      O.Isa = Args[++I];
    } else if (A == "--json") {
      O.AsJson = true;
    } else if (A == "--dump-ptx" && I + 1 < Args.size()) {
      O.DumpDir = Args[++I];
    } else if (A == "--sm" && I + 1 < Args.size()) {
      const std::string &V = Args[++I];
      char *End = nullptr;
      unsigned long N = std::strtoul(V.c_str(), &End, 10);
      if (V.empty() || *End || N == 0 || N > 1000) {
        std::fprintf(stderr, "ferry inspect: --sm wants a compute capability like 86, not '%s'\n",
                     V.c_str());
        return 2;
      }
      O.DeviceSm = unsigned(N);
    } else if (!A.empty() && A[0] == '-') {
      std::fprintf(stderr, "ferry inspect: unknown option '%s'\n", A.c_str());
      return usage(stderr);
    } else if (O.File.empty()) {
      O.File = A;
    } else {
      std::fprintf(stderr, "ferry inspect: more than one FILE given ('%s')\n", A.c_str());
      return 2;
    }
  }
  if (O.File.empty())
    return usage(stderr);
  if (O.Isa) {
#ifdef FERRY_TOOL_HSA
    return inspectIsa(O.File, *O.Isa);
#else
    std::fprintf(stderr, "ferry inspect: --isa needs the AMD compiler, which this build lacks "
                         "(install liblld-19-dev)\n");
    return 1;
#endif
  }

  auto Img = readFile(O.File);
  if (!Img) {
    std::fprintf(stderr, "ferry inspect: %s\n", Img.error().message().c_str());
    return 1;
  }
  if (O.DumpDir) {
    std::error_code EC;
    std::filesystem::create_directories(*O.DumpDir, EC);
    if (EC) {
      std::fprintf(stderr, "ferry inspect: cannot create %s: %s\n", O.DumpDir->c_str(),
                   EC.message().c_str());
      return 1;
    }
  }
  std::string Base = std::filesystem::path(O.File).filename().string();
  bool Failed = false;

  // Decode every entry first, so text and JSON report the same facts.
  std::vector<std::vector<EntryReport>> Reports;
  std::vector<std::string> ChoiceErrors;
  for (size_t CI = 0; CI < Img->Containers.size(); ++CI) {
    const Container &C = Img->Containers[CI].C;
    auto &Rs = Reports.emplace_back();
    for (size_t EI = 0; EI < C.Entries.size(); ++EI) {
      EntryReport R{&C.Entries[EI], std::nullopt, {}, {}, {}, false};
      if (R.E->isPtx()) {
        auto Text = ptxText(*R.E);
        if (Text) {
          R.Kernels = listPtxEntries(*Text);
          R.Ptx = std::move(*Text);
        } else {
          R.Error = Text.error().message();
          Failed = true;
        }
      } else if (R.E->compression() != Compression::None) {
        auto Bytes = decompressPayload(*R.E);
        if (!Bytes) {
          R.Error = Bytes.error().message();
          Failed = true;
        }
      }
      if (R.Ptx && O.DumpDir) {
        std::string Path = (std::filesystem::path(*O.DumpDir) /
                            (Base + "." + std::to_string(CI) + "." + std::to_string(EI) + "." +
                             R.E->archName() + ".ptx"))
                               .string();
        if (writeFile(Path, *R.Ptx)) {
          R.DumpPath = Path;
        } else {
          R.Error = "cannot write " + Path;
          Failed = true;
        }
      }
      Rs.push_back(std::move(R));
    }
    if (O.DeviceSm) {
      auto Pick = choosePtxEntry(C.Entries, *O.DeviceSm);
      if (Pick)
        Rs[*Pick].Chosen = true;
      else
        ChoiceErrors.push_back("container " + std::to_string(CI) + ": " + Pick.error().message());
    }
  }
  std::vector<std::string> PtxKernels;
  if (Img->Kind == FileKind::Ptx)
    PtxKernels = listPtxEntries(Img->Ptx);

  if (O.AsJson) {
    Json J;
    J.beginObject();
    J.value("file", O.File);
    J.value("kind", fileKindName(Img->Kind));
    J.value("description", Img->Description);
    J.value("size", uint64_t(Img->Bytes.size()));
    if (Img->Kind == FileKind::Cubin)
      J.value("cubin_sm", uint64_t(Img->CubinSm));
    if (Img->Kind == FileKind::Ptx) {
      J.beginArray("kernels");
      for (const auto &K : PtxKernels)
        J.element(K);
      J.endArray();
    }
    J.beginArray("wrappers");
    for (const FileWrapper &W : Img->Wrappers) {
      J.beginObject();
      J.value("offset", W.W.Offset);
      J.value("version", uint64_t(W.W.Version));
      J.value("data_address", W.W.Data);
      if (W.DataOffset)
        J.value("data_offset", *W.DataOffset);
      else
        J.null("data_offset");
      J.value(W.W.Version == 2 ? "prelinked_list_address" : "filename_address",
              W.W.FilenameOrFatbins);
      J.endObject();
    }
    J.endArray();
    J.beginArray("containers");
    for (size_t CI = 0; CI < Img->Containers.size(); ++CI) {
      const FileContainer &FC = Img->Containers[CI];
      J.beginObject();
      J.value("index", uint64_t(CI));
      J.value("section", FC.Section);
      J.value("offset", FC.C.Offset);
      J.value("version", uint64_t(FC.C.Version));
      J.value("size", FC.C.totalSize());
      J.beginArray("entries");
      for (size_t EI = 0; EI < Reports[CI].size(); ++EI)
        entryJson(J, EI, Reports[CI][EI]);
      J.endArray();
      J.endObject();
    }
    J.endArray();
    if (O.DeviceSm) {
      J.value("device_sm", uint64_t(*O.DeviceSm));
      J.beginArray("choice_errors");
      for (const auto &E : ChoiceErrors)
        J.element(E);
      J.endArray();
    }
    J.value("ok", !Failed);
    J.endObject();
    std::printf("%s\n", J.text().c_str());
  } else {
    std::printf("%s: %s, %zu bytes\n", O.File.c_str(), Img->Description.c_str(),
                Img->Bytes.size());
    if (Img->Kind == FileKind::Ptx) {
      std::printf("kernels:");
      for (const auto &K : PtxKernels)
        std::printf(" %s", K.c_str());
      std::printf(PtxKernels.empty() ? " (none)\n" : "\n");
    }
    for (size_t WI = 0; WI < Img->Wrappers.size(); ++WI) {
      const FileWrapper &W = Img->Wrappers[WI];
      std::printf("wrapper %zu @%s: version %u, data ", WI, hexOffset(W.W.Offset).c_str(),
                  W.W.Version);
      if (W.DataOffset)
        std::printf("-> container @%s", hexOffset(*W.DataOffset).c_str());
      else
        std::printf("%s (relocated at load)", hexOffset(W.W.Data).c_str());
      if (W.W.Version == 2)
        std::printf(", prelinked list @vaddr %s", hexOffset(W.W.FilenameOrFatbins).c_str());
      std::printf("\n");
    }
    if (Img->Kind == FileKind::HostElf && Img->Containers.empty())
      std::printf("no fatbin sections (.nv_fatbin, __nv_relfatbin): no device code\n");
    for (size_t CI = 0; CI < Img->Containers.size(); ++CI) {
      const FileContainer &FC = Img->Containers[CI];
      std::printf("container %zu @%s%s%s: version %u, %zu entries, %llu bytes\n", CI,
                  hexOffset(FC.C.Offset).c_str(), FC.Section.empty() ? "" : " in ",
                  FC.Section.c_str(), FC.C.Version, FC.C.Entries.size(),
                  (unsigned long long)FC.C.totalSize());
      for (size_t EI = 0; EI < Reports[CI].size(); ++EI)
        printEntryText(EI, Reports[CI][EI]);
    }
    for (const auto &E : ChoiceErrors)
      std::printf("%s\n", E.c_str());
  }
  if (Failed)
    std::fprintf(stderr, "ferry inspect: %s: some entries could not be decoded\n",
                 O.File.c_str());
  return Failed ? 1 : 0;
}

} // namespace

FERRY_REGISTER_COMMAND(Inspect, "inspect",
                       "list the fatbin containers, entries and kernels of a file", runInspect);

} // namespace ferry::tool
