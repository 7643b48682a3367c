// This file declares the cuDNN geometry of a convolution or pooling call:
// its descriptors, built from the shape function's Window2D, and the output
// shape cuDNN derives from them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/status.h"
#include "ops/shape_fns/nn.h"

namespace ember::cuda {

// Note [cuDNN convolution geometry]
// A conv2d or pooling call, as its shape function worked it out (a
// Window2D, Note [Kernel plans]), in cuDNN's terms:
//  - The input is a 4-d tensor descriptor in the op's format (NHWC or
//    NCHW) with dims n, c, h, w.
//  - Ember's filters are TensorFlow's HWIO [k_h, k_w, in / groups, out];
//    cuDNN takes them as KRSC in NHWC and KCRS in NCHW, so the GPU kernel
//    transposes them; the descriptor says k = out, c = in / groups.
//  - Grouped (and depthwise) convolutions set the group count to
//    in_channels / the filter's in.
//  - cuDNN pads both sides of a dim equally. TensorFlow's SAME with an odd
//    total pads one more after than before, and EXPLICIT may pad anything:
//    the symmetric part (the smaller side) goes to cuDNN, the rest is
//    added by pre-padding the input into a scratch buffer (zeros; the
//    lowest value for max pooling). Average pooling excludes padding from
//    its counts, which pre-padding cannot do, so an asymmetric average
//    pool is refused (the op runs on the CPU instead).
//  - The output dims cuDNN derives from the descriptors must equal the
//    shape function's: CI checks them over the op database's samples
//    (tests/python/test_cuda_build.py) with the real cuDNN, no GPU needed.
struct CudnnGeometry {
  int64_t prepad_top = 0, prepad_bottom = 0, prepad_left = 0, prepad_right = 0;
  int64_t pad_h = 0, pad_w = 0;  // what cuDNN pads on each side
  int64_t groups = 1;
  Shape output;  // cuDNN's output shape, in the op's format
};

// A conv2d's cuDNN descriptors (input pre-padded, KRSC/KCRS filters,
// output), built on the host; Prepare and Run need a GPU.
class CudnnConv2d {
 public:
  // `filter` is the HWIO filter shape; `window` the conv2d shape function's.
  static Status Create(const shape_fns::Window2D& window, const Shape& filter, DType dtype,
                       std::unique_ptr<CudnnConv2d>* out);
  ~CudnnConv2d();
  CudnnConv2d(const CudnnConv2d&) = delete;
  CudnnConv2d& operator=(const CudnnConv2d&) = delete;

  const CudnnGeometry& geometry() const { return geometry_; }
  // Picks the algorithm, once: cuDNN's heuristic's first choice whose
  // workspace fits `max_workspace`.
  Status Prepare(void* handle, size_t max_workspace);
  size_t workspace_bytes() const { return workspace_bytes_; }
  // y = conv(x, w): `x` already pre-padded, `w` in cuDNN's layout.
  Status Run(void* handle, const void* x, const void* w, void* y, void* workspace) const;

  // The gradients over the same descriptors (conv2d_transpose and
  // conv2d_backprop_filter): algorithms picked once, as Prepare does.
  Status PrepareBackwardData(void* handle, size_t max_workspace);
  Status PrepareBackwardFilter(void* handle, size_t max_workspace);
  size_t backward_data_workspace_bytes() const { return data_workspace_bytes_; }
  size_t backward_filter_workspace_bytes() const { return filter_workspace_bytes_; }
  // dx (the pre-padded input's shape) = the gradient of conv(x, w) for dy.
  Status RunBackwardData(void* handle, const void* w, const void* dy, void* dx, void* workspace) const;
  // dw (cuDNN's filter layout) = the gradient for dy; `x` pre-padded.
  Status RunBackwardFilter(void* handle, const void* x, const void* dy, void* dw, void* workspace) const;

 private:
  CudnnConv2d() = default;
  CudnnGeometry geometry_;
  DType dtype_ = DType::kFloat32;
  void* x_ = nullptr;
  void* w_ = nullptr;
  void* conv_ = nullptr;
  void* y_ = nullptr;
  bool prepared_ = false;
  int algo_ = 0;
  size_t workspace_bytes_ = 0;
  bool data_prepared_ = false;
  int data_algo_ = 0;
  size_t data_workspace_bytes_ = 0;
  bool filter_prepared_ = false;
  int filter_algo_ = 0;
  size_t filter_workspace_bytes_ = 0;
};

// The output shape cuDNN derives for a conv2d (CudnnConv2d's geometry).
Status CudnnConv2dGeometry(const shape_fns::Window2D& window, const Shape& filter, DType dtype, CudnnGeometry* out);

// A cuDNN handle whose work goes to `stream` (a cudaStream_t); needs a GPU.
Status CreateCudnnHandle(void* stream, void** handle);
// `window` is the pooling shape function's; `max` picks max or average.
Status CudnnPool2dGeometry(const shape_fns::Window2D& window, bool max, DType dtype, CudnnGeometry* out);

}  // namespace ember::cuda
