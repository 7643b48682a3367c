// This file implements ParallelForOnPool on the CpuDevice's Eigen pool.
#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "kernels/cpu/parallel.h"

#include <exception>
#include <mutex>

#include "core/device_access.h"

#include <unsupported/Eigen/CXX11/Tensor>


namespace ember::cpu {

int NumThreads(const DeviceContext* device) {
  return device == nullptr || device->cpu_pool == nullptr ? 1 : device->cpu_pool->numThreads();
}

void ParallelForOnPool(const DeviceContext* device, int64_t n, double cycles_per_unit, const RangeFn& fn) {
  // Note [Device context]: the device hands CPU-style kernels its pool.
  const Eigen::ThreadPoolDevice& pool = *device->cpu_pool;
  // An exception thrown on a pool thread would terminate the process, so
  // the first one is kept and rethrown here, on the kernel's own thread,
  // where RunKernelNoThrow (ops/kernel_guard.h) turns it into a Status.
  std::mutex mu;
  std::exception_ptr error;
  // Note [Strict device memory]: pool threads work for the caller's device.
  const void* domain = DeviceAccessScope::Current();
  pool.parallelFor(static_cast<Eigen::Index>(n), Eigen::TensorOpCost(0, 0, cycles_per_unit),
                   [&](Eigen::Index first, Eigen::Index last) {
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
