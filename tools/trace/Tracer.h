/// \file
/// The API tracer behind `ferry trace`: a library named libcuda.so.1 that
/// exports every driver symbol of the API table, forwards each call to the
/// real driver (ferry's, or NVIDIA's with `ferry trace --native`), and writes
/// one line per call with decoded arguments, the result, and the values
/// returned through output pointers. cuGetProcAddress hands out the
/// wrappers, so calls that NVIDIA's cudart makes through function pointers
/// are traced too. The wrappers are generated (scripts/gen-trace); this
/// header is what they use.
///
/// Threading: any thread may call any wrapper; each call's line is written
/// whole under a lock.
#pragma once

#include "ferry/cuda.h"
#include "ferry/cuda_interop.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#define FERRY_TRACE_EXPORT __attribute__((visibility("default")))

namespace ferry::trace {

/// The real driver's symbol `Name`, or null when it has none.
void *resolveReal(const char *Name);

/// Writes one finished trace line.
void emit(const std::string &Line);

const char *resultName(int Code);

struct WrapperEntry {
  const char *Symbol;
  const char *Base;
  void *Wrapper;
};
extern const WrapperEntry Wrappers[];
extern const size_t NumWrappers;

/// One traced call: collects the arguments, then the result, then emits.
class Call {
public:
  explicit Call(const char *Name) : Line(Name) { Line += '('; }

  template <typename T> void arg(const char *Name, const T &V) {
    if (NumArgs++)
      Line += ", ";
    Line += Name;
    Line += '=';
    format(V, /*Deref=*/false);
  }

  /// After a successful call: the value written through an output pointer.
  template <typename T> void out(const char *Name, T *P) {
    if (!Succeeded || !P)
      return;
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, char>) {
      Outs += std::string(" ") + Name + "=\"" + clip(P) + '"';
    } else if constexpr (std::is_pointer_v<U> || std::is_arithmetic_v<U> || std::is_enum_v<U>) {
      Outs += std::string(" *") + Name + '=';
      std::swap(Line, Outs);
      format(*P, true);
      std::swap(Line, Outs);
    }
  }

  void result(CUresult R) {
    Line += ") = ";
    Line += resultName(R);
    Line += Outs;
    emit(Line);
    Done = true;
  }

  /// The real driver lacks this symbol: trace it and answer NOT_FOUND-like.
  template <typename R> R missing() {
    Line += ") = <not in the real driver>";
    emit(Line);
    Done = true;
    return R(CUDA_ERROR_NOT_FOUND);
  }

  /// Called before result(): whether out() may dereference.
  void setSucceeded(bool S) { Succeeded = S; }

  ~Call() {
    if (!Done) {
      Line += ") = <no result>";
      emit(Line);
    }
  }

private:
  static std::string clip(const char *S) {
    std::string R;
    for (size_t I = 0; S[I] && I < 200; ++I)
      R += (S[I] == '"' || S[I] == '\\') ? '?' : S[I];
    return R;
  }

  template <typename T> void format(const T &V, bool Deref) {
    char Buf[64];
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, const char *> || std::is_same_v<U, char *>) {
      if (!V)
        Line += "NULL";
      else if (std::is_same_v<U, const char *> || Deref)
        Line += '"' + clip(V) + '"';
      else
        pointer(V);
    } else if constexpr (std::is_pointer_v<U>) {
      pointer(reinterpret_cast<const void *>(V));
    } else if constexpr (std::is_enum_v<U>) {
      std::snprintf(Buf, sizeof(Buf), "%lld", (long long)V);
      Line += Buf;
    } else if constexpr (std::is_same_v<U, unsigned long long>) {
      std::snprintf(Buf, sizeof(Buf), "0x%llx", V); // CUdeviceptr, cuuint64_t
      Line += Buf;
    } else if constexpr (std::is_floating_point_v<U>) {
      std::snprintf(Buf, sizeof(Buf), "%g", double(V));
      Line += Buf;
    } else if constexpr (std::is_signed_v<U>) {
      std::snprintf(Buf, sizeof(Buf), "%lld", (long long)V);
      Line += Buf;
    } else if constexpr (std::is_unsigned_v<U>) {
      std::snprintf(Buf, sizeof(Buf), "%llu", (unsigned long long)V);
      Line += Buf;
    } else {
      Line += "{...}"; // a struct passed by value
    }
  }

  void pointer(const void *P) {
    char Buf[32];
    if (!P) {
      Line += "NULL";
      return;
    }
    std::snprintf(Buf, sizeof(Buf), "%p", P);
    Line += Buf;
  }

  std::string Line;
  std::string Outs;
  unsigned NumArgs = 0;
  bool Succeeded = true;
  bool Done = false;
};

} // namespace ferry::trace
