/// \file
/// Validated handles. Every object the driver API hands out (context,
/// stream, event, library, kernel, module, function) is an `Object`
/// registered in one live-object table while it exists. An API call turns a
/// handle into a `Ref<T>` by looking the raw pointer up in that table first
/// (so garbage is never dereferenced) and then checking the object's kind
/// word (so a stream passed as an event is rejected). The table holds a
/// shared_ptr, and Ref<T> holds one too, so an object destroyed by another
/// thread mid-call stays alive until the call returns.
#pragma once

#include "support/Expected.h"

#include <cstdint>
#include <memory>

namespace ferry::core {

enum class Kind : uint32_t {
  Context = 0xFE4C7C01,
  Stream = 0xFE4C7C02,
  Event = 0xFE4C7C03,
  Library = 0xFE4C7C04,
  Kernel = 0xFE4C7C05,
  Module = 0xFE4C7C06,
  Function = 0xFE4C7C07,
  Array = 0xFE4C7C08,
  Graph = 0xFE4C7C0B,
  GraphNode = 0xFE4C7C0C,
  GraphExec = 0xFE4C7C0D,
  MemPool = 0xFE4C7C20,
  UserObject = 0xFE4C7C21,
};

const char *kindName(Kind K);

class Object : public std::enable_shared_from_this<Object> {
public:
  explicit Object(Kind K) : Magic(K) {}
  virtual ~Object();
  Kind kind() const { return Magic; }

private:
  Kind Magic;
};

template <typename T> using Ref = std::shared_ptr<T>;

namespace detail {
std::shared_ptr<Object> lookup(const void *Handle);
} // namespace detail

/// Makes Obj reachable through its address. Call once, after construction.
void publish(const std::shared_ptr<Object> &Obj);
/// Removes Obj from the table: later lookups of its handle fail. Existing
/// Refs keep it alive.
void retire(const Object *Obj);
/// Number of live handles (tests).
size_t liveHandleCount();

/// The object behind Handle if it is live and of T's kind; a
/// CUDA_ERROR_INVALID_HANDLE (or the given code) error otherwise.
template <typename T>
Expected<Ref<T>> resolve(const void *Handle, CUresult Code = CUDA_ERROR_INVALID_HANDLE) {
  if (!Handle)
    return makeError(Code, std::string("null ") + kindName(T::ObjectKind) + " handle");
  std::shared_ptr<Object> O = detail::lookup(Handle);
  if (!O)
    return makeError(Code, std::string("not a live ") + kindName(T::ObjectKind) + " handle");
  if (O->kind() != T::ObjectKind)
    return makeError(Code, std::string("handle is a ") + kindName(O->kind()) + ", not a " +
                               kindName(T::ObjectKind));
  return std::static_pointer_cast<T>(O);
}

} // namespace ferry::core
