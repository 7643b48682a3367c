// This file implements the CPU kernels of the optimizer updates
// (op_defs/training.yaml): one pass over the variable, its slots and its
// gradient per step, in the compute type (float32 for the 16-bit types,
// Note [Half compute]).
#include <cmath>

#include "devices/cpu/cpu_device.h"
#include "kernels/common/training_math.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/training.gen.h"

namespace ember::cpu {
namespace {

template <typename T>
ComputeType<T> Scalar(const KernelContext& ctx, int i) {
  return static_cast<ComputeType<T>>(ctx.input(i).data<T>()[0]);
}

template <typename T>
T Store(ComputeType<T> v) {
  return static_cast<T>(v);
}

// Runs update(index) for every element, split across the CPU pool.
template <typename Fn>
void ForEachElement(const KernelContext& ctx, double cycles, Fn&& update) {
  ParallelFor(ctx, ctx.input(0).NumElements(), cycles, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) update(i);
  });
}

template <typename T>
class ApplyGradientDescentKernel final : public OpKernel {
 public:
  explicit ApplyGradientDescentKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    using C = ComputeType<T>;
    const T* var = ctx.input(0).data<T>();
    const T* grad = ctx.input(1).data<T>();
    const C lr = Scalar<T>(ctx, 2);
    T* out = ctx.output(0).data<T>();
    ForEachElement(ctx, 2 * kCheapOpCycles, [&](int64_t i) {
      out[i] = Store<T>(math::GradientDescentStep<C>(static_cast<C>(var[i]), static_cast<C>(grad[i]), lr));
    });
    return Status::OK();
  }
};

template <typename T>
class ApplyMomentumKernel final : public OpKernel {
 public:
  explicit ApplyMomentumKernel(const KernelInit& init) : nesterov_(ApplyMomentumAttrs(init.attrs).use_nesterov) {}
  Status Compute(KernelContext& ctx) const override {
    using C = ComputeType<T>;
    const T* var = ctx.input(0).data<T>();
    const T* m = ctx.input(1).data<T>();
    const T* grad = ctx.input(2).data<T>();
    const C lr = Scalar<T>(ctx, 3), momentum = Scalar<T>(ctx, 4);
    T* var_out = ctx.output(0).data<T>();
    T* m_out = ctx.output(1).data<T>();
    const bool nesterov = nesterov_;
    ForEachElement(ctx, 4 * kCheapOpCycles, [&](int64_t i) {
      C next_var, next_m;
      math::MomentumStep<C>(static_cast<C>(var[i]), static_cast<C>(m[i]), static_cast<C>(grad[i]), lr, momentum,
                            nesterov, &next_var, &next_m);
      var_out[i] = Store<T>(next_var);
      m_out[i] = Store<T>(next_m);
    });
    return Status::OK();
  }

 private:
  bool nesterov_;
};

template <typename T>
class ApplyAdamKernel final : public OpKernel {
 public:
  explicit ApplyAdamKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    using C = ComputeType<T>;
    const T* var = ctx.input(0).data<T>();
    const T* m = ctx.input(1).data<T>();
    const T* v = ctx.input(2).data<T>();
    const T* grad = ctx.input(3).data<T>();
    const C lr = Scalar<T>(ctx, 4), beta_1 = Scalar<T>(ctx, 5), beta_2 = Scalar<T>(ctx, 6);
    const C epsilon = Scalar<T>(ctx, 7), beta_1_power = Scalar<T>(ctx, 8), beta_2_power = Scalar<T>(ctx, 9);
    const C weight_decay = Scalar<T>(ctx, 10);
    const math::AdamScalars<C> scalars =
        math::MakeAdamScalars<C>(lr, beta_1, beta_2, epsilon, beta_1_power, beta_2_power, weight_decay);
    T* var_out = ctx.output(0).data<T>();
    T* m_out = ctx.output(1).data<T>();
    T* v_out = ctx.output(2).data<T>();
    ForEachElement(ctx, 12 * kCheapOpCycles, [&](int64_t i) {
      C next_var, next_m, next_v;
      math::AdamStep<C>(static_cast<C>(var[i]), static_cast<C>(m[i]), static_cast<C>(v[i]), static_cast<C>(grad[i]),
                        scalars, &next_var, &next_m, &next_v);
      var_out[i] = Store<T>(next_var);
      m_out[i] = Store<T>(next_m);
      v_out[i] = Store<T>(next_v);
    });
    return Status::OK();
  }
};

}  // namespace
}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuTrainingKernels(KernelRegistry& registry) {
  using namespace cpu;
  RegisterForTypeSet<ApplyGradientDescentKernel>(registry, "apply_gradient_descent", type_sets::Floating{});
  RegisterForTypeSet<ApplyMomentumKernel>(registry, "apply_momentum", type_sets::Floating{});
  RegisterForTypeSet<ApplyAdamKernel>(registry, "apply_adam", type_sets::Floating{});
}

}  // namespace ember
