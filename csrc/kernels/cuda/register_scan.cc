// This file defines the GPU cumsum and cumprod kernels' host side (the
// [outer, len, inner] view around the axis) and registers them for the
// real dtypes; complex scans run on the CPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/scan.h"

namespace ember::cuda {
namespace {

// Attrs by index, as the CPU's: 0 axis, 1 exclusive, 2 reverse.
template <typename T, bool kProduct>
class ScanKernel final : public OpKernel {
 public:
  explicit ScanKernel(const KernelInit& init)
      : axis_(init.attrs[0].as_int()), exclusive_(init.attrs[1].as_bool()), reverse_(init.attrs[2].as_bool()) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& x = ctx.input(0);
    if (x.NumElements() == 0) return Status::OK();
    const int rank = x.rank();
    // The shape function checked the axis; a scalar scans itself.
    const int axis = rank == 0 ? 0 : static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    int64_t outer = 1, len = 1, inner = 1;
    for (int d = 0; d < rank; ++d) (d < axis ? outer : d == axis ? len : inner) *= x.dim(d);
    return env.CheckLaunch(LaunchScan<T, kProduct>(static_cast<const T*>(x.raw_data()),
                                                   static_cast<T*>(ctx.output(0).raw_data()), outer, len, inner,
                                                   exclusive_, reverse_, StreamOf(env), env.max_blocks),
                           kProduct ? "launching cumprod" : "launching cumsum");
  }

 private:
  int64_t axis_;
  bool exclusive_;
  bool reverse_;
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterFor(KernelRegistry& r, DeviceTypeId gpu) {
  r.Register("cumsum", gpu, {TypeOf<T>()}, &MakeKernel<ScanKernel<T, false>>);
  r.Register("cumprod", gpu, {TypeOf<T>()}, &MakeKernel<ScanKernel<T, true>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaScanKernels(KernelRegistry& r, DeviceTypeId gpu) {
  ForEachRealType([&](auto type) { RegisterFor<decltype(type)>(r, gpu); });
}

}  // namespace ember::cuda
