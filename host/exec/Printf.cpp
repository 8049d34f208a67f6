/// \file
/// Device printf for the host executor. nvcc compiles printf(fmt, ...) into
/// vprintf(fmt, buf): buf packs the arguments after C default promotions
/// (float → double, small integers → int), each aligned to its own size.
/// Each conversion is re-formatted with the host's snprintf from a spec
/// rebuilt with a host length modifier, so flags, width and precision
/// behave as in C. Like CUDA's printf the result is the number of arguments
/// consumed.
#include "host/exec/ExecInternal.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ferry::host {
namespace {

class ArgReader {
public:
  explicit ArgReader(const char *Buf) : Buf(Buf) {}
  template <typename T> T take() {
    Off = (Off + sizeof(T) - 1) & ~(sizeof(T) - 1);
    T V;
    std::memcpy(&V, Buf + Off, sizeof(T));
    Off += sizeof(T);
    ++Count;
    return V;
  }
  int count() const { return Count; }

private:
  const char *Buf;
  size_t Off = 0;
  int Count = 0;
};

template <typename... Ts> void appendf(std::string &Out, const std::string &Spec, Ts... Vs) {
  char Small[256];
  int N = std::snprintf(Small, sizeof(Small), Spec.c_str(), Vs...);
  if (N < 0)
    return;
  if (static_cast<size_t>(N) < sizeof(Small)) {
    Out.append(Small, N);
    return;
  }
  std::string Big(static_cast<size_t>(N) + 1, '\0');
  std::snprintf(Big.data(), Big.size(), Spec.c_str(), Vs...);
  Out.append(Big.data(), N);
}

} // namespace

int formatDevicePrintf(const char *Format, const char *Args, std::string &Out) {
  if (!Format)
    return -1;
  ArgReader R(Args);
  const char *P = Format;
  while (*P) {
    if (*P != '%') {
      Out += *P++;
      continue;
    }
    if (P[1] == '%') {
      Out += '%';
      P += 2;
      continue;
    }
    const char *Start = P++;
    std::string Spec = "%";
    while (*P && std::strchr("-+ #0", *P))
      Spec += *P++;
    if (*P == '*') {
      if (!Args)
        break;
      Spec += std::to_string(R.take<int32_t>());
      ++P;
    }
    while (std::isdigit(static_cast<unsigned char>(*P)))
      Spec += *P++;
    if (*P == '.') {
      Spec += *P++;
      if (*P == '*') {
        if (!Args)
          break;
        Spec += std::to_string(R.take<int32_t>());
        ++P;
      }
      while (std::isdigit(static_cast<unsigned char>(*P)))
        Spec += *P++;
    }
    int Len = 0; // 0 none, 1 h, 2 hh, 3 long (8 bytes)
    if (*P == 'h') {
      Len = P[1] == 'h' ? 2 : 1;
      P += Len;
    } else if (*P == 'l' || *P == 'z' || *P == 'j' || *P == 't' || *P == 'L' || *P == 'q') {
      Len = 3;
      ++P;
      if (*P == 'l')
        ++P;
    }
    char Conv = *P;
    if (!Conv || !std::strchr("diuoxXcspfFeEgGaAn", Conv) || !Args) {
      // Not a conversion we know (or no argument buffer): print it verbatim.
      Out.append(Start, P - Start);
      if (Conv)
        Out += *P++;
      continue;
    }
    ++P;
    switch (Conv) {
    case 'd':
    case 'i': {
      long long V = Len == 3 ? R.take<int64_t>() : R.take<int32_t>();
      if (Len == 1)
        V = static_cast<short>(V);
      else if (Len == 2)
        V = static_cast<signed char>(V);
      appendf(Out, Spec + "ll" + Conv, V);
      break;
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X': {
      unsigned long long V = Len == 3 ? R.take<uint64_t>() : R.take<uint32_t>();
      if (Len == 1)
        V = static_cast<unsigned short>(V);
      else if (Len == 2)
        V = static_cast<unsigned char>(V);
      appendf(Out, Spec + "ll" + Conv, V);
      break;
    }
    case 'c': appendf(Out, Spec + 'c', static_cast<int>(R.take<int32_t>())); break;
    case 's': {
      auto *S = reinterpret_cast<const char *>(R.take<uint64_t>());
      appendf(Out, Spec + 's', S ? S : "(null)");
      break;
    }
    case 'p': appendf(Out, Spec + 'p', reinterpret_cast<void *>(R.take<uint64_t>())); break;
    case 'n': R.take<uint64_t>(); break; // Never written to, as on the device.
    default: appendf(Out, Spec + Conv, R.take<double>()); break;
    }
  }
  return R.count();
}

} // namespace ferry::host
