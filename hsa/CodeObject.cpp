/// \file
/// Code objects: linking the AMDGPU relocatable object into the shared
/// object ROCr loads (lld's ELF driver, in-process), reading the kernels'
/// facts back from the NT_AMDGPU_METADATA note (msgpack), and disassembling
/// the code with the MC disassembler for `ferry inspect --isa`.
#include "hsa/Lowering.h"

#include "lld/Common/Driver.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace llvm;

namespace ferry::hsa {

void initializeAMDGPUTarget(); // HsaCompiler.cpp

static Error failure(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

//===----------------------------------------------------------------------===//
// Linking.
//===----------------------------------------------------------------------===//

Expected<std::vector<uint8_t>> linkCodeObject(ArrayRef<char> Object) {
  // lld reads and writes files; private temporaries keep concurrent compiles
  // apart, and the driver itself keeps global state, hence the lock.
  static std::mutex LldLock;
  SmallString<128> In, Out;
  int InFD;
  if (std::error_code EC = sys::fs::createTemporaryFile("ferry-hsa", "o", InFD, In))
    return createStringError(EC, "cannot create a temporary file: " + EC.message());
  FileRemover RemoveIn(In);
  {
    raw_fd_ostream OS(InFD, /*shouldClose=*/true);
    OS.write(Object.data(), Object.size());
    if (OS.has_error())
      return failure("cannot write " + In);
  }
  if (std::error_code EC = sys::fs::createTemporaryFile("ferry-hsa", "hsaco", Out))
    return createStringError(EC, "cannot create a temporary file: " + EC.message());
  FileRemover RemoveOut(Out);

  std::string Diagnostics;
  raw_string_ostream Diag(Diagnostics);
  const char *Args[] = {"ld.lld", "-shared", "--no-undefined", "-o", Out.c_str(), In.c_str()};
  lld::Result R;
  {
    std::lock_guard<std::mutex> Lock(LldLock);
    R = lld::lldMain(Args, Diag, Diag, {{lld::Gnu, &lld::elf::link}});
  }
  if (R.retCode != 0)
    return failure("lld failed to link the code object: " + Diagnostics);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Out);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read the linked code object");
  const auto *P = reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart());
  return std::vector<uint8_t>(P, P + (*Buf)->getBufferSize());
}

//===----------------------------------------------------------------------===//
// Metadata.
//===----------------------------------------------------------------------===//

static Expected<std::unique_ptr<object::ELF64LEObjectFile>> openAmdgpuElf(ArrayRef<uint8_t> Elf) {
  MemoryBufferRef Ref(StringRef(reinterpret_cast<const char *>(Elf.data()), Elf.size()),
                      "code object");
  if (Elf.size() < 64 || std::memcmp(Elf.data(), "\x7f" "ELF", 4) != 0 || Elf[4] != 2)
    return failure("not an ELF64 code object");
  Expected<object::ELF64LEObjectFile> Obj = object::ELF64LEObjectFile::create(Ref);
  if (!Obj)
    return Obj.takeError();
  if (Obj->getELFFile().getHeader().e_machine != ELF::EM_AMDGPU)
    return failure("not an AMDGPU code object (e_machine is not EM_AMDGPU)");
  return std::make_unique<object::ELF64LEObjectFile>(std::move(*Obj));
}

static msgpack::DocNode *lookup(msgpack::DocNode &Map, StringRef Key) {
  if (!Map.isMap())
    return nullptr;
  for (auto &[K, V] : Map.getMap())
    if (K.isString() && K.getString() == Key)
      return &V;
  return nullptr;
}

static uint32_t number(msgpack::DocNode &Map, StringRef Key) {
  msgpack::DocNode *N = lookup(Map, Key);
  if (!N)
    return 0;
  if (N->getKind() == msgpack::Type::UInt)
    return uint32_t(N->getUInt());
  if (N->getKind() == msgpack::Type::Int)
    return uint32_t(N->getInt());
  return 0;
}

static std::string string(msgpack::DocNode &Map, StringRef Key) {
  msgpack::DocNode *N = lookup(Map, Key);
  return N && N->isString() ? N->getString().str() : std::string();
}

static Expected<StringRef> metadataNote(const object::ELF64LEObjectFile &Obj) {
  const object::ELFFile<object::ELF64LE> &EF = Obj.getELFFile();
  Expected<object::ELF64LEFile::Elf_Shdr_Range> Sections = EF.sections();
  if (!Sections)
    return Sections.takeError();
  for (const auto &Sec : *Sections) {
    if (Sec.sh_type != ELF::SHT_NOTE)
      continue;
    Error Err = Error::success();
    for (const auto &Note : EF.notes(Sec, Err))
      if (Note.getName() == "AMDGPU" && Note.getType() == ELF::NT_AMDGPU_METADATA) {
        ArrayRef<uint8_t> Desc = Note.getDesc(Sec.sh_addralign);
        consumeError(std::move(Err));
        return StringRef(reinterpret_cast<const char *>(Desc.data()), Desc.size());
      }
    if (Err)
      return std::move(Err);
  }
  return failure("the code object has no NT_AMDGPU_METADATA note");
}

Expected<std::vector<KernelInfo>> readKernelInfo(ArrayRef<uint8_t> Elf) {
  auto Obj = openAmdgpuElf(Elf);
  if (!Obj)
    return Obj.takeError();
  Expected<StringRef> Blob = metadataNote(**Obj);
  if (!Blob)
    return Blob.takeError();
  msgpack::Document Doc;
  if (!Doc.readFromBlob(*Blob, /*Multi=*/false))
    return failure("malformed msgpack in the AMDGPU metadata note");
  msgpack::DocNode *Kernels = lookup(Doc.getRoot(), "amdhsa.kernels");
  if (!Kernels || !Kernels->isArray())
    return failure("the AMDGPU metadata has no amdhsa.kernels list");
  std::vector<KernelInfo> Result;
  for (msgpack::DocNode &K : Kernels->getArray()) {
    KernelInfo I;
    I.Name = string(K, ".name");
    I.Symbol = string(K, ".symbol");
    I.KernargSize = number(K, ".kernarg_segment_size");
    I.KernargAlign = number(K, ".kernarg_segment_align");
    I.GroupSegmentSize = number(K, ".group_segment_fixed_size");
    I.PrivateSegmentSize = number(K, ".private_segment_fixed_size");
    I.WavefrontSize = number(K, ".wavefront_size");
    I.SgprCount = number(K, ".sgpr_count");
    I.VgprCount = number(K, ".vgpr_count");
    I.AgprCount = number(K, ".agpr_count");
    I.MaxFlatWorkgroupSize = number(K, ".max_flat_workgroup_size");
    if (msgpack::DocNode *D = lookup(K, ".uses_dynamic_stack"); D && D->getKind() == msgpack::Type::Boolean)
      I.UsesDynamicStack = D->getBool();
    if (msgpack::DocNode *Args = lookup(K, ".args"); Args && Args->isArray())
      for (msgpack::DocNode &A : Args->getArray()) {
        KernelArgInfo AI{string(A, ".value_kind"), number(A, ".offset"), number(A, ".size")};
        if (!StringRef(AI.ValueKind).starts_with("hidden_"))
          I.ExplicitArgSize = std::max(I.ExplicitArgSize, AI.Offset + AI.Size);
        I.Args.push_back(std::move(AI));
      }
    if (I.Name.empty() || I.Symbol.empty())
      return failure("a kernel in the AMDGPU metadata has no .name or .symbol");
    Result.push_back(std::move(I));
  }
  return Result;
}

Expected<std::string> codeObjectTarget(ArrayRef<uint8_t> Elf) {
  auto Obj = openAmdgpuElf(Elf);
  if (!Obj)
    return Obj.takeError();
  std::optional<StringRef> CPU = (*Obj)->tryGetCPUName();
  if (!CPU || CPU->empty())
    return failure("unknown AMDGPU processor in e_flags");
  return CPU->str();
}

//===----------------------------------------------------------------------===//
// Disassembly.
//===----------------------------------------------------------------------===//

Expected<std::string> disassemble(ArrayRef<uint8_t> Elf) {
  auto Obj = openAmdgpuElf(Elf);
  if (!Obj)
    return Obj.takeError();
  Expected<std::string> CPU = codeObjectTarget(Elf);
  if (!CPU)
    return CPU.takeError();
  initializeAMDGPUTarget();
  Triple TT("amdgcn-amd-amdhsa");
  std::string Err;
  const Target *T = TargetRegistry::lookupTarget(TT.str(), Err);
  if (!T)
    return failure("AMDGPU target unavailable: " + Err);
  std::unique_ptr<MCRegisterInfo> MRI(T->createMCRegInfo(TT.str()));
  MCTargetOptions MCOpts;
  std::unique_ptr<MCAsmInfo> MAI(T->createMCAsmInfo(*MRI, TT.str(), MCOpts));
  std::unique_ptr<MCInstrInfo> MII(T->createMCInstrInfo());
  // The wavefront size changes how some operands print; e_flags do not
  // carry it, so take it from the kernels' metadata.
  std::string Features;
  if (auto Kernels = readKernelInfo(Elf); Kernels && !Kernels->empty())
    Features = (*Kernels)[0].WavefrontSize == 32 ? "+wavefrontsize32" : "+wavefrontsize64";
  else
    consumeError(Kernels.takeError());
  std::unique_ptr<MCSubtargetInfo> STI(T->createMCSubtargetInfo(TT.str(), *CPU, Features));
  if (!MRI || !MAI || !MII || !STI)
    return failure("cannot create the AMDGPU MC layer");
  MCContext Ctx(TT, MAI.get(), MRI.get(), STI.get());
  std::unique_ptr<MCDisassembler> Dis(T->createMCDisassembler(*STI, Ctx));
  std::unique_ptr<MCInstPrinter> IP(
      T->createMCInstPrinter(TT, MAI->getAssemblerDialect(), *MAI, *MII, *MRI));
  if (!Dis || !IP)
    return failure("cannot create the AMDGPU disassembler");

  std::string Text;
  raw_string_ostream OS(Text);
  for (const object::SectionRef &Sec : (*Obj)->sections()) {
    if (!Sec.isText())
      continue;
    Expected<StringRef> Contents = Sec.getContents();
    if (!Contents)
      return Contents.takeError();
    uint64_t Base = Sec.getAddress();
    std::multimap<uint64_t, std::string> Labels;
    for (const object::SymbolRef &Sym : (*Obj)->symbols()) {
      Expected<object::section_iterator> S = Sym.getSection();
      Expected<uint64_t> Addr = Sym.getAddress();
      Expected<StringRef> Name = Sym.getName();
      if (S && Addr && Name && *S == Sec && !Name->empty())
        Labels.emplace(*Addr, Name->str());
      else {
        if (!S) consumeError(S.takeError());
        if (!Addr) consumeError(Addr.takeError());
        if (!Name) consumeError(Name.takeError());
      }
    }
    Expected<StringRef> SecName = Sec.getName();
    OS << "Disassembly of section " << (SecName ? *SecName : "?") << " (" << *CPU << "):\n";
    if (!SecName)
      consumeError(SecName.takeError());
    ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>(Contents->data()), Contents->size());
    for (uint64_t Off = 0; Off < Bytes.size();) {
      uint64_t Addr = Base + Off;
      for (auto [It, End] = Labels.equal_range(Addr); It != End; ++It)
        OS << "\n" << It->second << ":\n";
      MCInst Inst;
      uint64_t Size = 0;
      if (Dis->getInstruction(Inst, Size, Bytes.slice(Off), Addr, nulls()) ==
              MCDisassembler::Success &&
          Size) {
        OS << "  ";
        IP->printInst(&Inst, Addr, "", *STI, OS);
      } else {
        Size = std::min<uint64_t>(4, Bytes.size() - Off);
        OS << "  .byte";
        for (uint64_t I = 0; I < Size; ++I)
          OS << (I ? ", " : " ") << format_hex(Bytes[Off + I], 4);
      }
      OS << "\n";
      Off += Size;
    }
  }
  return Text;
}

} // namespace ferry::hsa
