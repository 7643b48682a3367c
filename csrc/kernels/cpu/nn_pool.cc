// This file implements the 2-D pooling CPU kernels: max_pool2d and
// avg_pool2d.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/nn.gen.h"
#include "ops/shape_fns/nn.h"

namespace ember::cpu {
namespace {

using shape_fns::Window2D;

// NHWC: each output pixel reduces the valid input pixels of its window,
// vectorized over channels. Padding is never read: max ignores it and avg
// divides by the number of valid pixels (TensorFlow's SAME rule). Max
// propagates NaN.
template <typename T, bool kMax>
void Pool2dNhwc(const DeviceContext* device, const T* x, T* y, const Window2D& w) {
  const int64_t c = w.channels;
  ParallelFor(device, w.batch * w.out_h, 2.0 * w.out_w * w.k_h * w.k_w * c, [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      const int64_t b = row / w.out_h, py = row % w.out_h;
      const int64_t y0 = std::max<int64_t>(py * w.stride_h - w.pad_top, 0);
      const int64_t y1 = std::min<int64_t>(py * w.stride_h - w.pad_top + w.k_h, w.in_h);
      for (int64_t px = 0; px < w.out_w; ++px) {
        const int64_t x0 = std::max<int64_t>(px * w.stride_w - w.pad_left, 0);
        const int64_t x1 = std::min<int64_t>(px * w.stride_w - w.pad_left + w.k_w, w.in_w);
        OutVec<T> acc(y + (row * w.out_w + px) * c, c);
        if constexpr (kMax) {
          acc.setConstant(std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                : std::numeric_limits<T>::lowest());
        } else {
          acc.setZero();
        }
        for (int64_t iy = y0; iy < y1; ++iy) {
          for (int64_t ix = x0; ix < x1; ++ix) {
            const InVec<T> v(x + ((b * w.in_h + iy) * w.in_w + ix) * c, c);
            if constexpr (kMax && std::numeric_limits<T>::has_quiet_NaN) {
              acc = acc.template max<Eigen::PropagateNaN>(v);
            } else if constexpr (kMax) {
              acc = acc.max(v);
            } else {
              acc += v;
            }
          }
        }
        if constexpr (!kMax) acc /= static_cast<T>((y1 - y0) * (x1 - x0));
      }
    }
  });
}

// Computes in ComputeType<T> (Note [Whole-tensor half compute]); max is
// exact either way, avg sums in float32.
template <bool kMax>
struct Pool {
  template <typename T>
  class Kernel final : public OpKernel {
   public:
    explicit Kernel(const KernelInit& init) : attrs_(init.attrs) {}

    Status Compute(KernelContext& ctx) const override {
      const Tensor& input = ctx.input(0);
      Tensor& output = ctx.output(0);
      if (output.NumElements() == 0) return Status::OK();
      bool nchw;
      EMBER_RETURN_IF_ERROR(shape_fns::ParseDataFormat2D(attrs_.data_format, &nchw));
      int64_t kh, kw, sh, sw;
      EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(attrs_.ksize, nchw, "ksize", &kh, &kw));
      EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(attrs_.strides, nchw, "strides", &sh, &sw));
      Window2D w;
      EMBER_RETURN_IF_ERROR(shape_fns::MakeWindow2D(input.shape(), nchw, kh, kw, sh, sw, 1, 1, attrs_.padding,
                                                    attrs_.explicit_paddings, true, &w));
      const DeviceContext* device = &ctx.device_context();
      using C = ComputeType<T>;
      std::vector<C> x_wide, y_wide;
      InNhwc(device, WidenedData<T>(device, input, &x_wide), input.shape(), ComputeOutput<T>(output, &y_wide),
             output.shape(), nchw, [&](const C* x, C* y) { Pool2dNhwc<C, kMax>(device, x, y, w); });
      StoreNarrowed<T>(device, y_wide, output);
      return Status::OK();
    }

   private:
    MaxPool2dAttrs attrs_;  // avg_pool2d's attrs are the same list
  };
};

}  // namespace

EMBER_STARTUP_CODE void RegisterNnPoolKernels(KernelRegistry& r) {
  RegisterForTypeSet<Pool<true>::Kernel>(r, "max_pool2d", type_sets::Real{});
  RegisterForTypeSet<Pool<false>::Kernel>(r, "avg_pool2d", type_sets::Floating{});
}

}  // namespace ember::cpu
