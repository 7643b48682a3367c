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

}  // namespace ember
