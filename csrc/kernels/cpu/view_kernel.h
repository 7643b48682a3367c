// This file defines ViewKernel, the kernel of ops whose output is the input's
// buffer under another shape (reshape, identity, expand_dims, squeeze).
#pragma once

#include "ops/op_kernel.h"

namespace ember::cpu {

// Only the output's shape is read from the preallocated output: these ops
// are declared output_is_view, so the runtime allocated no buffer for it.
class ViewKernel final : public OpKernel {
 public:
  explicit ViewKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    ctx.set_output(0, Tensor(in.dtype(), ctx.output(0).shape(), in.buffer()));
    return Status::OK();
  }
};

}  // namespace ember::cpu
