// This file implements the thread's current OpCallInterceptor (Note [Op-call record]).
#include "runtime/op_call.h"

namespace ember {
namespace {
thread_local OpCallInterceptor* g_interceptor = nullptr;
}  // namespace

OpCallInterceptor* CurrentOpCallInterceptor() { return g_interceptor; }

OpCallInterceptor* SwapOpCallInterceptor(OpCallInterceptor* interceptor) {
  OpCallInterceptor* previous = g_interceptor;
  g_interceptor = interceptor;
  return previous;
}

}  // namespace ember
