// This file declares the Winograd F(2x2, 3x3) CPU convolution: 3x3
// filters at stride 1, float32, for images with enough output pixels
// (Note [Winograd convolution]).
#pragma once

#include <cstdint>

#include "ops/op_kernel.h"
#include "ops/shape_fns/nn.h"

namespace ember::cpu {

// Note [Winograd convolution]
// A 3x3 stride-1 convolution computes each 2x2 block of output pixels from
// a 4x4 block of input pixels. Winograd's minimal filtering algorithm
// F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2015) does it with 16 products per (input, output) channel
// pair instead of 36:
//   U = G g G^T      the filter, 3x3 -> 4x4, once per call
//   V = B^T d B      each 4x4 input tile, per input channel
//   M = U . V        summed over input channels: 16 GEMMs, one per
//                    position xi of the 4x4 tile, [tiles, cin] x [cin, cout]
//   Y = A^T M A      each 4x4 product tile -> the 2x2 output block
// The transforms only add, subtract and halve, so float32 keeps its
// accuracy (errors within a few ulps of the direct sum's, checked against
// it over the op database's samples and random tensors in
// tests/python/test_conv_winograd.py). The GEMMs carry the work: 2.25x
// fewer multiply-adds than im2col + GEMM or the direct kernel.
//
// Tiles (of every image of the batch) are processed in blocks, the units
// of the intra-op pool: a block's transformed inputs ([16, tiles, cin])
// and products ([16, tiles, cout]) stay in the thread's cache between the
// input transform, the GEMMs and the output transform. The transformed
// filter ([16, cin, cout]) is computed once per call and read by every
// block; for a few tiles against many channels that costs more than the
// GEMMs save, so ResNet's 7x7x512 layers at batch 1 (16 tiles, a 16 MB
// transformed filter) stay on im2col + GEMM. UsesWinogradConv holds the
// measured thresholds (docs/performance.md, "Winograd 3x3 convolutions").
bool UsesWinogradConv(const shape_fns::Window2D& w, int64_t cin_g, int64_t groups, int64_t cout);

// y[N, OH, OW, cout] = conv(x[N, H, W, cin], f[3, 3, cin, cout]), NHWC,
// stride 1, no dilation, any padding.
void WinogradConv2dNhwc(const DeviceContext* device, const float* x, const float* f, float* y,
                        const shape_fns::Window2D& w, int64_t cout);

}  // namespace ember::cpu
