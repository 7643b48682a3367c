// This file implements the Winograd F(2x2, 3x3) and F(4x4, 3x3)
// convolutions (Note [Winograd convolution]): the three transforms as
// loops over channels, which GCC vectorizes, and the 16 or 36 products
// per block of tiles as GEMMs.
#include "kernels/cpu/conv_winograd.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/host_scratch.h"
#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/matmul_packed.h"
#include "kernels/cpu/parallel.h"

namespace ember::cpu {
namespace {

using shape_fns::Window2D;

#define EMBER_UNROLL _Pragma("GCC unroll 16")

// The two algorithms' transforms, one dimension at a time (a 2-D
// transform applies the 1-D one to every column, then to every row).
// F(2, 3): 2 outputs from 4 inputs, B^T = [[1, 0, -1, 0], [0, 1, 1, 0],
// [0, -1, 1, 0], [0, 1, 0, -1]], G = [[1, 0, 0], [1/2, 1/2, 1/2],
// [1/2, -1/2, 1/2], [0, 0, 1]], A^T = [[1, 1, 1, 0], [0, 1, -1, -1]].
struct F2x3 {
  static constexpr int kOut = 2, kIn = 4;
  static void Filter(float g0, float g1, float g2, float* u) {
    u[0] = g0;
    u[1] = 0.5f * (g0 + g1 + g2);
    u[2] = 0.5f * (g0 - g1 + g2);
    u[3] = g2;
  }
  static void Input(const float* d, float* v) {
    v[0] = d[0] - d[2];
    v[1] = d[1] + d[2];
    v[2] = d[2] - d[1];
    v[3] = d[1] - d[3];
  }
  static void Output(const float* m, float* y) {
    y[0] = m[0] + m[1] + m[2];
    y[1] = m[1] - m[2] - m[3];
  }
};

// F(4, 3): 4 outputs from 6 inputs, interpolating at 0, 1, -1, 2, -2 and
// infinity (Lavin and Gray's matrices): B^T's rows are [4, 0, -5, 0, 1, 0],
// [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0], [0, -2, -1, 2, 1, 0],
// [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]; G's [1/4, 0, 0],
// [-1/6, -1/6, -1/6], [-1/6, 1/6, -1/6], [1/24, 1/12, 1/6],
// [1/24, -1/12, 1/6], [0, 0, 1]; A^T's [1, 1, 1, 1, 1, 0],
// [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1].
struct F4x3 {
  static constexpr int kOut = 4, kIn = 6;
  static void Filter(float g0, float g1, float g2, float* u) {
    const float even = g0 + g2, a = g0 * (1.0f / 24) + g2 * (1.0f / 6), b = g1 * (1.0f / 12);
    u[0] = g0 * 0.25f;
    u[1] = -(even + g1) * (1.0f / 6);
    u[2] = -(even - g1) * (1.0f / 6);
    u[3] = a + b;
    u[4] = a - b;
    u[5] = g2;
  }
  static void Input(const float* d, float* v) {
    const float p = d[4] - 4.0f * d[2], q = d[3] - 4.0f * d[1];
    const float r = d[4] - d[2], t = 2.0f * (d[3] - d[1]);
    v[0] = 4.0f * d[0] - 5.0f * d[2] + d[4];
    v[1] = p + q;
    v[2] = p - q;
    v[3] = r + t;
    v[4] = r - t;
    v[5] = 4.0f * d[1] - 5.0f * d[3] + d[5];
  }
  static void Output(const float* m, float* y) {
    const float s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
    y[0] = m[0] + s12 + s34;
    y[1] = d12 + 2.0f * d34;
    y[2] = s12 + 4.0f * s34;
    y[3] = d12 + 8.0f * d34 + m[5];
  }
};

// A block's transformed inputs and products together take at most about
// this many bytes, so they stay in the thread's L2 between the transforms
// and the GEMMs; a block has kMinBlockTiles to kMaxBlockTiles tiles (fewer
// rows and the GEMMs spend their time packing the filter).
constexpr int64_t kBlockBytes = int64_t{512} << 10;
constexpr int64_t kMinBlockTiles = 16;
constexpr int64_t kMaxBlockTiles = 128;
// Measured thresholds (docs/performance.md, "Winograd 3x3 convolutions"):
// - the direct kernel stays faster for a handful of input channels;
// - the filter transform, and every block's pass over the transformed
//   filter, cost more than the GEMMs save unless the batch has tiles
//   enough. F(2, 3): 32 2x2 output blocks (ResNet's 14x14 layers at batch
//   1 have 49 and run 1.6x faster), or 128 once cin * cout passes 256 * 256
//   (its 7x7x512 layers: 1.0x at 64, 1.2x at 128, i.e. batch 8);
// - F(4, 3) transforms a 36-position filter: it wins up to 128 x 128
//   channels with 32 4x4 output blocks (1.7x over F(2, 3) on 56x56x64,
//   1.2x on 28x28x128 at batch 1), ties at 14x14x256 and loses 2x on
//   7x7x512 at batch 8.
constexpr int64_t kMinInChannels = 8;
constexpr int64_t kMinTiles = 32;
constexpr int64_t kLargeFilterPlane = 256 * 256;  // cin * cout: 4 MB transformed
constexpr int64_t kMinTilesLargeFilter = 128;
constexpr int64_t kMaxF4FilterPlane = 128 * 128;
// The most tiles (batch included) computed by column block (Note
// [Winograd by column block]).
constexpr int64_t kMaxColumnBlockTiles = 256;

// EMBER_CONV_WINOGRAD (Note [Winograd accuracy]): 2 (the default) allows
// F(2, 3), 4 also F(4, 3) where it is faster, 0 neither. Read once, at the
// first convolution.
int AllowedOutputTile() {
  static const int allowed = [] {
    const char* env = std::getenv("EMBER_CONV_WINOGRAD");
    if (env == nullptr) return 2;
    const std::string value(env);
    return value == "0" ? 0 : value == "4" ? 4 : 2;
  }();
  return allowed;
}

int64_t TileCount(int64_t size, int out) { return (size + out - 1) / out; }

// out[xi * u_plane + k] = (G g G^T)[xi] with g = the 3x3 taps of filter
// column k of one input channel, g0[(3 * i + j) * plane + k], for k < width.
template <typename F>
void TransformFilterRow(const float* g0, int64_t plane, int64_t width, float* out, int64_t u_plane) {
  constexpr int n = F::kIn;
#pragma GCC ivdep
  for (int64_t k = 0; k < width; ++k) {
    float t[3][n];  // t[j] = G g[:, j]
    EMBER_UNROLL
    for (int j = 0; j < 3; ++j) F::Filter(g0[j * plane + k], g0[(3 + j) * plane + k], g0[(6 + j) * plane + k], t[j]);
    EMBER_UNROLL
    for (int i = 0; i < n; ++i) {
      float row[n];
      F::Filter(t[0][i], t[1][i], t[2][i], row);
      EMBER_UNROLL
      for (int j = 0; j < n; ++j) out[(n * i + j) * u_plane + k] = row[j];
    }
  }
}

// u[xi, c, k] = (G g G^T)[xi] with g = f[:, :, c, k].
template <typename F>
void TransformFilter(const DeviceContext* device, const float* f, float* u, int64_t cin, int64_t cout) {
  constexpr int n = F::kIn;
  const int64_t plane = cin * cout;
  ParallelFor(device, cin, 10.0 * n * n * static_cast<double>(cout), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) TransformFilterRow<F>(f + c * cout, plane, cout, u + c * cout, plane);
  });
}

// v[xi * plane + (t - t0) * cin + c] = (B^T d B)[xi] for tiles [t0, t1) of
// the batch (tile t is tile t % tiles of image t / tiles), where d is the
// tile's input window (zeros outside the image).
template <typename F>
void TransformInputs(const float* x, const Window2D& w, int64_t tiles, int64_t tiles_w, int64_t t0, int64_t t1,
                     const float* zeros, float* v, int64_t plane) {
  constexpr int n = F::kIn;
  const int64_t cin = w.channels;
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t b = t / tiles, ty = t % tiles / tiles_w, tx = t % tiles % tiles_w;
    const float* px[n * n];
    for (int i = 0; i < n; ++i) {
      const int64_t iy = F::kOut * ty - w.pad_top + i;
      for (int j = 0; j < n; ++j) {
        const int64_t ix = F::kOut * tx - w.pad_left + j;
        const bool inside = iy >= 0 && iy < w.in_h && ix >= 0 && ix < w.in_w;
        px[n * i + j] = inside ? x + ((b * w.in_h + iy) * w.in_w + ix) * cin : zeros;
      }
    }
    float* out = v + (t - t0) * cin;
#pragma GCC ivdep
    for (int64_t c = 0; c < cin; ++c) {
      float s[n][n];  // s[j] = B^T d[:, j]
      EMBER_UNROLL
      for (int j = 0; j < n; ++j) {
        float col[n];
        EMBER_UNROLL
        for (int i = 0; i < n; ++i) col[i] = px[n * i + j][c];
        F::Input(col, s[j]);
      }
      EMBER_UNROLL
      for (int i = 0; i < n; ++i) {
        float row[n], res[n];
        EMBER_UNROLL
        for (int j = 0; j < n; ++j) row[j] = s[j][i];
        F::Input(row, res);
        EMBER_UNROLL
        for (int j = 0; j < n; ++j) out[(n * i + j) * plane + c] = res[j];
      }
    }
  }
}

// The output blocks of tiles [t0, t1) of the batch: (A^T m A), with m's
// positions `plane` apart. Outputs past the image's last row or column go
// to `discard`.
template <typename F>
void TransformOutputs(const float* m, int64_t plane, const Window2D& w, int64_t tiles, int64_t tiles_w, int64_t t0,
                      int64_t t1, int64_t cout, float* discard, float* y) {
  constexpr int n = F::kIn, o = F::kOut;
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t b = t / tiles, oy = o * (t % tiles / tiles_w), ox = o * (t % tiles % tiles_w);
    float* out[o * o];
    for (int i = 0; i < o; ++i) {
      for (int j = 0; j < o; ++j) {
        const bool inside = oy + i < w.out_h && ox + j < w.out_w;
        out[o * i + j] = inside ? y + ((b * w.out_h + oy + i) * w.out_w + ox + j) * cout : discard;
      }
    }
    const float* in = m + (t - t0) * cout;
#pragma GCC ivdep
    for (int64_t k = 0; k < cout; ++k) {
      float r[n][o];  // r[j] = A^T m[:, j]
      EMBER_UNROLL
      for (int j = 0; j < n; ++j) {
        float col[n];
        EMBER_UNROLL
        for (int i = 0; i < n; ++i) col[i] = in[(n * i + j) * plane + k];
        F::Output(col, r[j]);
      }
      EMBER_UNROLL
      for (int i = 0; i < o; ++i) {
        float row[n], res[o];
        EMBER_UNROLL
        for (int j = 0; j < n; ++j) row[j] = r[j][i];
        F::Output(row, res);
        EMBER_UNROLL
        for (int j = 0; j < o; ++j) out[o * i + j][k] = res[j];
      }
    }
  }
}

// Note [Winograd by column block]
// For layers with a large filter and few tiles, the convolution runs in
// three passes over the pool: all tiles' input transforms; then, per block
// of 64 output channels, the block's filter transform and its 16 (or 36)
// GEMMs; then all output transforms. Cut into blocks of tiles instead,
// every block reads the whole transformed filter, which is larger than L2
// and comes from L3: ResNet's 14x14x256 layer at batch 1 (4 MiB
// transformed, 49 tiles in 4 blocks) read 16 MiB, and writing the 4 MiB
// took a third of its time. Per column block, a thread transforms 1 MiB
// into its own scratch, which stays in its L2 for the GEMMs that read it:
// 14x14x256 went from 1.03-1.11 ms to 0.74-0.80 ms (stop 45, the 2-core
// Xeon; PyTorch's oneDNN 0.76-0.81 ms). It needs two blocks per thread
// at least: with one, 28x28x128 was slower than blocks of tiles.
template <typename F>
void WinogradByColumnBlock(const DeviceContext* device, const float* x, const float* f, float* y, const Window2D& w,
                           int64_t cout, int64_t tiles, int64_t tiles_w, int64_t total, const float* zeros) {
  constexpr int64_t positions = F::kIn * F::kIn;
  const int64_t cin = w.channels, blocks = (cout + kPackedColumns - 1) / kPackedColumns;
  const HostScratch<float> v(positions * total * cin);
  const HostScratch<float> m(positions * total * cout);
  const double transform_cycles = 4.0 * positions * static_cast<double>(cin + cout);
  ParallelFor(device, total, transform_cycles, [&](int64_t t0, int64_t t1) {
    TransformInputs<F>(x, w, tiles, tiles_w, t0, t1, zeros, v.data() + t0 * cin, total * cin);
  });
  const PackedLayout layout{cin, kPackedColumns};  // one block's columns
  const double block_cycles = 2.0 * static_cast<double>(positions * total * cin * kPackedColumns);
  ParallelFor(device, blocks, block_cycles, [&](int64_t first, int64_t last) {
    // A ragged last block leaves lanes past cout as an earlier block wrote
    // them (zeros at first): the GEMM computes them and drops the results.
    const HostScratch<float> u(positions * layout.size(), HostScratch<float>::Fill::kZeros);
    for (int64_t blk = first; blk < last; ++blk) {
      const int64_t k0 = blk * kPackedColumns, width = std::min(kPackedColumns, cout - k0);
      for (int64_t c = 0; c < cin; ++c) {
        TransformFilterRow<F>(f + c * cout + k0, cin * cout, width, u.data() + layout.RowStart(c, 0), layout.size());
      }
      for (int64_t xi = 0; xi < positions; ++xi) {
        PackedSgemmPrepacked(v.data() + xi * total * cin, cin, 1, u.data() + xi * layout.size(),
                             PackedLayout{cin, width}, m.data() + xi * total * cout + k0, cout, total);
      }
    }
  });
  ParallelFor(device, total, transform_cycles, [&](int64_t t0, int64_t t1) {
    const HostScratch<float> discard(cout);
    TransformOutputs<F>(m.data() + t0 * cout, total * cout, w, tiles, tiles_w, t0, t1, cout, discard.data(), y);
  });
}

template <typename F>
void WinogradConv(const DeviceContext* device, const float* x, const float* f, float* y, const Window2D& w,
                  int64_t cout) {
  constexpr int64_t positions = F::kIn * F::kIn;
  const int64_t cin = w.channels;
  const int64_t tiles_w = TileCount(w.out_w, F::kOut), tiles = TileCount(w.out_h, F::kOut) * tiles_w;
  const int64_t total = w.batch * tiles;
  if (total == 0 || cout == 0) return;
  const std::vector<float> zeros(cin, 0.0f);
  const int64_t threads = NumThreads(device);
  if (UsesPrepackedSgemm(cout) && (cout + kPackedColumns - 1) / kPackedColumns >= 2 * threads &&
      total <= kMaxColumnBlockTiles && positions * cin * cout * static_cast<int64_t>(sizeof(float)) > kBlockBytes) {
    return WinogradByColumnBlock<F>(device, x, f, y, w, cout, tiles, tiles_w, total, zeros.data());
  }
  // Scratch is left uninitialized: every element is written before it is
  // read (Note [Kernel scratch]).
  const HostScratch<float> u(positions * cin * cout);
  TransformFilter<F>(device, f, u.data(), cin, cout);

  // Blocks of tiles (across images), in whole rounds over the pool's
  // threads, as Note [Conv2d blocks] shares out im2col blocks. Every block
  // reads the whole transformed filter: when that is large and there are
  // tiles enough, blocks grow past the L2 budget so the GEMMs' rows repay it.
  const int64_t fit = kBlockBytes / (positions * static_cast<int64_t>(sizeof(float)) * (cin + cout));
  int64_t per_block = std::clamp(fit, kMinBlockTiles, kMaxBlockTiles);
  if (positions * cin * cout * static_cast<int64_t>(sizeof(float)) > kBlockBytes) {
    per_block = std::max(per_block, std::min(kMaxBlockTiles / 2, total / (2 * threads)));
  }
  int64_t blocks = (total + per_block - 1) / per_block;
  blocks = std::min(total, (blocks + threads - 1) / threads * threads);
  per_block = (total + blocks - 1) / blocks;
  blocks = (total + per_block - 1) / per_block;

  const double cycles = 2.0 * static_cast<double>(positions * per_block * cin * cout);
  ParallelFor(device, blocks, cycles, [&](int64_t first, int64_t last) {
    const HostScratch<float> v(positions * per_block * cin);
    const HostScratch<float> m(positions * per_block * cout);
    const HostScratch<float> discard(cout);
    for (int64_t block = first; block < last; ++block) {
      const int64_t t0 = block * per_block, t1 = std::min(total, t0 + per_block), n = t1 - t0;
      TransformInputs<F>(x, w, tiles, tiles_w, t0, t1, zeros.data(), v.data(), n * cin);
      const MatmulDims dims{n, cin, cout, false, false};
      for (int64_t xi = 0; xi < positions; ++xi) {
        MatmulRows<float>(v.data() + xi * n * cin, u.data() + xi * cin * cout, m.data() + xi * n * cout, dims, 0, n);
      }
      TransformOutputs<F>(m.data(), n * cout, w, tiles, tiles_w, t0, t1, cout, discard.data(), y);
    }
  });
}

}  // namespace

int WinogradOutputTile(const Window2D& w, int64_t cin_g, int64_t groups, int64_t cout) {
  if (groups != 1 || w.k_h != 3 || w.k_w != 3 || w.stride_h != 1 || w.stride_w != 1) return 0;
  if (w.dilation_h != 1 || w.dilation_w != 1 || cin_g < kMinInChannels || cout < 1) return 0;
  const int allowed = AllowedOutputTile();
  const int64_t plane = cin_g * cout;
  const int64_t tiles4 = w.batch * TileCount(w.out_h, 4) * TileCount(w.out_w, 4);
  if (allowed >= 4 && plane <= kMaxF4FilterPlane && tiles4 >= kMinTiles) return 4;
  const int64_t tiles2 = w.batch * TileCount(w.out_h, 2) * TileCount(w.out_w, 2);
  if (allowed >= 2 && tiles2 >= (plane > kLargeFilterPlane ? kMinTilesLargeFilter : kMinTiles)) return 2;
  return 0;
}

void WinogradConv2dNhwc(const DeviceContext* device, const float* x, const float* f, float* y, const Window2D& w,
                        int64_t cout, int output_tile) {
  if (output_tile == 4) return WinogradConv<F4x3>(device, x, f, y, w, cout);
  WinogradConv<F2x3>(device, x, f, y, w, cout);
}

}  // namespace ember::cpu
