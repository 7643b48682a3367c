// This file declares LaunchConfig and ForElements: the grid a CUDA kernel
// over n elements is launched with, as plain host arithmetic that unit
// tests check without a GPU.
#pragma once

#include <cstdint>

namespace ember::cuda {

struct LaunchConfig {
  int64_t blocks = 0;   // 0: nothing to launch
  int threads = 0;      // per block
};

// Note [Grid-stride launches]
// Element-wise kernels loop over their elements with a stride of the whole
// grid, so the grid need not cover n: it is sized to fill the GPU (a few
// blocks per multiprocessor) and capped there, and each thread handles
// `per_thread` elements per step (vectorized loads). Any n >= 0 is valid;
// n = 0 launches nothing. `max_blocks` is what the device can run at once,
// times a small factor (CudaDevice works it out from the multiprocessor
// count).
LaunchConfig ForElements(int64_t n, int threads, int per_thread, int64_t max_blocks);

}  // namespace ember::cuda
