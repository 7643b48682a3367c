// This file declares the direct (no im2col, no GEMM) CPU convolution
// kernels: the forward pass for filters with few input channels or a
// short reduction (K = k_h * k_w * in_channels up to 1152 at stride 1),
// and the filter gradient for few input channels.
#pragma once

#include <cstdint>

#include "ops/op_kernel.h"
#include "ops/shape_fns/nn.h"

namespace ember::cpu {

// Note [Direct convolution for few input channels]
// With one to four input channels, im2col + GEMM is a poor fit: the GEMM's
// inner dimension K is 9 (3x3 grayscale) to 27 (3x3 RGB), so packing and
// the gather's one small memcpy per tap cost more than the products. And
// up to K = 1152 (3x3x128) OpenBLAS reaches about half of the machine's
// peak on these narrow products, plus the gather. The direct kernels:
// - forward: a tile of output pixels times a block of output channels
//   accumulates in registers: 6 pixels by four packets (64 float32
//   channels) for short reductions with AVX-512, else 12 pixels by two
//   packets (6 with AVX2's 16 registers); conv_direct.cc says why. For
//   every tap and input channel, one load of the block's filter row serves
//   all the tile's pixels, whose input values are broadcast from the input
//   (padded first when the window reaches outside it). Without column
//   dilation a row of taps is one run of k_w * cin input values.
//   Units are (block, image, tile), block outermost, so a thread's
//   consecutive units read one block's filters, or tile outermost when all
//   the filters fit in L2. The filters
//   are read in place when the output channels are whole blocks, else
//   copied into zero-padded panels. It also serves stride-1 layers with
//   more channels up to K = 1152 (3x3x128): the layers Winograd leaves to
//   it (dilated, float64), where it beat im2col + GEMM (56x56 3x3 64 -> 64:
//   671-702 us against 830-845 us, stop 45). Stops 41-44 also ran deeper
//   layers and 1x1 layers here; against the packed float32 GEMM (Note
//   [Packed float32 GEMM]) both now lose, so above that K, at strides
//   above 1 with more than four channels, and for 1x1 layers, im2col (or
//   the input itself) + GEMM is used.
// - filter gradient (few input channels): for each tap, a row of output
//   pixels' gradients is multiplied by the input values under that tap and
//   summed into registers, then added to that tap's row of dW. It sums
//   fixed chunks of output rows into separate partial results and adds them
//   in chunk order, so the result does not depend on the thread count.
// Both need groups == 1; measured against im2col + GEMM in
// docs/performance.md ("Training a small CNN").
bool UsesDirectConv(const shape_fns::Window2D& w, int64_t cin_g, int64_t groups);
bool UsesDirectFilterGrad(const shape_fns::Window2D& w, int64_t cin_g, int64_t groups);

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
