// This file declares the per-file registration functions of the
// neural-network CPU kernels (nn_*.cc), which RegisterCpuNnKernels calls,
// and small helpers those files share. Internal to kernels/cpu/.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "kernels/cpu/eigen.h"
#include "ops/op_kernel.h"

namespace ember::cpu {

// Contiguous runs of elements as Eigen arrays.
template <typename T>
using InVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using OutVec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

void RegisterNnActivationKernels(KernelRegistry& registry);  // nn_activation.cc
void RegisterNnSoftmaxKernels(KernelRegistry& registry);     // nn_softmax.cc
void RegisterNnNormKernels(KernelRegistry& registry);        // nn_norm.cc
void RegisterNnConvKernels(KernelRegistry& registry);        // nn_conv.cc
void RegisterNnPoolKernels(KernelRegistry& registry);        // nn_pool.cc
void RegisterNnAttentionKernels(KernelRegistry& registry);   // nn_attention.cc

// Registers K<T, U> for every pair of `Ts` x `Us` (ops with two type
// variables, in their declaration order).
template <template <typename, typename> class K, typename U, typename... Ts>
void RegisterForTypePairsWith(KernelRegistry& registry, const char* op) {
  (registry.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, DTypeOf<U>::value}, &MakeKernel<K<Ts, U>>),
   ...);
}

// The NHWC <-> NCHW permutations, for kernels that compute in NHWC.
inline const std::vector<int> kNchwToNhwc = {0, 2, 3, 1};
inline const std::vector<int> kNhwcToNchw = {0, 3, 1, 2};

// Shape `s` (NCHW) as NHWC.
inline Shape NchwAsNhwc(const Shape& s) { return Shape{s.dim(0), s.dim(2), s.dim(3), s.dim(1)}; }

}  // namespace ember::cpu
