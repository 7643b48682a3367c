// This file implements ParallelForOnPool on the CpuDevice's Eigen pool.
#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "kernels/cpu/parallel.h"

#include <unsupported/Eigen/CXX11/Tensor>

#include "devices/cpu/cpu_device.h"

namespace ember::cpu {

void ParallelForOnPool(Device* device, int64_t n, double cycles_per_unit, const RangeFn& fn) {
  // CPU kernels are only registered for the CPU device type.
  const Eigen::ThreadPoolDevice& pool = static_cast<CpuDevice*>(device)->eigen_device();
  pool.parallelFor(static_cast<Eigen::Index>(n), Eigen::TensorOpCost(0, 0, cycles_per_unit),
                   [&fn](Eigen::Index first, Eigen::Index last) { fn(first, last); });
}

}  // namespace ember::cpu
