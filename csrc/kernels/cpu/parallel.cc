// This file implements ParallelForOnPool on the CpuDevice's Eigen pool.
#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "kernels/cpu/parallel.h"

#include <exception>
#include <mutex>

#include <unsupported/Eigen/CXX11/Tensor>

#include "devices/cpu/cpu_device.h"

namespace ember::cpu {

void ParallelForOnPool(Device* device, int64_t n, double cycles_per_unit, const RangeFn& fn) {
  // CPU kernels are only registered for the CPU device type.
  const Eigen::ThreadPoolDevice& pool = static_cast<CpuDevice*>(device)->eigen_device();
  // An exception thrown on a pool thread would terminate the process, so
  // the first one is kept and rethrown here, on the kernel's own thread,
  // where RunKernelNoThrow (ops/kernel_guard.h) turns it into a Status.
  std::mutex mu;
  std::exception_ptr error;
  pool.parallelFor(static_cast<Eigen::Index>(n), Eigen::TensorOpCost(0, 0, cycles_per_unit),
                   [&](Eigen::Index first, Eigen::Index last) {
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
