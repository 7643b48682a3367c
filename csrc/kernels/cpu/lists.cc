// This file implements the CPU kernels of ops over lists of tensors.
#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/registration.h"
#include "ops/op_kernel.h"

namespace ember {
namespace {

// identity_n: every output views its input's buffer.
template <typename T>
class IdentityNKernel final : public OpKernel {
 public:
  explicit IdentityNKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
    return Status::OK();
  }
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCpuListKernels(KernelRegistry& registry) {
  cpu::RegisterForTypeSet<IdentityNKernel>(registry, "identity_n", type_sets::Every{});
}

}  // namespace ember
