// This file declares the per-file registration functions of the
// neural-network CPU kernels (nn_*.cc), which RegisterCpuNnKernels calls,
// and small helpers those files share. Internal to kernels/cpu/.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/host_scratch.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/transpose.h"
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
void RegisterNnGradKernels(KernelRegistry& registry);        // nn_grad.cc
void RegisterNnAttentionKernels(KernelRegistry& registry);   // nn_attention.cc

// Registers K<T, U> for every pair of `Ts` x `Us` (ops with two type
// variables, in their declaration order).
template <template <typename, typename> class K, typename U, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterForTypePairsWith(KernelRegistry& registry, const char* op) {
  (registry.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, DTypeOf<U>::value}, &MakeKernel<K<Ts, U>>),
   ...);
}

// Note [Whole-tensor half compute]
// Kernels that need many elements of a tensor at once (conv, pooling,
// softmax rows, norms, attention) apply Note [Half compute] to whole
// tensors: a float16/bfloat16 input is read through a float32 copy, the
// result is computed into a float32 buffer and rounded once into the
// output. For every other dtype these are the tensor's own buffers, so
// the kernel body is one template on ComputeType<T>, instantiated once per
// compute type however many storage types share it.

// out[i] = To(in[i]) for i in [0, n), split over the intra-op pool.
template <typename To, typename From>
void ConvertParallel(const DeviceContext* device, const From* in, To* out, int64_t n) {
  ParallelFor(device, n, kCheapOpCycles,
              [=](int64_t first, int64_t last) { ConvertSpan(in + first, out + first, last - first); });
}

// t's elements as ComputeType<T>: t's buffer, or a copy in *scratch.
template <typename T>
const ComputeType<T>* WidenedData(const DeviceContext* device, const Tensor& t, std::vector<ComputeType<T>>* scratch) {
  if constexpr (!kIsWidened<T>) {
    return t.data<T>();
  } else {
    scratch->resize(t.NumElements());
    ConvertParallel(device, t.data<T>(), scratch->data(), t.NumElements());
    return scratch->data();
  }
}

// Where a kernel writes t's elements as ComputeType<T>: t's buffer, or
// *scratch, which StoreNarrowed then rounds into t.
template <typename T>
ComputeType<T>* ComputeOutput(Tensor& t, std::vector<ComputeType<T>>* scratch) {
  if constexpr (!kIsWidened<T>) {
    return t.data<T>();
  } else {
    scratch->resize(t.NumElements());
    return scratch->data();
  }
}

template <typename T>
void StoreNarrowed(const DeviceContext* device, const std::vector<ComputeType<T>>& scratch, Tensor& t) {
  if constexpr (kIsWidened<T>) ConvertParallel(device, scratch.data(), t.data<T>(), t.NumElements());
}

// The NHWC <-> NCHW permutations, for kernels that compute in NHWC.
inline const std::vector<int> kNchwToNhwc = {0, 2, 3, 1};
inline const std::vector<int> kNhwcToNchw = {0, 3, 1, 2};

// Shape `s` (NCHW) as NHWC.
inline Shape NchwAsNhwc(const Shape& s) { return Shape{s.dim(0), s.dim(2), s.dim(3), s.dim(1)}; }

// Runs nhwc(x, y), the NHWC routine of a conv or pooling kernel, on x and y
// laid out in the op's data format: NCHW is transpose-copied in and out.
template <typename C, typename Fn>
void InNhwc(const DeviceContext* device, const C* x, const Shape& x_shape, C* y, const Shape& y_shape, bool nchw, Fn&& nhwc) {
  if (!nchw) {
    nhwc(x, y);
    return;
  }
  const HostScratch<C> xt(x_shape.NumElements()), yt(y_shape.NumElements());  // Note [Kernel scratch]
  PermuteCopy(device, x, xt.data(), sizeof(C), x_shape, kNchwToNhwc);
  nhwc(xt.data(), yt.data());
  PermuteCopy(device, yt.data(), y, sizeof(C), NchwAsNhwc(y_shape), kNhwcToNchw);
}

}  // namespace ember::cpu
