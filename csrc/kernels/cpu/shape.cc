// This file registers the view kernels (reshape, identity, stop_gradient) and defines
// RegisterCpuShapeKernels; transpose, cast and fill live in their own files.
#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/view_kernel.h"

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuShapeKernels(KernelRegistry& r) {
  for (int i = 0; i < kNumDTypes; ++i) {  // the `every` set
    const DType t = static_cast<DType>(i);
    r.Register("reshape", kCpuDeviceType, {t}, &MakeKernel<cpu::ViewKernel>);
    r.Register("identity", kCpuDeviceType, {t}, &MakeKernel<cpu::ViewKernel>);
    r.Register("stop_gradient", kCpuDeviceType, {t}, &MakeKernel<cpu::ViewKernel>);
  }
  cpu::RegisterTransposeKernels(r);
  cpu::RegisterCastKernels(r);
  cpu::RegisterFillKernels(r);
}

}  // namespace ember
