// This file implements the Winograd F(2x2, 3x3) convolution (Note
// [Winograd convolution]): the three transforms as loops over channels,
// which GCC vectorizes, and the 16 products per block of tiles as GEMMs.
#include "kernels/cpu/conv_winograd.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/parallel.h"

namespace ember::cpu {
namespace {

using shape_fns::Window2D;

#define EMBER_UNROLL _Pragma("GCC unroll 16")

// Positions in a 4x4 transformed tile: one GEMM each.
constexpr int64_t kPositions = 16;
// A block's transformed inputs and products together take at most about
// this many bytes, so they stay in the thread's L2 between the transforms
// and the GEMMs; a block has kMinBlockTiles to kMaxBlockTiles tiles (fewer
// rows and the GEMMs spend their time packing the filter).
constexpr int64_t kBlockBytes = int64_t{512} << 10;
constexpr int64_t kMinBlockTiles = 16;
constexpr int64_t kMaxBlockTiles = 128;
// Measured thresholds (docs/performance.md, "Winograd 3x3 convolutions"):
// the direct kernel stays faster for a handful of input channels; and the
// filter transform, and every block's pass over the transformed filter,
// cost more than the GEMMs save unless the batch has enough 2x2 output
// blocks: 32 (ResNet's 14x14 layers at batch 1 have 49 and run 1.6x
// faster), or 128 once the transformed filter passes 4 MB (its 7x7x512
// layers: 1.0x at 64, 1.2x at 128, i.e. batch 8).
constexpr int64_t kMinInChannels = 8;
constexpr int64_t kMinTiles = 32;
constexpr int64_t kLargeFilterPlane = 256 * 256;  // cin * cout: 4 MB transformed
constexpr int64_t kMinTilesLargeFilter = 128;

// u[xi, c, k] = (G g G^T)[xi] with g = f[:, :, c, k] and
// G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]].
void TransformFilter(const DeviceContext* device, const float* f, float* u, int64_t cin, int64_t cout) {
  const int64_t plane = cin * cout;
  ParallelFor(device, cin, 40.0 * static_cast<double>(cout), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const float* g = f + c * cout;  // tap (i, j) at g + (3 * i + j) * plane
      float* out = u + c * cout;      // position xi at out + xi * plane
#pragma GCC ivdep
      for (int64_t k = 0; k < cout; ++k) {
        float t[4][3];
        EMBER_UNROLL
        for (int j = 0; j < 3; ++j) {
          const float g0 = g[j * plane + k], g1 = g[(3 + j) * plane + k], g2 = g[(6 + j) * plane + k];
          t[0][j] = g0;
          t[1][j] = 0.5f * (g0 + g1 + g2);
          t[2][j] = 0.5f * (g0 - g1 + g2);
          t[3][j] = g2;
        }
        EMBER_UNROLL
        for (int i = 0; i < 4; ++i) {
          const float a = t[i][0], b = t[i][1], d = t[i][2];
          out[(4 * i + 0) * plane + k] = a;
          out[(4 * i + 1) * plane + k] = 0.5f * (a + b + d);
          out[(4 * i + 2) * plane + k] = 0.5f * (a - b + d);
          out[(4 * i + 3) * plane + k] = d;
        }
      }
    }
  });
}

// v[xi, t - t0, c] = (B^T d B)[xi] for tiles [t0, t1) of the batch (tile t
// is tile t % tiles of image t / tiles), where d
// is the tile's 4x4 input window (zeros outside the image) and
// B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]].
void TransformInputs(const float* x, const Window2D& w, int64_t tiles, int64_t tiles_w, int64_t t0, int64_t t1,
                     const float* zeros, float* v) {
  const int64_t cin = w.channels, plane = (t1 - t0) * cin;
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t b = t / tiles, ty = t % tiles / tiles_w, tx = t % tiles % tiles_w;
    const float* px[16];
    for (int i = 0; i < 4; ++i) {
      const int64_t iy = 2 * ty - w.pad_top + i;
      for (int j = 0; j < 4; ++j) {
        const int64_t ix = 2 * tx - w.pad_left + j;
        const bool inside = iy >= 0 && iy < w.in_h && ix >= 0 && ix < w.in_w;
        px[4 * i + j] = inside ? x + ((b * w.in_h + iy) * w.in_w + ix) * cin : zeros;
      }
    }
    float* out = v + (t - t0) * cin;
#pragma GCC ivdep
    for (int64_t c = 0; c < cin; ++c) {
      float s[4][4];
      EMBER_UNROLL
      for (int j = 0; j < 4; ++j) {
        const float d0 = px[j][c], d1 = px[4 + j][c], d2 = px[8 + j][c], d3 = px[12 + j][c];
        s[0][j] = d0 - d2;
        s[1][j] = d1 + d2;
        s[2][j] = d2 - d1;
        s[3][j] = d1 - d3;
      }
      EMBER_UNROLL
      for (int i = 0; i < 4; ++i) {
        out[(4 * i + 0) * plane + c] = s[i][0] - s[i][2];
        out[(4 * i + 1) * plane + c] = s[i][1] + s[i][2];
        out[(4 * i + 2) * plane + c] = s[i][2] - s[i][1];
        out[(4 * i + 3) * plane + c] = s[i][1] - s[i][3];
      }
    }
  }
}

// The 2x2 output blocks of tiles [t0, t1) of the batch: (A^T m A) with
// A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]. Outputs past the image's last row
// or column (odd output sizes) go to `discard`.
void TransformOutputs(const float* m, const Window2D& w, int64_t tiles, int64_t tiles_w, int64_t t0, int64_t t1,
                      int64_t cout, float* discard, float* y) {
  const int64_t plane = (t1 - t0) * cout;
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t b = t / tiles, oy = 2 * (t % tiles / tiles_w), ox = 2 * (t % tiles % tiles_w);
    float* out[4];
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        const bool inside = oy + i < w.out_h && ox + j < w.out_w;
        out[2 * i + j] = inside ? y + ((b * w.out_h + oy + i) * w.out_w + ox + j) * cout : discard;
      }
    }
    const float* in = m + (t - t0) * cout;
#pragma GCC ivdep
    for (int64_t k = 0; k < cout; ++k) {
      float r[2][4];
      EMBER_UNROLL
      for (int j = 0; j < 4; ++j) {
        const float p0 = in[j * plane + k], p1 = in[(4 + j) * plane + k];
        const float p2 = in[(8 + j) * plane + k], p3 = in[(12 + j) * plane + k];
        r[0][j] = p0 + p1 + p2;
        r[1][j] = p1 - p2 - p3;
      }
      EMBER_UNROLL
      for (int i = 0; i < 2; ++i) {
        out[2 * i][k] = r[i][0] + r[i][1] + r[i][2];
        out[2 * i + 1][k] = r[i][1] - r[i][2] - r[i][3];
      }
    }
  }
}

}  // namespace

bool UsesWinogradConv(const Window2D& w, int64_t cin_g, int64_t groups, int64_t cout) {
  if (groups != 1 || w.k_h != 3 || w.k_w != 3 || w.stride_h != 1 || w.stride_w != 1) return false;
  if (w.dilation_h != 1 || w.dilation_w != 1 || cin_g < kMinInChannels || cout < 1) return false;
  const int64_t tiles = w.batch * ((w.out_h + 1) / 2) * ((w.out_w + 1) / 2);
  return tiles >= (cin_g * cout > kLargeFilterPlane ? kMinTilesLargeFilter : kMinTiles);
}

void WinogradConv2dNhwc(const DeviceContext* device, const float* x, const float* f, float* y, const Window2D& w,
                        int64_t cout) {
  const int64_t cin = w.channels;
  const int64_t tiles_w = (w.out_w + 1) / 2, tiles = ((w.out_h + 1) / 2) * tiles_w, total = w.batch * tiles;
  if (total == 0 || cout == 0) return;
  // Scratch is left uninitialized: every element is written before it is read.
  const std::unique_ptr<float[]> u(new float[kPositions * cin * cout]);
  TransformFilter(device, f, u.get(), cin, cout);

  // Blocks of tiles (across images), in whole rounds over the pool's
  // threads, as Note [Conv2d blocks] shares out im2col blocks. Every block
  // reads the whole transformed filter: when that is large and there are
  // tiles enough, blocks grow past the L2 budget so the GEMMs' rows repay it.
  const int64_t threads = NumThreads(device);
  const int64_t fit = kBlockBytes / (kPositions * static_cast<int64_t>(sizeof(float)) * (cin + cout));
  int64_t per_block = std::clamp(fit, kMinBlockTiles, kMaxBlockTiles);
  if (kPositions * cin * cout * static_cast<int64_t>(sizeof(float)) > kBlockBytes) {
    per_block = std::max(per_block, std::min(kMaxBlockTiles / 2, total / (2 * threads)));
  }
  int64_t blocks = (total + per_block - 1) / per_block;
  blocks = std::min(total, (blocks + threads - 1) / threads * threads);
  per_block = (total + blocks - 1) / blocks;
  blocks = (total + per_block - 1) / per_block;

  const std::vector<float> zeros(cin, 0.0f);
  const double cycles = 2.0 * static_cast<double>(kPositions * per_block * cin * cout);
  ParallelFor(device, blocks, cycles, [&](int64_t first, int64_t last) {
    const std::unique_ptr<float[]> v(new float[kPositions * per_block * cin]);
    const std::unique_ptr<float[]> m(new float[kPositions * per_block * cout]);
    const std::unique_ptr<float[]> discard(new float[cout]);
    for (int64_t block = first; block < last; ++block) {
      const int64_t t0 = block * per_block, t1 = std::min(total, t0 + per_block), n = t1 - t0;
      TransformInputs(x, w, tiles, tiles_w, t0, t1, zeros.data(), v.get());
      const MatmulDims dims{n, cin, cout, false, false};
      for (int64_t xi = 0; xi < kPositions; ++xi) {
        MatmulRows<float>(v.get() + xi * n * cin, u.get() + xi * cin * cout, m.get() + xi * n * cout, dims, 0, n);
      }
      TransformOutputs(m.get(), w, tiles, tiles_w, t0, t1, cout, discard.get(), y);
    }
  });
}

}  // namespace ember::cpu
