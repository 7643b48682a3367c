// This file defines RunKernelNoThrow, which runs a kernel and turns any C++
// exception it throws into a Status.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "ops/op_kernel.h"

namespace ember {

// Kernels report errors as Status, but scratch buffers (std::vector, new)
// and library code can still throw. An exception escaping an executor
// thread would terminate the process, so every kernel call site goes
// through here: bad_alloc is ResourceExhausted, anything else Internal.
//
// Note [Empty outputs]: a stateless op whose outputs are all empty has
// nothing to compute, so its kernel is skipped. Work then stays bounded by
// the tensors, whatever the attributes say: linspace with num = 2^40 over
// an empty batch used to loop 2^40 times over nothing while holding the
// GIL (found by fuzzing). Views (whose kernels set their outputs) and
// stateful ops (print, variable updates) always run.
inline bool NothingToCompute(KernelContext& ctx) {
  const OpDef& op = ctx.op();
  if (op.is_stateful || op.output_is_view || ctx.num_outputs() == 0) return false;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.output(i).NumElements() != 0) return false;
  }
  return true;
}

inline Status RunKernelNoThrow(const OpKernel& kernel, KernelContext& ctx) {
  if (NothingToCompute(ctx)) return Status::OK();
  try {
    return kernel.Compute(ctx);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "out of memory in kernel scratch allocation");
  } catch (const std::exception& e) {
    return Internal(std::string("kernel threw an exception: ") + e.what());
  } catch (...) {
    return Internal("kernel threw an unknown exception");
  }
}

}  // namespace ember
