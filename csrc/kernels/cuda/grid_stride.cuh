// This file defines EMBER_GRID_STRIDE, the loop of a grid-stride kernel
// (Note [Grid-stride launches] in launch_config.h).
#pragma once

#include <cstdint>

// for (i = this thread's first element; i < n; i += the grid's threads)
#define EMBER_GRID_STRIDE(i, n)                                                            \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
