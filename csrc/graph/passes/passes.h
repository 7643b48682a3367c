// This file declares the graph optimization passes that run once per
// concrete function, before it is instantiated (Note [Graph passes]).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "runtime/tensor_handle.h"

namespace ember {

// Note [Graph passes]
// Each pass is a small function over a FunctionBody and is tested on its
// own (tests/cpp/graph_passes_test.cc). Passes never renumber arguments:
// argument i stays the caller's argument i. `constants` has one entry per
// argument: the captured handle when the argument is a constant captured
// at trace time (its value cannot change between calls), else null
// (parameters, variables). Constant folding appends arguments.
struct FunctionBody {
  Graph graph;
  std::vector<RefPtr<TensorHandle>> constants;
};

// Drops op nodes that no graph output depends on.
Status EliminateDeadCode(FunctionBody& body);
// Merges nodes with the same op, attrs, dtypes and inputs.
Status EliminateCommonSubexpressions(FunctionBody& body);
// Removes identities: x * 1, 1 * x, x + 0, 0 + x, x - 0, x / 1 (when the
// result has x's shape and dtype), identity(x), and transpose of transpose
// when the permutations cancel.
Status SimplifyArithmetic(FunctionBody& body);
// Evaluates, with the CPU kernels, nodes whose inputs are all constants and
// whose outputs are small, replacing them by new constant arguments.
Status FoldConstants(FunctionBody& body);

// Replaces a dense layer's matmul (b one matrix, a a matrix or a batch of
// them), the bias added to its product and a
// relu or approximate gelu after by one fused_matmul node, on devices with
// memory of their own (Note [Where matmul epilogues are fused]).
Status FuseMatmulEpilogues(FunctionBody& body);

// Replaces groups of element-wise nodes of one dtype and shape by
// fused_elementwise nodes (Note [Element-wise fusion] in
// ops/fused_program.h, Note [Fusion groups]).
Status FuseElementwise(FunctionBody& body);

// Partitioning by device: each node already carries the device placement
// chose for it when it was traced (the eager rules). Every data edge
// between two devices gets a transfer node on the consumer's device, so
// each device's nodes form a subgraph whose inputs from other devices all
// arrive through transfers. The one dataflow executor runs all partitions,
// each node with its own device's kernel.
Status InsertTransfers(FunctionBody& body);
struct DevicePartition {
  std::string device;
  std::vector<int> nodes;  // op node ids, in order
};
std::vector<DevicePartition> PartitionByDevice(const Graph& graph);

// Which passes OptimizeGraph runs; ember.config.optimizer's experimental
// options, named as TensorFlow's grappler names them. Read when a function
// is traced: functions traced earlier keep their graphs.
struct GraphOptimizerOptions {
  std::atomic<bool> arithmetic_optimization{true};  // SimplifyArithmetic
  std::atomic<bool> constant_folding{true};         // FoldConstants
  std::atomic<bool> common_subexpression{true};     // EliminateCommonSubexpressions
  std::atomic<bool> remapping{true};                // FuseElementwise
  static GraphOptimizerOptions& Global();
};

// The pipeline: simplify, fold, CSE, DCE, fuse matmul epilogues, fuse
// element-wise groups, then partition
// (transfers), each optional pass as the options say.
Status OptimizeGraph(FunctionBody& body);

// Rebuilds `graph` keeping the nodes with keep[id], every use of an
// endpoint in `replace` redirected (chains followed), ids renumbered in
// order. Argument nodes are always kept.
void RewriteGraph(Graph& graph, const std::vector<bool>& keep, const std::vector<std::pair<Endpoint, Endpoint>>& replace);

}  // namespace ember
