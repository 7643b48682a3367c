// This file declares Graph, the IR that @ember.function traces into: nodes
// are an op with its attrs, bound dtypes and device; edges carry data
// (node, output) or order (control inputs).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/attr_value.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/status.h"
#include "ops/op_def.h"
#include "runtime/type_binding.h"

namespace ember {

// One output of one node.
struct Endpoint {
  int node = -1;
  int output = 0;
  bool operator==(const Endpoint& o) const { return node == o.node && output == o.output; }
};

struct ValueInfo {
  DType dtype = DType::kFloat32;
  Shape shape;  // may have unknown (-1) dims
};

// Note [Graph nodes]
// A node is either a graph argument (op == nullptr, arg_index >= 0: the
// function's parameters first, then captured tensors and variables) or an
// op call recorded exactly as Execute saw it: flat inputs with the list
// layout of Note [List arguments], attrs in declaration order, and the
// dtypes bound to the op's type variables (so nothing is re-inferred).
// `device` is the placement chosen at trace time; `location` is the Python
// "file:line" that issued the op, for error messages.
struct Node {
  int id = -1;
  const OpDef* op = nullptr;
  int arg_index = -1;
  // An argument that is the function's own parameter, a new value each
  // call (not a captured value or a variable): Note [Graph replay].
  bool per_call_arg = false;
  AttrList attrs;
  std::array<DType, kMaxTypeVars> bindings{};
  std::vector<Endpoint> inputs;
  std::vector<int> list_sizes;  // per input argument; empty without list inputs
  std::vector<int> control_inputs;
  std::vector<ValueInfo> outputs;
  std::string device;
  std::string location;

  bool is_arg() const { return op == nullptr; }
  std::string name() const;  // "%3 = matmul" style label: "add", or "arg0"
};

class Graph {
 public:
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int id) const { return nodes_[id]; }
  Node& mutable_node(int id) { return nodes_[id]; }
  const std::vector<Node>& nodes() const { return nodes_; }

  int num_args() const { return num_args_; }
  const std::vector<Endpoint>& outputs() const { return outputs_; }
  std::vector<Endpoint>& mutable_outputs() { return outputs_; }

  // Appends an argument node; returns its id.
  int AddArg(ValueInfo info, std::string device);
  // Appends a node (its id is assigned); returns the id.
  int AddNode(Node node);

  const ValueInfo& info(Endpoint e) const { return nodes_[e.node].outputs[e.output]; }

  // Nodes in an order where every node follows its data and control inputs.
  // Nodes are appended in trace order, which already is one; passes keep it.
  std::vector<int> TopologicalOrder() const;

  // One line per node: "%4 = matmul(%2, %3) {transpose_a=false} : float32[?, 10] @cpu:0".
  std::string Pretty() const;

  // A text form that FromText reads back into an equal graph.
  std::string ToText() const;
  static Status FromText(const std::string& text, Graph* graph);

  // Replaces the node list (passes rebuild graphs); ids must equal indices.
  void Reset(std::vector<Node> nodes, int num_args, std::vector<Endpoint> outputs);

 private:
  std::vector<Node> nodes_;
  int num_args_ = 0;
  std::vector<Endpoint> outputs_;
};

// The largest rank a graph value may have (TensorFlow's limit).
inline constexpr int kMaxGraphRank = 254;

// Note [Graph validation] (graph/graph_validate.cc). All return
// InvalidArgument naming the problem.
// A value's dtype is real, its dims are >= -1 and its byte size fits int64.
Status CheckValueInfo(const ValueInfo& v);
// Checks node `id` as Execute checks a call: endpoints, device, arity, list
// sizes, attrs, type bindings and input dtypes against its OpDef, and its
// recorded outputs against what its shape function computes.
Status ValidateNode(const Graph& graph, int id);
// The outputs op node `id` has for its recorded inputs, from its shape
// function, after the checks of ValidateNode that come before it.
Status InferNodeOutputs(const Graph& graph, int id, std::vector<ValueInfo>* out);
// ValidateNode for every node, then the argument indices (0..n-1, once
// each), the graph outputs and acyclicity.
Status ValidateGraph(const Graph& graph);
// The node of argument `index`, or -1.
int FindArgNode(const Graph& graph, int index);

}  // namespace ember
