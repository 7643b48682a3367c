// This file declares OpCall, the record of one op call that Execute builds,
// and OpCallInterceptor, the hook that lets the tracer take calls over.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "core/attr_value.h"
#include "ops/kernel_plan.h"
#include "ops/op_def.h"
#include "runtime/tensor_handle.h"
#include "runtime/type_binding.h"

namespace ember {

// Note [Op-call record]
// Execute's stages (bind type variables, cast inputs, shape function,
// placement) turn a call into an OpCall: everything about the call that is
// known before any data is. What happens to the record is its consumer's
// business, and there is one record for all of them:
//  - the eager launcher (runtime/kernel_launch.h) takes it over and runs
//    the kernel on the device;
//  - while @ember.function traces, the thread's OpCallInterceptor (the
//    Tracer, graph/tracer.h) takes it instead and appends a graph node;
//  - the graph executor runs those nodes later through the same kernel
//    path (runtime/kernel_run.h), from the node the record became.
//  - OpCallObservers (the gradient tape) see each record after the
//    launcher or the interceptor made its output handles.
// The runtime knows the interceptor and the observers only through these
// interfaces, so it depends on neither the graph nor the autodiff code.
struct OpCall {
  const OpDef* op = nullptr;
  // Cast to the bound dtypes; flat, with list arguments laid out by
  // `arg_starts` (Note [List arguments]; empty when the op has none).
  std::vector<RefPtr<TensorHandle>> inputs;
  std::vector<int> arg_starts;
  const AttrList* attrs = nullptr;
  std::array<DType, kMaxTypeVars> bindings{};
  // Bit i: nobody but this call reads input i again (Note [Buffer donation]).
  uint32_t donated_mask = 0;
  Device* device = nullptr;
  std::vector<Shape> output_shapes;
  // The dtypes the shape function chose for list(any) outputs; empty for
  // ops without them (nearly all).
  std::vector<DType> any_dtypes;
  // Note [Kernel plans]: filled by the shape function, read by the kernel.
  std::unique_ptr<KernelPlan> plan;

  const int* arg_starts_or_null() const { return arg_starts.empty() ? nullptr : arg_starts.data(); }
  // Output i's dtype: bound by a type variable, or chosen by the shape
  // function. Outputs past the declared ones belong to the trailing list.
  DType output_dtype(size_t i) const {
    const ArgDef& arg = op->outputs[i < op->outputs.size() ? i : op->outputs.size() - 1];
    return arg.type_var == kAnyDTypeVar ? any_dtypes[i] : ArgDType(arg, bindings.data());
  }
};

// Takes op calls over from the eager launcher on the thread it is current
// on (the Tracer while @ember.function traces).
class OpCallInterceptor {
 public:
  virtual ~OpCallInterceptor() = default;
  // Consumes `call` instead of running it; fills `outputs` with the
  // handles the caller gets back.
  virtual Status Intercept(OpCall& call, std::vector<RefPtr<TensorHandle>>* outputs) = 0;
};

// Sees op calls once their output handles exist: the gradient tape
// (csrc/autodiff/tape.h) records the ones it needs from here, in eager
// mode and while tracing alike.
class OpCallObserver {
 public:
  virtual ~OpCallObserver() = default;
  virtual void Observe(const OpCall& call, const std::vector<RefPtr<TensorHandle>>& outputs) = 0;
};

// Observers are per thread. The count over all threads makes the check
// Execute does on every call, "is anyone observing?", one load and one
// branch when nobody is.
extern std::atomic<int> g_op_call_observer_count;
inline bool AnyOpCallObservers() { return g_op_call_observer_count.load(std::memory_order_relaxed) != 0; }
void AddOpCallObserver(OpCallObserver* observer);     // on the calling thread
void RemoveOpCallObserver(OpCallObserver* observer);  // a no-op if absent
// Calls every observer of the calling thread, oldest first.
void NotifyOpCallObservers(const OpCall& call, const std::vector<RefPtr<TensorHandle>>& outputs);

// The calling thread's interceptor, or null (eager).
OpCallInterceptor* CurrentOpCallInterceptor();
// Makes `interceptor` (may be null) current on this thread; returns the
// previous one.
OpCallInterceptor* SwapOpCallInterceptor(OpCallInterceptor* interceptor);

}  // namespace ember
