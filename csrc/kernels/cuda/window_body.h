// This file defines the per-element work of the CUDA window kernels
// (window.cu) as functions host code compiles too, so unit tests run the
// GPU's exact index arithmetic and math on the CPU (Note [Kernel bodies on
// the host]).
#pragma once

#include <cstdint>

#include "kernels/common/element_math.h"
#include "kernels/cuda/window.h"

namespace ember::cuda {

// Note [Kernel bodies on the host]
// A grid-stride kernel is a loop over element indices around a body that
// reads the inputs and writes element i. Where the body needs nothing of
// the GPU (no shared memory, no warp shuffles), it is written as an
// EMBER_HOST_DEVICE function in a *_body.h header: the .cu file's kernel
// calls it per index, and tests/cpp/cuda/kernel_bodies_test.cc calls it
// for every index on the host against a reference, without a GPU.

// The destination index, in cuDNN's filter layout, of element i of an HWIO
// filter [kh, kw, in, filters] (KRSC for NHWC, KCRS for NCHW).
EMBER_HOST_DEVICE inline int64_t FilterToCudnnIndex(int64_t i, int64_t kh, int64_t kw, int64_t in, int64_t filters,
                                                   bool nchw) {
  const int64_t k = i % filters;
  const int64_t c = (i / filters) % in;
  const int64_t s = (i / (filters * in)) % kw;
  const int64_t r = i / (filters * in * kw);
  return nchw ? ((k * in + c) * kh + r) * kw + s : ((k * kh + r) * kw + s) * in + c;
}

// Element i of an [n, h, w, c] (or [n, c, h, w]) batch as (b, y, x, ch).
struct Pixel {
  int64_t b, y, x, ch;
};
EMBER_HOST_DEVICE inline Pixel PixelOf(int64_t i, bool nchw, int64_t h, int64_t w, int64_t c) {
  if (nchw) return Pixel{i / (w * h * c), (i / w) % h, i % w, (i / (w * h)) % c};
  return Pixel{i / (c * w * h), (i / (c * w)) % h, (i / c) % w, i % c};
}

// The source index of element i of a batch padded to [n, out_h, out_w, c]
// (or [n, c, out_h, out_w]) from [n, h, w, c], or -1 where it is padding.
EMBER_HOST_DEVICE inline int64_t PadSourceIndex(int64_t i, int64_t h, int64_t w, int64_t c, bool nchw, int64_t top,
                                               int64_t left, int64_t out_h, int64_t out_w) {
  const Pixel p = PixelOf(i, nchw, out_h, out_w, c);
  const int64_t b = p.b, ch = p.ch, sy = p.y - top, sx = p.x - left;
  if (sy < 0 || sy >= h || sx < 0 || sx >= w) return -1;
  return nchw ? ((b * c + ch) * h + sy) * w + sx : ((b * h + sy) * w + sx) * c + ch;
}

// Output element i of a pooling (Note [GPU pooling]), computed in C.
template <typename C, typename T>
EMBER_HOST_DEVICE C PoolElement(const T* in, int64_t i, const WindowGeometry& g, bool max) {
  const Pixel p = PixelOf(i, g.nchw, g.out_h, g.out_w, g.channels);
  const int64_t b = p.b, oy = p.y, ox = p.x, ch = p.ch;
  C acc = C(0);
  int64_t count = 0;
  for (int64_t dy = 0; dy < g.k_h; ++dy) {
    const int64_t y = oy * g.stride_h - g.pad_top + dy;
    if (y < 0 || y >= g.in_h) continue;
    for (int64_t dx = 0; dx < g.k_w; ++dx) {
      const int64_t x = ox * g.stride_w - g.pad_left + dx;
      if (x < 0 || x >= g.in_w) continue;
      const int64_t at = g.nchw ? ((b * g.channels + ch) * g.in_h + y) * g.in_w + x
                                : ((b * g.in_h + y) * g.in_w + x) * g.channels + ch;
      const C v = static_cast<C>(in[at]);
      // The first element seeds the maximum, so no infinity is needed.
      acc = max ? (count == 0 ? v : math::Maximum()(acc, v)) : acc + v;
      ++count;
    }
  }
  // Every window holds at least one element (the shape function's rule).
  return max ? acc : acc / static_cast<C>(count);
}

// The offset of the first maximum (or the first NaN: max_pool2d passes
// it on) of channel ch in output pixel (oy, ox)'s window of image b, as the
// CPU's WindowArgmax scans it; -1 for a window holding no input.
template <typename C, typename T>
EMBER_HOST_DEVICE int64_t PoolArgmax(const T* in, int64_t b, int64_t oy, int64_t ox, int64_t ch,
                                     const WindowGeometry& g) {
  int64_t best = -1;
  C best_value = C(0);
  for (int64_t dy = 0; dy < g.k_h; ++dy) {
    const int64_t y = oy * g.stride_h - g.pad_top + dy;
    if (y < 0 || y >= g.in_h) continue;
    for (int64_t dx = 0; dx < g.k_w; ++dx) {
      const int64_t x = ox * g.stride_w - g.pad_left + dx;
      if (x < 0 || x >= g.in_w) continue;
      const int64_t at = g.nchw ? ((b * g.channels + ch) * g.in_h + y) * g.in_w + x
                                : ((b * g.in_h + y) * g.in_w + x) * g.channels + ch;
      const C v = static_cast<C>(in[at]);
      if (v != v) return at;
      if (best < 0 || v > best_value) {
        best = at;
        best_value = v;
      }
    }
  }
  return best;
}

// Element i of a pooling's gradient with respect to its input: the sum,
// over the windows that hold it in (oy, ox) order as the CPU adds them, of
// the window's incoming gradient where i is the window's maximum (max), or
// of its share 1 / (valid elements) (average).
template <typename C, typename T>
EMBER_HOST_DEVICE C PoolGradElement(const T* x, const T* dy, int64_t i, const WindowGeometry& g, bool max) {
  const Pixel p = PixelOf(i, g.nchw, g.in_h, g.in_w, g.channels);
  const int64_t b = p.b, iy = p.y, ix = p.x, ch = p.ch;
  // Windows oy with oy * stride - pad <= iy < oy * stride - pad + k.
  auto first_window = [](int64_t at, int64_t pad, int64_t k, int64_t stride) {
    const int64_t lowest = at + pad - k + 1;
    return lowest <= 0 ? int64_t{0} : (lowest + stride - 1) / stride;
  };
  const int64_t oy_end = (iy + g.pad_top) / g.stride_h + 1, ox_end = (ix + g.pad_left) / g.stride_w + 1;
  C acc = C(0);
  for (int64_t oy = first_window(iy, g.pad_top, g.k_h, g.stride_h); oy < oy_end && oy < g.out_h; ++oy) {
    for (int64_t ox = first_window(ix, g.pad_left, g.k_w, g.stride_w); ox < ox_end && ox < g.out_w; ++ox) {
      const int64_t out_at = g.nchw ? ((b * g.channels + ch) * g.out_h + oy) * g.out_w + ox
                                    : ((b * g.out_h + oy) * g.out_w + ox) * g.channels + ch;
      if (max) {
        if (PoolArgmax<C>(x, b, oy, ox, ch, g) == i) acc += static_cast<C>(dy[out_at]);
      } else {
        const int64_t y0 = oy * g.stride_h - g.pad_top, x0 = ox * g.stride_w - g.pad_left;
        const int64_t rows = (y0 + g.k_h < g.in_h ? y0 + g.k_h : g.in_h) - (y0 > 0 ? y0 : 0);
        const int64_t cols = (x0 + g.k_w < g.in_w ? x0 + g.k_w : g.in_w) - (x0 > 0 ? x0 : 0);
        acc += static_cast<C>(dy[out_at]) * (C(1) / static_cast<C>(rows * cols));
      }
    }
  }
  return acc;
}

}  // namespace ember::cuda
