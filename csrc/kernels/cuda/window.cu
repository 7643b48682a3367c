// This file defines the CUDA filter re-layout, padding and pooling kernels
// (window.h) and instantiates them for the float types.
#include <cuda/std/limits>

#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/window.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

#define EMBER_GRID_STRIDE(i, n)                                                                          \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);               \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

template <typename T>
__global__ void FilterToCudnn(const T* __restrict__ hwio, T* __restrict__ out, int64_t kh, int64_t kw, int64_t in,
                              int64_t filters, bool nchw) {
  const int64_t n = kh * kw * in * filters;
  EMBER_GRID_STRIDE(i, n) {
    // i indexes the source [r, s, c, k].
    const int64_t k = i % filters;
    const int64_t c = (i / filters) % in;
    const int64_t s = (i / (filters * in)) % kw;
    const int64_t r = i / (filters * in * kw);
    const int64_t to = nchw ? ((k * in + c) * kh + r) * kw + s : ((k * kh + r) * kw + s) * in + c;
    out[to] = hwio[i];
  }
}

template <typename T>
__global__ void Pad2d(const T* __restrict__ in, T* __restrict__ out, int64_t n, int64_t h, int64_t w, int64_t c,
                      bool nchw, int64_t top, int64_t left, int64_t out_h, int64_t out_w, T fill) {
  const int64_t total = n * out_h * out_w * c;
  EMBER_GRID_STRIDE(i, total) {
    int64_t b, y, x, ch;
    if (nchw) {
      x = i % out_w;
      y = (i / out_w) % out_h;
      ch = (i / (out_w * out_h)) % c;
      b = i / (out_w * out_h * c);
    } else {
      ch = i % c;
      x = (i / c) % out_w;
      y = (i / (c * out_w)) % out_h;
      b = i / (c * out_w * out_h);
    }
    const int64_t sy = y - top, sx = x - left;
    const bool inside = sy >= 0 && sy < h && sx >= 0 && sx < w;
    const int64_t from = nchw ? ((b * c + ch) * h + sy) * w + sx : ((b * h + sy) * w + sx) * c + ch;
    out[i] = inside ? in[from] : fill;
  }
}

template <typename T>
__global__ void Pool2d(const T* __restrict__ in, T* __restrict__ out, WindowGeometry g, bool max) {
  using C = ComputeType<T>;
  const int64_t total = g.batch * g.out_h * g.out_w * g.channels;
  EMBER_GRID_STRIDE(i, total) {
    int64_t b, oy, ox, ch;
    if (g.nchw) {
      ox = i % g.out_w;
      oy = (i / g.out_w) % g.out_h;
      ch = (i / (g.out_w * g.out_h)) % g.channels;
      b = i / (g.out_w * g.out_h * g.channels);
    } else {
      ch = i % g.channels;
      ox = (i / g.channels) % g.out_w;
      oy = (i / (g.channels * g.out_w)) % g.out_h;
      b = i / (g.channels * g.out_w * g.out_h);
    }
    C acc = max ? -::cuda::std::numeric_limits<C>::infinity() : C(0);
    int64_t count = 0;
    for (int64_t dy = 0; dy < g.k_h; ++dy) {
      const int64_t y = oy * g.stride_h - g.pad_top + dy;
      if (y < 0 || y >= g.in_h) continue;
      for (int64_t dx = 0; dx < g.k_w; ++dx) {
        const int64_t x = ox * g.stride_w - g.pad_left + dx;
        if (x < 0 || x >= g.in_w) continue;
        const int64_t at = g.nchw ? ((b * g.channels + ch) * g.in_h + y) * g.in_w + x
                                  : ((b * g.in_h + y) * g.in_w + x) * g.channels + ch;
        const C v = static_cast<C>(in[at]);
        acc = max ? math::Maximum()(acc, v) : acc + v;
        ++count;
      }
    }
    // Every window holds at least one element (the shape function's rule).
    out[i] = static_cast<T>(max ? acc : acc / static_cast<C>(count));
  }
}

LaunchConfig Grid(int64_t n, int64_t max_blocks) { return ForElements(n, kThreads, 1, max_blocks); }

}  // namespace

template <typename T>
cudaError_t LaunchFilterToCudnn(const T* hwio, T* out, int64_t k_h, int64_t k_w, int64_t in, int64_t filters,
                                bool nchw, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig config = Grid(k_h * k_w * in * filters, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  FilterToCudnn<T><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(hwio, out, k_h, k_w, in,
                                                                                       filters, nchw);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchPad2d(const T* in, T* out, int64_t n, int64_t h, int64_t w, int64_t c, bool nchw, int64_t top,
                        int64_t bottom, int64_t left, int64_t right, T fill, cudaStream_t stream, int64_t max_blocks) {
  const int64_t out_h = h + top + bottom, out_w = w + left + right;
  const LaunchConfig config = Grid(n * out_h * out_w * c, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  Pad2d<T><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(in, out, n, h, w, c, nchw, top, left,
                                                                               out_h, out_w, fill);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchPool2d(const T* in, T* out, const WindowGeometry& g, bool max, cudaStream_t stream,
                         int64_t max_blocks) {
  const LaunchConfig config = Grid(g.batch * g.out_h * g.out_w * g.channels, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  Pool2d<T><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(in, out, g, max);
  return cudaGetLastError();
}

#define EMBER_WINDOW(T)                                                                                           \
  template cudaError_t LaunchFilterToCudnn<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, bool, cudaStream_t, \
                                              int64_t);                                                             \
  template cudaError_t LaunchPad2d<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, bool, int64_t, int64_t,    \
                                      int64_t, int64_t, T, cudaStream_t, int64_t);                                  \
  template cudaError_t LaunchPool2d<T>(const T*, T*, const WindowGeometry&, bool, cudaStream_t, int64_t);
EMBER_WINDOW(float)
EMBER_WINDOW(double)
EMBER_WINDOW(__half)
EMBER_WINDOW(__nv_bfloat16)

}  // namespace ember::cuda
