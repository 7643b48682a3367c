// This file declares the Winograd F(2x2, 3x3) and F(4x4, 3x3) CPU
// convolutions: 3x3 filters at stride 1, float32, for images with enough
// output pixels (Note [Winograd convolution]).
#pragma once

#include <cstdint>

#include "ops/op_kernel.h"
#include "ops/shape_fns/nn.h"

namespace ember::cpu {

// Note [Winograd convolution]
// A 3x3 stride-1 convolution computes each m x m block of output pixels
// from an (m + 2) x (m + 2) block of input pixels. Winograd's minimal
// filtering algorithms F(m x m, 3x3) (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2015) do it with (m + 2)^2 products per
// (input, output) channel pair instead of 9 m^2: 16 instead of 36 for
// F(2x2, 3x3), 36 instead of 144 for F(4x4, 3x3).
//   U = G g G^T      the filter, 3x3 -> (m + 2)^2, once per call
//   V = B^T d B      each input tile, per input channel
//   M = U . V        summed over input channels: one GEMM per position xi
//                    of the transformed tile, [tiles, cin] x [cin, cout]
//   Y = A^T M A      each product tile -> the m x m output block
// The GEMMs carry the work: 2.25x (m = 2) or 4x (m = 4) fewer
// multiply-adds than im2col + GEMM or the direct kernel.
//
// Tiles (of every image of the batch) are processed in blocks, the units
// of the intra-op pool: a block's transformed inputs ([positions, tiles,
// cin]) and products ([positions, tiles, cout]) stay in the thread's cache
// between the input transform, the GEMMs and the output transform. The
// transformed filter ([positions, cin, cout]) is computed once per call
// and read by every block; for a few tiles against many channels that
// costs more than the GEMMs save, so ResNet's 7x7x512 layers at batch 1
// (16 2x2 tiles, a 16 MB transformed filter) stay on im2col + GEMM.
// WinogradOutputTile holds the measured thresholds (docs/performance.md,
// "Winograd 3x3 convolutions").
//
// Note [Winograd accuracy]
// F(2x2, 3x3)'s transforms only add, subtract and halve: its float32 error
// is that of a plain float32 sum (the largest error relative to the sum
// of |x| * |f| over a window: 0.8-1.2e-7 on ResNet's layers, against
// 0.8-1.9e-7 for NumPy's float32 im2col + matmul). It is the default.
// F(4x4, 3x3)'s transforms multiply by up to 8 and divide by 24, and its
// error is about 20x larger (about 2.5e-6 on the same layers): the op
// database's larger conv samples then miss their float32 tolerance of
// 1e-4, though it is well inside the 1e-3 relative of the TensorFloat-32
// that GPUs use by default. So it is opt-in: EMBER_CONV_WINOGRAD=4 lets
// it run where it is faster (1.7x over F(2x2, 3x3) on 56x56x64), =2 (the
// default) keeps F(2x2, 3x3) only, =0 turns Winograd off.
// tests/python/test_conv_winograd.py checks the three settings.

// The output tile m (2 or 4) of the Winograd algorithm that a conv2d with
// this window should use, or 0 for none.
int WinogradOutputTile(const shape_fns::Window2D& w, int64_t cin_g, int64_t groups, int64_t cout);

// y[N, OH, OW, cout] = conv(x[N, H, W, cin], f[3, 3, cin, cout]), NHWC,
// stride 1, no dilation, any padding, with F(m x m, 3x3), m = output_tile.
void WinogradConv2dNhwc(const DeviceContext* device, const float* x, const float* f, float* y,
                        const shape_fns::Window2D& w, int64_t cout, int output_tile);

}  // namespace ember::cpu
