// This file declares StridedCopy, the dtype-agnostic copy behind the CPU
// movement kernels (slice, strided_slice, reverse, broadcast_to, tile, pad,
// roll), and the registration helpers of the movement and indexing kernel
// files. Internal to kernels/cpu/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "ops/op_kernel.h"
#include "ops/plans/copy_plan.h"
#include "ops/shape_fns/movement.h"
#include "ops/type_sets.gen.h"

namespace ember::cpu {

// Copies `plan` (ops/plans/copy_plan.h) from src to dst. Elements are
// moved as raw bytes of `elem_size`, so one copy serves every dtype of that
// size. Destination elements must be distinct and must not be read by the
// same copy. `device` may be null (runs inline).
void StridedCopy(const DeviceContext* device, const void* src, void* dst, size_t elem_size, const CopyPlan& plan);

// Copies `view` of src into the contiguous dst.
void CopyView(const DeviceContext* device, const void* src, void* dst, size_t elem_size,
              const shape_fns::StridedView& view);

// A float attribute (pad's constant_values, one_hot's on/off values) as
// element type T; bool is "nonzero".
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else {
    return static_cast<T>(v);
  }
}

// Copies `count` elements of `elem_size` bytes each.
void CopyElements(void* dst, const void* src, int64_t count, size_t elem_size);

// Reads index j of an int32 or int64 tensor as int64.
inline int64_t IndexAt(const Tensor& indices, int64_t j) {
  return indices.dtype() == DType::kInt32 ? indices.data<int32_t>()[j] : indices.data<int64_t>()[j];
}

// For gather_nd and the scatters: the flat slot (in units of plan.inner
// elements, within one batch) of each of the plan's index tuples, or
// InvalidArgument naming the first tuple outside plan.indexed_dims.
Status NdIndexSlots(const Tensor& indices, const shape_fns::GatherNdPlan& plan,
                    std::vector<int64_t>* slots);

// Registers one factory for every dtype of a type set (kernels that move
// bytes and never compute with T).
template <typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterForEachDType(KernelRegistry& r, const char* op, KernelFactory factory,
                                                 type_sets::TypeList<Ts...>) {
  (r.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value}, factory), ...);
}

// The same for ops with type vars (T, TIndices): one factory per index type.
template <typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterWithIndexTypes(KernelRegistry& r, const char* op, KernelFactory for_int32,
                                                   KernelFactory for_int64, type_sets::TypeList<Ts...>) {
  (r.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt32}, for_int32), ...);
  (r.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt64}, for_int64), ...);
}

// Per-file registration, called by RegisterCpuMovementKernels.
void RegisterMovementPadKernels(KernelRegistry& r);     // movement_pad.cc
void RegisterMovementCreateKernels(KernelRegistry& r);  // movement_create.cc
void RegisterMovementConcatKernels(KernelRegistry& r);  // movement_concat.cc
void RegisterGatherKernels(KernelRegistry& r);          // gather.cc
void RegisterScatterKernels(KernelRegistry& r);         // scatter.cc

}  // namespace ember::cpu
