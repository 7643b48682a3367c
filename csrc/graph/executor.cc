// This file implements GraphExecutor (Note [Dataflow executor]) and
// InferGraphShapes.
#include "graph/executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "graph/inter_op_pool.h"
#include "ops/kernel_guard.h"
#include "ops/op_ids.gen.h"
#include "ops/op_kernel.h"
#include "runtime/profiler.h"
#include "runtime/context.h"
#include "runtime/device_copy.h"
#include "runtime/kernel_run.h"

namespace ember {
namespace {

// Nodes producing fewer elements than this run on the thread that readied
// them: handing them to another thread would cost more than running them.
constexpr int64_t kInlineElements = 1 << 14;

std::vector<int> ArgStarts(const Node& node) {
  if (node.list_sizes.empty()) return {};
  std::vector<int> starts{0};
  for (int size : node.list_sizes) starts.push_back(starts.back() + size);
  return starts;
}

Status RunShapeFn(const OpDef& op, const std::vector<Shape>& in_shapes, const std::vector<DType>& in_dtypes,
                  const AttrList& attrs, const std::vector<int>& arg_starts, std::vector<Shape>* out_shapes,
                  std::unique_ptr<KernelPlan>* plan = nullptr) {
  out_shapes->assign(op.outputs.size(), Shape());
  ShapeContext ctx(op, in_shapes.data(), in_dtypes.data(), static_cast<int>(in_shapes.size()), attrs, out_shapes,
                   arg_starts.empty() ? nullptr : arg_starts.data());
  ctx.set_plan_slot(plan, /*reused=*/true);
  return op.shape_fn(ctx);
}

// Note [Kernel plans]: a node whose shapes the trace knows gets its plan
// once, here, for every call with the traced shapes.
void PlanNode(const Graph& g, const Node& node, const std::vector<int>& arg_starts,
              std::unique_ptr<KernelPlan>* plan) {
  std::vector<Shape> in_shapes;
  std::vector<DType> in_dtypes;
  for (const Endpoint& in : node.inputs) {
    in_shapes.push_back(g.info(in).shape);
    in_dtypes.push_back(g.info(in).dtype);
  }
  std::vector<Shape> out_shapes;
  if (!RunShapeFn(*node.op, in_shapes, in_dtypes, node.attrs, arg_starts, &out_shapes, plan).ok()) plan->reset();
}

Status WithNode(const Node& node, const Status& s) {
  std::string where = node.location.empty() ? "" : " (traced at " + node.location + ")";
  return s.WithPrefix(std::string(node.op->name) + where + ": ");
}

// Copies `value` from `from` to `to`, when they differ, and waits: an
// argument that arrives elsewhere than traced, a result the caller wants
// on another device (the wait is the caller's, who waits for the whole
// graph anyway), MoveToDevice.
Status CopyValue(Device* from, Device* to, Tensor* value) {
  if (!NeedsCopy(from, to)) return Status::OK();
  RefPtr<Buffer> buffer = AllocateCopyDestination(from, to, value->NumBytes());
  if (!buffer) return ResourceExhausted("out of memory on " + to->name());
  Tensor dst(value->dtype(), value->shape(), std::move(buffer));
  Event done;
  EMBER_RETURN_IF_ERROR(CopyTensor(from, to, *value, dst, Event{}, &done));
  done.Synchronize();
  *value = std::move(dst);
  return Status::OK();
}

// Note [Single-threaded runs]
// A run's use, pending and remaining counts are atomics, counted down with
// locked instructions, because a node may finish on another thread: one
// run on the inter-op pool, a stream's callback. When every node is cheap
// (run by the thread that readied it), none is a transfer and none runs
// on a stream, the whole run happens on the calling thread, and a plain
// load and store does. Per node of a 1,000-add chain with the fusion pass
// off that is three locked instructions fewer: 94.6 -> 76 ns (stop 45, the
// 2-core Xeon).
int CountDown(std::atomic<int>& count, bool single_thread) {
  if (!single_thread) return count.fetch_sub(1, std::memory_order_acq_rel);
  const int before = count.load(std::memory_order_relaxed);
  count.store(before - 1, std::memory_order_relaxed);
  return before;
}

}  // namespace

struct GraphExecutor::NodeInfo {
  const Node* node = nullptr;  // owned by the graph copy below
  Device* device = nullptr;    // null for arguments: they live on the caller's device
  bool is_transfer = false;    // a copy between devices, run by the executor itself
  std::shared_ptr<const OpKernel> kernel;
  std::vector<int> arg_starts;
  std::vector<int> input_values;  // flat value index of each input
  std::vector<int> consumers;     // one entry per data or control edge
  int num_deps = 0;
  bool cheap = false;
  bool static_shapes = false;  // every input and output shape known at trace time
  std::unique_ptr<KernelPlan> plan;  // for the traced shapes (Note [Kernel plans])
};

struct GraphExecutor::RunState {
  RunState(int num_nodes, const std::vector<int>& uses)
      : pending(new std::atomic<int>[num_nodes]), uses(new std::atomic<int>[uses.size()]),
        values(uses.size()), events(uses.size()), posts(num_nodes) {
    for (size_t i = 0; i < uses.size(); ++i) this->uses[i].store(uses[i], std::memory_order_relaxed);
  }
  std::unique_ptr<std::atomic<int>[]> pending;
  std::unique_ptr<std::atomic<int>[]> uses;
  // Written once by the producer before any consumer is readied; the
  // acquire-release pending counts order that write before the reads.
  std::vector<Tensor> values;
  std::atomic<int> remaining{0};
  std::atomic<bool> failed{false};
  bool inline_only = false;
  // Note [Single-threaded runs]: the counts are counted down without
  // locked instructions.
  bool single_thread = false;
  bool traced_shapes = false;
  // Set while a capture issues the graph (Note [Graph replay]).
  std::shared_ptr<RecordingErrors> capturing;
  Device* caller = nullptr;  // where the arguments live
  std::mutex mu;
  std::condition_variable done;
  bool all_done = false;  // under mu: the waiter may free the state only then
  // Under mu: nodes readied by a copy to host memory that finished on a
  // stream; the thread in Run runs them (Note [Dataflow executor]).
  std::vector<int> ready;
  Status error;
  // Note [Pipelined graphs]: per flat value, the event after which its
  // data is there (none: already there); per node, its post to a stream.
  std::vector<Event> events;
  std::vector<Event> posts;
  // Under mu: per node that took device error words, their verdict (Note
  // [Device error words]), read once the posts finished.
  std::vector<std::pair<int, RefPtr<DeferredError>>> deferred;

  // Back to the state of a new run, keeping the allocations; called when
  // no thread and no posted work refers to the state any more. The values
  // are already empty: the lease released them when the last run ended.
  void Reset(const std::vector<int>& initial_uses) {
    for (size_t i = 0; i < initial_uses.size(); ++i) {
      uses[i].store(initial_uses[i], std::memory_order_relaxed);
      events[i] = Event();
    }
    for (Event& post : posts) post = Event();
    failed.store(false, std::memory_order_relaxed);
    all_done = false;
    ready.clear();
    error = Status::OK();
    deferred.clear();
  }
};

// Note [Reused run state]: a run needs per-node counters and per-value
// slots: five allocations, as much as running a small graph's nodes. An
// executor keeps the state of its last finished run and the next run takes
// it; runs that overlap (two threads calling one function) find none there
// and make their own. The state is handed back only after every node
// finished and every post to a stream completed, as before it was freed.
GraphExecutor::RunStateLease::RunStateLease(const GraphExecutor& executor)
    : executor_(executor), state_(executor.spare_state_.exchange(nullptr, std::memory_order_acquire)) {
  if (state_ == nullptr) {
    state_ = new RunState(executor.num_nodes(), executor.initial_uses_);
  } else {
    state_->Reset(executor.initial_uses_);
  }
}

GraphExecutor::RunStateLease::~RunStateLease() {
  for (Tensor& value : state_->values) value = Tensor();  // release what the run still holds
  delete executor_.spare_state_.exchange(state_, std::memory_order_acq_rel);
}

GraphExecutor::GraphExecutor(const Graph& graph) : graph_(graph) {}
GraphExecutor::~GraphExecutor() { delete spare_state_.load(); }

int GraphExecutor::num_nodes() const { return static_cast<int>(nodes_.size()); }

Status GraphExecutor::Create(const Graph& graph, std::unique_ptr<GraphExecutor>* out) {
  // Heap-allocated and never moved, so pointers into its graph_ stay valid.
  std::unique_ptr<GraphExecutor> ex(new GraphExecutor(graph));
  const Graph& g = ex->graph_;
  const int n = g.num_nodes();
  ex->nodes_.resize(n);
  ex->value_offsets_.resize(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    ex->value_offsets_[i + 1] = ex->value_offsets_[i] + static_cast<int>(g.node(i).outputs.size());
  }
  ex->initial_uses_.assign(ex->value_offsets_[n], 0);
  ex->arg_nodes_.assign(g.num_args(), -1);
  for (int i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    NodeInfo& info = ex->nodes_[i];
    info.node = &node;
    if (node.is_arg()) {
      ex->arg_nodes_[node.arg_index] = i;
      // Where the trace saw the argument (the signature key includes it).
      if (!node.device.empty() && !DeviceManager::Global().Find(node.device, &info.device).ok()) info.device = nullptr;
      continue;
    }
    EMBER_RETURN_IF_ERROR(DeviceManager::Global().Find(node.device, &info.device));
    info.is_transfer = node.op->id == OpId::kTransfer;
    if (!info.is_transfer) {
      Status s;
      const uint64_t type_key = PackTypeKey(node.bindings.data(), static_cast<int>(node.op->type_vars.size()));
      info.kernel = Context::Global().kernel_cache().Lookup(*node.op, info.device, type_key, node.bindings.data(),
                                                            node.attrs, &s);
      if (info.kernel == nullptr) return WithNode(node, s);
    }
    info.arg_starts = ArgStarts(node);
    for (const Endpoint& in : node.inputs) {
      const int v = ex->value_offsets_[in.node] + in.output;
      info.input_values.push_back(v);
      ++ex->initial_uses_[v];
      ex->nodes_[in.node].consumers.push_back(i);
      ++info.num_deps;
    }
    for (int c : node.control_inputs) {
      ex->nodes_[c].consumers.push_back(i);
      ++info.num_deps;
    }
    int64_t elements = 0;
    bool known = true;
    for (const ValueInfo& v : node.outputs) {
      known = known && v.shape.IsFullyKnown();
      if (known) elements += v.shape.NumElements();
    }
    // Issuing a node to a stream costs about as little as a tiny kernel.
    info.cheap = (known && elements < kInlineElements) || RunsOnStream(*node.op, info.device) || info.is_transfer;
    info.static_shapes = known;
    for (const Endpoint& in : node.inputs) info.static_shapes = info.static_shapes && g.info(in).shape.IsFullyKnown();
    if (info.static_shapes && !info.is_transfer && !RunsOnHost(*node.op)) PlanNode(g, node, info.arg_starts, &info.plan);
    if (info.num_deps == 0) ex->roots_.push_back(i);
  }
  for (const Endpoint& e : g.outputs()) ++ex->initial_uses_[ex->value_offsets_[e.node] + e.output];
  ex->outputs_ = g.outputs();
  ex->FindReplayDevice();
  ex->single_threaded_ = std::all_of(ex->nodes_.begin(), ex->nodes_.end(), [](const NodeInfo& info) {
    return info.node->is_arg() ||
           (info.cheap && !info.is_transfer && info.device != nullptr && !RunsOnStream(*info.node->op, info.device));
  });
  *out = std::move(ex);
  return Status::OK();
}

// Note [Graph replay]: the graph qualifies when every argument and every
// node is on one device with streams, each node a kernel issued to that
// device's stream (no transfer, nothing run on the host) with shapes known
// at trace time. Whether the device can capture is asked per call (it is
// a setting).
void GraphExecutor::FindReplayDevice() {
  Device* device = nullptr;
  int op_nodes = 0;
  replay_args_.assign(arg_nodes_.size(), false);
  for (size_t a = 0; a < arg_nodes_.size(); ++a) {
    // An argument no node reads (a host constant whose device copy took
    // its place, Note [Constants on their device]) is not the replay's.
    replay_args_[a] = initial_uses_[value_offsets_[arg_nodes_[a]]] > 0;
  }
  for (const NodeInfo& info : nodes_) {
    if (info.node->is_arg() && !replay_args_[info.node->arg_index]) continue;
    if (info.device == nullptr || (device != nullptr && info.device != device)) return;
    device = info.device;
    if (info.node->is_arg()) continue;
    ++op_nodes;
    if (info.is_transfer || !info.static_shapes || !RunsOnStream(*info.node->op, info.device)) return;
  }
  if (device != nullptr && op_nodes > 0 && !device->host_memory()) replay_device_ = device;
}

// Note [Pipelined graphs]
// A node on a device with streams is issued, not run: the thread that
// readied it orders it after inputs of other streams with device-side
// waits, posts the kernel to the device's compute stream and completes
// the node at once, so its consumers are issued right behind it. Stream
// order does the rest. A kernel that fails on the stream records the
// call's error there and later nodes' kernels skip themselves. Host code
// waits only where it reads a value: a node that runs on the host (cond,
// while_loop, a nested call) synchronizes on its inputs' events, a copy to
// host memory completes when its stream calls back, and Run waits once per
// stream it used, at the end. So a chain of kernels on one device costs no
// host round trip per node.
void GraphExecutor::RunNode(RunState& state, int id, std::vector<int>* local, NodeBuffers* buffers) const {
  const NodeInfo& info = nodes_[id];
  const Node& node = *info.node;
  if (state.failed.load(std::memory_order_acquire)) return Complete(state, id, Status::OK(), nullptr, local);
  if (info.is_transfer) return RunTransfer(state, id, local);
  if (RunsOnStream(*node.op, info.device)) return PostNode(state, id, local);
  for (size_t i = 0; i < info.input_values.size(); ++i) {
    // Note [Metadata inputs]: the kernel reads no data there.
    if (i < 32 && ((node.op->metadata_inputs >> i) & 1u) != 0) continue;
    state.events[info.input_values[i]].Synchronize();
  }
  RunNodeNow(state, id, local, buffers);
}

void GraphExecutor::PostNode(RunState& state, int id, std::vector<int>* local) const {
  const NodeInfo& info = nodes_[id];
  const Node& node = *info.node;
  Stream* stream = info.device->stream();
  auto run = std::make_shared<KernelRun>();
  run->op = node.op;
  run->device = info.device;
  run->kernel = info.kernel;
  run->arg_starts = info.arg_starts;
  if (state.traced_shapes && info.static_shapes) run->shared_plan = info.plan.get();
  run->inputs.reserve(info.input_values.size());
  for (int v : info.input_values) run->inputs.push_back(state.values[v]);
  Status s = AllocateOutputs(state, info, run->inputs, &run->outputs);
  if (!s.ok()) return Complete(state, id, s, nullptr, local);
  if (node.op->output_is_view) AliasViewOutputs(run->inputs, &run->outputs);
  run->attrs = node.attrs;
  for (int v : info.input_values) stream->Wait(state.events[v]);
  std::vector<Tensor> outputs = run->outputs;
  uint64_t ticket;
  if (state.capturing) {
    // Part of a recording, which may run once per replay (Note [Graph
    // replay]): it reports to the recording, not to this call.
    ticket = stream->Post([node = info.node, run, expected = outputs, errors = state.capturing] {
      if (errors->failed()) return;  // an earlier node of this replay failed
      Status status = RunKernelKeepingOutputs(*run, expected);
      if (!status.ok()) errors->Record(WithNode(*node, status));
    });
  } else {
    ticket = stream->Post([this, &state, id, run, expected = outputs] {
      if (state.failed.load(std::memory_order_acquire)) return;  // an earlier node failed
      Status status = RunKernelKeepingOutputs(*run, expected);
      if (!status.ok()) RecordFailure(state, id, status);
    });
  }
  const Event event{stream, ticket};
  if (stream->RunsWorkAtPost() && run->deferred) {
    run->deferred->SetEvent(event);
    std::lock_guard<std::mutex> lock(state.mu);
    state.deferred.emplace_back(id, run->deferred);
  }
  state.posts[id] = event;
  for (size_t i = 0; i < outputs.size(); ++i) state.events[value_offsets_[id] + i] = event;
  Complete(state, id, Status::OK(), &outputs, local);
}

void GraphExecutor::RecordFailure(RunState& state, int id, const Status& s) const {
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.failed.exchange(true)) state.error = WithNode(*nodes_[id].node, s);
}

// Note [Node buffers]: a node's kernel takes its inputs and outputs as
// vectors; the draining thread keeps one pair and clears it after each
// node, so an unfused node allocates only its outputs' buffers. (A node
// whose kernel runs a nested graph drains that graph with its own pair.)
//
// Note [Last uses in graphs]: when a node is the last consumer of a value
// (its use count is down to this node's one use: every other consumer
// has already taken its copy and counted down), the node takes the value
// out of the run state instead of copying it, which saves two reference
// count updates. If nothing else holds the buffer then (not the caller,
// not a view, not a captured constant), an element-wise op's output 0
// takes it over (OpDef::reusable_input, as eager ops do with donated
// buffers: Note [Buffer donation]), so a chain of such nodes allocates
// nothing: an unfused node of a 1-element chain went from 131 to about
// 100 ns.
void GraphExecutor::RunNodeNow(RunState& state, int id, std::vector<int>* local, NodeBuffers* buffers) const {
  const NodeInfo& info = nodes_[id];
  const Node& node = *info.node;
  std::vector<Tensor>& inputs = buffers->inputs;
  std::vector<Tensor>& outputs = buffers->outputs;
  inputs.clear();
  outputs.clear();
  for (int v : info.input_values) {
    if (state.uses[v].load(std::memory_order_acquire) == 1) {
      inputs.push_back(std::move(state.values[v]));
    } else {
      inputs.push_back(state.values[v]);
    }
  }
  Status s = AllocateOutputs(state, info, inputs, &outputs);
  if (s.ok()) {
    KernelContext ctx(*node.op, info.device, node.attrs, &inputs, &outputs,
                      info.arg_starts.empty() ? nullptr : info.arg_starts.data(),
                      state.traced_shapes && info.static_shapes ? info.plan.get() : nullptr);
    s = RunKernelRecorded(*info.kernel, ctx);
  }
  Complete(state, id, s, s.ok() ? &outputs : nullptr, local);
  // Drop this node's references now, as a local would have, so the values
  // whose last use it was are freed before the next node runs.
  inputs.clear();
  outputs.clear();
}

// The node's outputs, allocated from the traced shapes when the call's
// arguments have them, else from the shape function (a transfer's are
// filled by the copy).
Status GraphExecutor::AllocateOutputs(const RunState& state, const NodeInfo& info, const std::vector<Tensor>& inputs,
                                      std::vector<Tensor>* outputs) const {
  const Node& node = *info.node;
  outputs->resize(node.outputs.size());
  if (state.traced_shapes && info.static_shapes) {
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (info.is_transfer) continue;
      // Note [Last uses in graphs]: the inputs vector alone holds the buffer.
      const int k = node.op->reusable_input;
      if (i == 0 && k >= 0 && static_cast<size_t>(k) < inputs.size() &&
          TakeOverBuffer(*node.op, inputs[k], node.outputs[0].dtype, node.outputs[0].shape, 1, &(*outputs)[0])) {
        continue;
      }
      EMBER_RETURN_IF_ERROR(
          AllocateOutput(*node.op, info.device, node.outputs[i].dtype, node.outputs[i].shape, &(*outputs)[i]));
    }
    return Status::OK();
  }
  std::vector<Shape> shapes;
  EMBER_RETURN_IF_ERROR(OutputShapes(info, inputs, &shapes));
  outputs->resize(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const DType dtype = node.outputs[std::min(i, node.outputs.size() - 1)].dtype;
    if (!info.is_transfer) EMBER_RETURN_IF_ERROR(AllocateOutput(*node.op, info.device, dtype, shapes[i], &(*outputs)[i]));
  }
  return Status::OK();
}

// Note [Device copies]: a transfer node copies its input from the
// producer's device (the caller's, for an argument) to its own, ordered
// after the input's event on the device. A copy into host memory completes
// the node when the stream calls back (host code will read it); any other
// completes it at once, its consumers waiting for the copy's event on the
// device (Note [Pipelined graphs]).
void GraphExecutor::RunTransfer(RunState& state, int id, std::vector<int>* local) const {
  const NodeInfo& info = nodes_[id];
  const Endpoint in = info.node->inputs[0];
  const int v = info.input_values[0];
  Device* from = nodes_[in.node].device != nullptr ? nodes_[in.node].device : state.caller;
  const Tensor src = state.values[v];
  std::vector<Tensor> outputs(1);
  if (!NeedsCopy(from, info.device)) {
    outputs[0] = src;
    state.events[value_offsets_[id]] = state.events[v];
    return Complete(state, id, Status::OK(), &outputs, local);
  }
  RefPtr<Buffer> buffer = AllocateCopyDestination(from, info.device, src.NumBytes());
  if (!buffer) {
    return Complete(state, id, ResourceExhausted("out of memory on " + info.device->name()), nullptr, local);
  }
  outputs[0] = Tensor(src.dtype(), src.shape(), std::move(buffer));
  Event done;
  Status s = CopyTensor(from, info.device, src, outputs[0], state.events[v], &done);
  if (!s.ok()) return Complete(state, id, s, nullptr, local);
  state.posts[id] = done;
  if (!info.device->host_memory()) {
    state.events[value_offsets_[id]] = done;
    return Complete(state, id, Status::OK(), &outputs, local);
  }
  done.stream->OnCompleted(done.ticket, [this, &state, id, outputs]() mutable {
    Complete(state, id, Status::OK(), &outputs, nullptr);
  });
}

// The node finished or was issued to a stream (or was skipped, `outputs`
// null): publish its outputs or error, drop inputs whose last consumer it
// was (work already posted holds its own references), ready its consumers
// — into `local`, or for a copy finished on a stream into the state's
// ready list for the thread in Run — and count it finished, last.
void GraphExecutor::Complete(RunState& state, int id, const Status& s, std::vector<Tensor>* outputs,
                             std::vector<int>* local) const {
  const NodeInfo& info = nodes_[id];
  if (!s.ok()) {
    std::lock_guard<std::mutex> lock(state.mu);
    if (!state.failed.exchange(true)) state.error = WithNode(*info.node, s);
  } else if (outputs != nullptr) {
    for (size_t i = 0; i < outputs->size(); ++i) state.values[value_offsets_[id] + i] = std::move((*outputs)[i]);
  }
  for (int v : info.input_values) {
    if (CountDown(state.uses[v], state.single_thread) == 1) state.values[v] = Tensor();
  }
  for (int c : info.consumers) {
    if (CountDown(state.pending[c], state.single_thread) != 1) continue;
    if (local != nullptr) {
      Schedule(state, *local, c);
    } else {
      std::lock_guard<std::mutex> lock(state.mu);
      state.ready.push_back(c);
      state.done.notify_all();
    }
  }
  Finish(state);  // last: the caller may free `state` once all finished
}

// With the traced argument shapes, a node whose shapes were all known at
// trace time has exactly those output shapes; only the others (unknown
// dims) run their shape function on the actual input shapes.
Status GraphExecutor::OutputShapes(const NodeInfo& info, const std::vector<Tensor>& inputs,
                                   std::vector<Shape>* shapes) const {
  const Node& node = *info.node;
  std::vector<Shape> in_shapes;
  std::vector<DType> in_dtypes;
  for (const Tensor& t : inputs) {
    in_shapes.push_back(t.shape());
    in_dtypes.push_back(t.dtype());
  }
  return RunShapeFn(*node.op, in_shapes, in_dtypes, node.attrs, info.arg_starts, shapes);
}

void GraphExecutor::Schedule(RunState& state, std::vector<int>& local, int id) const {
  if (state.inline_only || nodes_[id].cheap || local.empty()) {
    local.push_back(id);
    return;
  }
  InterOpPool::Global().Submit([this, &state, id] { Drain(state, {id}); });
}

void GraphExecutor::Finish(RunState& state) const {
  if (CountDown(state.remaining, state.single_thread) == 1) {
    std::lock_guard<std::mutex> lock(state.mu);
    state.all_done = true;
    state.done.notify_all();
  }
}

void GraphExecutor::Drain(RunState& state, std::vector<int> local) const {
  NodeBuffers buffers;
  while (!local.empty()) {
    const int id = local.back();
    local.pop_back();
    RunNode(state, id, &local, &buffers);
  }
}

Status GraphExecutor::Run(const std::vector<Tensor>& args, std::vector<Tensor>* results, Device* caller,
                          Device* results_device) const {
  if (args.size() != arg_nodes_.size()) {
    return InvalidArgument("graph expects " + std::to_string(arg_nodes_.size()) + " arguments, got " +
                           std::to_string(args.size()));
  }
  if (replay_device_ != nullptr && replay_device_->CanCaptureGraphs()) {  // Note [Graph replay]
    bool handled = false;
    Status s = TryReplay(args, results, results_device, &handled);
    if (handled || !s.ok()) return s;
  }
  return RunGraph(args, results, caller, results_device, /*capturing=*/nullptr);
}

// One run, node by node. While capturing (Note [Graph replay]) the nodes
// are issued from this thread alone and nothing waits for them: the
// device records what they launch.
Status GraphExecutor::RunGraph(const std::vector<Tensor>& args, std::vector<Tensor>* results, Device* caller,
                               Device* results_device, const std::shared_ptr<RecordingErrors>& capturing) const {
  RunStateLease lease(*this);
  RunState& state = lease.state();
  state.caller = caller != nullptr ? caller : DeviceManager::Global().cpu();
  state.inline_only = capturing != nullptr || InterOpPool::OnPoolThread();
  state.single_thread = single_threaded_ && capturing == nullptr;
  state.capturing = capturing;
  state.traced_shapes = true;
  for (size_t a = 0; a < arg_nodes_.size(); ++a) {
    state.traced_shapes = state.traced_shapes && graph_.node(arg_nodes_[a]).outputs[0].shape == args[a].shape();
  }
  int op_nodes = 0;
  for (const NodeInfo& info : nodes_) {
    if (!info.node->is_arg()) ++op_nodes;
  }
  for (int i = 0; i < num_nodes(); ++i) state.pending[i].store(nodes_[i].num_deps, std::memory_order_relaxed);
  state.remaining.store(op_nodes, std::memory_order_relaxed);
  std::vector<int> local(roots_.rbegin(), roots_.rend());
  for (size_t a = 0; a < arg_nodes_.size(); ++a) {
    const int id = arg_nodes_[a];
    Tensor& value = state.values[value_offsets_[id]];
    value = args[a];
    // Note [Argument devices]: an argument that arrives elsewhere than the
    // trace saw it is moved there first, so no node reads memory of a
    // device it does not run on (Note [Strict device memory]).
    Device* traced = nodes_[id].device != nullptr ? nodes_[id].device : state.caller;
    Device* actual = DeviceHolding(value, traced);
    if (NeedsCopy(actual, traced)) EMBER_RETURN_IF_ERROR(CopyValue(actual, traced, &value));
  }
  for (size_t a = 0; a < arg_nodes_.size(); ++a) {
    for (int c : nodes_[arg_nodes_[a]].consumers) {
      if (CountDown(state.pending[c], state.single_thread) == 1) local.push_back(c);
    }
  }
  if (op_nodes > 0) {
    Drain(state, std::move(local));
    // Run what work finished on device queues readied, until all is done.
    while (true) {
      std::vector<int> ready;
      {
        std::unique_lock<std::mutex> lock(state.mu);
        state.done.wait(lock, [&] { return state.all_done || !state.ready.empty(); });
        if (state.ready.empty()) break;
        ready.swap(state.ready);
      }
      Drain(state, std::move(ready));
    }
  }
  if (capturing) {
    state.capturing = nullptr;
    if (state.failed.load()) return state.error;
    if (capturing->failed()) return capturing->first();  // a launch failed (a device that launches at post)
    if (!state.deferred.empty()) return FailedPrecondition("a node reports errors through device error words");
    for (const NodeInfo& info : nodes_) {
      if (info.node->is_arg()) continue;
      const Event& post = state.posts[info.node->id];
      if (post.stream != replay_device_->stream()) return FailedPrecondition(info.node->name() + " was not issued");
    }
    results->clear();
    for (const Endpoint& e : outputs_) results->push_back(state.values[value_offsets_[e.node] + e.output]);
    return Status::OK();
  }
  // Every node is issued; wait once per stream for the work posted there
  // (it refers to `state`), then read the error its kernels may have set.
  SynchronizePosts(state);
  for (const auto& [id, verdict] : state.deferred) {
    const Status& s = verdict->Resolve();
    if (!s.ok()) RecordFailure(state, id, s);
  }
  if (state.failed.load()) return state.error;
  results->clear();
  for (const Endpoint& e : outputs_) {
    Device* from = nodes_[e.node].device != nullptr ? nodes_[e.node].device : state.caller;
    results->push_back(state.values[value_offsets_[e.node] + e.output]);
    if (results_device != nullptr) EMBER_RETURN_IF_ERROR(CopyValue(from, results_device, &results->back()));
  }
  return Status::OK();
}

void GraphExecutor::SynchronizePosts(const RunState& state) const {
  std::vector<Event> last;  // the latest post per stream
  for (const Event& post : state.posts) {
    if (post.stream == nullptr) continue;
    auto it = std::find_if(last.begin(), last.end(), [&](const Event& e) { return e.stream == post.stream; });
    if (it == last.end()) {
      last.push_back(post);
    } else {
      it->ticket = std::max(it->ticket, post.ticket);
    }
  }
  for (const Event& e : last) e.Synchronize();
}

// The device whose memory holds `value`: `expected` when its allocator
// made the buffer (the common case), else the device that owns that
// allocator (host memory: the CPU).
Device* DeviceHolding(const Tensor& value, Device* expected) {
  const RefPtr<Buffer>& buffer = value.buffer();
  if (!buffer || buffer->allocator() == expected->allocator()) return expected;
  for (Device* device : DeviceManager::Global().devices()) {
    if (device->allocator() == buffer->allocator()) return device;
  }
  return DeviceManager::Global().cpu();  // foreign or host memory
}

Status MoveToDevice(Device* to, Tensor* value) { return CopyValue(DeviceHolding(*value, to), to, value); }

Status InferGraphShapes(const Graph& graph, const std::vector<Shape>& arg_shapes,
                        std::vector<Shape>* output_shapes) {
  std::vector<std::vector<Shape>> shapes(graph.num_nodes());
  for (const Node& node : graph.nodes()) {
    if (node.is_arg()) {
      shapes[node.id] = {arg_shapes.at(node.arg_index)};
      continue;
    }
    std::vector<Shape> in_shapes;
    std::vector<DType> in_dtypes;
    for (const Endpoint& in : node.inputs) {
      in_shapes.push_back(shapes[in.node][in.output]);
      in_dtypes.push_back(graph.info(in).dtype);
    }
    Status s = RunShapeFn(*node.op, in_shapes, in_dtypes, node.attrs, ArgStarts(node), &shapes[node.id]);
    if (!s.ok()) return WithNode(node, s);
  }
  output_shapes->clear();
  for (const Endpoint& e : graph.outputs()) output_shapes->push_back(shapes[e.node][e.output]);
  return Status::OK();
}

}  // namespace ember
