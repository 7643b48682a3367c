// This file declares GraphFunction, a traced and optimized graph ready to
// call (through the call_function op, graph/call_function.cc).
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "graph/executor.h"
#include "graph/graph.h"

namespace ember {

// Immutable once built; calls from several threads share it. The executor
// is instantiated on the first call (Note [Dataflow executor]).
class GraphFunction {
 public:
  // Holds the functions the graph's nodes call, registered before it
  // (Note [Function lifetime] in graph/call_function.cc).
  explicit GraphFunction(Graph graph);

  const Graph& graph() const { return graph_; }
  // The instantiated executor, created once.
  Status GetExecutor(const GraphExecutor** out) const;

 private:
  Graph graph_;
  std::vector<std::shared_ptr<const GraphFunction>> callees_;
  mutable std::once_flag once_;
  mutable Status init_status_;
  mutable std::unique_ptr<GraphExecutor> executor_;
};

// True for an attr that names a function by id: `function`, or a name
// ending in `_function` (call_function, cond, while_loop).
bool IsFunctionAttr(const char* name);

}  // namespace ember
