// This file defines TypeOf: the DType of each storage type a CUDA kernel
// is instantiated for (float16 is __half, bfloat16 __nv_bfloat16, both
// bit-compatible with the CPU's Eigen::half and Eigen::bfloat16).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/dtype.h"

namespace ember::cuda {

template <typename T>
constexpr DType TypeOf() {
  if constexpr (std::is_same_v<T, bool>) return DType::kBool;
  else if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
  else if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
  else if constexpr (std::is_same_v<T, __half>) return DType::kFloat16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return DType::kBFloat16;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::kInt8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::kInt16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::kInt32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::kInt64;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::kUInt8;
  else static_assert(sizeof(T) == 0, "no DType for this CUDA storage type");
}

static_assert(sizeof(__half) == 2 && sizeof(__nv_bfloat16) == 2);

// Calls fn(T{}) for each storage type of op_defs' `real` type set: the
// float types, then the integers.
template <typename Fn>
inline void ForEachRealType(Fn&& fn) {
  fn(float{});
  fn(double{});
  fn(__half{});
  fn(__nv_bfloat16{});
  fn(int8_t{});
  fn(int16_t{});
  fn(int32_t{});
  fn(int64_t{});
  fn(uint8_t{});
}

}  // namespace ember::cuda
