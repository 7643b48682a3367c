// This file implements the zeros, ones and fill CPU kernels.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename T>
void FillWith(const KernelContext& ctx, T* out, int64_t n, T value) {
  ParallelFor(ctx, n, kCheapOpCycles, [=](int64_t first, int64_t last) {
    std::fill(out + first, out + last, value);
  });
}

// All-zero bytes are 0, 0.0 and false in every dtype.
class ZerosKernel final : public OpKernel {
 public:
  explicit ZerosKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    char* bytes = static_cast<char*>(out.raw_data());
    ParallelFor(ctx, static_cast<int64_t>(out.NumBytes()), 0.25, [=](int64_t first, int64_t last) {
      std::memset(bytes + first, 0, last - first);
    });
    return Status::OK();
  }
};

template <typename T>
class OnesKernel final : public OpKernel {
 public:
  explicit OnesKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    FillWith<T>(ctx, out.data<T>(), out.NumElements(), T(1));
    return Status::OK();
  }
};

template <typename T>
class FillKernel final : public OpKernel {
 public:
  explicit FillKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& value = ctx.input(0);
    // shape_fns::ShapeFromAttr checks this too; the kernel must not read
    // past a non-scalar's first element if called directly.
    if (value.rank() != 0) {
      return InvalidArgument("value must be a scalar, got shape " + value.shape().ToString());
    }
    Tensor& out = ctx.output(0);
    FillWith<T>(ctx, out.data<T>(), out.NumElements(), *value.data<T>());
    return Status::OK();
  }
};

}  // namespace

void RegisterFillKernels(KernelRegistry& r) {
  for (DType t : {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64}) {
    r.Register("zeros", kCpuDeviceType, {t}, &MakeKernel<ZerosKernel>);
  }
  RegisterForTypeSet<OnesKernel>(r, "ones", type_sets::All{});
  RegisterForTypeSet<FillKernel>(r, "fill", type_sets::All{});
}

}  // namespace ember::cpu
