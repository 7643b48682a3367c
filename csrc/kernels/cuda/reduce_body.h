// This file defines the per-output work of the CUDA reductions (reduce.cu)
// as functions host code compiles too (Note [Kernel bodies on the host] in
// window_body.h): the reducers, with the CPU's accumulators (Note
// [Reduction accumulators]), and one output's reduction.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/reduce_indexing.h"

namespace ember::cuda {

template <typename T>
using Wide = std::conditional_t<std::is_integral_v<T>, uint64_t, ComputeType<T>>;

// Each reducer: Acc, identity, combine, and the stored result of `n` values.
template <typename T>
struct Sum {
  using Acc = Wide<T>;
  EMBER_HOST_DEVICE static Acc Identity() { return Acc(0); }
  EMBER_HOST_DEVICE static Acc Combine(Acc a, Acc b) { return a + b; }
  EMBER_HOST_DEVICE static T Store(Acc a, int64_t) { return static_cast<T>(a); }
};
template <typename T>
struct Mean {
  using Acc = Wide<T>;
  EMBER_HOST_DEVICE static Acc Identity() { return Acc(0); }
  EMBER_HOST_DEVICE static Acc Combine(Acc a, Acc b) { return a + b; }
  EMBER_HOST_DEVICE static T Store(Acc a, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
      return n == 0 ? T(0) : static_cast<T>(static_cast<int64_t>(a) / n);  // truncates, as TensorFlow
    } else {
      return static_cast<T>(a / static_cast<Acc>(n));  // 0 / 0 is NaN: the mean of nothing
    }
  }
};
template <typename T>
struct Prod {
  using Acc = Wide<T>;
  EMBER_HOST_DEVICE static Acc Identity() { return Acc(1); }
  EMBER_HOST_DEVICE static Acc Combine(Acc a, Acc b) { return a * b; }
  EMBER_HOST_DEVICE static T Store(Acc a, int64_t) { return static_cast<T>(a); }
};
template <typename T>
struct Max {
  using Acc = ComputeType<T>;
  EMBER_HOST_DEVICE static Acc Identity() {
    if constexpr (std::is_integral_v<Acc>) return math::MinOf<Acc>();
    else return -static_cast<Acc>(INFINITY);
  }
  EMBER_HOST_DEVICE static Acc Combine(Acc a, Acc b) { return math::Maximum()(a, b); }
  EMBER_HOST_DEVICE static T Store(Acc a, int64_t) { return static_cast<T>(a); }
};
template <typename T>
struct Min {
  using Acc = ComputeType<T>;
  EMBER_HOST_DEVICE static Acc Identity() {
    if constexpr (std::is_integral_v<Acc>) return math::MaxOf<Acc>();
    else return static_cast<Acc>(INFINITY);
  }
  EMBER_HOST_DEVICE static Acc Combine(Acc a, Acc b) { return math::Minimum()(a, b); }
  EMBER_HOST_DEVICE static T Store(Acc a, int64_t) { return static_cast<T>(a); }
};

EMBER_HOST_DEVICE inline int64_t ReduceOffset(int64_t index, int rank, const int64_t* dims, const int64_t* strides) {
  int64_t offset = 0;
  for (int d = rank - 1; d >= 0; --d) {
    offset += (index % dims[d]) * strides[d];
    index /= dims[d];
  }
  return offset;
}

// Reduces output element o's values, one after another.
template <typename T, typename R>
EMBER_HOST_DEVICE T ReduceOutput(const T* in, int64_t o, const ReduceIndexing& ix) {
  using Acc = typename R::Acc;
  const int64_t base = ReduceOffset(o, ix.kept_rank, ix.kept_dims, ix.kept_strides);
  Acc acc = R::Identity();
  if (ix.reduced_rank == 1) {
    const int64_t step = ix.reduced_strides[0];
    for (int64_t r = 0; r < ix.num_reduced; ++r) acc = R::Combine(acc, static_cast<Acc>(in[base + r * step]));
  } else {
    for (int64_t r = 0; r < ix.num_reduced; ++r) {
      acc = R::Combine(acc, static_cast<Acc>(in[base + ReduceOffset(r, ix.reduced_rank, ix.reduced_dims,
                                                                        ix.reduced_strides)]));
    }
  }
  return R::Store(acc, ix.num_reduced);
}

}  // namespace ember::cuda
