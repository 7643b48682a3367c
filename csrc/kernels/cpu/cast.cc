// This file implements the cast CPU kernel (every pair of dtypes); the
// per-pair loops live in cast_integer.cc and cast_float.cc.
#include "kernels/cpu/cast.h"

#include <cstring>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

const CastTable& Casts() {
  static const CastTable* table = [] {
    auto* t = new CastTable();
    AddIntegerSourceCasts(*t);
    AddFloatSourceCasts(*t);
    return t;
  }();
  return *table;
}

class CastKernel final : public OpKernel {
 public:
  // type_bindings: {SrcT, DstT}.
  explicit CastKernel(const KernelInit& init)
      : same_(init.type_bindings[0] == init.type_bindings[1]),
        fn_(Casts().fn[static_cast<int>(init.type_bindings[0])][static_cast<int>(init.type_bindings[1])]) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    if (same_ && ctx.device_context().stream == nullptr) {
      // Nothing to convert: the output is a view of the input. (On a
      // device with a stream the output was handed out before the kernel
      // ran, Note [Defined handles], so the data is copied instead.)
      ctx.set_output(0, Tensor(input.dtype(), ctx.output(0).shape(), input.buffer()));
      return Status::OK();
    }
    if (same_) {
      if (input.NumBytes() > 0) std::memcpy(ctx.output(0).raw_data(), input.raw_data(), input.NumBytes());
      return Status::OK();
    }
    if (fn_ == nullptr) return Internal("cast: no conversion loop for this dtype pair");
    const void* in = input.raw_data();
    void* out = ctx.output(0).raw_data();
    const CastFn fn = fn_;
    ParallelFor(ctx, input.NumElements(), kCheapOpCycles,
                [=](int64_t first, int64_t last) { fn(in, out, first, last); });
    return Status::OK();
  }

 private:
  bool same_;
  CastFn fn_;
};

template <typename Src, typename... Dsts>
EMBER_STARTUP_TEMPLATE void RegisterCastsFrom(KernelRegistry& r, type_sets::TypeList<Dsts...>) {
  (r.Register("cast", kCpuDeviceType, {DTypeOf<Src>::value, DTypeOf<Dsts>::value}, &MakeKernel<CastKernel>),
   ...);
}

template <typename... Srcs>
EMBER_STARTUP_TEMPLATE void RegisterAllCasts(KernelRegistry& r, type_sets::TypeList<Srcs...> every) {
  (RegisterCastsFrom<Srcs>(r, every), ...);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCastKernels(KernelRegistry& r) { RegisterAllCasts(r, type_sets::Every{}); }

}  // namespace ember::cpu
