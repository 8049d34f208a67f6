/// \file
/// Errors as values for ferry's core (STYLE.md item 3). An `Error` carries a
/// CUresult and a human message; `Expected<T>` is either a T or an Error.
/// Nothing throws across the C ABI: entry points unwrap an Expected, log the
/// message and return the code.
#pragma once

#include "ferry/cuda_result.h"

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ferry {

class [[nodiscard]] Error {
public:
  Error(CUresult Code, std::string Message) : Code(Code), Message(std::move(Message)) {}
  CUresult code() const { return Code; }
  const std::string &message() const { return Message; }

private:
  CUresult Code;
  std::string Message;
};

/// Builds an Error with a printf-free message assembled by the caller.
inline Error makeError(CUresult Code, std::string Message) {
  return Error(Code, std::move(Message));
}

template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T Value) : Storage(std::in_place_index<0>, std::move(Value)) {}
  Expected(Error E) : Storage(std::in_place_index<1>, std::move(E)) {}

  explicit operator bool() const { return Storage.index() == 0; }
  T &operator*() {
    assert(*this && "dereferencing an Expected that holds an error");
    return std::get<0>(Storage);
  }
  const T &operator*() const {
    assert(*this && "dereferencing an Expected that holds an error");
    return std::get<0>(Storage);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  const Error &error() const {
    assert(!*this && "asking an Expected that holds a value for its error");
    return std::get<1>(Storage);
  }
  Error takeError() { return std::move(std::get<1>(Storage)); }
  CUresult code() const { return *this ? CUDA_SUCCESS : error().code(); }

private:
  std::variant<T, Error> Storage;
};

/// The result of an operation that yields nothing but may fail.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error E) : Err(std::move(E)), Failed(true) {}
  static Status ok() { return Status(); }
  explicit operator bool() const { return !Failed; }
  CUresult code() const { return Failed ? Err.code() : CUDA_SUCCESS; }
  const std::string &message() const { return Err.message(); }
  Error takeError() { return std::move(Err); }

private:
  Error Err{CUDA_SUCCESS, {}};
  bool Failed = false;
};

} // namespace ferry
