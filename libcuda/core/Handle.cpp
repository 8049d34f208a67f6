/// \file
/// The live-object table behind handle validation. Reads (every API call)
/// take a shared lock; publish/retire take it exclusively.
#include "libcuda/core/Handle.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace ferry::core {

const char *kindName(Kind K) {
  switch (K) {
  case Kind::Context: return "context";
  case Kind::Stream: return "stream";
  case Kind::Event: return "event";
  case Kind::Library: return "library";
  case Kind::Kernel: return "kernel";
  case Kind::Module: return "module";
  case Kind::Function: return "function";
  case Kind::Array: return "array";
  case Kind::Graph: return "graph";
  case Kind::GraphNode: return "graph node";
  case Kind::GraphExec: return "graph exec";
  case Kind::MemPool: return "memory pool";
  case Kind::UserObject: return "user object";
  }
  return "object";
}

Object::~Object() = default;

namespace {
struct Table {
  std::shared_mutex M;
  std::unordered_map<const void *, std::shared_ptr<Object>> Live;
};
// Leaked: handles may be used from atexit handlers and other static
// destructors (cudart unregisters its fatbins that late).
Table &table() {
  static Table *T = new Table();
  return *T;
}
} // namespace

std::shared_ptr<Object> detail::lookup(const void *Handle) {
  Table &T = table();
  std::shared_lock<std::shared_mutex> L(T.M);
  auto It = T.Live.find(Handle);
  return It == T.Live.end() ? nullptr : It->second;
}

void publish(const std::shared_ptr<Object> &Obj) {
  Table &T = table();
  std::unique_lock<std::shared_mutex> L(T.M);
  T.Live[Obj.get()] = Obj;
}

void retire(const Object *Obj) {
  std::shared_ptr<Object> Last;
  {
    Table &T = table();
    std::unique_lock<std::shared_mutex> L(T.M);
    auto It = T.Live.find(Obj);
    if (It == T.Live.end())
      return;
    Last = std::move(It->second);
    T.Live.erase(It);
  }
  // Last may be the final owner: let it go outside the lock, since the
  // destructor may retire further objects.
}

size_t liveHandleCount() {
  Table &T = table();
  std::shared_lock<std::shared_mutex> L(T.M);
  return T.Live.size();
}

} // namespace ferry::core
