/// \file
/// The PTX entry choice rule (ptx/fatbin/Select.h) on synthetic entry lists.
#include "ptx/fatbin/Select.h"

#include <gtest/gtest.h>

using namespace ferry::fatbin;

namespace {

Entry ptx(unsigned Sm, uint16_t Major = 9, uint16_t Minor = 0, uint64_t Extra = 0) {
  Entry E;
  E.RawKind = 1;
  E.SmArch = Sm;
  E.VersionMajor = Major;
  E.VersionMinor = Minor;
  E.Flags = 0x11 | Extra;
  return E;
}

Entry elf(unsigned Sm) {
  Entry E;
  E.RawKind = 2;
  E.SmArch = Sm;
  E.VersionMajor = 1;
  E.VersionMinor = 8;
  E.Flags = 0x11;
  return E;
}

/// The chosen index, or -1 with the error's code checked.
int pick(const std::vector<Entry> &Es, unsigned Sm, PtxVersion Max = MaxSupportedPtx,
         CUresult Want = CUDA_ERROR_NO_BINARY_FOR_GPU) {
  auto R = choosePtxEntry(Es, Sm, Max);
  if (!R) {
    EXPECT_EQ(R.error().code(), Want) << R.error().message();
    return -1;
  }
  return int(*R);
}

} // namespace

TEST(FatbinSelect, PlainTargetsAreForwardCompatible) {
  std::vector<Entry> Es = {elf(75), ptx(75), ptx(80), ptx(86)};
  EXPECT_EQ(pick(Es, 75), 1);
  EXPECT_EQ(pick(Es, 80), 2);
  EXPECT_EQ(pick(Es, 89), 3); // highest target <= device
  EXPECT_EQ(pick(Es, 120), 3);
  EXPECT_EQ(pick(Es, 70), 1); // none fits: the lowest newer target (rule 3)
}

TEST(FatbinSelect, ElfIsNeverChosen) {
  std::vector<Entry> Es = {elf(80), elf(90)};
  auto R = choosePtxEntry(Es, 90);
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().code(), CUDA_ERROR_NO_BINARY_FOR_GPU);
  // The message says what was there, so the user sees why.
  EXPECT_NE(R.error().message().find("ELF sm_80, ELF sm_90"), std::string::npos)
      << R.error().message();
}

TEST(FatbinSelect, ArchSpecificOnlyOnThatArch) {
  std::vector<Entry> Es = {ptx(80), ptx(90, 9, 0, flags::ArchSpecific)};
  EXPECT_EQ(pick(Es, 90), 1);
  EXPECT_EQ(pick(Es, 89), 0);
  EXPECT_EQ(pick(Es, 100), 0); // sm_90a features may be gone on sm_100
  EXPECT_EQ(pick({ptx(90, 9, 0, flags::ArchSpecific)}, 100), 0); // nothing fits: rule 3
}

TEST(FatbinSelect, FamilyWithinItsMajor) {
  std::vector<Entry> Es = {ptx(75), ptx(100, 9, 0, flags::FamilySpecific)};
  EXPECT_EQ(pick(Es, 100), 1);
  EXPECT_EQ(pick(Es, 103), 1);
  EXPECT_EQ(pick(Es, 120), 0); // another family
  EXPECT_EQ(pick(Es, 90), 0);  // older than the target
  EXPECT_EQ(pick({ptx(103, 9, 0, flags::FamilySpecific)}, 100), 0); // nothing fits: rule 3
}

TEST(FatbinSelect, PtxVersionLimitAndTies) {
  std::vector<Entry> Es = {ptx(80, 8, 5), ptx(80, 9, 0), ptx(86, 9, 3)};
  EXPECT_EQ(pick(Es, 86), 1); // 9.3 is newer than we support
  EXPECT_EQ(pick({ptx(86, 9, 2)}, 86), 0); // CUDA 13.2's PTX ISA
  EXPECT_EQ(pick(Es, 86, PtxVersion{9, 3}), 2);
  EXPECT_EQ(pick(Es, 86, PtxVersion{8, 7}), 0);
  // PTX that fits the device but is too new is an unsupported PTX version,
  // as NVIDIA's driver reports PTX newer than its JIT.
  EXPECT_EQ(pick(Es, 86, PtxVersion{8, 0}, CUDA_ERROR_UNSUPPORTED_PTX_VERSION), -1);
  EXPECT_EQ(pick({ptx(75, 9, 9)}, 90, MaxSupportedPtx, CUDA_ERROR_UNSUPPORTED_PTX_VERSION), -1);
  // Too new and for a newer device: still PTX newer than ferry reads.
  EXPECT_EQ(pick({ptx(100, 9, 9), elf(90)}, 90, MaxSupportedPtx, CUDA_ERROR_UNSUPPORTED_PTX_VERSION), -1);
  // Same target and version: the plain target beats the arch-specific one,
  // then the earlier entry wins.
  std::vector<Entry> Tie = {ptx(90, 9, 0, flags::ArchSpecific), ptx(90), ptx(90)};
  EXPECT_EQ(pick(Tie, 90), 1);
  // Target beats PTX version.
  std::vector<Entry> Order = {ptx(86, 9, 0), ptx(80, 9, 0)};
  EXPECT_EQ(pick(Order, 90), 0);
  EXPECT_EQ(pick({}, 90), -1);
}

TEST(FatbinSelect, NewerTargetsWhenNothingFits) {
  // Rule 3: plain before family before arch-specific, then the lowest
  // target, then the newest PTX; an entry that fits always wins.
  std::vector<Entry> Es = {ptx(120, 9, 0), ptx(100, 9, 0, flags::FamilySpecific),
                           ptx(90, 9, 0, flags::ArchSpecific), ptx(100, 8, 8), ptx(100, 9, 0)};
  EXPECT_EQ(pick(Es, 86), 4);
  EXPECT_EQ(pick({Es[1], Es[2]}, 86), 0);
  EXPECT_EQ(pick({Es[0], ptx(75)}, 86), 1);
  // Too new PTX is never chosen, even for a newer target.
  EXPECT_EQ(pick({ptx(120, 9, 9), ptx(121, 9, 2)}, 86), 1);
}

TEST(FatbinSelect, UsableRule) {
  EXPECT_TRUE(ptxUsableOn(ptx(75), 75));
  EXPECT_FALSE(ptxUsableOn(elf(75), 75));
  EXPECT_FALSE(ptxUsableOn(ptx(75, 10, 0), 75));
  EXPECT_TRUE(ptxUsableOn(ptx(75, 8, 9), 75));
}
