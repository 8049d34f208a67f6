/// \file
/// A light scan of PTX text for what tools want before a full parse: the
/// names of its `.entry` kernels. It skips comments and string literals and
/// nothing more; the PTX parser (ptx/parser) is the real reader.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ferry::fatbin {

/// Kernel names in order of appearance (`.entry NAME (`).
std::vector<std::string> listPtxEntries(std::string_view Ptx);

} // namespace ferry::fatbin
