// This file implements the CPU kernel of add_n (sum of a list of tensors).
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

// Sums chunk by chunk so each output element is written once and the
// inputs are streamed, whatever their number.
template <typename T>
class AddNKernel final : public OpKernel {
 public:
  explicit AddNKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    const int64_t n = out.NumElements();
    const int k = ctx.num_inputs();
    T* dst = out.data<T>();
    ParallelFor(ctx, n, kCheapOpCycles * k, [&](int64_t begin, int64_t end) {
      Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> acc(dst + begin, end - begin);
      acc = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(ctx.input(0).data<T>() + begin, end - begin);
      for (int i = 1; i < k; ++i) {
        acc += Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(ctx.input(i).data<T>() + begin, end - begin);
      }
    });
    return Status::OK();
  }
};

}  // namespace

void RegisterAddNKernels(KernelRegistry& registry) {
  RegisterForTypeSet<AddNKernel>(registry, "add_n", type_sets::Numeric{});
}

}  // namespace ember::cpu
