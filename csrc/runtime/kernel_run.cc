// This file implements RunKernel (Note [One kernel path]).
#include "runtime/kernel_run.h"

#include <algorithm>
#include <string>

#include "ops/kernel_guard.h"
#include "ops/op_ids.gen.h"
#include "runtime/context.h"
#include "runtime/profiler.h"

namespace ember {

bool RunsOnHost(const OpDef& op) {
  return op.id == OpId::kCallFunction || op.id == OpId::kWhileLoop || op.id == OpId::kCond;
}

namespace {

// Note [Kernel inputs on their device]
// A kernel on a device without host memory (a GPU, the simulated
// accelerator) reads its inputs from that device's memory, except those
// its op declares host-memory or metadata inputs. The runtime's copy stage
// and graph partitioning put every other input there; an input found
// elsewhere is a runtime bug (a graph pass or a control-flow kernel that
// skipped a copy), which on a GPU would be an illegal address that kills
// the device. It fails here instead, as an internal error naming the op
// and the input, before anything is launched: a pointer comparison per
// input, on devices without host memory only.
Status CheckInputsOnDevice(const KernelRun& run) {
  const Allocator* own = run.device->allocator();
  for (size_t i = 0; i < run.inputs.size(); ++i) {
    const uint32_t bit = i < 32 ? 1u << i : 0u;
    if ((run.op->host_memory_inputs & bit) != 0 || (run.op->metadata_inputs & bit) != 0) continue;
    const Tensor& in = run.inputs[i];
    if (!in.buffer() || in.NumBytes() == 0 || in.buffer()->allocator() == own) continue;
    return Internal("input " + std::to_string(i) + " of a kernel on " + run.device->name() + " is in " +
                    in.buffer()->allocator()->Name() +
                    " memory, not the device's (Note [Kernel inputs on their device])");
  }
  return Status::OK();
}

}  // namespace

Status RunKernelNow(KernelRun& run) {
  if (!run.device->host_memory()) EMBER_RETURN_IF_ERROR(CheckInputsOnDevice(run));
  KernelContext ctx(*run.op, run.device, run.attrs, &run.inputs, &run.outputs, run.arg_starts_or_null(),
                    run.shared_plan != nullptr ? run.shared_plan : run.plan.get());
  ctx.set_deferred_error_sink(&run.deferred);
  // Graph nodes carry no sink of their own: they keep the scope of the
  // launch whose graph they belong to, when they run on its thread.
  if (run.cancellation_sink == nullptr) return RunKernelRecorded(*run.kernel, ctx);
  CancellationScope cancellation(run.cancellation_sink, run.cancellation_epoch);
  return RunKernelRecorded(*run.kernel, ctx);
}

void AliasViewOutputs(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  if (inputs.empty()) return;
  for (size_t i = 0; i < outputs->size(); ++i) {
    Tensor& out = (*outputs)[i];
    out = Tensor(out.dtype(), out.shape(), inputs[std::min(i, inputs.size() - 1)].buffer());
  }
}

Status RunKernelKeepingOutputs(KernelRun& run, const std::vector<Tensor>& handed_out) {
  EMBER_RETURN_IF_ERROR(RunKernelNow(run));
  for (size_t i = 0; i < handed_out.size(); ++i) {
    if (run.outputs[i].buffer().get() != handed_out[i].buffer().get()) {
      return Internal("the kernel replaced output " + std::to_string(i) + " on " + run.device->name() +
                      ", whose buffer was already handed out (Note [Stream order])");
    }
  }
  return Status::OK();
}

Status OutOfDeviceMemory(Device* device, size_t bytes) {
  return ResourceExhausted("out of memory allocating " + std::to_string(bytes) + " bytes on " + device->name());
}

}  // namespace ember
