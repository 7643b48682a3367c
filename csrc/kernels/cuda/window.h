// This file declares the CUDA kernels around windowed ops (conv2d,
// pooling): the filter layout cuDNN wants, explicit padding, and pooling.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace ember::cuda {

// The geometry of a 2-D window over an NHWC or NCHW batch, as the shape
// function's Window2D gives it, by value for kernels.
struct WindowGeometry {
  bool nchw = false;
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0;
  int64_t k_h = 1, k_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // before; the after side is implied by out_h, out_w
  int64_t out_h = 0, out_w = 0;
};

// HWIO [k_h, k_w, in, out] filters to cuDNN's KRSC (NHWC: [out, k_h, k_w,
// in]) or KCRS (NCHW: [out, in, k_h, k_w]).
template <typename T>
cudaError_t LaunchFilterToCudnn(const T* hwio, T* out, int64_t k_h, int64_t k_w, int64_t in, int64_t filters,
                                bool nchw, cudaStream_t stream, int64_t max_blocks);

// The inverse: cuDNN's layout back to HWIO (a filter gradient).
template <typename T>
cudaError_t LaunchFilterFromCudnn(const T* cudnn, T* hwio, int64_t k_h, int64_t k_w, int64_t in, int64_t filters,
                                  bool nchw, cudaStream_t stream, int64_t max_blocks);

// The [n, h, w, c] (or [n, c, h, w]) interior of a batch padded by `top`,
// `bottom`, `left`, `right` (the inverse of LaunchPad2d).
template <typename T>
cudaError_t LaunchCrop2d(const T* padded, T* out, int64_t n, int64_t h, int64_t w, int64_t c, bool nchw, int64_t top,
                         int64_t bottom, int64_t left, int64_t right, cudaStream_t stream, int64_t max_blocks);

// Copies a [n, h, w, c] (or [n, c, h, w]) batch into one padded by `top`,
// `bottom`, `left`, `right` rows and columns of `fill`.
template <typename T>
cudaError_t LaunchPad2d(const T* in, T* out, int64_t n, int64_t h, int64_t w, int64_t c, bool nchw, int64_t top,
                        int64_t bottom, int64_t left, int64_t right, T fill, cudaStream_t stream, int64_t max_blocks);

// Note [GPU pooling]
// A thread per output element scans its window over the unpadded input,
// so any padding, symmetric or not, is exact: max ignores the padding,
// and average divides by the number of input elements the window covers
// (TensorFlow's rule), which cuDNN cannot do for asymmetric padding.
template <typename T>
cudaError_t LaunchPool2d(const T* in, T* out, const WindowGeometry& g, bool max, cudaStream_t stream, int64_t max_blocks);

// The gradient of a pooling with respect to its input (x, the pooling's
// input, is read only for max), a thread per input element summing the
// windows that hold it in the CPU's order (window_body.h).
template <typename T>
cudaError_t LaunchPool2dGrad(const T* x, const T* dy, T* dx, const WindowGeometry& g, bool max, cudaStream_t stream,
                             int64_t max_blocks);
// max_pool2d_grad_grad: out (the pooling's output shape) reads `grad` (the
// input's shape) at each window's maximum.
template <typename T>
cudaError_t LaunchMaxPool2dGradGrad(const T* x, const T* grad, T* out, const WindowGeometry& g, cudaStream_t stream,
                                    int64_t max_blocks);

}  // namespace ember::cuda
