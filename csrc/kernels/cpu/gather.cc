// This file implements the gather, gather_nd and one_hot CPU kernels and
// NdIndexSlots. Every index is checked before anything is copied; an index
// out of range is InvalidArgument naming it, never an out-of-bounds read.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/eigen.h"  // Eigen::half and bfloat16 (the every set)
#include "kernels/cpu/movement_copy.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/indexing.gen.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {

Status NdIndexSlots(const Tensor& indices, const shape_fns::GatherNdPlan& plan, std::vector<int64_t>* slots) {
  const int64_t k = plan.index_depth;
  const int64_t count = plan.batch * plan.num_indices;
  slots->assign(count, 0);
  for (int64_t j = 0; j < count; ++j) {
    int64_t slot = 0;
    for (int64_t m = 0; m < k; ++m) {
      const int64_t v = IndexAt(indices, j * k + m);
      const int64_t dim = plan.indexed_dims[m];
      if (v < 0 || v >= dim) {
        std::vector<int64_t> tuple(k);
        for (int64_t q = 0; q < k; ++q) tuple[q] = IndexAt(indices, j * k + q);
        const Shape& s = indices.shape();
        const std::vector<int64_t> positions(s.begin(), s.end() - 1);
        return InvalidArgument("indices[" + shape_fns::IndexToString(positions, j) + "] = " +
                               shape_fns::IntListToString(tuple) + " does not index into shape " +
                               shape_fns::IntListToString(plan.indexed_dims));
      }
      // The dims come from a shape whose size fits int64, so this cannot
      // overflow; checked anyway, as an overflow here is an out-of-bounds
      // write in scatter_nd.
      if (__builtin_mul_overflow(slot, dim, &slot) || __builtin_add_overflow(slot, v, &slot)) {
        return InvalidArgument("scatter/gather index overflows int64 for shape " +
                               shape_fns::IntListToString(plan.indexed_dims));
      }
    }
    (*slots)[j] = slot;
  }
  return Status::OK();
}

namespace {

// out[b, p, i, :] = params[b, p, indices[b, i], :] (shape_fns::GatherPlan).
class GatherKernel final : public OpKernel {
 public:
  explicit GatherKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    shape_fns::GatherPlan plan;
    EMBER_RETURN_IF_ERROR(
        shape_fns::MakeGatherPlan(params.shape(), indices.shape(), attrs_.axis, attrs_.batch_dims, &plan));
    const int64_t num = indices.NumElements();
    for (int64_t j = 0; j < num; ++j) {
      const int64_t v = IndexAt(indices, j);
      if (v < 0 || v >= plan.axis_dim) {
        return InvalidArgument("indices[" + shape_fns::IndexToString(indices.shape().ToVector(), j) + "] = " +
                               std::to_string(v) + " is not in [0, " + std::to_string(plan.axis_dim) + ")");
      }
    }
    const size_t es = DTypeSize(params.dtype());
    const int64_t inner = plan.inner, n_idx = plan.num_indices, outer = plan.outer, axis_dim = plan.axis_dim;
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(ctx.output(0).raw_data());
    const int64_t units = plan.batch * outer * n_idx;
    const int64_t row_bytes = inner * static_cast<int64_t>(es);
    ParallelFor(ctx, units, static_cast<double>(row_bytes) / 8 + 2, [&](int64_t first, int64_t last) {
      for (int64_t u = first; u < last; ++u) {
        const int64_t i = u % n_idx;
        const int64_t bp = u / n_idx;  // b * outer + p
        const int64_t b = bp / outer;
        const int64_t v = IndexAt(indices, b * n_idx + i);
        CopyElements(dst + u * row_bytes, src + (bp * axis_dim + v) * row_bytes, inner, es);
      }
    });
    return Status::OK();
  }

 private:
  GatherAttrs attrs_;
};

class GatherNdKernel final : public OpKernel {
 public:
  explicit GatherNdKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    shape_fns::GatherNdPlan plan;
    EMBER_RETURN_IF_ERROR(shape_fns::MakeGatherNdPlan(params.shape(), indices.shape(), attrs_.batch_dims, &plan));
    std::vector<int64_t> slots;
    EMBER_RETURN_IF_ERROR(NdIndexSlots(indices, plan, &slots));
    int64_t slots_per_batch = 1;
    for (int64_t d : plan.indexed_dims) slots_per_batch *= d;
    const size_t es = DTypeSize(params.dtype());
    const int64_t row_bytes = plan.inner * static_cast<int64_t>(es);
    const int64_t n_idx = plan.num_indices, inner = plan.inner;
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(ctx.output(0).raw_data());
    ParallelFor(ctx, static_cast<int64_t>(slots.size()), static_cast<double>(row_bytes) / 8 + 2,
                [&](int64_t first, int64_t last) {
                  for (int64_t j = first; j < last; ++j) {
                    const int64_t b = j / n_idx;
                    CopyElements(dst + j * row_bytes, src + (b * slots_per_batch + slots[j]) * row_bytes, inner, es);
                  }
                });
    return Status::OK();
  }

 private:
  GatherNdAttrs attrs_;
};

// out[o, d, i] = indices[o, i] == d ? on_value : off_value, with the depth dim d at axis.
template <typename T>
class OneHotKernel final : public OpKernel {
 public:
  explicit OneHotKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& indices = ctx.input(0);
    // Scalar inputs of T, so int64 values keep every bit (a float attr did not).
    const T on = ctx.input(1).data<T>()[0], off = ctx.input(2).data<T>()[0];
    const int rank = indices.rank();
    const int axis = static_cast<int>(!attrs_.axis || *attrs_.axis == -1 ? rank : *attrs_.axis);
    int64_t outer = 1;
    for (int i = 0; i < axis; ++i) outer *= indices.dim(i);
    const int64_t count = indices.NumElements();
    const int64_t inner = outer > 0 ? count / outer : 0;
    const int64_t depth = attrs_.depth;
    T* out = ctx.output(0).data<T>();
    ParallelFor(ctx, outer, static_cast<double>(depth * inner) + 1, [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) {
        T* block = out + o * depth * inner;
        std::fill(block, block + depth * inner, off);
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t v = IndexAt(indices, o * inner + i);
          if (v >= 0 && v < depth) block[v * inner + i] = on;
        }
      }
    });
    return Status::OK();
  }

 private:
  OneHotAttrs attrs_;
};

template <typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterOneHot(KernelRegistry& r, type_sets::TypeList<Ts...>) {
  (r.Register("one_hot", kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt32}, &MakeKernel<OneHotKernel<Ts>>), ...);
  (r.Register("one_hot", kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt64}, &MakeKernel<OneHotKernel<Ts>>), ...);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterGatherKernels(KernelRegistry& r) {
  const type_sets::Every every;
  RegisterWithIndexTypes(r, "gather", &MakeKernel<GatherKernel>, &MakeKernel<GatherKernel>, every);
  RegisterWithIndexTypes(r, "gather_nd", &MakeKernel<GatherNdKernel>, &MakeKernel<GatherNdKernel>, every);
  RegisterOneHot(r, every);
}

}  // namespace ember::cpu
