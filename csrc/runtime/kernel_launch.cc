// This file implements KernelLaunch.
#include "runtime/kernel_launch.h"

#include "ops/kernel_guard.h"
#include "runtime/context.h"

namespace ember {

void KernelLaunch::Run() {
  // Run happens on an executor thread: an exception outside the kernel's
  // own guard (allocating the input list, say) must still reach the
  // outputs as an error rather than terminate the process.
  try {
    RunGuarded();
  } catch (const std::bad_alloc&) {
    Fail(ResourceExhausted(std::string(op_.name) + ": out of memory"), /*kernel_error=*/true);
  } catch (const std::exception& e) {
    Fail(Internal(std::string(op_.name) + ": " + e.what()), /*kernel_error=*/true);
  }
}

void KernelLaunch::RunGuarded() {
  if (error_sink_->cancellation_epoch() != cancellation_epoch_) {
    // Note [Cancellation]: issued before a KeyboardInterrupt in its thread.
    Fail(Cancelled(std::string(op_.name) + ": cancelled by a KeyboardInterrupt"), /*kernel_error=*/false);
    return;
  }
  std::vector<Tensor> inputs;
  inputs.reserve(inputs_.size());
  for (const auto& handle : inputs_) {
    Status s = handle->Await();
    if (!s.ok()) {
      // Poison propagates unchanged: the message already names the op that
      // failed, and only that op's failure is recorded for Sync().
      Fail(s, /*kernel_error=*/false);
      return;
    }
    inputs.push_back(handle->tensor());
  }
  std::vector<Tensor> outputs;
  Status s = AllocateOutputs(inputs, &outputs);
  if (s.ok()) {
    KernelContext ctx(op_, device_, attrs_, &inputs, &outputs,
                      arg_starts_.empty() ? nullptr : arg_starts_.data());
    CancellationScope cancellation(error_sink_.get(), cancellation_epoch_);
    s = RunKernelNoThrow(*kernel_, ctx);
  }
  if (!s.ok()) {
    Fail(s.WithPrefix(std::string(op_.name) + ": "), /*kernel_error=*/true);
    return;
  }
  for (size_t i = 0; i < outputs_.size(); ++i) outputs_[i]->SetReady(std::move(outputs[i]));
}

// Note [Buffer donation]: output 0 of an element-wise op may take over
// input k's buffer (OpDef::reusable_input) when (a) the caller donated the
// input — the Python layer proved the tensor object is a temporary nobody
// else can see — and (b) the buffer has no other owner: the handle and our
// local `inputs` copy are its only two references (a reshape view or a
// NumPy view of it would add one).
Status KernelLaunch::AllocateOutputs(std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  outputs->reserve(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const TensorHandle& out = *outputs_[i];
    if (op_.output_is_view) {
      outputs->emplace_back(out.dtype(), out.shape(), nullptr);
      continue;
    }
    int k = op_.reusable_input;
    if (i == 0 && k >= 0 && (donated_mask_ >> k) & 1u) {
      const Tensor& in = inputs[k];
      if (in.dtype() == out.dtype() && in.shape() == out.shape() && in.buffer() &&
          in.buffer()->RefCount() == 2) {
        outputs->emplace_back(out.dtype(), out.shape(), in.buffer());
        continue;
      }
    }
    size_t bytes = static_cast<size_t>(out.shape().NumElements()) * DTypeSize(out.dtype());
    RefPtr<Buffer> buffer = Buffer::Allocate(device_->allocator(), bytes);
    if (!buffer) {
      return ResourceExhausted("out of memory allocating " + std::to_string(bytes) + " bytes on " + device_->name());
    }
    outputs->emplace_back(out.dtype(), out.shape(), std::move(buffer));
  }
  return Status::OK();
}

void KernelLaunch::Fail(const Status& status, bool kernel_error) {
  // A cancellation answers the thread's own KeyboardInterrupt: reading the
  // value raises it, sync() does not (Note [Cancellation]).
  // Sync-mode launches raise at the call instead.
  if (kernel_error && async_ && status.code() != StatusCode::kCancelled) error_sink_->Record(status, sequence_);
  for (auto& out : outputs_) out->SetError(status);
}

}  // namespace ember
