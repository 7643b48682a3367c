// This file declares GraphFunction, a traced and optimized graph ready to
// call, and CallGraphFunction, which runs it like one op.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "graph/executor.h"
#include "graph/graph.h"
#include "runtime/execute.h"

namespace ember {

// Immutable once built; calls from several threads share it. The executor
// is instantiated on the first call (Note [Dataflow executor]).
class GraphFunction {
 public:
  explicit GraphFunction(Graph graph) : graph_(std::move(graph)) {}

  const Graph& graph() const { return graph_; }
  // The instantiated executor, created once.
  Status GetExecutor(const GraphExecutor** out) const;

 private:
  Graph graph_;
  mutable std::once_flag once_;
  mutable Status init_status_;
  mutable std::unique_ptr<GraphExecutor> executor_;
};

// Calls `fn` on `inputs` (one per graph argument) as one asynchronous op:
// output handles, with shapes known at once, go into `result`; the graph
// runs on the first output's device executor (async mode) or is handed
// back as result->inline_task (sync mode), like Execute. Argument dtypes
// and shapes are checked here; kernel errors poison the outputs and name
// the failing node's op and traced location.
Status CallGraphFunction(std::shared_ptr<const GraphFunction> fn, std::vector<RefPtr<TensorHandle>> inputs,
                         ExecuteResult* result);

}  // namespace ember
