//===- sim/runtime/Signals.cpp - HSA signals ------------------------------===//
/// \file
/// Signals are a 64-bit value plus a condition variable: every change wakes
/// the threads blocked in hsa_signal_wait_* and the packet processors and
/// copy engine registered as waiters (barrier packets, copy dependencies),
/// so nothing spins. A queue's doorbell is a signal whose stores also tell
/// its packet processor the new value.
///
/// The memory-order variants of each operation (scacquire, relaxed, ...)
/// all behave as sequentially consistent here, which is stronger than each
/// asks for and so allowed. Fast-path operations (load, store, add, ...)
/// check the handle's magic word, not the registry, as ROCr does not
/// validate them at all; destroy and wait use the registry.
//===----------------------------------------------------------------------===//
#include "sim/runtime/Runtime.h"

#include <algorithm>

namespace ferry::sim::rt {

bool conditionHolds(hsa_signal_condition_t Cond, int64_t Value, int64_t Compare) {
  switch (Cond) {
  case HSA_SIGNAL_CONDITION_EQ:
    return Value == Compare;
  case HSA_SIGNAL_CONDITION_NE:
    return Value != Compare;
  case HSA_SIGNAL_CONDITION_LT:
    return Value < Compare;
  case HSA_SIGNAL_CONDITION_GTE:
    return Value >= Compare;
  }
  return true;
}

void Signal::changed() {
  std::vector<Waiter *> Copy;
  {
    std::lock_guard<std::mutex> L(M);
    Copy = Waiters;
  }
  CV.notify_all();
  for (Waiter *W : Copy)
    W->poke();
  if (DoorbellOf)
    DoorbellOf->ring(load());
}

void Signal::store(int64_t V) {
  Value.store(V, std::memory_order_release);
  changed();
}

int64_t Signal::wait(hsa_signal_condition_t Cond, int64_t Compare, uint64_t TimeoutNs) {
  std::unique_lock<std::mutex> L(M);
  auto Holds = [&] { return conditionHolds(Cond, Value.load(std::memory_order_acquire), Compare); };
  if (TimeoutNs == UINT64_MAX || TimeoutNs > (uint64_t(1) << 62))
    CV.wait(L, Holds);
  else
    CV.wait_for(L, std::chrono::nanoseconds(TimeoutNs), Holds);
  return Value.load(std::memory_order_acquire);
}

void Signal::addWaiter(Waiter *W) {
  std::lock_guard<std::mutex> L(M);
  Waiters.push_back(W);
}

void Signal::removeWaiter(Waiter *W) {
  std::lock_guard<std::mutex> L(M);
  auto It = std::find(Waiters.begin(), Waiters.end(), W);
  if (It != Waiters.end())
    Waiters.erase(It);
}

} // namespace ferry::sim::rt

using namespace ferry::sim::rt;

namespace {
/// The signal behind a handle for the fast paths; null for a handle that is
/// 0 or not a live signal's.
Signal *fast(hsa_signal_t H) {
  auto *S = reinterpret_cast<Signal *>(H.handle);
  if (!S || S->Magic.load(std::memory_order_relaxed) != Signal::LiveMagic)
    return nullptr;
  return S;
}

hsa_status_t createSignal(int64_t Initial, uint32_t NumConsumers, const hsa_agent_t *Consumers,
                          hsa_signal_t *Out) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!Out || (NumConsumers && !Consumers))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t I = 0; I < NumConsumers; ++I)
    if (!R->agent(Consumers[I]))
      return HSA_STATUS_ERROR_INVALID_AGENT;
  try {
    *Out = R->addSignal(std::make_shared<Signal>(Initial));
    return HSA_STATUS_SUCCESS;
  } catch (...) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
}
} // namespace

FERRY_SIM_EXPORT hsa_status_t hsa_signal_create(hsa_signal_value_t Initial, uint32_t NumConsumers,
                                                const hsa_agent_t *Consumers, hsa_signal_t *Out) {
  return createSignal(Initial, NumConsumers, Consumers, Out);
}

FERRY_SIM_EXPORT hsa_status_t hsa_amd_signal_create(hsa_signal_value_t Initial,
                                                    uint32_t NumConsumers,
                                                    const hsa_agent_t *Consumers,
                                                    uint64_t Attributes, hsa_signal_t *Out) {
  return createSignal(Initial, NumConsumers, Consumers, Out);
}

FERRY_SIM_EXPORT hsa_status_t hsa_signal_destroy(hsa_signal_t H) {
  Runtime *R = runtime();
  if (!R)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!H.handle)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return R->removeSignal(H) ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_SIGNAL;
}

// Loads.
#define FERRY_SIM_LOAD(Suffix)                                                                   \
  FERRY_SIM_EXPORT hsa_signal_value_t hsa_signal_load_##Suffix(hsa_signal_t H) {                 \
    Signal *S = fast(H);                                                                         \
    return S ? S->load() : 0;                                                                    \
  }
FERRY_SIM_LOAD(scacquire)
FERRY_SIM_LOAD(relaxed)
FERRY_SIM_LOAD(acquire)
#undef FERRY_SIM_LOAD

// Stores.
#define FERRY_SIM_STORE(Name)                                                                    \
  FERRY_SIM_EXPORT void Name(hsa_signal_t H, hsa_signal_value_t V) {                             \
    if (Signal *S = fast(H))                                                                     \
      S->store(V);                                                                               \
  }
FERRY_SIM_STORE(hsa_signal_store_relaxed)
FERRY_SIM_STORE(hsa_signal_store_screlease)
FERRY_SIM_STORE(hsa_signal_store_release)
FERRY_SIM_STORE(hsa_signal_silent_store_relaxed)
FERRY_SIM_STORE(hsa_signal_silent_store_screlease)
#undef FERRY_SIM_STORE

// Read-modify-write operations without a result: add, subtract, and, or, xor.
#define FERRY_SIM_RMW(Op, Suffix, Expr)                                                          \
  FERRY_SIM_EXPORT void hsa_signal_##Op##_##Suffix(hsa_signal_t H, hsa_signal_value_t V) {       \
    if (Signal *S = fast(H))                                                                     \
      S->update([V](std::atomic<int64_t> &A) { return Expr; });                                  \
  }
#define FERRY_SIM_RMW_ALL(Op, Expr)                                                              \
  FERRY_SIM_RMW(Op, scacq_screl, Expr)                                                           \
  FERRY_SIM_RMW(Op, scacquire, Expr)                                                             \
  FERRY_SIM_RMW(Op, relaxed, Expr)                                                               \
  FERRY_SIM_RMW(Op, screlease, Expr)                                                             \
  FERRY_SIM_RMW(Op, acq_rel, Expr)                                                               \
  FERRY_SIM_RMW(Op, acquire, Expr)                                                               \
  FERRY_SIM_RMW(Op, release, Expr)
FERRY_SIM_RMW_ALL(add, A.fetch_add(V))
FERRY_SIM_RMW_ALL(subtract, A.fetch_sub(V))
FERRY_SIM_RMW_ALL(and, A.fetch_and(V))
FERRY_SIM_RMW_ALL(or, A.fetch_or(V))
FERRY_SIM_RMW_ALL(xor, A.fetch_xor(V))
#undef FERRY_SIM_RMW_ALL
#undef FERRY_SIM_RMW

// Exchange and compare-and-swap return the previous value.
#define FERRY_SIM_EXCHANGE(Suffix)                                                               \
  FERRY_SIM_EXPORT hsa_signal_value_t hsa_signal_exchange_##Suffix(hsa_signal_t H,               \
                                                                   hsa_signal_value_t V) {       \
    Signal *S = fast(H);                                                                         \
    return S ? S->update([V](std::atomic<int64_t> &A) { return A.exchange(V); }) : 0;            \
  }                                                                                              \
  FERRY_SIM_EXPORT hsa_signal_value_t hsa_signal_cas_##Suffix(                                   \
      hsa_signal_t H, hsa_signal_value_t Expected, hsa_signal_value_t V) {                       \
    Signal *S = fast(H);                                                                         \
    return S ? S->update([&](std::atomic<int64_t> &A) {                                          \
      int64_t E = Expected;                                                                      \
      A.compare_exchange_strong(E, V);                                                           \
      return E;                                                                                  \
    })                                                                                           \
             : 0;                                                                                \
  }
FERRY_SIM_EXCHANGE(scacq_screl)
FERRY_SIM_EXCHANGE(scacquire)
FERRY_SIM_EXCHANGE(relaxed)
FERRY_SIM_EXCHANGE(screlease)
FERRY_SIM_EXCHANGE(acq_rel)
FERRY_SIM_EXCHANGE(acquire)
FERRY_SIM_EXCHANGE(release)
#undef FERRY_SIM_EXCHANGE

/// Waits: the timeout hint is in timestamp units (nanoseconds here). The
/// wait state (blocked or active) only changes how a real runtime waits.
static hsa_signal_value_t waitOn(hsa_signal_t H, hsa_signal_condition_t Cond,
                                 hsa_signal_value_t Compare, uint64_t Timeout) {
  Runtime *R = runtime();
  std::shared_ptr<Signal> S = R ? R->signal(H) : nullptr;
  if (!S) {
    // Nothing to wait for; answer as the fast paths do.
    Signal *F = fast(H);
    return F ? F->load() : 0;
  }
  return S->wait(Cond, Compare, Timeout);
}

#define FERRY_SIM_WAIT(Suffix)                                                                   \
  FERRY_SIM_EXPORT hsa_signal_value_t hsa_signal_wait_##Suffix(                                  \
      hsa_signal_t H, hsa_signal_condition_t Cond, hsa_signal_value_t Compare, uint64_t Timeout, \
      hsa_wait_state_t) {                                                                        \
    return waitOn(H, Cond, Compare, Timeout);                                                    \
  }
FERRY_SIM_WAIT(scacquire)
FERRY_SIM_WAIT(relaxed)
FERRY_SIM_WAIT(acquire)
#undef FERRY_SIM_WAIT

FERRY_SIM_EXPORT uint32_t hsa_amd_signal_wait_any(uint32_t Count, hsa_signal_t *Handles,
                                                  hsa_signal_condition_t *Conds,
                                                  hsa_signal_value_t *Values, uint64_t Timeout,
                                                  hsa_wait_state_t, hsa_signal_value_t *Satisfying) {
  Runtime *R = runtime();
  if (!R || !Handles || !Conds || !Values || Count == 0)
    return UINT32_MAX;
  std::vector<std::shared_ptr<Signal>> Sigs;
  for (uint32_t I = 0; I < Count; ++I) {
    auto S = R->signal(Handles[I]);
    if (!S)
      return UINT32_MAX;
    Sigs.push_back(std::move(S));
  }
  Waiter W;
  for (auto &S : Sigs)
    S->addWaiter(&W);
  uint64_t Deadline = Timeout > (uint64_t(1) << 62) ? UINT64_MAX : nowNs() + Timeout;
  uint32_t Found = UINT32_MAX;
  std::unique_lock<std::mutex> L(W.M);
  while (true) {
    for (uint32_t I = 0; I < Count && Found == UINT32_MAX; ++I) {
      int64_t V = Sigs[I]->load();
      if (conditionHolds(Conds[I], V, Values[I])) {
        Found = I;
        if (Satisfying)
          *Satisfying = V;
      }
    }
    if (Found != UINT32_MAX)
      break;
    uint64_t Now = nowNs();
    if (Now >= Deadline)
      break;
    uint64_t Seen = W.Gen;
    auto Changed = [&] { return W.Gen != Seen; };
    if (Deadline == UINT64_MAX)
      W.CV.wait(L, Changed);
    else
      W.CV.wait_for(L, std::chrono::nanoseconds(Deadline - Now), Changed);
  }
  L.unlock();
  for (auto &S : Sigs)
    S->removeWaiter(&W);
  return Found;
}
