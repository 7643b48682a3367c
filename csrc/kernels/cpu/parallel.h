// This file declares ParallelFor, how CPU kernels split work over the
// device's intra-op pool (Note [Intra-op pool]).
#pragma once

#include <cstdint>
#include <functional>

#include "ops/op_kernel.h"

namespace ember::cpu {

// Estimated cycles below which work runs inline on the calling thread.
// Waking pool threads costs microseconds; a 1-element op must not pay it.
// Matches Eigen's own startup estimate (TensorCostModel::kStartupCycles).
inline constexpr double kInlineCycles = 100000;

// Rough per-element costs in cycles, used to size parallel blocks.
inline constexpr double kCheapOpCycles = 1;      // add, compare, copy
inline constexpr double kExpensiveOpCycles = 20;  // exp, log, tanh

using RangeFn = std::function<void(int64_t first, int64_t last)>;

// Out of line: cuts [0, n) into blocks and runs them on the device's pool.
void ParallelForOnPool(const DeviceContext* device, int64_t n, double cycles_per_unit, const RangeFn& fn);

// Threads of `device`'s intra-op pool; 1 without a pool.
int NumThreads(const DeviceContext* device);

// Calls fn(first, last) on disjoint ranges covering [0, n), possibly
// concurrently, on `device`'s intra-op pool (null, or no pool: inline).
template <typename Fn>
inline void ParallelFor(const DeviceContext* device, int64_t n, double cycles_per_unit, Fn&& fn) {
  if (n <= 0) return;
  if (device == nullptr || device->cpu_pool == nullptr || static_cast<double>(n) * cycles_per_unit < kInlineCycles) {
    fn(int64_t{0}, n);
    return;
  }
  ParallelForOnPool(device, n, cycles_per_unit, RangeFn(std::forward<Fn>(fn)));
}

template <typename Fn>
inline void ParallelFor(const KernelContext& ctx, int64_t n, double cycles_per_unit, Fn&& fn) {
  ParallelFor(&ctx.device_context(), n, cycles_per_unit, std::forward<Fn>(fn));
}

}  // namespace ember::cpu
