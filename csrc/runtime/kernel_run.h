// This file declares RunKernel: the one way a kernel runs, for eager
// launches and graph nodes alike (Note [One kernel path]).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/attr_value.h"
#include "core/device.h"
#include "ops/kernel_plan.h"
#include "ops/op_kernel.h"

namespace ember {

class ErrorSink;

// Note [One kernel path]
// An eager KernelLaunch and a graph node both end in RunKernelNow: outputs
// allocated on the device from the shape function's result, then the
// kernel run — at once on the CPU, and on a device with streams as work
// posted to its compute stream (Note [Stream order], Note [Pipelined
// graphs]). Ops that run graphs (RunsOnHost) always run at once, on the
// calling thread: their graphs' nodes go to the devices' streams
// themselves.
struct KernelRun {
  const OpDef* op = nullptr;
  Device* device = nullptr;
  std::shared_ptr<const OpKernel> kernel;
  AttrList attrs;
  std::vector<int> arg_starts;  // empty unless an input is a list
  // Note [Kernel plans]: the launch's own, or a graph node's (owned by its
  // executor, which outlives the run).
  std::unique_ptr<KernelPlan> plan;
  const KernelPlan* shared_plan = nullptr;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;  // allocated; a view op's have no buffer yet
  // Note [Cancellation]: the issuing thread's sink and epoch, or null.
  const ErrorSink* cancellation_sink = nullptr;
  uint64_t cancellation_epoch = 0;
  // Set when an input turned out to be an error when the queue reached
  // the kernel: the error is passed on, not reported as this op's.
  bool input_failed = false;
  // Note [Device error words]: the verdict over the words the kernel took,
  // if it took any; the launcher gives it the post's event.
  RefPtr<DeferredError> deferred;

  const int* arg_starts_or_null() const { return arg_starts.empty() ? nullptr : arg_starts.data(); }
};

// call_function, cond and while_loop: kernels that run graphs, and so
// never run on a device queue (their nodes are queued themselves).
bool RunsOnHost(const OpDef& op);

// True if `device` runs `op`'s kernel asynchronously, on its stream.
inline bool RunsOnStream(const OpDef& op, const Device* device) {
  return device->stream() != nullptr && !RunsOnHost(op);
}

// Runs the kernel now, on this thread, under the cancellation scope.
Status RunKernelNow(KernelRun& run);

// Note [Stream order]: a view op's output i aliases input i (or the last
// input), so its buffer is known before the kernel runs; sets `outputs`'
// buffers accordingly.
void AliasViewOutputs(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);

// RunKernelNow for a kernel posted to a stream, whose output buffers were
// handed out (`handed_out`) before it ran: replacing one is an error.
Status RunKernelKeepingOutputs(KernelRun& run, const std::vector<Tensor>& handed_out);

// Allocates output `i` of shape `shape` on `device` for `op` (no buffer
// for view ops, whose kernels set their outputs).
Status OutOfDeviceMemory(Device* device, size_t bytes);

// Inline: every eager op on the CPU passes through it.
inline Status AllocateOutput(const OpDef& op, Device* device, DType dtype, const Shape& shape, Tensor* out) {
  if (op.output_is_view) {
    *out = Tensor(dtype, shape, nullptr);
    return Status::OK();
  }
  const size_t bytes = static_cast<size_t>(shape.NumElements()) * DTypeSize(dtype);
  RefPtr<Buffer> buffer = Buffer::Allocate(device->allocator(), bytes, device->stream());
  if (!buffer) return OutOfDeviceMemory(device, bytes);
  *out = Tensor(dtype, shape, std::move(buffer));
  return Status::OK();
}

// True (and *out set to a tensor on `in`'s buffer) if output 0 of `op`, of
// `dtype` and `shape`, may take over input `in`'s buffer: `op` declares a
// reusable input and is no view, the dtype and shape match, the buffer is
// Ember's own (Note [Foreign buffers]) and exactly `owners` references
// hold it — those the caller knows about, no view or NumPy array. The
// callers check which input and who owns it: Note [Buffer donation] for
// eager ops, Note [Last uses in graphs] for graph nodes.
inline bool TakeOverBuffer(const OpDef& op, const Tensor& in, DType dtype, const Shape& shape, int owners,
                           Tensor* out) {
  if (op.reusable_input < 0 || op.output_is_view) return false;
  if (in.dtype() != dtype || !in.buffer() || in.buffer()->foreign() || in.buffer()->RefCount() != owners) {
    return false;
  }
  if (!(in.shape() == shape)) return false;
  *out = Tensor(dtype, shape, in.buffer());
  return true;
}

}  // namespace ember
