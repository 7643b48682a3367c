// This file implements the image resizing CPU kernels (op_defs/image.yaml):
// resize_bilinear, its gradient and resize_nearest_neighbor, all with
// TensorFlow 2's half-pixel centers, on NHWC images. Source positions are
// computed in float32 exactly as TensorFlow's kernels do, so the picked
// pixels and weights agree with it bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

// The two source rows (or columns) an output row interpolates, and the
// weight of the second.
struct Lerp {
  int64_t lower, upper;
  float frac;
};

// Bilinear sampling along one axis: output i reads (i + 0.5) * in / out - 0.5.
std::vector<Lerp> BilinearLerps(int64_t out_size, int64_t in_size) {
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  std::vector<Lerp> lerps(static_cast<size_t>(out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const float src = (static_cast<float>(i) + 0.5f) * scale - 0.5f;
    const float floor = std::floor(src);
    lerps[i].lower = std::max<int64_t>(static_cast<int64_t>(floor), 0);
    lerps[i].upper = std::min<int64_t>(static_cast<int64_t>(std::ceil(src)), in_size - 1);
    lerps[i].frac = src - floor;
  }
  return lerps;
}

// Nearest sampling along one axis: output i copies floor((i + 0.5) * in / out).
std::vector<int64_t> NearestIndices(int64_t out_size, int64_t in_size) {
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  std::vector<int64_t> indices(static_cast<size_t>(out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const int64_t src = static_cast<int64_t>(std::floor((static_cast<float>(i) + 0.5f) * scale));
    indices[i] = std::max<int64_t>(std::min(src, in_size - 1), 0);
  }
  return indices;
}

// The dims of an NHWC resize: input (batch, in_h, in_w, c), output (out_h, out_w).
struct ResizeDims {
  int64_t batch, in_h, in_w, out_h, out_w, channels;
  ResizeDims(const Shape& in, const Shape& out)
      : batch(in.dim(0)), in_h(in.dim(1)), in_w(in.dim(2)), out_h(out.dim(1)), out_w(out.dim(2)),
        channels(in.dim(3)) {}
};

template <typename T>
class ResizeBilinearKernel final : public OpKernel {
 public:
  explicit ResizeBilinearKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    const ResizeDims d(input.shape(), output.shape());
    const std::vector<Lerp> ys = BilinearLerps(d.out_h, d.in_h), xs = BilinearLerps(d.out_w, d.in_w);
    const T* x = input.data<T>();
    float* y = output.data<float>();
    const int64_t c = d.channels;
    ParallelFor(ctx, d.batch * d.out_h, 8.0 * d.out_w * c, [&](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        const int64_t b = row / d.out_h;
        const Lerp& ly = ys[row % d.out_h];
        const T* top = x + (b * d.in_h + ly.lower) * d.in_w * c;
        const T* bottom = x + (b * d.in_h + ly.upper) * d.in_w * c;
        float* out = y + row * d.out_w * c;
        for (int64_t ox = 0; ox < d.out_w; ++ox) {
          const Lerp& lx = xs[ox];
          for (int64_t ch = 0; ch < c; ++ch) {
            const float tl = static_cast<float>(top[lx.lower * c + ch]);
            const float tr = static_cast<float>(top[lx.upper * c + ch]);
            const float bl = static_cast<float>(bottom[lx.lower * c + ch]);
            const float br = static_cast<float>(bottom[lx.upper * c + ch]);
            const float t = tl + (tr - tl) * lx.frac;
            const float bt = bl + (br - bl) * lx.frac;
            out[ox * c + ch] = t + (bt - t) * ly.frac;
          }
        }
      }
    });
    return Status::OK();
  }
};

// Adds each incoming gradient to the four input pixels its output pixel
// read. Images are independent, so the batch is split over the pool; within
// one image the sums overlap.
class ResizeBilinearGradKernel final : public OpKernel {
 public:
  explicit ResizeBilinearGradKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& grads = ctx.input(0);
    Tensor& output = ctx.output(0);
    float* dx = output.data<float>();
    std::fill(dx, dx + output.NumElements(), 0.0f);
    if (grads.NumElements() == 0) return Status::OK();
    const ResizeDims d(output.shape(), grads.shape());
    const std::vector<Lerp> ys = BilinearLerps(d.out_h, d.in_h), xs = BilinearLerps(d.out_w, d.in_w);
    const float* g = grads.data<float>();
    const int64_t c = d.channels;
    ParallelFor(ctx, d.batch, 8.0 * d.out_h * d.out_w * c, [&](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) {
        for (int64_t oy = 0; oy < d.out_h; ++oy) {
          const Lerp& ly = ys[oy];
          float* top = dx + (b * d.in_h + ly.lower) * d.in_w * c;
          float* bottom = dx + (b * d.in_h + ly.upper) * d.in_w * c;
          const float* grow = g + (b * d.out_h + oy) * d.out_w * c;
          for (int64_t ox = 0; ox < d.out_w; ++ox) {
            const Lerp& lx = xs[ox];
            for (int64_t ch = 0; ch < c; ++ch) {
              const float v = grow[ox * c + ch];
              top[lx.lower * c + ch] += v * (1.0f - ly.frac) * (1.0f - lx.frac);
              top[lx.upper * c + ch] += v * (1.0f - ly.frac) * lx.frac;
              bottom[lx.lower * c + ch] += v * ly.frac * (1.0f - lx.frac);
              bottom[lx.upper * c + ch] += v * ly.frac * lx.frac;
            }
          }
        }
      }
    });
    return Status::OK();
  }
};

template <typename T>
class ResizeNearestKernel final : public OpKernel {
 public:
  explicit ResizeNearestKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    const ResizeDims d(input.shape(), output.shape());
    const std::vector<int64_t> ys = NearestIndices(d.out_h, d.in_h), xs = NearestIndices(d.out_w, d.in_w);
    const T* x = input.data<T>();
    T* y = output.data<T>();
    const int64_t c = d.channels;
    ParallelFor(ctx, d.batch * d.out_h, 1.0 * d.out_w * c, [&](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        const int64_t b = row / d.out_h;
        const T* src_row = x + (b * d.in_h + ys[row % d.out_h]) * d.in_w * c;
        T* out = y + row * d.out_w * c;
        for (int64_t ox = 0; ox < d.out_w; ++ox) std::copy_n(src_row + xs[ox] * c, c, out + ox * c);
      }
    });
    return Status::OK();
  }
};

}  // namespace
}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuImageKernels(KernelRegistry& registry) {
  using namespace cpu;
  RegisterForTypeSet<ResizeBilinearKernel>(registry, "resize_bilinear", type_sets::Real{});
  RegisterForTypeSet<ResizeNearestKernel>(registry, "resize_nearest_neighbor", type_sets::Real{});
  registry.Register("resize_bilinear_grad", kCpuDeviceType, {DType::kFloat32},
                    &MakeKernel<ResizeBilinearGradKernel>);
}

}  // namespace ember
