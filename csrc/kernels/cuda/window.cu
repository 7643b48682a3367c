// This file defines the CUDA filter re-layout, padding and pooling kernels
// (window.h) around their bodies (window_body.h) and instantiates them for
// the float types.
#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/window.h"
#include "kernels/cuda/window_body.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void FilterToCudnn(const T* __restrict__ hwio, T* __restrict__ out, int64_t kh, int64_t kw, int64_t in,
                              int64_t filters, bool nchw) {
  EMBER_GRID_STRIDE(i, kh * kw * in * filters) { out[FilterToCudnnIndex(i, kh, kw, in, filters, nchw)] = hwio[i]; }
}

// The inverse of FilterToCudnn: cuDNN's layout back to HWIO.
template <typename T>
__global__ void FilterFromCudnn(const T* __restrict__ cudnn, T* __restrict__ hwio, int64_t kh, int64_t kw, int64_t in,
                                int64_t filters, bool nchw) {
  EMBER_GRID_STRIDE(i, kh * kw * in * filters) { hwio[i] = cudnn[FilterToCudnnIndex(i, kh, kw, in, filters, nchw)]; }
}

// The inverse of Pad2d: the [n, h, w, c] (or [n, c, h, w]) interior of a
// batch padded by `top` rows and `left` columns (padded_h x padded_w).
template <typename T>
__global__ void Crop2d(const T* __restrict__ padded, T* __restrict__ out, int64_t n, int64_t h, int64_t w, int64_t c,
                       bool nchw, int64_t top, int64_t left, int64_t padded_h, int64_t padded_w) {
  EMBER_GRID_STRIDE(i, n * h * w * c) {
    const Pixel p = PixelOf(i, nchw, h, w, c);
    out[i] = nchw ? padded[((p.b * c + p.ch) * padded_h + p.y + top) * padded_w + p.x + left]
                  : padded[((p.b * padded_h + p.y + top) * padded_w + p.x + left) * c + p.ch];
  }
}

template <typename T>
__global__ void Pad2d(const T* __restrict__ in, T* __restrict__ out, int64_t n, int64_t h, int64_t w, int64_t c,
                      bool nchw, int64_t top, int64_t left, int64_t out_h, int64_t out_w, T fill) {
  EMBER_GRID_STRIDE(i, n * out_h * out_w * c) {
    const int64_t from = PadSourceIndex(i, h, w, c, nchw, top, left, out_h, out_w);
    out[i] = from >= 0 ? in[from] : fill;
  }
}

template <typename T>
__global__ void Pool2d(const T* __restrict__ in, T* __restrict__ out, WindowGeometry g, bool max) {
  EMBER_GRID_STRIDE(i, g.batch * g.out_h * g.out_w * g.channels) {
    out[i] = static_cast<T>(PoolElement<ComputeType<T>>(in, i, g, max));
  }
}

LaunchConfig Grid(int64_t n, int64_t max_blocks) { return ForElements(n, kThreads, 1, max_blocks); }

// A thread per input element gathers the windows that hold it (Note [GPU
// pooling]), so no two threads add into one element.
template <typename T>
__global__ void Pool2dGrad(const T* __restrict__ x, const T* __restrict__ dy, T* __restrict__ dx, WindowGeometry g,
                           bool max) {
  using C = ComputeType<T>;
  EMBER_GRID_STRIDE(i, g.batch * g.in_h * g.in_w * g.channels) { dx[i] = static_cast<T>(PoolGradElement<C>(x, dy, i, g, max)); }
}

// max_pool2d_grad_grad: each output pixel reads g at its window's maximum.
template <typename T>
__global__ void MaxPool2dGradGrad(const T* __restrict__ x, const T* __restrict__ grad, T* __restrict__ out,
                                  WindowGeometry g) {
  using C = ComputeType<T>;
  EMBER_GRID_STRIDE(i, g.batch * g.out_h * g.out_w * g.channels) {
    const Pixel p = PixelOf(i, g.nchw, g.out_h, g.out_w, g.channels);
    const int64_t at = PoolArgmax<C>(x, p.b, p.y, p.x, p.ch, g);
    out[i] = at < 0 ? static_cast<T>(C(0)) : grad[at];
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchPool2dGrad(const T* x, const T* dy, T* dx, const WindowGeometry& g, bool max, cudaStream_t stream,
                             int64_t max_blocks) {
  const LaunchConfig config = Grid(g.batch * g.in_h * g.in_w * g.channels, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  Pool2dGrad<T><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(x, dy, dx, g, max);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchMaxPool2dGradGrad(const T* x, const T* grad, T* out, const WindowGeometry& g, cudaStream_t stream,
                                    int64_t max_blocks) {
  const LaunchConfig config = Grid(g.batch * g.out_h * g.out_w * g.channels, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  MaxPool2dGradGrad<T><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(x, grad, out, g);
  return cudaGetLastError();
}

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
cudaError_t LaunchFilterFromCudnn(const T* cudnn, T* hwio, int64_t k_h, int64_t k_w, int64_t in, int64_t filters,
                                  bool nchw, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig config = Grid(k_h * k_w * in * filters, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  FilterFromCudnn<T><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(cudnn, hwio, k_h, k_w, in,
                                                                                         filters, nchw);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchCrop2d(const T* padded, T* out, int64_t n, int64_t h, int64_t w, int64_t c, bool nchw, int64_t top,
                         int64_t bottom, int64_t left, int64_t right, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig config = Grid(n * h * w * c, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  Crop2d<T><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(padded, out, n, h, w, c, nchw, top,
                                                                                left, h + top + bottom, w + left + right);
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
  template cudaError_t LaunchFilterFromCudnn<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, bool, cudaStream_t, \
                                                int64_t);                                                             \
  template cudaError_t LaunchCrop2d<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, bool, int64_t, int64_t,    \
                                       int64_t, int64_t, cudaStream_t, int64_t);                                     \
  template cudaError_t LaunchPad2d<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t, bool, int64_t, int64_t,    \
                                      int64_t, int64_t, T, cudaStream_t, int64_t);                                  \
  template cudaError_t LaunchPool2d<T>(const T*, T*, const WindowGeometry&, bool, cudaStream_t, int64_t);        \
  template cudaError_t LaunchPool2dGrad<T>(const T*, const T*, T*, const WindowGeometry&, bool, cudaStream_t,      \
                                           int64_t);                                                             \
  template cudaError_t LaunchMaxPool2dGradGrad<T>(const T*, const T*, T*, const WindowGeometry&, cudaStream_t, int64_t);
EMBER_WINDOW(float)
EMBER_WINDOW(double)
EMBER_WINDOW(__half)
EMBER_WINDOW(__nv_bfloat16)

}  // namespace ember::cuda
