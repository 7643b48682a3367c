// This file implements the CPU kernels that fill a new tensor from metadata
// or attrs: shape, size, rank, zeros_like, ones_like, range, linspace, eye.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/eigen.h"  // Eigen::half and bfloat16 (the every set)
#include "kernels/cpu/movement_copy.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/movement.gen.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {
namespace {

void ZeroFill(const KernelContext& ctx, Tensor& out) {
  char* bytes = static_cast<char*>(out.raw_data());
  ParallelFor(ctx, static_cast<int64_t>(out.NumBytes()), 0.25,
              [=](int64_t first, int64_t last) { std::memset(bytes + first, 0, last - first); });
}

// shape(input): the dims of input; size(input): their product.
template <typename OutT>
class ShapeKernel final : public OpKernel {
 public:
  explicit ShapeKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Shape& s = ctx.input(0).shape();
    OutT* out = ctx.output(0).data<OutT>();
    for (int i = 0; i < s.rank(); ++i) out[i] = static_cast<OutT>(s.dim(i));
    return Status::OK();
  }
};

template <typename OutT>
class SizeKernel final : public OpKernel {
 public:
  explicit SizeKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    *ctx.output(0).data<OutT>() = static_cast<OutT>(ctx.input(0).NumElements());
    return Status::OK();
  }
};

class RankKernel final : public OpKernel {
 public:
  explicit RankKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    *ctx.output(0).data<int32_t>() = ctx.input(0).rank();
    return Status::OK();
  }
};

class ZerosLikeKernel final : public OpKernel {
 public:
  explicit ZerosLikeKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    ZeroFill(ctx, ctx.output(0));
    return Status::OK();
  }
};

template <typename T>
class OnesLikeKernel final : public OpKernel {
 public:
  explicit OnesLikeKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    T* out = ctx.output(0).data<T>();
    ParallelFor(ctx, ctx.output(0).NumElements(), kCheapOpCycles,
                [=](int64_t first, int64_t last) { std::fill(out + first, out + last, T(1)); });
    return Status::OK();
  }
};

// Element i is start + i * delta, computed in int64 for integer dtypes (the
// attrs are integral then; see ember.range) and in double otherwise.
template <typename T>
class RangeKernel final : public OpKernel {
 public:
  explicit RangeKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    T* out = ctx.output(0).data<T>();
    const double start = attrs_.start, delta = attrs_.delta;
    ParallelFor(ctx, ctx.output(0).NumElements(), kCheapOpCycles, [=](int64_t first, int64_t last) {
      if constexpr (std::is_integral_v<T>) {
        const int64_t s = static_cast<int64_t>(start), d = static_cast<int64_t>(delta);
        for (int64_t i = first; i < last; ++i) out[i] = static_cast<T>(s + i * d);
      } else {
        for (int64_t i = first; i < last; ++i) out[i] = static_cast<T>(start + static_cast<double>(i) * delta);
      }
    });
    return Status::OK();
  }

 private:
  RangeAttrs attrs_;
};

// start and stop are broadcast to their common shape B (by strided copies
// into temporaries); the result is B with num inserted at axis, value k of
// pair b being start + k * (stop - start) / (num - 1), and exactly stop last.
template <typename T>
class LinspaceKernel final : public OpKernel {
 public:
  explicit LinspaceKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& start = ctx.input(0);
    const Tensor& stop = ctx.input(1);
    Shape base;
    EMBER_RETURN_IF_ERROR(shape_fns::BroadcastShapes(start.shape(), stop.shape(), &base));
    int axis;
    EMBER_RETURN_IF_ERROR(shape_fns::InsertAxis(attrs_.axis, base.rank(), &axis));
    const int64_t count = base.NumElements();
    std::vector<T> lo(count), hi(count);
    for (auto [src, dst] : {std::pair{&start, &lo}, std::pair{&stop, &hi}}) {
      shape_fns::StridedView view;
      EMBER_RETURN_IF_ERROR(shape_fns::BroadcastToView(src->shape(), base.ToVector(), &view));
      CopyView(nullptr, src->raw_data(), dst->data(), sizeof(T), view);
    }
    int64_t outer = 1;
    for (int i = 0; i < axis; ++i) outer *= base.dim(i);
    const int64_t inner = outer > 0 ? count / std::max<int64_t>(outer, 1) : 0;
    const int64_t num = attrs_.num;
    T* out = ctx.output(0).data<T>();
    ParallelFor(ctx, outer * num, static_cast<double>(inner) + 1, [&](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        const int64_t o = row / num, k = row % num;
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t b = o * inner + i;
          const double a = static_cast<double>(lo[b]), z = static_cast<double>(hi[b]);
          T v;
          if (k == 0) {
            v = lo[b];
          } else if (k == num - 1) {
            v = hi[b];
          } else {
            v = static_cast<T>(a + static_cast<double>(k) * ((z - a) / static_cast<double>(num - 1)));
          }
          out[row * inner + i] = v;
        }
      }
    });
    return Status::OK();
  }

 private:
  LinspaceAttrs attrs_;
};

template <typename T>
class EyeKernel final : public OpKernel {
 public:
  explicit EyeKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    ZeroFill(ctx, out);
    const int rank = out.rank();
    const int64_t rows = out.dim(rank - 2), cols = out.dim(rank - 1);
    const int64_t matrix = rows * cols;
    if (matrix == 0) return Status::OK();
    const int64_t batch = out.NumElements() / matrix;
    const int64_t diag = std::min(rows, cols);
    T* data = out.data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < diag; ++i) data[b * matrix + i * cols + i] = T(1);
    }
    return Status::OK();
  }
};

template <template <typename> class K, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterWithOutIndexType(KernelRegistry& r, const char* op, type_sets::TypeList<Ts...>) {
  (r.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt32}, &MakeKernel<K<int32_t>>), ...);
  (r.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt64}, &MakeKernel<K<int64_t>>), ...);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterMovementCreateKernels(KernelRegistry& r) {
  const type_sets::Every every;
  RegisterWithOutIndexType<ShapeKernel>(r, "shape", every);
  RegisterWithOutIndexType<SizeKernel>(r, "size", every);
  RegisterForEachDType(r, "rank", &MakeKernel<RankKernel>, every);
  RegisterForEachDType(r, "zeros_like", &MakeKernel<ZerosLikeKernel>, every);
  RegisterForTypeSet<OnesLikeKernel>(r, "ones_like", every);
  RegisterForTypeSet<RangeKernel>(r, "range", type_sets::Real{});
  RegisterForTypeSet<LinspaceKernel>(r, "linspace", type_sets::Floating{});
  RegisterForTypeSet<EyeKernel>(r, "eye", every);
}

}  // namespace ember::cpu
