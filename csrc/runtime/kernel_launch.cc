// This file implements KernelLaunch.
#include "runtime/kernel_launch.h"

#include <optional>

#include "ops/kernel_guard.h"
#include "runtime/context.h"
#include "runtime/kernel_run.h"
#include "runtime/profiler.h"

namespace ember {

namespace {

TensorHandle* const* RawHandles(const std::vector<RefPtr<TensorHandle>>& handles) {
  // A RefPtr is one pointer (Execute's placement reads call inputs the same way).
  static_assert(sizeof(RefPtr<TensorHandle>) == sizeof(TensorHandle*));
  return reinterpret_cast<TensorHandle* const*>(handles.data());
}

}  // namespace

KernelLaunch::KernelLaunch(OpCall&& call, std::shared_ptr<const OpKernel> kernel,
                           std::vector<RefPtr<TensorHandle>> outputs, bool async)
    : op_(*call.op), device_(call.device), owned_kernel_(std::move(kernel)), kernel_(&owned_kernel_),
      attrs_(call.attrs),
      owned_inputs_(std::move(call.inputs)), inputs_(RawHandles(owned_inputs_)), num_inputs_(owned_inputs_.size()),
      outputs_(std::move(outputs)), donated_mask_(call.donated_mask), async_(async),
      arg_starts_(std::move(call.arg_starts)), plan_(std::move(call.plan)),
      error_sink_(ErrorSink::ForCurrentThread().get()) {
  // Note [Async error routing]: errors go back to the issuing thread,
  // and its KeyboardInterrupts cancel the launch (Note [Cancellation]).
  sequence_ = error_sink_->NextSequence();
  cancellation_epoch_ = error_sink_->cancellation_epoch();
}

KernelLaunch::KernelLaunch(const OpDef& op, Device* device, const std::shared_ptr<const OpKernel>& kernel,
                           const AttrList& attrs, TensorHandle* const* inputs, int num_inputs, uint32_t donated_mask,
                           std::vector<RefPtr<TensorHandle>> outputs, bool async)
    : op_(op), device_(device), kernel_(&kernel), attrs_(&attrs), inputs_(inputs),
      num_inputs_(static_cast<size_t>(num_inputs)), outputs_(std::move(outputs)), donated_mask_(donated_mask),
      async_(async), error_sink_(ErrorSink::ForCurrentThread().get()), outputs_unshared_(true) {
  sequence_ = error_sink_->NextSequence();
  cancellation_epoch_ = error_sink_->cancellation_epoch();
}

KernelLaunch::KernelLaunch(KernelLaunch&& other)
    : op_(other.op_), device_(other.device_), owned_kernel_(other.TakeKernel()), kernel_(&owned_kernel_),
      owned_attrs_(other.TakeAttrs()),
      attrs_(&owned_attrs_), owned_inputs_(other.TakeInputs()), inputs_(RawHandles(owned_inputs_)),
      num_inputs_(other.num_inputs_), outputs_(std::move(other.outputs_)), donated_mask_(other.donated_mask_),
      async_(other.async_), arg_starts_(std::move(other.arg_starts_)), plan_(std::move(other.plan_)),
      owned_sink_(other.SharedErrorSink()), error_sink_(owned_sink_.get()), sequence_(other.sequence_),
      cancellation_epoch_(other.cancellation_epoch_), next_wait_(other.next_wait_), flow_(other.flow_),
      outputs_unshared_(false) {}

// What a moved-to launch owns: what this one owned, else copies.
std::vector<RefPtr<TensorHandle>> KernelLaunch::TakeInputs() {
  if (inputs_ == RawHandles(owned_inputs_)) return std::move(owned_inputs_);
  return SharedInputs();
}

std::shared_ptr<const OpKernel> KernelLaunch::TakeKernel() {
  if (kernel_ == &owned_kernel_) return std::move(owned_kernel_);
  return *kernel_;
}

AttrList KernelLaunch::TakeAttrs() {
  if (attrs_ == &owned_attrs_) return std::move(owned_attrs_);
  return *attrs_;
}

std::vector<RefPtr<TensorHandle>> KernelLaunch::SharedInputs() const {
  std::vector<RefPtr<TensorHandle>> shared;
  shared.reserve(num_inputs_);
  for (size_t i = 0; i < num_inputs_; ++i) shared.push_back(RefPtr<TensorHandle>::Share(inputs_[i]));
  return shared;
}

// A borrowed sink is the issuing thread's, and only the issuing thread
// moves or runs a launch on the stack.
std::shared_ptr<ErrorSink> KernelLaunch::SharedErrorSink() const {
  return owned_sink_ != nullptr ? owned_sink_ : ErrorSink::ForCurrentThread();
}

// Note [Defined handles]: a kernel posted to a stream needs its inputs
// only defined: stream order, or a device-side wait for an input another
// stream produces, puts it after their producers. Host code (the CPU's
// kernels, ops that run graphs) reads the data, so needs it available.
bool KernelLaunch::MustWaitForPending(const TensorHandle& input) const {
  return !(input.IsDefined() && RunsOnStream(op_, device_));
}

bool KernelLaunch::WaitBeforeRun(const std::function<void()>& wake) {
  for (; next_wait_ < num_inputs_; ++next_wait_) {
    TensorHandle& input = this->input(next_wait_);
    if (MustWaitFor(input)) {
      if (RunsOnStream(op_, device_)) {
        input.WhenDefined(wake);
      } else {
        input.AndThen(wake);
      }
      return true;
    }
  }
  return false;
}

// Note [Readers run queued work] (runtime/thread_executor.cc): a reader
// runs a launch only if it cannot keep the reader from seeing a Ctrl-C for
// long: no graph (a loop may run forever), no input still to wait for (a
// value another device has not made yet), and at most this many elements
// in and out (tens of microseconds of element-wise work). The thread that
// issues a launch runs it only if it is far smaller (Note [Running at
// issue]): about as long as issuing the next op, so little overlap is lost.
constexpr int64_t kReaderInlineElements = int64_t{1} << 16;
constexpr int64_t kIssuerInlineElements = int64_t{1} << 12;

// Note [Ops that wait for peers]: a collective's kernel waits, up to the
// collective timeout, for the other workers to make the same call. It must
// not run on the thread that issues it or on one that reads a value: that
// thread would stop watching for Ctrl-C (Note [Readers run queued work]),
// and it may hold the GIL, which the kernel takes while it waits to look
// for lost workers. So it always runs on its device's executor, in sync
// mode too (FinishSyncCall), and a graph that contains one is unbounded
// (Note [Bounded graphs]), so the graph runs there as well.
bool KernelLaunch::CheapToRunInline(InlineRunner runner) const {
  if (op_.waits_for_peers) return false;
  const int64_t limit = runner == InlineRunner::kReader ? kReaderInlineElements : kIssuerInlineElements;
  int64_t elements = 0;
  if (RunsOnHost(op_)) {  // Note [Bounded graphs]: its graph's work counts too
    elements = kernel().BoundedGraphWork();
    if (elements < 0 || elements > limit) return false;
  }
  for (size_t i = 0; i < num_inputs_; ++i) {
    if (!input(i).IsAvailable()) return false;
    elements += input(i).shape().NumElements();
  }
  for (const auto& h : outputs_) elements += h->shape().NumElements();
  return elements <= limit;
}

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

namespace {

// Note [Launch buffers]: a kernel takes its inputs and outputs as vectors
// of tensors. Each thread keeps one pair for the launches it runs and
// clears it after each, so a small op does not allocate and free two
// vectors every time (as a graph's draining thread does, Note [Node
// buffers]). A launch that runs while the pair is taken (a kernel that
// calls back into Python, which issues another op) uses a pair of its own.
struct LaunchBufferPair {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  bool taken = false;
};

class LaunchBuffers {
 public:
  LaunchBuffers() : thread_(ThreadPair()) {
    pair_ = thread_.taken ? &own_ : &thread_;
    pair_->taken = true;
  }
  ~LaunchBuffers() {
    // Tensors hold buffers: drop them now, keep the capacity. Borrowed
    // inputs give theirs back uncounted.
    if (borrowed_inputs_) {
      for (Tensor& t : pair_->inputs) t.ForgetBorrowedBuffer();
    }
    pair_->inputs.clear();
    pair_->outputs.clear();
    pair_->taken = false;
  }
  LaunchBuffers(const LaunchBuffers&) = delete;
  LaunchBuffers& operator=(const LaunchBuffers&) = delete;
  std::vector<Tensor>& inputs() { return pair_->inputs; }
  std::vector<Tensor>& outputs() { return pair_->outputs; }
  // Set before the first input is added: every input is borrowed.
  void BorrowInputs() { borrowed_inputs_ = true; }

 private:
  static LaunchBufferPair& ThreadPair() {
    thread_local LaunchBufferPair pair;
    return pair;
  }
  LaunchBufferPair& thread_;
  LaunchBufferPair own_;
  LaunchBufferPair* pair_;
  bool borrowed_inputs_ = false;
};

// Note [Borrowed kernel inputs]
// A kernel reads its inputs as Tensors in a list. Copying each input
// handle's tensor into the list took a reference to its buffer and the
// list's clearing dropped it: two locked instructions per input, ~4 ns
// each on the per-op path (stop 46's profile: 11 locked instructions in a
// 1-element add, 17% of its samples). The list borrows instead: the
// launch's input handles (its own, or its caller's while it runs on the
// stack) hold the buffers for the whole run, and a ready handle's tensor
// never changes. A kernel that keeps an input (a view's output, a taken-
// over buffer) copies the Tensor, which takes a reference as usual; the
// list's entries give theirs back uncounted when it is cleared. A launch
// posted to a stream hands its list to the stream's work, which outlives
// the run, so it takes references.

}  // namespace

void KernelLaunch::RunGuarded() {
  if (error_sink_->cancellation_epoch() != cancellation_epoch_) {
    // Note [Cancellation]: issued before a KeyboardInterrupt in its thread.
    Fail(Cancelled(std::string(op_.name) + ": cancelled by a KeyboardInterrupt"), /*kernel_error=*/false);
    return;
  }
  LaunchBuffers buffers;  // Note [Launch buffers]
  const bool on_stream = RunsOnStream(op_, device_);
  if (!on_stream) buffers.BorrowInputs();  // Note [Borrowed kernel inputs]
  std::vector<Tensor>& inputs = buffers.inputs();
  inputs.reserve(num_inputs_);
  for (size_t i = 0; i < num_inputs_; ++i) {
    TensorHandle* handle = inputs_[i];
    // Inputs before next_wait_ were checked by WaitBeforeRun; a launch
    // run without it (never by the executors) awaits the rest here.
    if (i >= next_wait_ && MustWaitFor(*handle)) {
      if (RunsOnStream(op_, device_)) {
        handle->AwaitDefined();
      } else {
        handle->Await();
      }
    }
    if (handle->IsError()) {
      // Poison propagates unchanged: the message already names the op that
      // failed, and only that op's failure is recorded for Sync().
      Fail(handle->error(), /*kernel_error=*/false);
      return;
    }
    if (on_stream) {
      inputs.push_back(handle->tensor());
    } else {
      inputs.push_back(Tensor::Borrow(handle->tensor()));
    }
  }
  std::vector<Tensor>& outputs = buffers.outputs();
  Status s = AllocateOutputs(inputs, !on_stream, &outputs);
  if (s.ok() && on_stream) return RunOnStream(std::move(inputs), std::move(outputs));
  if (s.ok()) {
    KernelContext ctx(op_, device_, *attrs_, &inputs, &outputs,
                      arg_starts_.empty() ? nullptr : arg_starts_.data(), plan_.get());
    // Note [Cancellation]: only kernels that run graphs or wait for peers
    // poll for it; the scope's two thread-local swaps cost a small op ~2%.
    std::optional<CancellationScope> cancellation;
    if (RunsOnHost(op_) || op_.waits_for_peers) cancellation.emplace(error_sink_, cancellation_epoch_);
    if (flow_ != 0) profiler::CurrentFlow() = flow_;
    s = RunKernelRecorded(kernel(), ctx);
  }
  if (!s.ok()) {
    Fail(s.WithPrefix(std::string(op_.name) + ": "), /*kernel_error=*/true);
    return;
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_unshared_) {
      outputs_[i]->SetReadyUnshared(std::move(outputs[i]));  // Note [Unshared publish]
    } else {
      outputs_[i]->SetReady(std::move(outputs[i]));
    }
  }
}

// Note [Stream order]: the kernel is posted to the device's compute
// stream, after device-side waits for inputs other streams produce; its
// outputs are defined with the post's event at once, so later launches
// can be posted behind it without waiting. Nothing calls back when it
// finished: a failure sets the outputs' error (and records it for sync)
// on the stream, before the event happens. A view op's outputs alias its
// inputs (output i the buffer of input i, or of the last input), so they
// too are known before the kernel runs; the kernel must produce exactly
// those buffers.
void KernelLaunch::RunOnStream(std::vector<Tensor> inputs, std::vector<Tensor> outputs) {
  Stream* stream = device_->stream();
  for (size_t i = 0; i < num_inputs_; ++i) {
    if (!input(i).IsAvailable()) stream->Wait(input(i).event());
  }
  std::vector<RefPtr<TensorHandle>> input_handles = SharedInputs();  // the stream's work holds them
  if (op_.output_is_view) AliasViewOutputs(inputs, &outputs);
  for (size_t i = 0; i < outputs_.size(); ++i) outputs_[i]->SetTensor(outputs[i]);
  auto run = std::make_shared<KernelRun>();
  run->op = &op_;
  run->device = device_;
  run->kernel = *kernel_;
  run->attrs = *attrs_;
  run->arg_starts = arg_starts_;
  run->plan = std::move(plan_);
  run->inputs = std::move(inputs);
  run->outputs = std::move(outputs);
  run->cancellation_sink = error_sink_;
  run->cancellation_epoch = cancellation_epoch_;
  std::function<void()> work = [run, handed_out = run->outputs, inputs_handles = input_handles,
                                outputs_handles = outputs_, sink = SharedErrorSink(), sequence = sequence_,
                                async = async_] {
    Status s = RunOnStreamNow(*run, inputs_handles, handed_out);
    if (s.ok()) return;
    if (!run->input_failed && s.code() != StatusCode::kCancelled) {
      s = s.WithPrefix(std::string(run->op->name) + ": ");
      if (async) sink->Record(s, sequence);
    }
    for (auto& out : outputs_handles) out->SetError(s);
  };
  const uint64_t ticket = stream->Post(std::move(work));
  // Note [Deferred errors in handles]: a GPU launch has run its work by
  // now, so the words its kernel took are known; their verdict, and the
  // unresolved ones the inputs carry, go with the outputs.
  RefPtr<DeferredError> own;
  if (stream->RunsWorkAtPost() && run->deferred) {
    own = run->deferred;
    own->SetEvent(Event{stream, ticket});
    if (async_) error_sink_->RecordDeferred(own, sequence_);
  }
  RefPtr<DeferredError> carried =
      CarryDeferredErrors(input_handles, [](const RefPtr<TensorHandle>& in) -> const RefPtr<DeferredError>& {
        return in->deferred_error();
      }, own);
  for (auto& out : outputs_) {
    if (carried) out->SetDeferredError(carried);
    out->MarkDefined(Event{stream, ticket});
  }
}

// The stream's side of a launch: an input whose kernel failed passes its
// error on unchanged; a launch issued before a KeyboardInterrupt is
// cancelled; else the kernel runs and must fill the outputs it was given.
Status KernelLaunch::RunOnStreamNow(KernelRun& run, const std::vector<RefPtr<TensorHandle>>& inputs,
                                    const std::vector<Tensor>& handed_out) {
  for (const auto& in : inputs) {
    if (in->IsError()) {
      run.input_failed = true;
      return in->error();
    }
  }
  if (run.cancellation_sink != nullptr && run.cancellation_sink->cancellation_epoch() != run.cancellation_epoch) {
    return Cancelled(std::string(run.op->name) + ": cancelled by a KeyboardInterrupt");
  }
  return RunKernelKeepingOutputs(run, handed_out);
}

// Note [Buffer donation]: output 0 of an element-wise op may take over
// input k's buffer (OpDef::reusable_input) when (a) the caller donated the
// input — the Python layer proved the tensor object is a temporary nobody
// else can see — and (b) the buffer has no other owner: the handle and our
// local `inputs` copy are its only two references (a reshape view or a
// NumPy view of it would add one), and (c) no gradient tape saved the
// input for its backward pass. On a device with a stream, kernels
// still queued hold references to their inputs, so the count also proves
// that no queued kernel reads the buffer. (d) The buffer is Ember's own: a
// foreign buffer (Note [Foreign buffers] in core/allocator.h) belongs to
// the library that lent it, which may still read it or have marked it
// read-only.
Status KernelLaunch::AllocateOutputs(std::vector<Tensor>& inputs, bool borrowed, std::vector<Tensor>* outputs) {
  outputs->reserve(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const TensorHandle& out = *outputs_[i];
    const int k = op_.reusable_input;
    outputs->emplace_back();
    // The handle and our local copy, unless borrowed (Note [Borrowed
    // kernel inputs]), are the buffer's owners.
    if (i == 0 && k >= 0 && (donated_mask_ >> k) & 1u && !input(k).saved() &&
        TakeOverBuffer(op_, inputs[k], out.dtype(), out.shape(), borrowed ? 1 : 2, &outputs->back())) {
      continue;
    }
    EMBER_RETURN_IF_ERROR(AllocateOutput(op_, device_, out.dtype(), out.shape(), &outputs->back()));
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
