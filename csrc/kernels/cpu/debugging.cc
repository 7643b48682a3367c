// This file implements the CPU kernels of the debugging ops (check_numerics).
#include <cmath>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/eigen.h"  // Eigen::half and bfloat16
#include "ops/attrs/debugging.gen.h"
#include "kernels/cpu/registration.h"
#include "ops/op_kernel.h"

namespace ember {
namespace {

template <typename T>
class CheckNumericsKernel final : public OpKernel {
 public:
  explicit CheckNumericsKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const T* x = in.data<T>();
    const int64_t n = in.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(x[i]);  // exact for every floating type
      if (!std::isfinite(v)) {
        return InvalidArgument(attrs_.message + " : Tensor had " + (std::isnan(v) ? "NaN" : "Inf") +
                               " values (first at flat index " + std::to_string(i) + ")");
      }
    }
    ctx.set_output(0, in);
    return Status::OK();
  }

 private:
  CheckNumericsAttrs attrs_;
};

}  // namespace

void RegisterCpuDebuggingKernels(KernelRegistry& registry) {
  cpu::RegisterForTypeSet<CheckNumericsKernel>(registry, "check_numerics", type_sets::Floating{});
}

}  // namespace ember
