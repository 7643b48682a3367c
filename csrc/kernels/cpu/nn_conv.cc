// This file implements the 2-D convolution CPU kernels: conv2d (im2col +
// GEMM, with direct paths for 1x1 and depthwise filters) and
// conv2d_transpose (GEMM + col2im).
#include <algorithm>
#include <type_traits>
#include <cstring>
#include <vector>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/host_scratch.h"
#include "kernels/cpu/conv_direct.h"
#include "kernels/cpu/conv_winograd.h"
#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/nn.gen.h"
#include "ops/shape_fns/nn.h"

namespace ember::cpu {
namespace {

using shape_fns::Window2D;

// Elements of one im2col block: big enough for an efficient GEMM, small
// enough to stay in L2/L3 per thread.
constexpr int64_t kColBlockElements = 1 << 17;

// Resolves the window of a conv2d-like op from its attrs (already
// validated by the shape function, so errors here are not expected).
Status ConvWindow(const Shape& spatial_source, int64_t k_h, int64_t k_w, const std::vector<int64_t>& strides,
                  const std::optional<std::vector<int64_t>>& dilations, const std::string& padding,
                  const std::vector<int64_t>& explicit_paddings, bool nchw, Window2D* w) {
  int64_t sh, sw, dh = 1, dw = 1;
  EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(strides, nchw, "strides", &sh, &sw));
  if (dilations) EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(*dilations, nchw, "dilations", &dh, &dw));
  return shape_fns::MakeWindow2D(spatial_source, nchw, k_h, k_w, sh, sw, dh, dw, padding, explicit_paddings,
                                 false, w);
}

// Writes the im2col rows of output pixels [p0, p1) of image b, group g, to
// col ([p1 - p0, k_h * k_w * cin_g], in the HWIO filter's flattening order).
template <typename T>
void GatherPatches(const T* x, const Window2D& w, int64_t b, int64_t g, int64_t cin_g, int64_t p0, int64_t p1,
                   T* col) {
  const int64_t k = w.k_h * w.k_w * cin_g;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t py = p / w.out_w, px = p % w.out_w;
    T* dst = col + (p - p0) * k;
    for (int64_t ky = 0; ky < w.k_h; ++ky) {
      const int64_t iy = py * w.stride_h - w.pad_top + ky * w.dilation_h;
      for (int64_t kx = 0; kx < w.k_w; ++kx, dst += cin_g) {
        const int64_t ix = px * w.stride_w - w.pad_left + kx * w.dilation_w;
        if (iy < 0 || iy >= w.in_h || ix < 0 || ix >= w.in_w) {
          std::fill(dst, dst + cin_g, T(0));
        } else {
          std::memcpy(dst, x + ((b * w.in_h + iy) * w.in_w + ix) * w.channels + g * cin_g, cin_g * sizeof(T));
        }
      }
    }
  }
}

// Note [Conv2d blocks]
// The im2col matrix of a large image is gathered a block of rows at a time,
// each block a [rows, K] matrix that stays in cache while its GEMM reads
// it, so no full im2col buffer exists. A block has at least
// kMinConvBlockRows rows: a GEMM with fewer rows spends much of its time
// packing the [K, out_channels] filter. Blocks are shared out in whole
// rounds over the pool's threads. When an image has fewer blocks than there
// are threads (small images with deep channels, such as ResNet's 7x7x512
// layers), its whole im2col matrix is small; it is gathered once and its
// GEMM is split into tiles instead (Note [Matmul tiles]).
constexpr int64_t kMinConvBlockRows = 128;

int64_t ConvBlockRows(int64_t k) { return std::max(kMinConvBlockRows, kColBlockElements / std::max<int64_t>(k, 1)); }

// Note [Conv2d plan]
// Computed in NHWC (NCHW is transpose-copied in and out). Output pixels
// of one image and one group are split into blocks of rows; each block's
// patches are gathered (im2col) into a [rows, k_h * k_w * group_channels]
// matrix whose column order matches the HWIO filter's flattening, so the
// block's output is one GEMM with the filter viewed as [K, out_channels].
// A 1x1 stride-1 unpadded filter needs no gather: the whole input is the
// matrix. Depthwise filters (one input channel per group) use a direct
// loop instead, as per-group GEMMs would have K = k_h * k_w only.
template <typename T>
void Conv2dNhwc(const DeviceContext* device, const T* x, const T* f, T* y, const Window2D& w, int64_t cin_g,
                int64_t cout) {
  const int64_t n_img = w.batch, h = w.in_h, wd = w.in_w, c = w.channels;
  const int64_t oh = w.out_h, ow = w.out_w, m = oh * ow;
  const int64_t groups = c / cin_g, cout_g = cout / groups;
  const int64_t kw_n = w.k_w, k = w.k_h * w.k_w * cin_g;

  if (w.k_h == 1 && w.k_w == 1 && w.stride_h == 1 && w.stride_w == 1 && groups == 1 && w.pad_top == 0 &&
      w.pad_bottom == 0 && w.pad_left == 0 && w.pad_right == 0) {
    ParallelMatmul<T>(device, MatmulDims{n_img * m, c, cout, false, false}, x, f, y);
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (const int tile = WinogradOutputTile(w, cin_g, groups, cout)) {
      return WinogradConv2dNhwc(device, x, f, y, w, cout, tile);
    }
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (UsesDirectConv(w, cin_g, groups)) return DirectConv2dNhwc(device, x, f, y, w, cout);
  }

  if (cin_g == 1 && groups > 1) {
    const int64_t mult = cout_g;
    ParallelFor(device, n_img * oh, 2.0 * ow * w.k_h * w.k_w * cout, [&](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        const int64_t b = row / oh, py = row % oh;
        for (int64_t px = 0; px < ow; ++px) {
          T* out = y + ((b * oh + py) * ow + px) * cout;
          OutVec<T> acc(out, cout);
          acc.setZero();
          for (int64_t ky = 0; ky < w.k_h; ++ky) {
            const int64_t iy = py * w.stride_h - w.pad_top + ky * w.dilation_h;
            if (iy < 0 || iy >= h) continue;
            for (int64_t kx = 0; kx < kw_n; ++kx) {
              const int64_t ix = px * w.stride_w - w.pad_left + kx * w.dilation_w;
              if (ix < 0 || ix >= wd) continue;
              const T* xv = x + ((b * h + iy) * wd + ix) * c;
              const T* fv = f + (ky * kw_n + kx) * cout;
              if (mult == 1) {
                acc += InVec<T>(xv, c) * InVec<T>(fv, c);
              } else {
                for (int64_t ch = 0; ch < c; ++ch) {
                  for (int64_t j = 0; j < mult; ++j) out[ch * mult + j] += xv[ch] * fv[ch * mult + j];
                }
              }
            }
          }
        }
      }
    });
    return;
  }

  // Filters per group, each [K, cout_g] contiguous (the layout GEMM needs).
  // Workspaces are left uninitialized where every element is written
  // before it is read (Note [Kernel scratch]).
  const HostScratch<T> packed(groups > 1 ? groups * k * cout_g : 0);
  const T* filters = f;
  if (groups > 1) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t kk = 0; kk < k; ++kk) {
        std::memcpy(&packed[(g * k + kk) * cout_g], f + kk * cout + g * cout_g, cout_g * sizeof(T));
      }
    }
    filters = packed.data();
  }
  // Note [Conv2d blocks]
  const int64_t images = n_img * groups;
  const int threads = NumThreads(device);
  int64_t blocks = (m + ConvBlockRows(k) - 1) / ConvBlockRows(k);
  if (groups == 1 && images * blocks < threads) {
    // Too few blocks to share: gather each image whole, then split its one
    // GEMM into tiles across the pool.
    const HostScratch<T> col(m * k);
    for (int64_t b = 0; b < n_img; ++b) {
      ParallelFor(device, m, kCheapOpCycles * k, [&](int64_t first, int64_t last) {
        GatherPatches(x, w, b, 0, cin_g, first, last, col.data() + first * k);
      });
      ParallelMatmul<T>(device, MatmulDims{m, k, cout, false, false}, col.data(), f, y + b * m * cout);
    }
    return;
  }
  // Whole rounds of blocks over the pool, with rows shared out evenly.
  const int64_t rounds = (images * blocks + threads - 1) / threads;
  blocks = std::min(m, (rounds * threads + images - 1) / images);
  const int64_t rows = (m + blocks - 1) / blocks;
  blocks = (m + rows - 1) / rows;
  ParallelFor(device, images * blocks, 2.0 * rows * k * cout_g, [&](int64_t first, int64_t last) {
    const HostScratch<T> col(rows * k);
    const HostScratch<T> tmp(groups > 1 ? rows * cout_g : 0);
    for (int64_t unit = first; unit < last; ++unit) {
      const int64_t image = unit / blocks, blk = unit % blocks;
      const int64_t b = image / groups, g = image % groups;
      const int64_t p0 = blk * rows, p1 = std::min(m, p0 + rows);
      GatherPatches(x, w, b, g, cin_g, p0, p1, col.data());
      const int64_t n_rows = p1 - p0;
      const MatmulDims dims{n_rows, k, cout_g, false, false};
      if (groups == 1) {
        MatmulRows<T>(col.data(), filters, y + (b * m + p0) * cout, dims, 0, n_rows);
      } else {
        MatmulRows<T>(col.data(), filters + g * k * cout_g, tmp.data(), dims, 0, n_rows);
        for (int64_t r = 0; r < n_rows; ++r) {
          std::memcpy(y + (b * m + p0 + r) * cout + g * cout_g, tmp.data() + r * cout_g, cout_g * sizeof(T));
        }
      }
    }
  });
}

// The data format and the window of the forward convolution whose input
// has `forward_input` shape: the conv's input, or conv2d_transpose's output.
template <typename Attrs>
Status ConvPlan(const Attrs& attrs, const Shape& forward_input, const Tensor& filters, bool* nchw, Window2D* w) {
  EMBER_RETURN_IF_ERROR(shape_fns::ParseDataFormat2D(attrs.data_format, nchw));
  return ConvWindow(forward_input, filters.dim(0), filters.dim(1), attrs.strides, attrs.dilations, attrs.padding,
                    attrs.explicit_paddings, *nchw, w);
}

// Both conv kernels compute in ComputeType<T> (Note [Whole-tensor half
// compute]): float16 and bfloat16 convolve float32 copies and round each
// output once.
template <typename T>
class Conv2dKernel final : public OpKernel {
 public:
  explicit Conv2dKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& filters = ctx.input(1);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    bool nchw;
    Window2D w;
    if (const Window2D* given = ctx.plan<Window2D>()) {  // Note [Kernel plans]
      w = *given;
      nchw = w.nchw;
    } else {
      EMBER_RETURN_IF_ERROR(ConvPlan(attrs_, input.shape(), filters, &nchw, &w));
    }
    const int64_t cin_g = filters.dim(2), cout = filters.dim(3);
    const DeviceContext* device = &ctx.device_context();
    if (input.NumElements() == 0 || cin_g == 0) {
      std::fill(output.data<T>(), output.data<T>() + output.NumElements(), T(0));
      return Status::OK();
    }
    using C = ComputeType<T>;
    std::vector<C> x_wide, f_wide, y_wide;
    const C* f = WidenedData<T>(device, filters, &f_wide);
    InNhwc(device, WidenedData<T>(device, input, &x_wide), input.shape(), ComputeOutput<T>(output, &y_wide),
           output.shape(), nchw, [&](const C* x, C* y) { Conv2dNhwc<C>(device, x, f, y, w, cin_g, cout); });
    StoreNarrowed<T>(device, y_wide, output);
    return Status::OK();
  }

 private:
  Conv2dAttrs attrs_;
};

// Note [Conv2d transpose plan]
// In NHWC: cols[in_pixels, k_h * k_w * out_c] = input[in_pixels, in_c] x
// filters^T (filters [k_h, k_w, out_c, in_c] are a [K, in_c] matrix), then
// each output pixel gathers the columns of the input pixels whose window
// covers it (col2im as a gather, so output rows split over threads without
// write conflicts). Images go through in groups whose columns fit in
// kTransposeColElements: one GEMM and one gather per group. (Per image, a
// CNN's conv input gradient at batch 32 with 13x13 images was 64 small
// parallel regions per call, and 3.7 ms where a group takes about a third.)
constexpr int64_t kTransposeColElements = int64_t{1} << 21;

// Note [Stride-1 transposed convolution as a convolution]
// At stride 1, conv2d_transpose (conv2d's input gradient) is itself a
// convolution: of its input, padded by (k - 1) * dilation - pad before and
// whatever makes the output size after, with the filters flipped in both
// spatial dims and their two channel dims swapped. When that convolution
// takes the direct kernel (Note [Direct convolution for few input
// channels]) or the Winograd one (Note [Winograd convolution]), it runs
// there: for the CIFAR tutorial's second layer, the
// flipped filters are 3x3x64 -> 32, K = 576. Returns false (nothing done)
// otherwise.
template <typename T>
bool TransposeAsStride1Conv(const DeviceContext* device, const T* in, const T* f, T* out, const Window2D& w,
                           int64_t cin) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return false;
  } else {
    if (w.stride_h != 1 || w.stride_w != 1) return false;
    const int64_t cout = w.channels;  // the forward conv's input channels: this output's
    Window2D t;
    t.batch = w.batch;
    t.in_h = w.out_h;
    t.in_w = w.out_w;
    t.channels = cin;
    t.k_h = w.k_h;
    t.k_w = w.k_w;
    t.dilation_h = w.dilation_h;
    t.dilation_w = w.dilation_w;
    t.pad_top = (w.k_h - 1) * w.dilation_h - w.pad_top;
    t.pad_left = (w.k_w - 1) * w.dilation_w - w.pad_left;
    t.out_h = w.in_h;
    t.out_w = w.in_w;
    t.pad_bottom = t.out_h - 1 + (w.k_h - 1) * w.dilation_h + 1 - t.in_h - t.pad_top;
    t.pad_right = t.out_w - 1 + (w.k_w - 1) * w.dilation_w + 1 - t.in_w - t.pad_left;
    if (t.pad_top < 0 || t.pad_left < 0 || t.pad_bottom < 0 || t.pad_right < 0) return false;
    int winograd = 0;  // the Winograd output tile, or 0
    if constexpr (std::is_same_v<T, float>) winograd = WinogradOutputTile(t, cin, 1, cout);
    if (!winograd && !UsesDirectConv(t, cin, 1)) return false;
    // filters [kh, kw, cout, cin] -> flipped [kh, kw, cin, cout]
    const HostScratch<T> flipped(w.k_h * w.k_w * cin * cout);
    for (int64_t ky = 0; ky < w.k_h; ++ky) {
      for (int64_t kx = 0; kx < w.k_w; ++kx) {
        const T* src = f + ((w.k_h - 1 - ky) * w.k_w + (w.k_w - 1 - kx)) * cout * cin;
        T* dst = flipped.data() + (ky * w.k_w + kx) * cin * cout;
        for (int64_t co = 0; co < cout; ++co) {
          for (int64_t ci = 0; ci < cin; ++ci) dst[ci * cout + co] = src[co * cin + ci];
        }
      }
    }
    if constexpr (std::is_same_v<T, float>) {
      if (winograd) {
        WinogradConv2dNhwc(device, in, flipped.data(), out, t, cout, winograd);
        return true;
      }
    }
    DirectConv2dNhwc(device, in, flipped.data(), out, t, cout);
    return true;
  }
}

template <typename T>
void Conv2dTransposeNhwc(const DeviceContext* device, const T* in, const T* f, T* out, const Window2D& w, int64_t cin) {
  if (TransposeAsStride1Conv(device, in, f, out, w, cin)) return;  // Note [Stride-1 transposed convolution as a convolution]
  // w describes the forward conv of the output: w.in_* = output dims,
  // w.out_* = input dims.
  const int64_t oh = w.in_h, ow = w.in_w, cout = w.channels;
  const int64_t ih = w.out_h, iw = w.out_w;
  const int64_t k = w.k_h * w.k_w * cout;
  const int64_t image_cols = ih * iw * k;
  const int64_t group = std::clamp<int64_t>(kTransposeColElements / std::max<int64_t>(image_cols, 1), 1, w.batch);
  const HostScratch<T> cols(group * image_cols);
  for (int64_t b0 = 0; b0 < w.batch; b0 += group) {
    const int64_t images = std::min(group, w.batch - b0);
    ParallelMatmul<T>(device, MatmulDims{images * ih * iw, cin, k, false, true}, in + b0 * ih * iw * cin, f,
                      cols.data());
    ParallelFor(device, images * oh, 1.0 * ow * w.k_h * w.k_w * cout, [&](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        const int64_t image = row / oh, py = row % oh;
        const T* image_cols_data = cols.data() + image * image_cols;
        T* y = out + (b0 + image) * oh * ow * cout;
        for (int64_t px = 0; px < ow; ++px) {
          OutVec<T> acc(y + (py * ow + px) * cout, cout);
          acc.setZero();
          for (int64_t ky = 0; ky < w.k_h; ++ky) {
            const int64_t ty = py + w.pad_top - ky * w.dilation_h;
            if (ty < 0 || ty % w.stride_h != 0 || ty / w.stride_h >= ih) continue;
            const int64_t sy = ty / w.stride_h;
            for (int64_t kx = 0; kx < w.k_w; ++kx) {
              const int64_t tx = px + w.pad_left - kx * w.dilation_w;
              if (tx < 0 || tx % w.stride_w != 0 || tx / w.stride_w >= iw) continue;
              const int64_t sx = tx / w.stride_w;
              acc += InVec<T>(image_cols_data + (sy * iw + sx) * k + (ky * w.k_w + kx) * cout, cout);
            }
          }
        }
      }
    });
  }
}

template <typename T>
class Conv2dTransposeKernel final : public OpKernel {
 public:
  explicit Conv2dTransposeKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& filters = ctx.input(1);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    bool nchw;
    Window2D w;
    EMBER_RETURN_IF_ERROR(ConvPlan(attrs_, output.shape(), filters, &nchw, &w));
    const int64_t cin = filters.dim(3);
    const DeviceContext* device = &ctx.device_context();
    using C = ComputeType<T>;
    std::vector<C> x_wide, f_wide, y_wide;
    const C* f = WidenedData<T>(device, filters, &f_wide);
    InNhwc(device, WidenedData<T>(device, input, &x_wide), input.shape(), ComputeOutput<T>(output, &y_wide),
           output.shape(), nchw, [&](const C* x, C* y) { Conv2dTransposeNhwc<C>(device, x, f, y, w, cin); });
    StoreNarrowed<T>(device, y_wide, output);
    return Status::OK();
  }

 private:
  Conv2dTransposeAttrs attrs_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterNnConvKernels(KernelRegistry& r) {
  RegisterForTypeSet<Conv2dKernel>(r, "conv2d", type_sets::Floating{});
  RegisterForTypeSet<Conv2dTransposeKernel>(r, "conv2d_transpose", type_sets::Floating{});
}

}  // namespace ember::cpu
