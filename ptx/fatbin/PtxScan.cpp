/// \file
/// Token-level scan for `.entry` names; see PtxScan.h.
#include "ptx/fatbin/PtxScan.h"

namespace ferry::fatbin {

static bool isIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' || C == '$' || C == '%';
}
static bool isIdentChar(char C) { return isIdentStart(C) || (C >= '0' && C <= '9'); }

std::vector<std::string> listPtxEntries(std::string_view S) {
  std::vector<std::string> Names;
  bool WantName = false;
  size_t I = 0, N = S.size();
  while (I < N) {
    char C = S[I];
    if (C == '/' && I + 1 < N && S[I + 1] == '/') {
      while (I < N && S[I] != '\n')
        ++I;
    } else if (C == '/' && I + 1 < N && S[I + 1] == '*') {
      size_t End = S.find("*/", I + 2);
      I = End == std::string_view::npos ? N : End + 2;
    } else if (C == '"') {
      for (++I; I < N && S[I] != '"'; ++I)
        if (S[I] == '\\')
          ++I;
      ++I;
    } else if (C == '.' || isIdentStart(C)) {
      size_t Start = I++;
      while (I < N && isIdentChar(S[I]))
        ++I;
      std::string_view Tok = S.substr(Start, I - Start);
      if (WantName && C != '.') {
        Names.emplace_back(Tok);
        WantName = false;
      } else {
        WantName = Tok == ".entry";
      }
    } else {
      // Whitespace keeps us waiting for the name; anything else ends the wait.
      if (C != ' ' && C != '\t' && C != '\n' && C != '\r')
        WantName = false;
      ++I;
    }
  }
  return Names;
}

} // namespace ferry::fatbin
