// This file declares OpCall, the record of one op call that Execute builds,
// and OpCallInterceptor, the hook that lets the tracer take calls over.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/attr_value.h"
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
// The runtime knows the interceptor only through this interface, so it
// does not depend on the graph library.
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

// The calling thread's interceptor, or null (eager).
OpCallInterceptor* CurrentOpCallInterceptor();
// Makes `interceptor` (may be null) current on this thread; returns the
// previous one.
OpCallInterceptor* SwapOpCallInterceptor(OpCallInterceptor* interceptor);

}  // namespace ember
