// This file implements the view kernels (reshape, identity) and defines
// RegisterCpuShapeKernels; transpose, cast and fill live in their own files.
#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

// The output shares the input's buffer: no copy. Only the output's shape is
// read from the preallocated output (its buffer, if any, is dropped).
class ViewKernel final : public OpKernel {
 public:
  explicit ViewKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    ctx.set_output(0, Tensor(in.dtype(), ctx.output(0).shape(), in.buffer()));
    return Status::OK();
  }
};

}  // namespace
}  // namespace ember::cpu

namespace ember {

void RegisterCpuShapeKernels(KernelRegistry& r) {
  for (int i = 0; i < kNumDTypes; ++i) {  // the `every` set
    const DType t = static_cast<DType>(i);
    r.Register("reshape", kCpuDeviceType, {t}, &MakeKernel<cpu::ViewKernel>);
    r.Register("identity", kCpuDeviceType, {t}, &MakeKernel<cpu::ViewKernel>);
  }
  cpu::RegisterTransposeKernels(r);
  cpu::RegisterCastKernels(r);
  cpu::RegisterFillKernels(r);
}

}  // namespace ember
