// This file implements Tracer and the thread's tracer stack.
#include "graph/tracer.h"

#include "graph/graph_function.h"

namespace ember {
namespace {

thread_local Tracer* g_current_tracer = nullptr;

Status SymbolicReadError(const Node& node, int output) {
  std::string what = node.is_arg() ? "argument " + std::to_string(node.arg_index)
                                   : "output " + std::to_string(output) + " of " + node.op->name;
  return InvalidArgument("this tensor (" + what + ") is symbolic: it belongs to a function being traced and "
                         "has no value; return it from the function, or print it with ember.print");
}

}  // namespace

Tracer* CurrentTracer() { return g_current_tracer; }

// The current tracer is also the thread's op-call interceptor: Execute
// finds it there without knowing about graphs.
Tracer* SwapCurrentTracer(Tracer* tracer) {
  Tracer* previous = g_current_tracer;
  g_current_tracer = tracer;
  SwapOpCallInterceptor(tracer);
  return previous;
}

TracerScope::TracerScope(Tracer* tracer) : previous_(SwapCurrentTracer(tracer)) {}
TracerScope::~TracerScope() { SwapCurrentTracer(previous_); }

RefPtr<TensorHandle> Tracer::MakeSymbolic(const ValueInfo& info, Device* device, int node, int output) {
  return TensorHandle::CreateSymbolic(info.dtype, info.shape, device, this, node, output,
                                      SymbolicReadError(graph_.node(node), output));
}

RefPtr<TensorHandle> Tracer::AddParameter(DType dtype, Shape shape, Device* device) {
  const int id = graph_.AddArg(ValueInfo{dtype, std::move(shape)}, device->name());
  graph_.mutable_node(id).per_call_arg = true;
  arg_sources_.push_back(ArgSource::kParameter);
  arg_captures_.emplace_back();
  return MakeSymbolic(graph_.node(id).outputs[0], device, id, 0);
}

int Tracer::AddArg(TensorHandle* like, ArgSource source) {
  const int id = graph_.AddArg(ValueInfo{like->dtype(), like->shape()}, like->device()->name());
  arg_sources_.push_back(source);
  arg_captures_.push_back(source == ArgSource::kCapture ? RefPtr<TensorHandle>::Share(like)
                                                        : RefPtr<TensorHandle>());
  return id;
}

RefPtr<TensorHandle> Tracer::AddVariable(TensorHandle* value) {
  const int id = AddArg(value, ArgSource::kVariable);
  return MakeSymbolic(graph_.node(id).outputs[0], value->device(), id, 0);
}

Endpoint Tracer::EndpointOf(TensorHandle* handle) {
  if (handle->tracer() == this) return Endpoint{handle->symbolic_node(), handle->symbolic_output()};
  for (const auto& [captured, node] : capture_nodes_) {
    if (captured == handle) return Endpoint{node, 0};
  }
  const int id = AddArg(handle, ArgSource::kCapture);
  capture_nodes_.emplace_back(handle, id);
  return Endpoint{id, 0};
}

Status Tracer::Intercept(OpCall& call, std::vector<RefPtr<TensorHandle>>* outputs) {
  const OpDef& op = *call.op;
  Node node;
  node.op = &op;
  node.attrs = *call.attrs;
  node.bindings = call.bindings;
  for (const auto& in : call.inputs) node.inputs.push_back(EndpointOf(in.get()));
  for (size_t a = 0; a + 1 < call.arg_starts.size(); ++a) {
    node.list_sizes.push_back(call.arg_starts[a + 1] - call.arg_starts[a]);
  }
  for (size_t i = 0; i < call.output_shapes.size(); ++i) {
    node.outputs.push_back(ValueInfo{call.output_dtype(i), std::move(call.output_shapes[i])});
  }
  Device* device = call.device;
  node.device = device->name();
  node.location = location_;
  // Automatic control dependencies: effects run in program order, a cond
  // or loop that prints among them (Note [Effects in control flow]).
  const bool effect = HasEffect(node);
  if (effect && last_stateful_ >= 0) node.control_inputs.push_back(last_stateful_);
  const int id = graph_.AddNode(std::move(node));
  if (effect) last_stateful_ = id;
  outputs->clear();
  const Node& added = graph_.node(id);
  for (size_t i = 0; i < added.outputs.size(); ++i) {
    outputs->push_back(MakeSymbolic(added.outputs[i], device, id, static_cast<int>(i)));
  }
  return Status::OK();
}

void Tracer::SetOutputs(const std::vector<TensorHandle*>& outputs) {
  std::vector<Endpoint>& out = graph_.mutable_outputs();
  out.clear();
  for (TensorHandle* h : outputs) out.push_back(EndpointOf(h));
}

}  // namespace ember
