// This file implements ForElements (Note [Grid-stride launches]).
#include "kernels/cuda/launch_config.h"

#include <algorithm>

namespace ember::cuda {

LaunchConfig ForElements(int64_t n, int threads, int per_thread, int64_t max_blocks) {
  LaunchConfig config;
  if (n <= 0 || threads <= 0 || per_thread <= 0 || max_blocks <= 0) return config;
  const int64_t per_block = static_cast<int64_t>(threads) * per_thread;
  // Rounded up without overflow: n is at most 2^63 - 1.
  const int64_t needed = n / per_block + (n % per_block != 0 ? 1 : 0);
  config.blocks = std::min(needed, max_blocks);
  config.threads = threads;
  return config;
}

}  // namespace ember::cuda
