// This file declares the window geometry shared by the convolution and
// pooling shape functions (shape_fns/nn.cc) and their CPU kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/attr_value.h"
#include "core/shape.h"
#include "core/status.h"

namespace ember::shape_fns {

// The spatial geometry of one 2-D convolution or pooling window over an
// NHWC or NCHW input. Padding is resolved to explicit amounts per side.
struct Window2D {
  bool nchw = false;
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0;
  int64_t k_h = 1, k_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t out_h = 0, out_w = 0;

  int64_t effective_k_h() const { return (k_h - 1) * dilation_h + 1; }
  int64_t effective_k_w() const { return (k_w - 1) * dilation_w + 1; }
  // The output shape for `out_channels`, in the input's data format.
  Shape OutputShape(int64_t out_channels) const;
};

// "NHWC" -> false, "NCHW" -> true; anything else is InvalidArgument.
Status ParseDataFormat2D(const std::string& format, bool* nchw);

// Reads a per-dimension attr (strides, dilations, ksize) given as 1, 2 or 4
// ints (4: in the data format's order, batch and channel entries must be 1)
// into its (h, w) values, which must be positive. `what` names the attr.
Status SpatialPair(const std::vector<int64_t>& values, bool nchw, const char* what,
                   int64_t* h, int64_t* w);

// Fills `w` for a rank-4 `input`, a window of k_h x k_w and the padding
// attrs: padding is "SAME", "VALID" or "EXPLICIT" (then
// explicit_paddings holds 8 ints, before/after pairs per dim in the data
// format's order, zero for batch and channels). `pool` adds the pooling
// rule that explicit padding is smaller than the window, so every window
// holds at least one input element.
Status MakeWindow2D(const Shape& input, bool nchw, int64_t k_h, int64_t k_w, int64_t stride_h,
                    int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                    const std::string& padding, const std::vector<int64_t>& explicit_paddings,
                    bool pool, Window2D* w);

}  // namespace ember::shape_fns
