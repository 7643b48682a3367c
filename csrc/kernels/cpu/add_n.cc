// This file implements the CPU kernel of add_n (sum of a list of tensors).
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/functors.h"  // Wrapping
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

// Sums chunk by chunk so each output element is written once and the
// inputs are streamed, whatever their number. float16 and bfloat16 sum in
// float32 and round once (Note [Half compute]); integers wrap (Note
// [Wrapping integer arithmetic] in wrapping.h).
template <typename T>
class AddNKernel final : public OpKernel {
 public:
  explicit AddNKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    T* dst = out.data<T>();
    ParallelFor(ctx, out.NumElements(), kCheapOpCycles * ctx.num_inputs(), [&](int64_t begin, int64_t end) {
      if constexpr (kIsWidened<T>) {
        ForEachWidenBlock(end - begin, [&](int64_t first, int64_t count) {
          ComputeType<T> sum[kWidenBlock];
          SumInputs(ctx, begin + first, count, sum);
          ConvertSpan(sum, dst + begin + first, count);
        });
      } else {
        SumInputs(ctx, begin, end - begin, dst + begin);
      }
    });
    return Status::OK();
  }

 private:
  using C = ComputeType<T>;
  using Vec = Eigen::Array<C, Eigen::Dynamic, 1>;

  // sum[0, count) = the inputs' elements [offset, offset + count), in C.
  static void SumInputs(const KernelContext& ctx, int64_t offset, int64_t count, C* sum) {
    Eigen::Map<Vec> acc(sum, count);
    acc = Input(ctx, 0, offset, count);
    for (int i = 1; i < ctx.num_inputs(); ++i) acc = Wrapping(acc, Input(ctx, i, offset, count), kPlus);
  }

  static auto Input(const KernelContext& ctx, int i, int64_t offset, int64_t count) {
    return Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(ctx.input(i).data<T>() + offset, count)
        .template cast<C>();
  }
};

}  // namespace

EMBER_STARTUP_CODE void RegisterAddNKernels(KernelRegistry& registry) {
  RegisterForTypeSet<AddNKernel>(registry, "add_n", type_sets::RealAndComplex{});
}

}  // namespace ember::cpu
