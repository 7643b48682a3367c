// This file implements the cast CPU kernels (every pair of dtypes).
#include <type_traits>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename Src, typename Dst>
class CastKernel final : public OpKernel {
 public:
  explicit CastKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    if constexpr (std::is_same_v<Src, Dst>) {
      // Nothing to convert: the output is a view of the input.
      ctx.set_output(0, Tensor(input.dtype(), ctx.output(0).shape(), input.buffer()));
    } else {
      const Src* in = input.data<Src>();
      Dst* out = ctx.output(0).data<Dst>();
      ParallelFor(ctx, input.NumElements(), kCheapOpCycles, [=](int64_t first, int64_t last) {
        const int64_t n = last - first;
        Eigen::Map<const Eigen::Array<Src, Eigen::Dynamic, 1>> src(in + first, n);
        Eigen::Map<Eigen::Array<Dst, Eigen::Dynamic, 1>> dst(out + first, n);
        if constexpr (std::is_same_v<Dst, bool>) {
          dst = src != Src(0);
        } else {
          // Float to int truncates toward zero (static_cast, as TensorFlow).
          dst = src.template cast<Dst>();
        }
      });
    }
    return Status::OK();
  }
};

template <typename Src, typename... Dsts>
void RegisterCastsFrom(KernelRegistry& r) {
  (r.Register("cast", kCpuDeviceType, {DTypeOf<Src>::value, DTypeOf<Dsts>::value},
              &MakeKernel<CastKernel<Src, Dsts>>),
   ...);
}

template <typename... Ts>
void RegisterAllCasts(KernelRegistry& r) {
  (RegisterCastsFrom<Ts, Ts...>(r), ...);
}

}  // namespace

void RegisterCastKernels(KernelRegistry& r) {
  RegisterAllCasts<bool, int32_t, int64_t, float, double>(r);
}

}  // namespace ember::cpu
