// This file implements FoldConstants and OptimizeGraph.
#include "core/device.h"
#include "graph/executor.h"
#include "graph/graph_function.h"
#include "graph/passes/passes.h"

namespace ember {
namespace {

// Outputs larger than this stay computed at call time: a folded constant
// is held by the function for its lifetime.
constexpr int64_t kMaxFoldedElements = 1 << 16;

bool IsConstantArg(const FunctionBody& body, Endpoint e) {
  const Node& n = body.graph.node(e.node);
  return n.is_arg() && n.arg_index < static_cast<int>(body.constants.size()) &&
         body.constants[n.arg_index].get() != nullptr;
}

// Runs `node` alone on its constant inputs through a one-node graph, so
// folding uses exactly the kernels a call would.
Status Evaluate(const FunctionBody& body, const Node& node, std::vector<Tensor>* results) {
  Graph mini;
  std::vector<Tensor> args;
  Node copy = node;
  for (Endpoint& in : copy.inputs) {
    TensorHandle* h = body.constants[body.graph.node(in.node).arg_index].get();
    EMBER_RETURN_IF_ERROR(h->Await());
    in = Endpoint{mini.AddArg(ValueInfo{h->dtype(), h->shape()}, h->device()->name()), 0};
    args.push_back(h->tensor());
  }
  copy.control_inputs.clear();
  const int id = mini.AddNode(std::move(copy));
  for (size_t o = 0; o < mini.node(id).outputs.size(); ++o) {
    mini.mutable_outputs().push_back(Endpoint{id, static_cast<int>(o)});
  }
  // A constant on another device than the node (a host constant feeding a
  // GPU node) reaches it through a transfer, as at call time: a kernel
  // never reads another device's memory (Note [Strict device memory]).
  FunctionBody with_transfers;
  with_transfers.graph = std::move(mini);
  EMBER_RETURN_IF_ERROR(InsertTransfers(with_transfers));
  std::unique_ptr<GraphExecutor> executor;
  EMBER_RETURN_IF_ERROR(GraphExecutor::Create(with_transfers.graph, &executor));
  return executor->Run(args, results);
}

}  // namespace

Status FoldConstants(FunctionBody& body) {
  Graph& g = body.graph;
  std::vector<bool> keep(g.num_nodes(), true);
  std::vector<std::pair<Endpoint, Endpoint>> replace;
  const int num_nodes = g.num_nodes();  // folding appends argument nodes
  for (int id = 0; id < num_nodes; ++id) {
    const Node node = g.node(id);
    // Ops without inputs (zeros) fold too; stateful ones must run at call time.
    if (node.is_arg() || HasEffect(node) || !node.control_inputs.empty()) continue;
    bool foldable = true;
    int64_t elements = 0;
    for (const Endpoint& in : node.inputs) foldable = foldable && IsConstantArg(body, in);
    for (const ValueInfo& v : node.outputs) {
      foldable = foldable && v.shape.IsFullyKnown();
      if (foldable) elements += v.shape.NumElements();
    }
    if (!foldable || elements > kMaxFoldedElements) continue;
    Device* device = nullptr;
    std::vector<Tensor> results;
    // A node that fails here (check_numerics on a NaN) is left to fail at
    // call time, where its error belongs.
    if (!DeviceManager::Global().Find(node.device, &device).ok() || !Evaluate(body, node, &results).ok()) continue;
    for (size_t o = 0; o < results.size(); ++o) {
      const int arg = g.AddArg(node.outputs[o], node.device);
      body.constants.resize(g.num_args());
      body.constants[g.num_args() - 1] = TensorHandle::CreateReady(std::move(results[o]), device);
      replace.push_back({Endpoint{id, static_cast<int>(o)}, Endpoint{arg, 0}});
    }
    keep[id] = false;
    // Later nodes read the new constants directly, so they may fold too.
    for (int c = id + 1; c < num_nodes; ++c) {
      for (Endpoint& in : g.mutable_node(c).inputs) {
        if (in.node == id) in = replace[replace.size() - results.size() + in.output].second;
      }
    }
  }
  keep.resize(g.num_nodes(), true);
  for (Endpoint& e : g.mutable_outputs()) {
    for (const auto& [from, to] : replace) {
      if (from == e) e = to;
    }
  }
  RewriteGraph(g, keep, {});
  return Status::OK();
}

GraphOptimizerOptions& GraphOptimizerOptions::Global() {
  static GraphOptimizerOptions options;
  return options;
}

Status OptimizeGraph(FunctionBody& body) {
  const GraphOptimizerOptions& options = GraphOptimizerOptions::Global();
  body.constants.resize(body.graph.num_args());
  if (options.arithmetic_optimization) EMBER_RETURN_IF_ERROR(SimplifyArithmetic(body));
  if (options.constant_folding) EMBER_RETURN_IF_ERROR(FoldConstants(body));
  if (options.common_subexpression) EMBER_RETURN_IF_ERROR(EliminateCommonSubexpressions(body));
  if (options.arithmetic_optimization) EMBER_RETURN_IF_ERROR(SimplifyArithmetic(body));
  EMBER_RETURN_IF_ERROR(EliminateDeadCode(body));
  if (options.remapping) EMBER_RETURN_IF_ERROR(FuseMatmulEpilogues(body));
  if (options.remapping) EMBER_RETURN_IF_ERROR(FuseElementwise(body));
  return InsertTransfers(body);
}

}  // namespace ember
