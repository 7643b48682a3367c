// This file implements the thread's OpCallInterceptor and OpCallObservers (Note [Op-call record]).
#include "runtime/op_call.h"

#include <algorithm>

namespace ember {
namespace {
thread_local OpCallInterceptor* g_interceptor = nullptr;
thread_local std::vector<OpCallObserver*> g_observers;
}  // namespace

std::atomic<int> g_op_call_observer_count{0};

void AddOpCallObserver(OpCallObserver* observer) {
  g_observers.push_back(observer);
  g_op_call_observer_count.fetch_add(1, std::memory_order_relaxed);
}

void RemoveOpCallObserver(OpCallObserver* observer) {
  auto it = std::find(g_observers.begin(), g_observers.end(), observer);
  if (it == g_observers.end()) return;
  g_observers.erase(it);
  g_op_call_observer_count.fetch_sub(1, std::memory_order_relaxed);
}

void NotifyOpCallObservers(const OpCall& call, const std::vector<RefPtr<TensorHandle>>& outputs) {
  // Another thread's observers leave this one's list empty: nothing to do.
  for (size_t i = 0; i < g_observers.size(); ++i) g_observers[i]->Observe(call, outputs);
}

OpCallInterceptor* CurrentOpCallInterceptor() { return g_interceptor; }

OpCallInterceptor* SwapOpCallInterceptor(OpCallInterceptor* interceptor) {
  OpCallInterceptor* previous = g_interceptor;
  g_interceptor = interceptor;
  return previous;
}

}  // namespace ember
