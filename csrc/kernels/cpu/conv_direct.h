// This file declares the direct (no im2col, no GEMM) CPU convolution
// kernels for filters with few input channels: the first layer of an image
// network (grayscale or RGB in, K = k_h * k_w * in_channels small).
#pragma once

#include <cstdint>

#include "ops/op_kernel.h"
#include "ops/shape_fns/nn.h"

namespace ember::cpu {

// Note [Direct convolution for few input channels]
// With one to four input channels, im2col + GEMM is a poor fit: the GEMM's
// inner dimension K is 9 (3x3 grayscale) to 27 (3x3 RGB), so packing and
// the gather's one small memcpy per tap cost more than the products. The
// direct kernels instead vectorize over output channels:
// - forward: each output pixel keeps a block of output channels in
//   registers (kDirectBlock lanes) and adds, for every tap and input
//   channel, the input value times the filter's row;
// - filter gradient: for each tap, a row of output pixels' gradients is
//   multiplied by the input values under that tap and summed into
//   registers, then added to that tap's row of dW.
// Filters are copied once with the output channels padded to whole blocks,
// so no block needs a tail. The filter gradient sums fixed chunks of
// output rows into separate partial results and adds them in chunk order,
// so the result does not depend on the thread count.
// Both need groups == 1; measured against im2col + GEMM in
// docs/performance.md ("Direct convolution").
bool UsesDirectConv(const shape_fns::Window2D& w, int64_t cin_g, int64_t groups);

// y[N, OH, OW, cout] = conv(x[N, H, W, cin], f[KH, KW, cin, cout]), NHWC.
template <typename C>
void DirectConv2dNhwc(const DeviceContext* device, const C* x, const C* f, C* y, const shape_fns::Window2D& w,
                      int64_t cout);

// dw[KH, KW, cin, cout] = conv2d's filter gradient for input x and
// incoming gradient dy[N, OH, OW, cout], NHWC; overwrites dw.
template <typename C>
void DirectFilterGradNhwc(const DeviceContext* device, const C* x, const C* dy, C* dw,
                          const shape_fns::Window2D& w, int64_t cout);

}  // namespace ember::cpu
