// This file declares ReduceKernel, the one-pass reduction kernel behind
// reduce_sum, _mean, _prod (reduction.cc), _max, _min, _any and _all
// (reduction_extrema.cc), over a ReducePlan (ops/plans/reduce_plan.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/shape.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/transpose.h"
#include "ops/op_kernel.h"
#include "ops/plans/reduce_plan.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {

template <typename T>
using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using MutVec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// Note [Reduction accumulators]
// A reducer R<T> computes in its accumulator type R<T>::Acc and rounds once
// to T when it stores: float32 for the half types (Note [Half compute]),
// int64 where a narrow integer sum or an integer mean needs the range, T
// otherwise. A reducer provides
//   Empty()            the result of reducing nothing, as T;
//   Reduce(v)          v's values reduced to one Acc;
//   Combine(a, b)      two partial results combined;
//   Accumulate(acc, v) acc[i] combined with v[i], for every i;
//   Finalize(a, n)     the result for n reduced values (the mean divides).

// Values reduced per partial result when one row is split across threads.
inline constexpr int64_t kReduceChunk = 1 << 15;

// The prologue every reduction kernel shares: the reduced axes of `input`,
// and, when the input is empty, `output` filled with `empty` and *done set.
template <typename T>
Status BeginReduce(const std::optional<std::vector<int64_t>>& axis, const Tensor& input, Tensor& output, T empty,
                   std::vector<bool>* reduced_axes, bool* done) {
  EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(axis, input.rank(), reduced_axes));
  *done = input.NumElements() == 0;
  if (*done) std::fill(output.data<T>(), output.data<T>() + output.NumElements(), empty);
  return Status::OK();
}

template <typename T, template <typename> class R>
class ReduceKernel final : public OpKernel {
 public:
  using Reducer = R<T>;
  using Acc = typename Reducer::Acc;
  explicit ReduceKernel(const KernelInit& init) : axis_(typename Reducer::Attrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    T* out = output.data<T>();
    const int64_t out_n = output.NumElements();
    if (input.NumElements() == 0) {
      std::fill(out, out + out_n, Reducer::Empty());
      return Status::OK();
    }
    // Note [Kernel plans]: the shape function's, else made here.
    ReducePlan made;
    const ReducePlan* given = ctx.plan<ReducePlan>();
    if (given == nullptr) {
      std::vector<bool> reduced_axes;
      EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(axis_, input.rank(), &reduced_axes));
      made = MakeReducePlan(input.shape(), reduced_axes);
    }
    const ReducePlan& plan = given != nullptr ? *given : made;
    const T* in = input.data<T>();
    if (plan.reduced == 1) {
      if (out != in) std::memcpy(out, in, out_n * sizeof(T));
      return Status::OK();
    }
    std::unique_ptr<T[]> scratch;  // not std::vector: vector<bool> has no data()
    if (plan.transpose) {
      scratch.reset(new T[input.NumElements()]);
      PermuteCopy(&ctx.device_context(), in, scratch.get(), sizeof(T), plan.collapsed, plan.perm);
      in = scratch.get();
    }
    const DeviceContext* device = &ctx.device_context();
    if (plan.inner == 1 && plan.outer == 1) {
      ReduceAll(device, in, plan.reduced, out);
    } else if (plan.inner == 1) {
      const int64_t len = plan.reduced;
      ParallelFor(device, plan.outer, static_cast<double>(len), [=](int64_t first, int64_t last) {
        for (int64_t o = first; o < last; ++o) out[o] = Store(ReduceSpan(in + o * len, len), len);
      });
    } else if (SplitsRows(plan)) {
      ReduceMiddleByRows(device, in, plan, out);
    } else {
      ReduceMiddle(device, in, plan, out);
    }
    return Status::OK();
  }

 private:
  static T Store(Acc value, int64_t count) { return static_cast<T>(Reducer::Finalize(value, count)); }

  // in[0, n), n >= 1, reduced in Acc; when Acc is not T, a block at a time
  // converted into a stack buffer.
  static Acc ReduceSpan(const T* in, int64_t n) {
    if constexpr (std::is_same_v<Acc, T>) {
      return Reducer::Reduce(ConstVec<Acc>(in, n));
    } else {
      Acc buf[kWidenBlock];
      Acc result{};
      ForEachWidenBlock(n, [&](int64_t first, int64_t count) {
        ConvertSpan(in + first, buf, count);
        const Acc part = Reducer::Reduce(ConstVec<Acc>(buf, count));
        result = first == 0 ? part : Reducer::Combine(result, part);
      });
      return result;
    }
  }

  // One output; long inputs are reduced in chunks, then the partials.
  static void ReduceAll(const DeviceContext* device, const T* in, int64_t n, T* out) {
    const int64_t chunks = (n + kReduceChunk - 1) / kReduceChunk;
    if (chunks == 1) {
      *out = Store(ReduceSpan(in, n), n);
      return;
    }
    std::unique_ptr<Acc[]> partial(new Acc[chunks]);
    ParallelFor(device, chunks, static_cast<double>(kReduceChunk), [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        const int64_t begin = c * kReduceChunk;
        partial[c] = ReduceSpan(in + begin, std::min(kReduceChunk, n - begin));
      }
    });
    *out = Store(Reducer::Reduce(ConstVec<Acc>(partial.get(), chunks)), n);
  }

  // [outer, reduced, inner] with inner > 1: rows of up to kWidenBlock
  // adjacent columns are accumulated in a stack buffer, vectorized along
  // inner. Work is split over the outer * inner output columns.
  static void ReduceMiddle(const DeviceContext* device, const T* in, const ReducePlan& plan, T* out) {
    const int64_t inner = plan.inner;
    const int64_t reduced = plan.reduced;
    ParallelFor(device, plan.outer * inner, static_cast<double>(reduced), [=](int64_t first, int64_t last) {
      Acc acc_buf[kWidenBlock];
      Acc row_buf[kWidenBlock];
      while (first < last) {
        const int64_t c0 = first % inner;
        const int64_t len = std::min({last - first, inner - c0, kWidenBlock});
        const T* slab = in + (first / inner) * reduced * inner + c0;
        MutVec<Acc> acc(acc_buf, len);
        acc = ConstVec<Acc>(ConvertedSpan(slab, row_buf, len), len);
        for (int64_t r = 1; r < reduced; ++r) {
          Reducer::Accumulate(acc, ConstVec<Acc>(ConvertedSpan(slab + r * inner, row_buf, len), len));
        }
        for (int64_t j = 0; j < len; ++j) out[first + j] = Store(acc_buf[j], reduced);
        first += len;
      }
    });
  }

  // Note [Reducing few columns over many rows]
  // ReduceMiddle shares out output columns, so [rows, C] summed to [C] (a
  // bias's gradient, [N*H*W, 32] in a small CNN) ran on one thread, about
  // 1.5 ms for 11 MB. With at most a few blocks of columns, the rows are
  // cut instead into chunks of about kReduceChunk values; each chunk's
  // partial results are combined in chunk order. The chunks do not depend
  // on the thread count, so neither does the result.
  static int64_t RowsPerChunk(int64_t inner) { return std::max<int64_t>(1, kReduceChunk / inner); }

  static bool SplitsRows(const ReducePlan& plan) {
    return plan.outer * plan.inner <= 4 * kWidenBlock && plan.reduced >= 2 * RowsPerChunk(plan.inner);
  }

  static void ReduceMiddleByRows(const DeviceContext* device, const T* in, const ReducePlan& plan, T* out) {
    const int64_t inner = plan.inner, reduced = plan.reduced, columns = plan.outer * inner;
    const int64_t rows = RowsPerChunk(inner);
    const int64_t chunks = (reduced + rows - 1) / rows;
    std::unique_ptr<Acc[]> partial(new Acc[chunks * columns]);
    ParallelFor(device, chunks, static_cast<double>(rows * columns), [&](int64_t first, int64_t last) {
      Acc row_buf[kWidenBlock];
      for (int64_t k = first; k < last; ++k) {
        const int64_t r0 = k * rows, r1 = std::min(reduced, r0 + rows);
        for (int64_t o = 0; o < plan.outer; ++o) {
          for (int64_t c0 = 0; c0 < inner; c0 += kWidenBlock) {
            const int64_t len = std::min(kWidenBlock, inner - c0);
            const T* slab = in + (o * reduced + r0) * inner + c0;
            MutVec<Acc> acc(partial.get() + k * columns + o * inner + c0, len);
            acc = ConstVec<Acc>(ConvertedSpan(slab, row_buf, len), len);
            for (int64_t r = 1; r < r1 - r0; ++r) {
              Reducer::Accumulate(acc, ConstVec<Acc>(ConvertedSpan(slab + r * inner, row_buf, len), len));
            }
          }
        }
      }
    });
    MutVec<Acc> total(partial.get(), columns);
    for (int64_t k = 1; k < chunks; ++k) {
      Reducer::Accumulate(total, ConstVec<Acc>(partial.get() + k * columns, columns));
    }
    for (int64_t j = 0; j < columns; ++j) out[j] = Store(partial[j], reduced);
  }

  std::optional<std::vector<int64_t>> axis_;
};

template <template <typename> class R>
struct Reduction {
  template <typename T>
  using Kernel = ReduceKernel<T, R>;
};

// Finalize for every reducer but the mean.
struct KeepsResult {
  template <typename Acc>
  static Acc Finalize(Acc value, int64_t) {
    return value;
  }
};

}  // namespace ember::cpu
