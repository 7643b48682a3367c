// This file declares KernelLaunch: the task that runs one kernel on its
// device's executor once its inputs can be used.
#pragma once

#include <memory>
#include <vector>

#include "core/attr_value.h"
#include "core/device.h"
#include "ops/op_kernel.h"
#include "runtime/context.h"
#include "runtime/kernel_run.h"
#include "runtime/op_call.h"
#include "runtime/tensor_handle.h"

namespace ember {

class KernelLaunch final : public Task {
 public:
  // Takes over `call` (Note [Op-call record]); `outputs` are the handles
  // Execute hands back. Borrows `call.attrs` (Note [Borrowed launches]).
  KernelLaunch(OpCall&& call, std::shared_ptr<const OpKernel> kernel, std::vector<RefPtr<TensorHandle>> outputs,
               bool async);
  // Note [Borrowed launches]: a launch built on its issuer's stack for a
  // call that the dispatch cache answered (Note [Dispatch cache]) borrows
  // the caller's inputs and attributes and the thread's error sink instead
  // of taking references to them: most such launches run at once (Note
  // [Launches on the stack]), while the caller holds all three. Moving a
  // launch, which Execute does only to queue it or hand it back, makes the
  // moved-to launch own what it borrowed.
  // The kernel too is borrowed: `kernel` must outlive the launch unless
  // it is moved (Note [Borrowed kernels] in runtime/dispatch_cache.h).
  KernelLaunch(const OpDef& op, Device* device, const std::shared_ptr<const OpKernel>& kernel, const AttrList& attrs,
               TensorHandle* const* inputs, int num_inputs, uint32_t donated_mask,
               std::vector<RefPtr<TensorHandle>> outputs, bool async);
  // On the issuing thread only: the error sink it takes is that thread's.
  KernelLaunch(KernelLaunch&& other);

  // Note [Event-driven waits]: inputs not yet defined (for a stream
  // kernel) or not yet available (for host code) are waited for before
  // Run, without blocking the executor.
  bool WaitBeforeRun(const std::function<void()>& wake) override;
  // Allocates the outputs and runs the kernel (Note [One kernel path]);
  // publishes the outputs, or the error, when it finished. Inputs that
  // WaitBeforeRun did not get to are awaited here, blocking.
  void Run() override;
  // Small, bounded work: not a graph op, no input to wait for, and few
  // elements in and out (fewer for an issuer than for a reader).
  bool CheapToRunInline(InlineRunner runner) const override;
  // Runs a graph with a loop, or whose work is not known before it runs
  // (Note [Bounded graphs]), or waits for other processes (Note [Ops that
  // wait for peers]).
  bool MayRunUnbounded() const {
    return op_.waits_for_peers || (RunsOnHost(op_) && kernel().BoundedGraphWork() < 0);
  }
  void set_profiler_flow(uint64_t flow) { flow_ = flow; }
  // The output handles; a launch that ran on its issuer's stack hands them
  // back instead of the caller keeping copies (Note [Launches on the stack]).
  const std::vector<RefPtr<TensorHandle>>& outputs() const { return outputs_; }
  std::vector<RefPtr<TensorHandle>> TakeOutputs() { return std::move(outputs_); }

 private:
  bool MustWaitFor(const TensorHandle& input) const {
    return !input.IsAvailable() && MustWaitForPending(input);  // the common case inline
  }
  bool MustWaitForPending(const TensorHandle& input) const;
  void RunGuarded();
  void RunOnStream(std::vector<Tensor> inputs, std::vector<Tensor> outputs);
  static Status RunOnStreamNow(KernelRun& run, const std::vector<RefPtr<TensorHandle>>& inputs,
                               const std::vector<Tensor>& handed_out);
  // `borrowed`: the inputs hold no references (Note [Borrowed kernel inputs]).
  Status AllocateOutputs(std::vector<Tensor>& inputs, bool borrowed, std::vector<Tensor>* outputs);
  void Fail(const Status& status, bool kernel_error);

  // The inputs as the launch holds them (Note [Borrowed launches]).
  TensorHandle& input(size_t i) const { return *inputs_[i]; }
  const OpKernel& kernel() const { return **kernel_; }
  std::shared_ptr<const OpKernel> TakeKernel();
  std::vector<RefPtr<TensorHandle>> SharedInputs() const;
  std::vector<RefPtr<TensorHandle>> TakeInputs();
  AttrList TakeAttrs();
  std::shared_ptr<ErrorSink> SharedErrorSink() const;

  const OpDef& op_;
  Device* device_;
  std::shared_ptr<const OpKernel> owned_kernel_;  // empty while borrowed
  const std::shared_ptr<const OpKernel>* kernel_;  // &owned_kernel_, or the caller's
  AttrList owned_attrs_;            // empty while borrowed
  const AttrList* attrs_;           // &owned_attrs_, or the caller's
  std::vector<RefPtr<TensorHandle>> owned_inputs_;  // empty while borrowed
  TensorHandle* const* inputs_;     // owned_inputs_'s, or the caller's
  size_t num_inputs_;
  std::vector<RefPtr<TensorHandle>> outputs_;
  uint32_t donated_mask_;
  bool async_;
  std::vector<int> arg_starts_;  // empty unless an input is a list
  std::unique_ptr<KernelPlan> plan_;  // Note [Kernel plans]; usually none
  std::shared_ptr<ErrorSink> owned_sink_;  // null while borrowed
  ErrorSink* error_sink_;
  uint64_t sequence_ = 0;
  uint64_t cancellation_epoch_ = 0;  // Note [Cancellation]
  size_t next_wait_ = 0;  // inputs before it need no more waiting
  uint64_t flow_ = 0;     // Note [Profiler]: joins the dispatch span to the kernel's
  // A borrowing launch for a cached call, never moved: no other thread has
  // its outputs yet (Note [Unshared publish]).
  bool outputs_unshared_ = false;
};

}  // namespace ember
