// This file implements the cumsum and cumprod CPU kernels.
#include <vector>

#include "kernels/cpu/axis_view.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/wrapping.h"

namespace ember::cpu {
namespace {

// The ops run in ComputeType<T> (Note [Half compute]: half types scan in
// float32 and round each output once). Integers wrap on every step like
// NumPy's cumsum(x, dtype=x.dtype), without signed overflow (Note [Wrapping
// integer arithmetic] in wrapping.h).
template <typename A>
struct SumOp {
  static constexpr A kIdentity = A(0);
  static A Apply(A a, A b) { return WrappingAdd(a, b); }
};

template <typename A>
struct ProdOp {
  static constexpr A kIdentity = A(1);
  static A Apply(A a, A b) { return WrappingMul(a, b); }
};

// Attrs (by index; see Note [Pending op definitions] in sort.cc):
// 0 axis (int), 1 exclusive (bool), 2 reverse (bool).
template <typename T, template <typename> class Op>
class ScanKernel final : public OpKernel {
 public:
  using A = ComputeType<T>;
  explicit ScanKernel(const KernelInit& init)
      : axis_(init.attrs[0].as_int()), exclusive_(init.attrs[1].as_bool()),
        reverse_(init.attrs[2].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const AxisView v = MakeAxisView(input.shape(), axis_);
    if (input.NumElements() == 0) return Status::OK();
    const T* in = input.data<T>();
    T* out = ctx.output(0).data<T>();
    const bool exclusive = exclusive_;
    const bool reverse = reverse_;
    // Each column is scanned in order along the axis; a run of adjacent
    // columns advances together, so the inner loop is contiguous.
    ParallelFor(ctx, v.num_columns(), static_cast<double>(v.len), [=](int64_t first, int64_t last) {
      std::vector<A> acc(static_cast<size_t>(std::min(last - first, v.inner)));
      ForEachColumnRun(v, first, last, [&](int64_t o, int64_t i0, int64_t n) {
        std::fill(acc.begin(), acc.begin() + n, Op<A>::kIdentity);
        const int64_t base = o * v.len * v.inner + i0;
        for (int64_t s = 0; s < v.len; ++s) {
          const int64_t r = reverse ? v.len - 1 - s : s;
          const T* x = in + base + r * v.inner;
          T* y = out + base + r * v.inner;
          for (int64_t j = 0; j < n; ++j) {
            const A next = Op<A>::Apply(acc[j], static_cast<A>(x[j]));
            y[j] = static_cast<T>(exclusive ? acc[j] : next);
            acc[j] = next;
          }
        }
      });
    });
    return Status::OK();
  }

 private:
  int64_t axis_;
  bool exclusive_;
  bool reverse_;
};

template <typename T>
using CumsumKernel = ScanKernel<T, SumOp>;
template <typename T>
using CumprodKernel = ScanKernel<T, ProdOp>;

}  // namespace

EMBER_STARTUP_CODE void RegisterScanKernels(KernelRegistry& r) {
  RegisterForTypeSet<CumsumKernel>(r, "cumsum", type_sets::RealAndComplex{});
  RegisterForTypeSet<CumprodKernel>(r, "cumprod", type_sets::RealAndComplex{});
}

}  // namespace ember::cpu
