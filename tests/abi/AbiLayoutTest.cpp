/// \file
/// ferry's ABI headers against NVIDIA's: every enumerator, integer macro,
/// struct/union size and alignment, and every field's offset and size that
/// include/ferry declares must equal NVIDIA's. The checks are static_asserts
/// generated from ferry's headers (scripts/gen-api --abi-checks), so a
/// declaration added later is checked without anyone writing a test; a
/// mismatch fails the build of this test. ferry's declarations live in
/// namespace ferry_abi so both sets coexist in one translation unit.
#include "NvidiaHeaders.h"

#include <cstddef>

namespace ferry_abi {
#define FERRY_ABI_NO_MACROS
#include "ferry/cuda.h"
#include "ferry/cuda_interop.h"
#include "ferry/cuda_runtime_types.h"
#undef FERRY_ABI_NO_MACROS
} // namespace ferry_abi

#include "AbiChecks.inc"

#include <gtest/gtest.h>

// The work is done at compile time; this keeps a record in the test log and
// checks the generated list is not empty (a parser regression would be).
TEST(AbiLayout, ChecksWereGenerated) { EXPECT_GT(FERRY_ABI_CHECK_COUNT, 4000); }
