/// \file
/// Helpers for the nvcc-sample tests; see NvccSamples.h.
#include "NvccSamples.h"

#include <fstream>
#include <sstream>

namespace ferry::fatbin::test {

bool haveSamples() { return FATBIN_HAVE_SAMPLES; }

std::string samplePath(const std::string &Name) {
  return std::string(FATBIN_SAMPLES_DIR) + "/" + Name;
}

std::string readText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

std::string embedNormalize(const std::string &Ptx) {
  std::string Out;
  size_t Pos = 0;
  while (Pos <= Ptx.size()) {
    size_t Nl = Ptx.find('\n', Pos);
    bool Last = Nl == std::string::npos;
    std::string Line = Ptx.substr(Pos, Last ? std::string::npos : Nl - Pos);
    if (size_t C = Line.find("//"); C != std::string::npos)
      Line.resize(C);
    std::string Collapsed;
    for (size_t I = 0; I < Line.size(); ++I) {
      bool Blank = Line[I] == ' ' || Line[I] == '\t';
      if (Blank && I > 0 && (Line[I - 1] == ' ' || Line[I - 1] == '\t'))
        continue;
      Collapsed += Line[I];
    }
    size_t B = Collapsed.find_first_not_of(" \t");
    Out += B == std::string::npos ? "" : Collapsed.substr(B);
    if (Last)
      break;
    Out += '\n';
    Pos = Nl + 1;
  }
  return Out;
}

} // namespace ferry::fatbin::test
