// This file declares Tracer, which records the ops that Execute sees while
// @ember.function traces a Python function, into a Graph.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "runtime/op_call.h"
#include "runtime/tensor_handle.h"

namespace ember {

// Note [Tracing]
// Tracing runs the user's Python function once, on symbolic tensors, through
// the same generated bindings and the same Execute as eager mode: type
// binding, promotion casts, shape functions, placement and the kernel-cache
// lookup all run, so dtype and shape errors read the same in both modes.
// Only the last stage differs: instead of enqueueing a kernel, Execute
// hands the call record to the thread's current Tracer (its
// OpCallInterceptor, Note [Op-call record]), which appends a node and
// returns symbolic handles (Note [Symbolic handles]). A handle the graph
// did not produce — an eager tensor or a value of an enclosing trace —
// is captured: it becomes a graph argument after the parameters, and the
// caller passes it again on every call. Variables are arguments of their
// own kind: each call passes the value the variable holds then.
//
// One Tracer per trace, used by one thread; nested traces stack.
class Tracer final : public OpCallInterceptor {
 public:
  Tracer() = default;
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  Graph& graph() { return graph_; }

  // Where each graph argument's value comes from at call time.
  enum class ArgSource : uint8_t {
    kParameter,  // the function's own tensor parameter, in order
    kCapture,    // a captured handle, passed again on every call
    kVariable,   // the value an ember.Variable holds at call time (by reference)
  };

  // A new parameter of the function; returns the symbolic handle for it.
  RefPtr<TensorHandle> AddParameter(DType dtype, Shape shape, Device* device);
  // A new argument standing for a variable whose current value is `value`.
  RefPtr<TensorHandle> AddVariable(TensorHandle* value);

  // Execute's last stage while tracing (Note [Op-call record]): appends
  // the call as a node and fills `outputs` with symbolic handles.
  Status Intercept(OpCall& call, std::vector<RefPtr<TensorHandle>>* outputs) override;

  // Marks the function's results; handles that are not this trace's
  // become captures (returning an eager tensor is allowed).
  void SetOutputs(const std::vector<TensorHandle*>& outputs);

  // One entry per graph argument, in argument order, and for kCapture
  // arguments the captured handle (null for the others).
  const std::vector<ArgSource>& arg_sources() const { return arg_sources_; }
  const std::vector<RefPtr<TensorHandle>>& arg_captures() const { return arg_captures_; }

  // The Python "file:line" stamped on the nodes recorded next.
  void set_location(std::string location) { location_ = std::move(location); }

 private:
  Endpoint EndpointOf(TensorHandle* handle);
  RefPtr<TensorHandle> MakeSymbolic(const ValueInfo& info, Device* device, int node, int output);

  int AddArg(TensorHandle* like, ArgSource source);

  Graph graph_;
  std::vector<ArgSource> arg_sources_;
  std::vector<RefPtr<TensorHandle>> arg_captures_;
  std::vector<std::pair<const TensorHandle*, int>> capture_nodes_;  // handle -> arg node
  std::string location_;
  int last_stateful_ = -1;  // the latest stateful node, for program order
};

// The innermost Tracer of the calling thread, or null (eager).
Tracer* CurrentTracer();
// Makes `tracer` (may be null) current on this thread; returns the previous
// one, for callers that cannot use TracerScope (the Python binding).
Tracer* SwapCurrentTracer(Tracer* tracer);

// Makes `tracer` current on this thread for its lifetime.
class TracerScope {
 public:
  explicit TracerScope(Tracer* tracer);
  ~TracerScope();
  TracerScope(const TracerScope&) = delete;
  TracerScope& operator=(const TracerScope&) = delete;

 private:
  Tracer* previous_;
};

}  // namespace ember
