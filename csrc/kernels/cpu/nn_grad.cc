// This file implements the CPU kernels of the convolution and pooling
// gradients: conv2d_backprop_filter, max_pool2d_grad, max_pool2d_grad_grad,
// avg_pool2d_grad.
// (conv2d's input gradient is conv2d_transpose, in nn_conv.cc.) All
// compute in NHWC and in ComputeType<T> (Note [Half compute]).
#include <algorithm>
#include <type_traits>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "kernels/cpu/conv_direct.h"
#include "kernels/cpu/host_scratch.h"
#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/nn.gen.h"
#include "ops/shape_fns/nn.h"

namespace ember::cpu {
namespace {

using shape_fns::Window2D;

// `data` (laid out like `shape`, NCHW when nchw) as NHWC: itself, or a
// transposed copy in *scratch.
template <typename C>
const C* AsNhwc(const DeviceContext* device, const C* data, const Shape& shape, bool nchw, std::vector<C>* scratch) {
  if (!nchw) return data;
  scratch->resize(shape.NumElements());
  PermuteCopy(device, data, scratch->data(), sizeof(C), shape, kNchwToNhwc);
  return scratch->data();
}

// Note [Filter gradient plan]
// dW (per group a [K, cout_g] matrix, K = k_h * k_w * cin_g, the HWIO
// flattening conv2d uses) is the sum over images and output pixels of
// patch^T * dy. Units of work are (image, group, block of output pixels);
// each thread gathers a block's patches (im2col, as the forward kernel
// does), multiplies its transpose by the block's dy columns into a
// thread-local dW, and the threads' dW are added at the end, so no two
// threads write the same memory while they work.
template <typename C>
void FilterGradNhwc(const DeviceContext* device, const C* x, const C* dy, C* dw, const Window2D& w, int64_t cin_g,
                    int64_t cout) {
  const int64_t h = w.in_h, wd = w.in_w, c = w.channels;
  const int64_t oh = w.out_h, ow = w.out_w, m = oh * ow;
  const int64_t groups = c / cin_g, cout_g = cout / groups;
  const int64_t k = w.k_h * w.k_w * cin_g;
  if constexpr (std::is_same_v<C, float> || std::is_same_v<C, double>) {
    if (UsesDirectFilterGrad(w, cin_g, groups)) return DirectFilterGradNhwc(device, x, dy, dw, w, cout);
  }
  const int64_t rows = std::max<int64_t>(1, std::min<int64_t>(m, (1 << 16) / std::max<int64_t>(k, 1)));
  const int64_t blocks = (m + rows - 1) / rows;
  const int64_t units = w.batch * groups * blocks;
  // Workspaces: Note [Kernel scratch].
  const int64_t total_size = groups * k * cout_g;
  const HostScratch<C> total(total_size, HostScratch<C>::Fill::kZeros);
  std::mutex total_mutex;
  ParallelFor(device, units, 2.0 * rows * k * cout_g, [&](int64_t first, int64_t last) {
    const HostScratch<C> local(total_size, HostScratch<C>::Fill::kZeros);
    const HostScratch<C> col(rows * k), dy_block(rows * cout_g), product(k * cout_g);
    for (int64_t unit = first; unit < last; ++unit) {
      const int64_t blk = unit % blocks, image = unit / blocks;
      const int64_t g = image % groups, b = image / groups;
      const int64_t p0 = blk * rows, p1 = std::min(m, p0 + rows), n_rows = p1 - p0;
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t py = p / ow, px = p % ow;
        C* dst = col.data() + (p - p0) * k;
        for (int64_t ky = 0; ky < w.k_h; ++ky) {
          const int64_t iy = py * w.stride_h - w.pad_top + ky * w.dilation_h;
          for (int64_t kx = 0; kx < w.k_w; ++kx, dst += cin_g) {
            const int64_t ix = px * w.stride_w - w.pad_left + kx * w.dilation_w;
            if (iy < 0 || iy >= h || ix < 0 || ix >= wd) {
              std::fill(dst, dst + cin_g, C(0));
            } else {
              std::memcpy(dst, x + ((b * h + iy) * wd + ix) * c + g * cin_g, cin_g * sizeof(C));
            }
          }
        }
        std::memcpy(dy_block.data() + (p - p0) * cout_g, dy + (b * m + p) * cout + g * cout_g, cout_g * sizeof(C));
      }
      // product[K, cout_g] = col[n_rows, K]^T * dy_block[n_rows, cout_g]
      MatmulRows<C>(col.data(), dy_block.data(), product.data(), MatmulDims{k, n_rows, cout_g, true, false}, 0, k);
      C* acc = local.data() + g * k * cout_g;
      for (int64_t i = 0; i < k * cout_g; ++i) acc[i] += product[i];
    }
    std::lock_guard<std::mutex> lock(total_mutex);
    for (int64_t i = 0; i < total_size; ++i) total[i] += local[i];
  });
  // Per-group [K, cout_g] back into the HWIO filter layout [K, cout].
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t kk = 0; kk < k; ++kk) {
      std::memcpy(dw + kk * cout + g * cout_g, total.data() + (g * k + kk) * cout_g, cout_g * sizeof(C));
    }
  }
}

template <typename T>
class Conv2dBackpropFilterKernel final : public OpKernel {
 public:
  explicit Conv2dBackpropFilterKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& dy = ctx.input(1);
    Tensor& output = ctx.output(0);
    using C = ComputeType<T>;
    std::vector<C> out_wide;
    C* dw = ComputeOutput<T>(output, &out_wide);
    const DeviceContext* device = &ctx.device_context();
    std::fill(dw, dw + output.NumElements(), C(0));
    if (output.NumElements() > 0 && input.NumElements() > 0 && dy.NumElements() > 0) {
      bool nchw;
      EMBER_RETURN_IF_ERROR(shape_fns::ParseDataFormat2D(attrs_.data_format, &nchw));
      int64_t sh, sw, dh = 1, dwl = 1;
      EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(attrs_.strides, nchw, "strides", &sh, &sw));
      if (attrs_.dilations) {
        EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(*attrs_.dilations, nchw, "dilations", &dh, &dwl));
      }
      Window2D w;
      EMBER_RETURN_IF_ERROR(shape_fns::MakeWindow2D(input.shape(), nchw, output.dim(0), output.dim(1), sh, sw, dh,
                                                    dwl, attrs_.padding, attrs_.explicit_paddings, false, &w));
      std::vector<C> x_wide, dy_wide, x_t, dy_t;
      const C* x = AsNhwc(device, WidenedData<T>(device, input, &x_wide), input.shape(), nchw, &x_t);
      const C* g = AsNhwc(device, WidenedData<T>(device, dy, &dy_wide), dy.shape(), nchw, &dy_t);
      FilterGradNhwc<C>(device, x, g, dw, w, output.dim(2), output.dim(3));
    }
    StoreNarrowed<T>(device, out_wide, output);
    return Status::OK();
  }

 private:
  Conv2dBackpropFilterAttrs attrs_;
};

// The pooling window of `input` (NHWC or NCHW) from pool attrs.
template <typename Attrs>
Status PoolWindow(const Attrs& attrs, const Shape& input, bool* nchw, Window2D* w) {
  EMBER_RETURN_IF_ERROR(shape_fns::ParseDataFormat2D(attrs.data_format, nchw));
  int64_t kh, kw, sh, sw;
  EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(attrs.ksize, *nchw, "ksize", &kh, &kw));
  EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(attrs.strides, *nchw, "strides", &sh, &sw));
  return shape_fns::MakeWindow2D(input, *nchw, kh, kw, sh, sw, 1, 1, attrs.padding, attrs.explicit_paddings, true, w);
}

// Calls fn(y0, y1, x0, x1) with the valid input rows and columns of the
// window of output pixel (py, px).
template <typename Fn>
void ForWindow(const Window2D& w, int64_t py, int64_t px, Fn&& fn) {
  const int64_t y0 = std::max<int64_t>(py * w.stride_h - w.pad_top, 0);
  const int64_t y1 = std::min<int64_t>(py * w.stride_h - w.pad_top + w.k_h, w.in_h);
  const int64_t x0 = std::max<int64_t>(px * w.stride_w - w.pad_left, 0);
  const int64_t x1 = std::min<int64_t>(px * w.stride_w - w.pad_left + w.k_w, w.in_w);
  fn(y0, y1, x0, x1);
}

// Note [Max-pool argmax over channels]
// Both max-pool gradients need, for every output pixel and channel, where
// the window's maximum sits. WindowArgmaxes finds it for all channels of
// one pixel at once: the window's positions are the outer loop and the
// channels, contiguous in NHWC, the inner one, so the comparison runs on
// whole vectors without branches (a scalar search per channel strides
// through memory by the channel count and mispredicts half its branches on
// random data: 5.7 ms where this takes well under one for a CNN's
// 128x26x26x32 batch). A channel keeps the first maximum, or the first NaN
// (max_pool2d propagates it): a later value replaces the best only if it
// is larger, or if it is NaN and the best is not.
template <typename C>
struct ArgmaxScratch {
  std::vector<C> best;              // per channel: the largest value so far
  std::vector<int32_t> position;    // per channel: its position in the window
  std::vector<int64_t> offset;      // per window position: its pixel's offset in the image
};

// Fills scratch.position (and .offset) for output pixel (py, px) of one
// NHWC image; returns the number of valid window positions (0: a window
// wholly in the padding, which has no maximum).
template <typename C>
int64_t WindowArgmaxes(const C* image, const Window2D& w, int64_t py, int64_t px, ArgmaxScratch<C>& scratch) {
  const int64_t c = w.channels;
  int64_t count = 0;
  ForWindow(w, py, px, [&](int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
    for (int64_t iy = y0; iy < y1; ++iy) {
      for (int64_t ix = x0; ix < x1; ++ix) scratch.offset[count++] = (iy * w.in_w + ix) * c;
    }
  });
  if (count == 0) return 0;
  C* best = scratch.best.data();
  int32_t* position = scratch.position.data();
  std::copy(image + scratch.offset[0], image + scratch.offset[0] + c, best);
  std::fill(position, position + c, 0);
  for (int32_t k = 1; k < count; ++k) {
    const C* v = image + scratch.offset[k];
    for (int64_t ch = 0; ch < c; ++ch) {
      const C value = v[ch], b = best[ch];
      const bool take = value > b || (value != value && b == b);
      best[ch] = take ? value : b;
      position[ch] = take ? k : position[ch];
    }
  }
  return count;
}

template <typename C>
ArgmaxScratch<C> MakeArgmaxScratch(const Window2D& w) {
  ArgmaxScratch<C> scratch;
  scratch.best.resize(w.channels);
  scratch.position.resize(w.channels);
  scratch.offset.resize(w.k_h * w.k_w);
  return scratch;
}

// Windows that tile the input (stride = window, no padding before the
// first row or column; the usual 2x2/2 pool) never share a pixel: each
// window's pixels are written once, the gradient at the maximum's position
// and zero elsewhere, and only pixels no window covers are zero-filled.
// That writes dx once instead of twice (a fill, then the additions).
bool WindowsTile(const Window2D& w) {
  return w.stride_h == w.k_h && w.stride_w == w.k_w && w.pad_top == 0 && w.pad_left == 0;
}

template <typename C>
void MaxPoolGradTiledImage(const C* xb, const C* dyb, C* dxb, const Window2D& w, ArgmaxScratch<C>& scratch) {
  const int64_t c = w.channels;
  for (int64_t py = 0; py < w.out_h; ++py) {
    for (int64_t px = 0; px < w.out_w; ++px) {
      const int64_t count = WindowArgmaxes(xb, w, py, px, scratch);
      const C* g = dyb + (py * w.out_w + px) * c;
      const int32_t* position = scratch.position.data();
      for (int32_t k = 0; k < count; ++k) {
        C* d = dxb + scratch.offset[k];
        for (int64_t ch = 0; ch < c; ++ch) d[ch] = position[ch] == k ? g[ch] : C(0);
      }
    }
  }
  // Rows and columns past the last whole window (VALID pooling of a size
  // the window does not divide).
  const int64_t covered_h = std::min(w.in_h, w.out_h * w.k_h), covered_w = std::min(w.in_w, w.out_w * w.k_w);
  for (int64_t iy = 0; iy < w.in_h; ++iy) {
    const int64_t from = iy < covered_h ? covered_w : 0;
    std::fill(dxb + (iy * w.in_w + from) * c, dxb + (iy + 1) * w.in_w * c, C(0));
  }
}

// Windows of one image overlap, so one image is one unit of work: no two
// threads add into the same input pixel.
template <typename C>
void MaxPoolGradNhwc(const DeviceContext* device, const C* x, const C* dy, C* dx, const Window2D& w) {
  const int64_t c = w.channels, image = w.in_h * w.in_w * c;
  ParallelFor(device, w.batch, 4.0 * w.out_h * w.out_w * w.k_h * w.k_w * c, [&](int64_t first, int64_t last) {
    ArgmaxScratch<C> scratch = MakeArgmaxScratch<C>(w);
    for (int64_t b = first; b < last; ++b) {
      if (WindowsTile(w)) {
        MaxPoolGradTiledImage(x + b * image, dy + b * w.out_h * w.out_w * c, dx + b * image, w, scratch);
        continue;
      }
      const C* xb = x + b * image;
      C* dxb = dx + b * image;
      std::fill(dxb, dxb + image, C(0));
      for (int64_t py = 0; py < w.out_h; ++py) {
        for (int64_t px = 0; px < w.out_w; ++px) {
          if (WindowArgmaxes(xb, w, py, px, scratch) == 0) continue;
          const C* g = dy + ((b * w.out_h + py) * w.out_w + px) * c;
          for (int64_t ch = 0; ch < c; ++ch) dxb[scratch.offset[scratch.position[ch]] + ch] += g[ch];
        }
      }
    }
  });
}

// The transpose of MaxPoolGradNhwc: each output pixel reads g at its
// window's maximum (0 for a window with no valid input).
template <typename C>
void MaxPoolGradGradNhwc(const DeviceContext* device, const C* x, const C* g, C* out, const Window2D& w) {
  const int64_t c = w.channels, image = w.in_h * w.in_w * c;
  ParallelFor(device, w.batch, 2.0 * w.out_h * w.out_w * w.k_h * w.k_w * c, [&](int64_t first, int64_t last) {
    ArgmaxScratch<C> scratch = MakeArgmaxScratch<C>(w);
    for (int64_t b = first; b < last; ++b) {
      const C* xb = x + b * image;
      const C* gb = g + b * image;
      for (int64_t py = 0; py < w.out_h; ++py) {
        for (int64_t px = 0; px < w.out_w; ++px) {
          C* o = out + ((b * w.out_h + py) * w.out_w + px) * c;
          if (WindowArgmaxes(xb, w, py, px, scratch) == 0) {
            std::fill(o, o + c, C(0));
            continue;
          }
          for (int64_t ch = 0; ch < c; ++ch) o[ch] = gb[scratch.offset[scratch.position[ch]] + ch];
        }
      }
    }
  });
}

// max_pool2d_grad and max_pool2d_grad_grad: both read the pool's input
// (for the windows' maxima) and a second tensor, and run kNhwc over NHWC
// data; only the second tensor and the output differ in shape.
template <typename T, typename Attrs,
          void (*kNhwc)(const DeviceContext*, const ComputeType<T>*, const ComputeType<T>*, ComputeType<T>*,
                        const Window2D&)>
class MaxPoolWindowKernel final : public OpKernel {
 public:
  explicit MaxPoolWindowKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& second = ctx.input(1);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    bool nchw;
    Window2D w;
    EMBER_RETURN_IF_ERROR(PoolWindow(attrs_, input.shape(), &nchw, &w));
    const DeviceContext* device = &ctx.device_context();
    using C = ComputeType<T>;
    std::vector<C> x_wide, x_t, second_wide, out_wide;
    const C* x = AsNhwc(device, WidenedData<T>(device, input, &x_wide), input.shape(), nchw, &x_t);
    InNhwc(device, WidenedData<T>(device, second, &second_wide), second.shape(),
           ComputeOutput<T>(output, &out_wide), output.shape(), nchw,
           [&](const C* g, C* out) { kNhwc(device, x, g, out, w); });
    StoreNarrowed<T>(device, out_wide, output);
    return Status::OK();
  }

 private:
  Attrs attrs_;
};

template <typename T>
using MaxPool2dGradKernel = MaxPoolWindowKernel<T, MaxPool2dGradAttrs, &MaxPoolGradNhwc<ComputeType<T>>>;
template <typename T>
using MaxPool2dGradGradKernel =
    MaxPoolWindowKernel<T, MaxPool2dGradGradAttrs, &MaxPoolGradGradNhwc<ComputeType<T>>>;

template <typename C>
void AvgPoolGradNhwc(const DeviceContext* device, const C* dy, C* dx, const Window2D& w) {
  const int64_t c = w.channels, image = w.in_h * w.in_w * c;
  ParallelFor(device, w.batch, 2.0 * w.out_h * w.out_w * w.k_h * w.k_w * c, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      C* dxb = dx + b * image;
      std::fill(dxb, dxb + image, C(0));
      for (int64_t py = 0; py < w.out_h; ++py) {
        for (int64_t px = 0; px < w.out_w; ++px) {
          const C* g = dy + ((b * w.out_h + py) * w.out_w + px) * c;
          ForWindow(w, py, px, [&](int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
            if (y0 >= y1 || x0 >= x1) return;
            const C share = C(1) / static_cast<C>((y1 - y0) * (x1 - x0));
            for (int64_t iy = y0; iy < y1; ++iy) {
              for (int64_t ix = x0; ix < x1; ++ix) {
                OutVec<C> acc(dxb + (iy * w.in_w + ix) * c, c);
                acc += InVec<C>(g, c) * share;
              }
            }
          });
        }
      }
    }
  });
}

template <typename T>
class AvgPool2dGradKernel final : public OpKernel {
 public:
  explicit AvgPool2dGradKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    bool nchw;
    Window2D w;
    EMBER_RETURN_IF_ERROR(PoolWindow(attrs_, output.shape(), &nchw, &w));
    const DeviceContext* device = &ctx.device_context();
    using C = ComputeType<T>;
    std::vector<C> dy_wide, out_wide;
    InNhwc(device, WidenedData<T>(device, dy, &dy_wide), dy.shape(), ComputeOutput<T>(output, &out_wide),
           output.shape(), nchw, [&](const C* g, C* dx) { AvgPoolGradNhwc<C>(device, g, dx, w); });
    StoreNarrowed<T>(device, out_wide, output);
    return Status::OK();
  }

 private:
  AvgPool2dGradAttrs attrs_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterNnGradKernels(KernelRegistry& r) {
  RegisterForTypeSet<Conv2dBackpropFilterKernel>(r, "conv2d_backprop_filter", type_sets::Floating{});
  RegisterForTypeSet<MaxPool2dGradKernel>(r, "max_pool2d_grad", type_sets::Real{});
  RegisterForTypeSet<MaxPool2dGradGradKernel>(r, "max_pool2d_grad_grad", type_sets::Real{});
  RegisterForTypeSet<AvgPool2dGradKernel>(r, "avg_pool2d_grad", type_sets::Floating{});
}

}  // namespace ember::cpu
