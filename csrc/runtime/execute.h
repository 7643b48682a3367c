// This file declares Execute, the one entry point that runs an op.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/attr_value.h"
#include "ops/op_def.h"
#include "runtime/tensor_handle.h"

namespace ember {

struct ExecuteResult {
  std::vector<RefPtr<TensorHandle>> outputs;
  // Sync mode only: the kernel launch, for the caller to run (the Python
  // layer releases the GIL around big ones). Null in async mode, and when
  // Execute ran the launch itself (`ran_now`).
  std::unique_ptr<Task> inline_task;
  // Set by the caller: in sync mode, a launch that is cheap and has nothing
  // to wait for runs inside Execute, from the stack (Note [Launches on the
  // stack]); `ran_now` then says so. The outputs are settled, or defined
  // on a device's stream, when Execute returns.
  bool run_small_now = false;
  bool ran_now = false;
};

// Runs the stages in order: bind type variables -> cast inputs to the
// bound dtypes -> shape function -> placement -> kernel cache -> output
// handles -> enqueue (async) or hand back (sync). Every error up to the
// enqueue is returned here, synchronously, prefixed with the op name.
//
// `inputs` are flat; for ops with list inputs `list_sizes` gives, per input
// argument, how many tensors a list argument has (Note [List arguments]).
// `bindings` may be null: the variables are then bound from the inputs'
// dtypes (all strong). `donated_mask` bit i promises that nobody but this
// call will ever read input i again (see Note [Buffer donation]).
// `resource_device`, when set, is where a variable input lives: the op is
// placed there (Note [Placement rules]).
Status Execute(const OpDef& op, TensorHandle* const* inputs, int num_inputs,
               const AttrList& attrs, const DType* bindings, uint32_t donated_mask,
               ExecuteResult* result, const int* list_sizes = nullptr,
               Device* resource_device = nullptr);

// Execute, then in sync mode run the kernel inline. For C++ callers.
Status ExecuteAndRun(const OpDef& op, TensorHandle* const* inputs, int num_inputs,
                     const AttrList& attrs, std::vector<RefPtr<TensorHandle>>* outputs);

}  // namespace ember
