// This file implements the direct convolution kernels: the forward pass
// for few input channels or a short reduction, the filter gradient for few
// input channels (Note [Direct convolution for few input channels]).
#include "kernels/cpu/conv_direct.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/host_scratch.h"
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
// Input channels up to which the direct kernels beat im2col + GEMM at any
// stride, and the largest K = k_h * k_w * in_channels at which the forward
// kernel still does at stride 1 (3x3x128; UsesDirectConv).
constexpr int64_t kMaxDirectInChannels = 4;
constexpr int64_t kMaxDirectForwardK = 1152;
// The filter gradient's partial results: at most this many chunks of
// output rows, each chunk at most kMaxPartialElements values in all.
constexpr int64_t kMaxChunks = 64;
constexpr int64_t kMaxPartialElements = int64_t{1} << 22;

int64_t Blocks(int64_t cout) { return (cout + kBlock - 1) / kBlock; }

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

// The forward kernel's register tiles: kNp packets of output channels for
// kP output pixels; the accumulators, the filter packets and one broadcast
// input value fill the SIMD registers.
//  - Wide (AVX-512's 32 registers: 4 packets, 64 float32 channels, for 6
//    pixels): each broadcast input value feeds four products and each
//    filter load six, ten loads per 24 products. It serves short
//    reductions, where a tile's filter rows stay in L1: the RGB stem
//    (7x7x3, stride 2) went from 1.01 ms to 0.79 ms on the 2-core Xeon
//    (stop 44), ahead of PyTorch's oneDNN (0.86 ms).
//  - Tall (2 packets for 12 pixels; 6 pixels with AVX2's 16 registers):
//    each filter load feeds twice as many pixels. It serves output
//    channels that are not whole blocks of 64, where the wide tile would
//    waste lanes, and AVX2.
constexpr int kRegisters = static_cast<int>(EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS);
constexpr int kWidePackets = kRegisters >= 32 ? 4 : 2;
constexpr int kWidePixels = 6;
constexpr int kTallPackets = 2;
constexpr int kTallPixels = std::min(12, (kRegisters - 4) / kTallPackets);
// The most filter bytes (all blocks) for which the forward kernel walks
// tiles outermost (RunDirectConv2d).
constexpr double kTileMajorFilterBytes = 512 << 10;
// The largest K = k_h * k_w * in_channels given the wide tile (a tile's
// rows of 64 float32 filters, 256 bytes each, fill about 300 KB of cache).
constexpr int64_t kMaxWideK = 1152;
template <typename C, int kNp>
constexpr int64_t kTileChannels = kNp * kLanes<C>;

// The input padded so that every tap of every output pixel is inside it:
// [N, hp, wp, cin].
struct PaddedInput {
  int64_t hp, wp;
};

// Output pixels first..first+kP-1 (row-major within image b), channel
// block blk: acc[p] += x[pixel p's tap] * filters[tap], over every tap and
// input channel, one filter load shared by the kP pixels. The panel holds
// the block's filters, [K, kB], rows panel_stride apart.
template <typename C, int kP, int kNp>
void ForwardTile(const C* x, const C* panel, int64_t panel_stride, C* y, const Window2D& w, const PaddedInput& in,
                 int64_t cout, int64_t b, int64_t first, int64_t blk) {
  using P = Packet<C>;
  constexpr int kL = kLanes<C>;
  constexpr int64_t kB = kTileChannels<C, kNp>;
  const int64_t cin = w.channels;
  const C* base[kP];
  // One division for the tile, not one per pixel: a 64-bit divide costs
  // about as much as a tap's products.
  int64_t py = first / w.out_w, px = first % w.out_w;
  EMBER_UNROLL for (int p = 0; p < kP; ++p) {
    base[p] = x + ((b * in.hp + py * w.stride_h) * in.wp + px * w.stride_w) * cin;
    if (++px == w.out_w) px = 0, ++py;
  }
  P acc[kP][kNp];
  EMBER_UNROLL for (int p = 0; p < kP; ++p) {
    EMBER_UNROLL for (int j = 0; j < kNp; ++j) acc[p][j] = Eigen::internal::pset1<P>(C(0));
  }
  // acc[p] += x[pixel p, offset] * the panel row at f, for `count`
  // consecutive input offsets and panel rows.
  const auto accumulate = [&](const C* f, int64_t offset, int64_t count) {
    for (int64_t i = 0; i < count; ++i, f += panel_stride) {
      P fv[kNp];
      EMBER_UNROLL for (int j = 0; j < kNp; ++j) fv[j] = Eigen::internal::ploadu<P>(f + j * kL);
      EMBER_UNROLL for (int p = 0; p < kP; ++p) {
        const P v = Eigen::internal::pset1<P>(base[p][offset + i]);
        EMBER_UNROLL for (int j = 0; j < kNp; ++j) {
          acc[p][j] = Eigen::internal::pmadd(v, fv[j], acc[p][j]);
        }
      }
    }
  };
  // Without column dilation a row of taps reads k_w * cin consecutive
  // input values against as many consecutive panel rows: one loop, not
  // k_w loops of cin (three for RGB), whose per-tap pointer updates cost
  // the stem convolution a third of its time.
  const int64_t row_taps = w.dilation_w == 1 ? 1 : w.k_w;
  const int64_t run = w.dilation_w == 1 ? w.k_w * cin : cin;
  const C* f = panel;
  for (int64_t ky = 0; ky < w.k_h; ++ky) {
    for (int64_t kx = 0; kx < row_taps; ++kx, f += run * panel_stride) {
      accumulate(f, (ky * w.dilation_h * in.wp + kx * w.dilation_w) * cin, run);
    }
  }
  const int64_t n = std::min(kB, cout - blk * kB);
  EMBER_UNROLL for (int p = 0; p < kP; ++p) {
    C* out = y + ((b * w.out_h * w.out_w) + first + p) * cout + blk * kB;
    if (n == kB) {
      EMBER_UNROLL for (int j = 0; j < kNp; ++j) Eigen::internal::pstoreu(out + j * kL, acc[p][j]);
    } else {
      C lanes[kB];
      EMBER_UNROLL for (int j = 0; j < kNp; ++j) Eigen::internal::pstoreu(lanes + j * kL, acc[p][j]);
      std::memcpy(out, lanes, n * sizeof(C));
    }
  }
}

// x with the window's padding made explicit (zeros), or x itself when the
// window reads nothing outside it.
template <typename C>
const C* PadInput(const DeviceContext* device, const C* x, const Window2D& w, PaddedInput* in,
                  std::optional<HostScratch<C>>* scratch) {
  in->hp = std::max(w.in_h + w.pad_top, (w.out_h - 1) * w.stride_h + (w.k_h - 1) * w.dilation_h + 1);
  in->wp = std::max(w.in_w + w.pad_left, (w.out_w - 1) * w.stride_w + (w.k_w - 1) * w.dilation_w + 1);
  if (w.pad_top == 0 && w.pad_left == 0 && in->hp == w.in_h && in->wp == w.in_w) return x;
  const int64_t cin = w.channels;
  scratch->emplace(w.batch * in->hp * in->wp * cin, HostScratch<C>::Fill::kZeros);  // Note [Kernel scratch]
  C* xp = (*scratch)->data();
  ParallelFor(device, w.batch * w.in_h, static_cast<double>(w.in_w * cin), [&](int64_t first, int64_t last) {
    for (int64_t row = first; row < last; ++row) {
      const int64_t b = row / w.in_h, iy = row % w.in_h;
      std::memcpy(xp + ((b * in->hp + iy + w.pad_top) * in->wp + w.pad_left) * cin, x + row * w.in_w * cin,
                  w.in_w * cin * sizeof(C));
    }
  });
  return xp;
}

}  // namespace

bool UsesDirectConv(const Window2D& w, int64_t cin_g, int64_t groups) {
  if (groups != 1 || w.channels != cin_g) return false;
  if (cin_g <= kMaxDirectInChannels) return true;
  const int64_t k = w.k_h * w.k_w * cin_g;
  // Past K = 1152 (3x3x128) each tile streams its block's filter rows from
  // L2. With OpenBLAS behind im2col that still paid over enough pixels
  // (stops 41-44); against the packed float32 GEMM (Note [Packed float32
  // GEMM]) it no longer does: 28x28 5x5 128 -> 128 took 2.85-2.89 ms direct
  // against 2.16-2.19 ms, 14x14 3x3 300 -> 64 the same (stop 45, the
  // 2-core Xeon).
  return k <= kMaxDirectForwardK && w.stride_h == 1 && w.stride_w == 1;
}

bool UsesDirectFilterGrad(const Window2D& w, int64_t cin_g, int64_t groups) {
  return groups == 1 && w.channels == cin_g && cin_g <= kMaxDirectInChannels;
}

namespace {

// The forward kernel with kNp packets of output channels for kP pixels.
template <typename C, int kP, int kNp>
void RunDirectConv2d(const DeviceContext* device, const C* x, const C* f, C* y, const Window2D& w, int64_t cout) {
  constexpr int64_t kB = kTileChannels<C, kNp>;
  const int64_t k = w.k_h * w.k_w * w.channels, blocks = (cout + kB - 1) / kB;
  // A block's filters are the [K, kB] columns of f, read in place (rows
  // cout apart) when cout is a whole number of blocks; otherwise they are
  // copied into one [K, kB] panel per block, the lanes past cout zero.
  const bool in_place = cout % kB == 0;
  const HostScratch<C> panels(in_place ? 0 : blocks * k * kB, HostScratch<C>::Fill::kZeros);
  for (int64_t blk = 0; !in_place && blk < blocks; ++blk) {
    const int64_t n = std::min(kB, cout - blk * kB);
    for (int64_t r = 0; r < k; ++r) std::memcpy(&panels[(blk * k + r) * kB], f + r * cout + blk * kB, n * sizeof(C));
  }
  const int64_t panel_stride = in_place ? cout : kB;
  PaddedInput in;
  std::optional<HostScratch<C>> scratch;
  const C* xp = PadInput(device, x, w, &in, &scratch);
  // Units are (block, image, tile) with the block outermost, so a thread's
  // consecutive units read one panel, which stays in its cache; or, when
  // every block's filters together fit in L2, (image, tile, block): a
  // tile's inputs then stay in L1 for all its blocks and its output rows
  // are written whole. For 1x1 layers that order was 5-19% faster on
  // ResNet-50's shapes (56x56 64->256 438-463 -> 385-405 us, 64->128
  // 231-249 -> 187-202) and no slower on any; for ResNet's 7x7x512 3x3
  // layer, whose filters are 9 MiB, 5% slower (stop 44, the 2-core Xeon).
  const int64_t pixels = w.out_h * w.out_w, tiles = (pixels + kP - 1) / kP, per_block = w.batch * tiles;
  const bool tile_major = static_cast<double>(k) * static_cast<double>(blocks * kB) * sizeof(C) <= kTileMajorFilterBytes;
  ParallelFor(device, blocks * per_block, 2.0 * kP * k * kB, [&](int64_t first, int64_t last) {
    for (int64_t unit = first; unit < last; ++unit) {
      int64_t blk, b, p0;
      if (tile_major) {
        blk = unit % blocks, b = unit / blocks / tiles, p0 = unit / blocks % tiles * kP;
      } else {
        blk = unit / per_block, b = (unit % per_block) / tiles, p0 = (unit % tiles) * kP;
      }
      const C* panel = in_place ? f + blk * kB : panels.data() + blk * k * kB;
      const int64_t end = std::min(pixels, p0 + kP);
      int64_t p = p0;
      if (end - p == kP) {
        ForwardTile<C, kP, kNp>(xp, panel, panel_stride, y, w, in, cout, b, p, blk);
        continue;
      }
      // The image's last pixels: smaller tiles, so a lone pixel does not
      // cost a whole tile's filter loads.
      for (; end - p >= 4; p += 4) ForwardTile<C, 4, kNp>(xp, panel, panel_stride, y, w, in, cout, b, p, blk);
      for (; p < end; ++p) ForwardTile<C, 1, kNp>(xp, panel, panel_stride, y, w, in, cout, b, p, blk);
    }
  });
}

}  // namespace

template <typename C>
void DirectConv2dNhwc(const DeviceContext* device, const C* x, const C* f, C* y, const Window2D& w, int64_t cout) {
  // The wide tile computes whole blocks of 64 channels; with fewer, or a
  // ragged last block, the tall one wastes fewer lanes.
  if (w.k_h * w.k_w * w.channels <= kMaxWideK && cout % kTileChannels<C, kWidePackets> == 0) {
    RunDirectConv2d<C, kWidePixels, kWidePackets>(device, x, f, y, w, cout);
  } else {
    RunDirectConv2d<C, kTallPixels, kTallPackets>(device, x, f, y, w, cout);
  }
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
  const HostScratch<C> partial(chunks * k * padded, HostScratch<C>::Fill::kZeros);
  ParallelFor(device, chunks, 2.0 * chunk_rows * w.out_w * k * padded, [&](int64_t first, int64_t last) {
    const HostScratch<C> g(w.out_w * padded, HostScratch<C>::Fill::kZeros);  // one output row's dy, padded like the filters
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
