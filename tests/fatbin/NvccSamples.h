/// \file
/// Shared helpers for the tests over nvcc-built samples (tests/fatbin/
/// CMakeLists.txt builds them into FATBIN_SAMPLES_DIR).
#pragma once

#include <string>
#include <vector>

namespace ferry::fatbin::test {

/// Whether the build made the samples (nvcc was found).
bool haveSamples();
std::string samplePath(const std::string &Name);
std::string readText(const std::string &Path);

/// What nvcc does to PTX when it embeds it in a fatbin, observed on nvcc
/// 13.0 (compare `nvcc -ptx` with the decompressed entry): `//` comments are
/// removed (to the end of the line), every run of blanks (spaces/tabs) is
/// replaced by its first character, and the blanks that then lead a line are
/// removed; trailing blanks and line breaks are kept. Applying this to `nvcc -ptx` output gives
/// the embedded text byte for byte.
std::string embedNormalize(const std::string &Ptx);

} // namespace ferry::fatbin::test
