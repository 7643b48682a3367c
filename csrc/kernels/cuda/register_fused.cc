// This file defines the GPU fused_elementwise kernel's host side and
// registers it for float32 and float64, the dtypes the fusion pass fuses
// (Note [GPU fused programs] in fused_body.h).
#include <vector>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/fused.h"
#include "kernels/cuda/fused_code.h"
#include "ops/fused_program.h"

namespace ember::cuda {
namespace {

template <typename T>
class FusedElementwiseKernel final : public OpKernel {
 public:
  explicit FusedElementwiseKernel(const KernelInit& init) {
    // The shape function accepted the program; a failure here is kept
    // and returned by Compute rather than trusted.
    parse_status_ = FusedProgram::Parse(init.attrs[0].as_string(), init.attrs[1].as_int_list(), &program_);
    if (parse_status_.ok()) fits_ = CompileFusedCode(program_, &code_);
  }

  Status Compute(KernelContext& ctx) const override {
    if (!parse_status_.ok()) return parse_status_;
    if (ctx.num_inputs() < program_.num_args) {
      return InvalidArgument("the program reads " + std::to_string(program_.num_args) + " arguments, got " +
                             std::to_string(ctx.num_inputs()));
    }
    const int64_t total = ctx.output(0).NumElements();
    if (total == 0) return Status::OK();
    return fits_ ? RunWhole(ctx, total) : RunByInstruction(ctx, total);
  }

 private:
  Status RunWhole(KernelContext& ctx, int64_t total) const {
    const CudaKernelEnv& env = EnvOf(ctx);
    FusedOperands<T> operands;
    for (int i = 0; i < program_.num_args; ++i) {
      operands.args[i] = static_cast<const T*>(ctx.input(i).raw_data());
      MarkOperand(ctx, i, total, 1u << i, &operands);
    }
    for (int o = 0; o < ctx.num_outputs(); ++o) operands.outputs[o] = static_cast<T*>(ctx.output(o).raw_data());
    return env.CheckLaunch(LaunchFused<T>(code_, operands, total, StreamOf(env), env.max_blocks),
                           "launching fused_elementwise");
  }

  // Each instruction its own launch over the whole run, its value kept in
  // scratch for later readers; outputs copied out at the end.
  Status RunByInstruction(KernelContext& ctx, int64_t total) const {
    const CudaKernelEnv& env = EnvOf(ctx);
    const size_t bytes = static_cast<size_t>(total) * sizeof(T);
    const int n = static_cast<int>(program_.code.size());
    Scratch values(ctx, bytes * static_cast<size_t>(n));
    if (values.failed()) return ResourceExhausted("out of GPU memory for fused_elementwise's values");
    T* base = static_cast<T*>(values.get());
    // Operand `slot` (0 or 1) of the one-instruction program.
    auto bind = [&](int operand, int slot, FusedOperands<T>* operands) {
      const uint32_t bit = 1u << slot;
      if (!IsFusedArg(operand)) {
        operands->args[slot] = base + static_cast<int64_t>(operand) * total;
        operands->arg_run |= bit;
        return;
      }
      const int i = FusedArgIndex(operand);
      operands->args[slot] = static_cast<const T*>(ctx.input(i).raw_data());
      MarkOperand(ctx, i, total, bit, operands);
    };
    for (int k = 0; k < n; ++k) {
      const FusedInstruction& in = program_.code[k];
      FusedOperands<T> operands;
      bind(in.a, 0, &operands);
      if (FusedOpInfoOf(in.op).arity == 2) bind(in.b, 1, &operands);
      operands.outputs[0] = base + static_cast<int64_t>(k) * total;
      EMBER_RETURN_IF_ERROR(env.CheckLaunch(
          LaunchFused<T>(SingleInstructionCode(in), operands, total, StreamOf(env), env.max_blocks),
          "launching fused_elementwise"));
    }
    for (int o = 0; o < ctx.num_outputs(); ++o) {
      const T* value = base + static_cast<int64_t>(program_.outputs[o]) * total;
      EMBER_RETURN_IF_ERROR(
          env.CheckLaunch(env.api->MemcpyAsync(ctx.output(o).raw_data(), value, bytes, env.stream), "copying"));
    }
    return Status::OK();
  }

  // Sets `bit` in arg_run or arg_channel for input i: a whole run, or a
  // channel vector (Note [Element-wise fusion]); neither, one element.
  static void MarkOperand(KernelContext& ctx, int i, int64_t total, uint32_t bit, FusedOperands<T>* operands) {
    const Tensor& arg = ctx.input(i);
    if (arg.NumElements() == total) {
      operands->arg_run |= bit;
    } else if (IsChannelVector(arg.shape(), ctx.output(0).shape())) {
      operands->arg_channel |= bit;
      operands->channels = arg.NumElements();
    }
  }

  FusedProgram program_;
  Status parse_status_;
  FusedCode code_;
  bool fits_ = false;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaFusedKernels(KernelRegistry& r, DeviceTypeId gpu) {
  r.Register("fused_elementwise", gpu, {DType::kFloat32}, &MakeKernel<FusedElementwiseKernel<float>>);
  r.Register("fused_elementwise", gpu, {DType::kFloat64}, &MakeKernel<FusedElementwiseKernel<double>>);
}

}  // namespace ember::cuda
