// This file implements EliminateDeadCode: nodes that neither feed an
// output nor have an effect (stateful ops, and control flow around them)
// are dropped.
#include "graph/graph_function.h"
#include "graph/passes/passes.h"

namespace ember {

Status EliminateDeadCode(FunctionBody& body) {
  Graph& g = body.graph;
  std::vector<bool> live(g.num_nodes(), false);
  std::vector<int> stack;
  for (const Endpoint& e : g.outputs()) stack.push_back(e.node);
  for (const Node& n : g.nodes()) {
    if (HasEffect(n)) stack.push_back(n.id);  // its effect is the point (Note [Effects in control flow])
  }
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    if (live[id]) continue;
    live[id] = true;
    for (const Endpoint& in : g.node(id).inputs) stack.push_back(in.node);
    for (int c : g.node(id).control_inputs) stack.push_back(c);
  }
  RewriteGraph(g, live, {});
  return Status::OK();
}

}  // namespace ember
