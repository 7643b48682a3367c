// This file implements ParallelForOnPool on the device's IntraOpPool.
#include "kernels/cpu/parallel.h"

#include <algorithm>
#include <exception>
#include <mutex>

#include "core/device_access.h"
#include "devices/cpu/intra_op_pool.h"

namespace ember::cpu {
namespace {

// A block is worth at least this many cycles (half of kInlineCycles: the
// cost of a claim is an atomic add, far below a thread wake-up), and a
// thread gets at most this many blocks, which balances uneven blocks.
constexpr double kMinBlockCycles = kInlineCycles / 2;
constexpr int64_t kBlocksPerThread = 4;

}  // namespace

int NumThreads(const DeviceContext* device) {
  return device == nullptr || device->cpu_pool == nullptr ? 1 : device->cpu_pool->num_threads();
}

void ParallelForOnPool(const DeviceContext* device, int64_t n, double cycles_per_unit, const RangeFn& fn) {
  // Note [Device context]: the device hands CPU-style kernels its pool.
  IntraOpPool& pool = *device->cpu_pool;
  const double total = static_cast<double>(n) * cycles_per_unit;
  const int64_t most = std::min<int64_t>(n, kBlocksPerThread * pool.num_threads());
  const int64_t blocks = std::clamp<int64_t>(static_cast<int64_t>(total / kMinBlockCycles), 1, most);
  const int64_t block_size = (n + blocks - 1) / blocks;
  // An exception thrown on a pool thread would terminate the process, so
  // the first one is kept and rethrown here, on the kernel's own thread,
  // where RunKernelNoThrow (ops/kernel_guard.h) turns it into a Status.
  std::mutex mu;
  std::exception_ptr error;
  // Note [Strict device memory]: pool threads work for the caller's device.
  const void* domain = DeviceAccessScope::Current();
  pool.ParallelFor(n, block_size, [&](int64_t first, int64_t last) {
    DeviceAccessScope access(domain);
    try {
      fn(first, last);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
}

}  // namespace ember::cpu
