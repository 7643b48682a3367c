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
inline Status RunKernelNoThrow(const OpKernel& kernel, KernelContext& ctx) {
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
