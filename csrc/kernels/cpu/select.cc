// This file registers the three-operand element-wise CPU kernels, where and
// clip_by_value, which broadcast through NaryBroadcastPlan.
#include "kernels/common/element_math.h"
#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/eigen.h"  // Eigen::half and bfloat16 for where and clip_by_value
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

// Fills output 0 = F(in0[i], in1[i], in2[i]) with NumPy broadcasting of the
// three inputs (Note [N-ary broadcast plan]). The output may alias an input
// of the same shape: each element is read before it is written.
template <typename A, typename B, typename C, typename Out, typename F>
void RunTernary(KernelContext& ctx) {
  const Tensor& t0 = ctx.input(0);
  const Tensor& t1 = ctx.input(1);
  const Tensor& t2 = ctx.input(2);
  Tensor& out_tensor = ctx.output(0);
  const Shape* shapes[3] = {&t0.shape(), &t1.shape(), &t2.shape()};
  const NaryBroadcastPlan plan = MakeNaryBroadcastPlan(shapes, 3, out_tensor.shape());
  if (plan.num_elements == 0) return;
  const A* a = t0.data<A>();
  const B* b = t1.data<B>();
  const C* c = t2.data<C>();
  Out* out = out_tensor.data<Out>();
  const int64_t as = plan.inner_stride(0);
  const int64_t bs = plan.inner_stride(1);
  const int64_t cs = plan.inner_stride(2);
  ParallelFor(ctx, plan.num_elements, kCheapOpCycles, [&](int64_t first, int64_t last) {
    ForEachNaryBroadcastRun(plan, first, last, [&](int64_t o, const int64_t* offsets, int64_t n) {
      const A* ap = a + offsets[0];
      const B* bp = b + offsets[1];
      const C* cp = c + offsets[2];
      Out* op = out + o;
      if (as == 1 && bs == 1 && cs == 1) {  // the common case, without stride products
        for (int64_t i = 0; i < n; ++i) op[i] = F()(ap[i], bp[i], cp[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) op[i] = F()(ap[i * as], bp[i * bs], cp[i * cs]);
      }
    });
  });
}

// The condition is read as bytes: GCC vectorizes `byte != 0 ? x : y` into
// blends but compiles the same choice on a bool into a branch per element,
// which mispredicts on every other element of a random mask (5.4 ms for a
// 2.8M-element float32 where, against about 0.7 ms now).
struct WhereFn {
  template <typename T>
  T operator()(uint8_t condition, T x, T y) const { return condition != 0 ? x : y; }
};

// The shared scalar form (kernels/common/element_math.h), as on the GPU.
using ClipFn = math::Clip;

template <typename T>
class WhereKernel final : public OpKernel {
 public:
  explicit WhereKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    RunTernary<uint8_t, T, T, T, WhereFn>(ctx);  // bool's bytes are 0 or 1
    return Status::OK();
  }
};

template <typename T>
class ClipByValueKernel final : public OpKernel {
 public:
  explicit ClipByValueKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    RunTernary<T, T, T, T, ClipFn>(ctx);
    return Status::OK();
  }
};

}  // namespace

EMBER_STARTUP_CODE void RegisterSelectKernels(KernelRegistry& r) {
  RegisterForTypeSet<WhereKernel>(r, "where", type_sets::Every{});
  RegisterForTypeSet<ClipByValueKernel>(r, "clip_by_value", type_sets::Real{});
}

}  // namespace ember::cpu
