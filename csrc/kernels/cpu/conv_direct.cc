// This file implements the direct convolution kernels for few input
// channels (Note [Direct convolution for few input channels]).
#include "kernels/cpu/conv_direct.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"

namespace ember::cpu {
namespace {

using shape_fns::Window2D;

// Loops over registers must be unrolled before GCC decides where arrays
// live, or the accumulators are kept on the stack.
#define EMBER_UNROLL _Pragma("GCC unroll 16")

// Output channels per register block: 32 float32 lanes are four AVX2
// registers, so a block plus the broadcast input value stay in registers.
constexpr int64_t kBlock = 32;
// Input channels up to which the direct kernels beat im2col + GEMM.
constexpr int64_t kMaxDirectInChannels = 4;
// The filter gradient's partial results: at most this many chunks of
// output rows, each chunk at most kMaxPartialElements values in all.
constexpr int64_t kMaxChunks = 64;
constexpr int64_t kMaxPartialElements = int64_t{1} << 22;

int64_t Blocks(int64_t cout) { return (cout + kBlock - 1) / kBlock; }

// f[K, cout] as [K, Blocks(cout) * kBlock], the padding lanes zero.
template <typename C>
std::vector<C> PaddedRows(const C* f, int64_t k, int64_t cout) {
  const int64_t padded = Blocks(cout) * kBlock;
  std::vector<C> out(k * padded, C(0));
  for (int64_t r = 0; r < k; ++r) std::memcpy(out.data() + r * padded, f + r * cout, cout * sizeof(C));
  return out;
}

// The input row of tap row ky for output row py, or -1 in the padding.
int64_t InputRow(const Window2D& w, int64_t py, int64_t ky) {
  const int64_t iy = py * w.stride_h - w.pad_top + ky * w.dilation_h;
  return iy >= 0 && iy < w.in_h ? iy : -1;
}

int64_t InputColumn(const Window2D& w, int64_t px, int64_t kx) {
  return px * w.stride_w - w.pad_left + kx * w.dilation_w;
}

// The output columns [*first, *last) whose tap column kx falls inside the
// input (the column grows with px, so they are one range).
void ValidColumns(const Window2D& w, int64_t kx, int64_t* first, int64_t* last) {
  int64_t lo = 0, hi = w.out_w;
  while (lo < hi && InputColumn(w, lo, kx) < 0) ++lo;
  while (hi > lo && InputColumn(w, hi - 1, kx) >= w.in_w) --hi;
  *first = lo;
  *last = hi;
}

// Eigen's packet for C (a SIMD register: 16 floats with AVX-512, 8 with
// AVX2) and how many make one block of kBlock output channels.
template <typename C>
using Packet = typename Eigen::internal::packet_traits<C>::type;
template <typename C>
constexpr int kLanes = Eigen::internal::unpacket_traits<Packet<C>>::size;
template <typename C>
constexpr int kPacketsPerBlock = static_cast<int>(kBlock) / kLanes<C>;
// Output pixels that share one load of the filter rows: the accumulators,
// kPixels * kPacketsPerBlock registers, stay at 8.
template <typename C>
constexpr int kPixels = std::max(1, 8 / kPacketsPerBlock<C>);

// Output pixels [px, px + kP) of output row (b, py), channel block blk:
// accumulators in registers, one filter load per tap shared by the kP
// pixels. With kInterior every tap column of every pixel is inside the
// input (no check per pixel); otherwise kP is 1 and columns are checked.
template <typename C, int kP, bool kInterior>
void DirectConvPixels(const C* x, const C* fp, C* y, const Window2D& w, int64_t cout, int64_t padded, int64_t b,
                      int64_t py, int64_t px, int64_t blk) {
  using P = Packet<C>;
  constexpr int kNp = kPacketsPerBlock<C>, kL = kLanes<C>;
  const int64_t cin = w.channels;
  P acc[kP][kNp];
  EMBER_UNROLL for (int p = 0; p < kP; ++p) {
    EMBER_UNROLL for (int j = 0; j < kNp; ++j) acc[p][j] = Eigen::internal::pset1<P>(C(0));
  }
  for (int64_t ky = 0; ky < w.k_h; ++ky) {
    const int64_t iy = InputRow(w, py, ky);
    if (iy < 0) continue;
    const C* x_row = x + (b * w.in_h + iy) * w.in_w * cin;
    for (int64_t kx = 0; kx < w.k_w; ++kx) {
      const int64_t ix0 = InputColumn(w, px, kx);
      if (!kInterior && (ix0 < 0 || ix0 >= w.in_w)) continue;
      const C* fv = fp + (ky * w.k_w + kx) * cin * padded + blk * kBlock;
      for (int64_t ci = 0; ci < cin; ++ci) {
        P f[kNp];
        EMBER_UNROLL for (int j = 0; j < kNp; ++j) f[j] = Eigen::internal::ploadu<P>(fv + ci * padded + j * kL);
        EMBER_UNROLL for (int p = 0; p < kP; ++p) {
          const P v = Eigen::internal::pset1<P>(x_row[(ix0 + p * w.stride_w) * cin + ci]);
          EMBER_UNROLL for (int j = 0; j < kNp; ++j) acc[p][j] = Eigen::internal::pmadd(v, f[j], acc[p][j]);
        }
      }
    }
  }
  const int64_t n = std::min(kBlock, cout - blk * kBlock);
  EMBER_UNROLL for (int p = 0; p < kP; ++p) {
    C* out = y + (((b * w.out_h + py) * w.out_w) + px + p) * cout + blk * kBlock;
    if (n == kBlock) {
      EMBER_UNROLL for (int j = 0; j < kNp; ++j) Eigen::internal::pstoreu(out + j * kL, acc[p][j]);
    } else {
      C lanes[kBlock];
      EMBER_UNROLL for (int j = 0; j < kNp; ++j) Eigen::internal::pstoreu(lanes + j * kL, acc[p][j]);
      std::memcpy(out, lanes, n * sizeof(C));
    }
  }
}

// True if every tap column of output columns [px, px + count) is inside
// the input.
bool InteriorColumns(const Window2D& w, int64_t px, int64_t count) {
  return InputColumn(w, px, 0) >= 0 && InputColumn(w, px + count - 1, w.k_w - 1) < w.in_w;
}

}  // namespace

bool UsesDirectConv(const Window2D& w, int64_t cin_g, int64_t groups) {
  return groups == 1 && cin_g <= kMaxDirectInChannels && w.channels == cin_g;
}

template <typename C>
void DirectConv2dNhwc(const DeviceContext* device, const C* x, const C* f, C* y, const Window2D& w, int64_t cout) {
  constexpr int kP = kPixels<C>;
  const int64_t taps = w.k_h * w.k_w, blocks = Blocks(cout), padded = blocks * kBlock;
  const std::vector<C> filters = PaddedRows(f, taps * w.channels, cout);
  const C* fp = filters.data();
  ParallelFor(device, w.batch * w.out_h, 2.0 * w.out_w * taps * w.channels * padded, [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      const int64_t b = row / w.out_h, py = row % w.out_h;
      for (int64_t blk = 0; blk < blocks; ++blk) {
        int64_t px = 0;
        for (; px + kP <= w.out_w; px += kP) {
          if (InteriorColumns(w, px, kP)) {
            DirectConvPixels<C, kP, true>(x, fp, y, w, cout, padded, b, py, px, blk);
          } else {
            for (int p = 0; p < kP; ++p) DirectConvPixels<C, 1, false>(x, fp, y, w, cout, padded, b, py, px + p, blk);
          }
        }
        for (; px < w.out_w; ++px) DirectConvPixels<C, 1, false>(x, fp, y, w, cout, padded, b, py, px, blk);
      }
    }
  });
}

template <typename C>
void DirectFilterGradNhwc(const DeviceContext* device, const C* x, const C* dy, C* dw, const Window2D& w,
                          int64_t cout) {
  using P = Packet<C>;
  constexpr int kNp = kPacketsPerBlock<C>, kL = kLanes<C>;
  const int64_t cin = w.channels, k = w.k_h * w.k_w * cin, blocks = Blocks(cout), padded = blocks * kBlock;
  const int64_t rows = w.batch * w.out_h;
  const int64_t max_chunks = std::clamp<int64_t>(kMaxPartialElements / (k * padded), 1, kMaxChunks);
  const int64_t chunk_rows = (rows + max_chunks - 1) / max_chunks;
  const int64_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  std::vector<C> partial(chunks * k * padded, C(0));
  ParallelFor(device, chunks, 2.0 * chunk_rows * w.out_w * k * padded, [&](int64_t first, int64_t last) {
    std::vector<C> g(w.out_w * padded, C(0));  // one output row's dy, padded like the filters
    for (int64_t chunk = first; chunk < last; ++chunk) {
      C* part = partial.data() + chunk * k * padded;
      for (int64_t row = chunk * chunk_rows; row < std::min(rows, (chunk + 1) * chunk_rows); ++row) {
        const int64_t b = row / w.out_h, py = row % w.out_h;
        for (int64_t px = 0; px < w.out_w; ++px) {
          std::memcpy(g.data() + px * padded, dy + (row * w.out_w + px) * cout, cout * sizeof(C));
        }
        for (int64_t ky = 0; ky < w.k_h; ++ky) {
          const int64_t iy = InputRow(w, py, ky);
          if (iy < 0) continue;
          const C* x_row = x + (b * w.in_h + iy) * w.in_w * cin;
          for (int64_t kx = 0; kx < w.k_w; ++kx) {
            int64_t px0, px1;
            ValidColumns(w, kx, &px0, &px1);
            for (int64_t ci = 0; ci < cin; ++ci) {
              C* dst = part + ((ky * w.k_w + kx) * cin + ci) * padded;
              for (int64_t blk = 0; blk < blocks; ++blk) {
                P acc[kNp];
                EMBER_UNROLL for (int j = 0; j < kNp; ++j) acc[j] = Eigen::internal::ploadu<P>(dst + blk * kBlock + j * kL);
                for (int64_t px = px0; px < px1; ++px) {
                  const P v = Eigen::internal::pset1<P>(x_row[InputColumn(w, px, kx) * cin + ci]);
                  const C* gr = g.data() + px * padded + blk * kBlock;
                  EMBER_UNROLL for (int j = 0; j < kNp; ++j) {
                    acc[j] = Eigen::internal::pmadd(v, Eigen::internal::ploadu<P>(gr + j * kL), acc[j]);
                  }
                }
                EMBER_UNROLL for (int j = 0; j < kNp; ++j) Eigen::internal::pstoreu(dst + blk * kBlock + j * kL, acc[j]);
              }
            }
          }
        }
      }
    }
  });
  for (int64_t chunk = 1; chunk < chunks; ++chunk) {
    const C* part = partial.data() + chunk * k * padded;
    for (int64_t i = 0; i < k * padded; ++i) partial[i] += part[i];
  }
  for (int64_t r = 0; r < k; ++r) std::memcpy(dw + r * cout, partial.data() + r * padded, cout * sizeof(C));
}

template void DirectConv2dNhwc<float>(const DeviceContext*, const float*, const float*, float*, const Window2D&,
                                      int64_t);
template void DirectConv2dNhwc<double>(const DeviceContext*, const double*, const double*, double*,
                                       const Window2D&, int64_t);
template void DirectFilterGradNhwc<float>(const DeviceContext*, const float*, const float*, float*,
                                          const Window2D&, int64_t);
template void DirectFilterGradNhwc<double>(const DeviceContext*, const double*, const double*, double*,
                                           const Window2D&, int64_t);

}  // namespace ember::cpu
