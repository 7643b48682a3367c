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
  // Some node of the graph has an effect (Note [Effects in control flow]).
  bool has_effect() const { return has_effect_; }
  // Note [Bounded graphs]: the elements a run produces, or -1.
  int64_t bounded_work() const { return bounded_work_; }
  // The instantiated executor, created once.
  Status GetExecutor(const GraphExecutor** out) const;

 private:
  Graph graph_;
  std::vector<std::shared_ptr<const GraphFunction>> callees_;
  bool has_effect_ = false;
  int64_t bounded_work_ = 0;
  mutable std::once_flag once_;
  mutable Status init_status_;
  mutable std::unique_ptr<GraphExecutor> executor_;
};

// True for an attr that names a function by id: `function`, or a name
// ending in `_function` (call_function, cond, while_loop).
bool IsFunctionAttr(const char* name);

// Note [Effects in control flow]
// A node has an effect when its op is stateful (print), or when it runs a
// function (cond's branches, while_loop's condition and body, a nested
// call) one of whose nodes has an effect: a print inside a branch is the
// cond's effect. The tracer orders such nodes with the other effects, and
// the graph passes keep them even when nothing reads their results, and
// never merge or fold them.
bool HasEffect(const Node& node);

// Note [Bounded graphs]
// A graph without loops whose shapes the trace knows does a bounded amount
// of work: the elements its nodes produce, plus those of the functions its
// nodes call. Such a call runs like any op: on the calling thread in sync
// mode, and at issue or by a reader in async mode when it is that small
// (Note [Running at issue]), with no hand-off to the executor thread, which
// costs a thread wake-up each way (tens of microseconds on a busy
// machine). A graph with a loop, or with shapes known only at run time,
// still runs on the executor while the caller waits watching for Ctrl-C,
// so an endless loop stays interruptible.
int64_t BoundedWork(const Node& node);

}  // namespace ember
