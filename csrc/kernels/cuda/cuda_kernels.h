// This file declares the registration of the GPU's kernels, one function
// per kernel family, and what every GPU kernel reaches its device through.
#pragma once

#include <cuda_runtime_api.h>

#include "core/device.h"
#include "devices/cuda/cuda_device.h"
#include "ops/op_kernel.h"

namespace ember::cuda {

// What a GPU kernel reaches its device through (Note [Device context]).
inline const CudaKernelEnv& EnvOf(const KernelContext& ctx) {
  return *static_cast<const CudaKernelEnv*>(ctx.device_context().library_handles);
}
// The compute stream as the CUDA runtime's handle, for launches.
inline cudaStream_t StreamOf(const CudaKernelEnv& env) { return static_cast<cudaStream_t>(env.stream); }

// Calls fn(U{}) with the unsigned type of `dtype`'s size.
template <typename Fn>
Status BySize(DType dtype, Fn&& fn) {
  switch (DTypeSize(dtype)) {
    case 1: return fn(uint8_t{});
    case 2: return fn(uint16_t{});
    case 4: return fn(uint32_t{});
    case 8: return fn(uint64_t{});
    default: return Internal("no GPU movement for elements of " + std::to_string(DTypeSize(dtype)) + " bytes");
  }
}

// Scratch from the device's stream-ordered cache, returned when the
// kernel's launches are queued (later work on the stream runs after them).
class Scratch {
 public:
  Scratch(const KernelContext& ctx, size_t bytes)
      : allocator_(ctx.device_context().scratch), bytes_(bytes),
        ptr_(bytes == 0 ? nullptr : allocator_->Allocate(bytes, ctx.device_context().stream)) {}
  ~Scratch() {
    if (ptr_ != nullptr) allocator_->Deallocate(ptr_, bytes_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* get() const { return ptr_; }
  bool failed() const { return bytes_ != 0 && ptr_ == nullptr; }

 private:
  Allocator* allocator_;
  size_t bytes_;
  void* ptr_;
};

// Element-wise unary and binary ops with broadcasting, bias_add, and the view ops
// (transfer, reshape, identity, stop_gradient, expand_dims, squeeze).
void RegisterCudaElementwiseKernels(KernelRegistry& registry, DeviceTypeId gpu);

// matmul over cuBLASLt (float types; the others run on the CPU).
void RegisterCudaMatmulKernels(KernelRegistry& registry, DeviceTypeId gpu);

// reduce_sum, _mean, _prod, _max, _min (Note [GPU reductions]).
void RegisterCudaReduceKernels(KernelRegistry& registry, DeviceTypeId gpu);

// softmax and log_softmax (Note [GPU softmax]).
void RegisterCudaSoftmaxKernels(KernelRegistry& registry, DeviceTypeId gpu);

// cast between every pair of real dtypes (the shared math::CastTo).
void RegisterCudaCastKernels(KernelRegistry& registry, DeviceTypeId gpu);

// conv2d over cuDNN, max_pool2d and avg_pool2d (Note [GPU pooling]).
void RegisterCudaWindowKernels(KernelRegistry& registry, DeviceTypeId gpu);

// transpose, for every dtype (Note [GPU transpose]).
void RegisterCudaTransposeKernels(KernelRegistry& registry, DeviceTypeId gpu);

// layer_normalization, argmax, argmin (Note [GPU row kernels]).
void RegisterCudaRowKernels(KernelRegistry& registry, DeviceTypeId gpu);

// pad, concat, fill, zeros, ones, zeros_like, ones_like: every dtype,
// moved by element size.
void RegisterCudaMovementKernels(KernelRegistry& registry, DeviceTypeId gpu);

// relu6, leaky_relu, elu, selu, gelu, silu (the shared math functors).
void RegisterCudaActivationKernels(KernelRegistry& registry, DeviceTypeId gpu);

// gather, gather_nd, tensor_scatter_nd_update (every dtype) and
// scatter_nd (the dtypes with an atomic add): out-of-range indices are
// reported through device error words (Note [Device error words]).
void RegisterCudaIndexingKernels(KernelRegistry& registry, DeviceTypeId gpu);

// fused_elementwise, the element-wise programs of functions, in float32
// and float64 (Note [GPU fused programs]).
void RegisterCudaFusedKernels(KernelRegistry& registry, DeviceTypeId gpu);

// The stateless random ops over the CPU's Philox streams (Note [Random
// streams]): uniform floats and integers bit for bit as on the CPU.
void RegisterCudaRandomKernels(KernelRegistry& registry, DeviceTypeId gpu);

// apply_gradient_descent, apply_momentum, apply_adam: the optimizers'
// fused updates, with the CPU's per-element math (training_math.h).
void RegisterCudaTrainingKernels(KernelRegistry& registry, DeviceTypeId gpu);

// slice, strided_slice, reverse, broadcast_to, tile, stack, unstack,
// split: one strided copy per tensor, planned as on the CPU.
void RegisterCudaCopyKernels(KernelRegistry& registry, DeviceTypeId gpu);

// clip_by_value (broadcasting) and add_n, for the real dtypes.
void RegisterCudaNaryKernels(KernelRegistry& registry, DeviceTypeId gpu);

// cumsum and cumprod for the real dtypes, in the CPU's order.
void RegisterCudaScanKernels(KernelRegistry& registry, DeviceTypeId gpu);

// sort, argsort and top_k for the real dtypes, over CUB (Note [GPU sort
// keys]).
void RegisterCudaSortKernels(KernelRegistry& registry, DeviceTypeId gpu);

// scaled_dot_product_attention: two cuBLASLt GEMMs around a masked row
// softmax (Note [GPU attention]).
void RegisterCudaAttentionKernels(KernelRegistry& registry, DeviceTypeId gpu);

// einsum for the float types: rearrangements on the reduction kernel and
// cuBLASLt GEMMs (Note [GPU einsum]).
void RegisterCudaEinsumKernels(KernelRegistry& registry, DeviceTypeId gpu);

// The collective ops over NCCL (collective.cc, Note [Collectives on GPUs]).
void RegisterCudaCollectiveKernels(KernelRegistry& registry, DeviceTypeId gpu);

// Every family above, for the device type "gpu".

inline void RegisterCudaKernels(KernelRegistry& registry, DeviceTypeId gpu) {
  RegisterCudaCollectiveKernels(registry, gpu);
  RegisterCudaElementwiseKernels(registry, gpu);
  RegisterCudaMatmulKernels(registry, gpu);
  RegisterCudaReduceKernels(registry, gpu);
  RegisterCudaSoftmaxKernels(registry, gpu);
  RegisterCudaCastKernels(registry, gpu);
  RegisterCudaWindowKernels(registry, gpu);
  RegisterCudaTransposeKernels(registry, gpu);
  RegisterCudaRowKernels(registry, gpu);
  RegisterCudaMovementKernels(registry, gpu);
  RegisterCudaActivationKernels(registry, gpu);
  RegisterCudaIndexingKernels(registry, gpu);
  RegisterCudaFusedKernels(registry, gpu);
  RegisterCudaRandomKernels(registry, gpu);
  RegisterCudaTrainingKernels(registry, gpu);
  RegisterCudaCopyKernels(registry, gpu);
  RegisterCudaNaryKernels(registry, gpu);
  RegisterCudaScanKernels(registry, gpu);
  RegisterCudaSortKernels(registry, gpu);
  RegisterCudaAttentionKernels(registry, gpu);
  RegisterCudaEinsumKernels(registry, gpu);
}

}  // namespace ember::cuda
